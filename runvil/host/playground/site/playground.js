// The playground page: the editors (CodeMirror, site/codemirror.js), the
// examples menu, the guided tour, Share, and the Web Worker (worker.js,
// started by index.html before this script) where Pyodide and runvil run,
// so the page stays responsive while a block runs up to its step limit.
"use strict";

const $ = (id) => document.getElementById(id);
const TEXT_IDS = ["prompt", "world", "input"];
const MAX_URL = 64 * 1024;
let worker = window.playgroundWorker;
let busy = false;
let nextId = 1;
let replAsked = null; // the REPL line sent, as shown after its prompt
let examples = [];
let tour = [];
let stop = 0; // the tour's chapter shown (its number), 0: none
let reference = null; // the reference's pages by name (reference.json), fetched when one is first opened
let page = ""; // the reference page shown in the tour's panel, "": none
const editors = {};
// what tests and the benchmark read: each worker step's time, each run's,
// and whether the worker is idle with its cache saved
const timings = { steps: {}, runs: [], idle: false };
let runStarted = 0;

window.playground = {
  getText: (id) => (editors[id] ? editors[id].getText() : $(id).value),
  setText(id, text) {
    if (editors[id]) editors[id].setText(text);
    else $(id).value = text;
  },
  timings,
};

function setStatus(text) {
  $("status").textContent = text;
  $("status").dataset.state = text;
  $("run").disabled = text !== "ready" && text !== "done";
}

function startWorker() {
  if (worker) worker.terminate();
  busy = false;
  setStatus("loading");
  worker = new Worker("worker.js");
  listen();
}

function listen() {
  for (const msg of window.playgroundEarly.splice(0)) onWorkerMessage(msg);
  worker.onmessage = (ev) => onWorkerMessage(ev.data);
  worker.onerror = (ev) => {
    $("error").textContent = "the playground's worker failed: " + (ev.message || "unknown error");
  };
}

function onWorkerMessage(msg) {
  if (msg.type === "timing") {
    timings.steps[msg.name] = msg.ms;
    console.log(`playground: ${msg.name} ${msg.ms} ms`);
  } else if (msg.type === "idle") {
    timings.idle = true;
  } else if (msg.type === "ready") {
    setStatus("ready");
    warmExamples();
  } else if (msg.type === "failed") {
    $("error").textContent = msg.message;
  } else if (msg.type === "result") {
    busy = false;
    timings.runs.push({ worker: msg.ms, page: Math.round(performance.now() - runStarted) });
    $("result").textContent = msg.result;
    $("error").textContent = msg.error;
    markError(msg.error);
    $("view").srcdoc = msg.view || "";
    setStatus("done");
  } else if (msg.type === "repl") {
    busy = false;
    const out = $("repl-output");
    out.textContent += msg.opened + (replAsked === null ? "" : replAsked) + msg.output;
    replAsked = null;
    out.scrollTop = out.scrollHeight;
    $("repl-prompt").textContent = msg.more ? ">>" : ">";
    if ($("status").textContent === "running") setStatus("done");
  }
}

/** Sends the examples to the worker to run in the background, the one
 * shown first: running one later reuses what was compiled for it. */
function warmExamples() {
  const current = $("examples").value;
  const items = [...examples].sort((a, b) => (b.name === current) - (a.name === current));
  worker.postMessage({ type: "warm", items });
}

function texts() {
  return Object.fromEntries(TEXT_IDS.map((id) => [id, window.playground.getText(id)]));
}

function run() {
  if (busy || $("run").disabled) return;
  busy = true;
  $("result").textContent = "";
  $("error").textContent = "";
  markError("");
  setStatus("running");
  timings.idle = false;
  runStarted = performance.now();
  worker.postMessage({ type: "run", id: nextId++, ...texts() });
}

/** Marks the line the error points at: its `--> prompt.md:LINE` (or
 * world.yaml's), else the first `prompt.md:LINE` of its message. */
function markError(text) {
  const prompt = text.match(/--> prompt\.md:(\d+)/) || text.match(/^[^\n]*?prompt\.md:(\d+)/);
  const world = text.match(/--> world\.yaml:(\d+)/) || text.match(/world\.yaml: line (\d+)/);
  editors.prompt.mark(prompt ? Number(prompt[1]) : 0);
  editors.world.mark(world ? Number(world[1]) : 0);
}

function replLine(line, fresh) {
  if (busy) return;
  busy = true;
  replAsked = line === null ? null : $("repl-prompt").textContent + " " + line + "\n";
  setStatus("running");
  worker.postMessage({ type: "repl", id: nextId++, line, fresh, ...texts() });
}

function fill(fields) {
  for (const id of TEXT_IDS) window.playground.setText(id, fields[id] || "");
  $("result").textContent = "";
  $("error").textContent = "";
  markError("");
}

function choose(name) {
  const example = examples.find((e) => e.name === name);
  if (!example) return false;
  $("examples").value = name;
  fill(example);
  return true;
}

// ------------------------------------------------------------------ the tour

function showStop(number, loadExample) {
  const chapter = tour.find((c) => c.number === number);
  if (!chapter) return false;
  stop = number;
  page = "";
  $("tour-where").textContent = `chapter ${number} of ${tour.length}`;
  $("tour-text").innerHTML = chapter.html;
  $("tour-text").scrollTop = 0;
  $("tour-prev").disabled = number === tour[0].number;
  $("tour-next").disabled = number === tour[tour.length - 1].number;
  if (loadExample && chapter.example) choose(chapter.example);
  return true;
}

function go(number, loadExample = true) {
  if (!showStop(number, loadExample)) return;
  const url = new URL(location.href);
  url.searchParams.set("tour", String(number));
  url.searchParams.delete("example");
  url.searchParams.delete("ref");
  url.hash = "";
  history.replaceState(null, "", url);
}

async function showPage(name) {
  if (!reference) reference = await (await fetch("reference.json")).json();
  if (!Object.hasOwn(reference, name)) return false;
  page = name;
  $("tour-where").textContent = `reference: ${reference[name].title}`;
  $("tour-text").innerHTML = reference[name].html;
  $("tour-text").scrollTop = 0;
  $("tour-prev").disabled = false; // back to the tour
  $("tour-next").disabled = true;
  return true;
}

async function goPage(name) {
  if (!(await showPage(name))) return;
  const url = new URL(location.href);
  url.searchParams.set("ref", name);
  url.searchParams.delete("tour");
  url.hash = "";
  history.replaceState(null, "", url);
}

// ------------------------------------------------------------------ share

function toBase64Url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

async function through(stream, bytes) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

function say(text, bad) {
  $("share-message").textContent = text;
  $("share-message").classList.toggle("bad", !!bad);
}

async function share() {
  const json = JSON.stringify(texts());
  const packed = await through(new CompressionStream("deflate-raw"), new TextEncoder().encode(json));
  const url = new URL(location.href);
  url.hash = "s=" + toBase64Url(packed);
  const link = url.href;
  if (link.length > MAX_URL) {
    say(`Too long to share: the link would be ${Math.ceil(link.length / 1024)} KB, and a shared link holds ` +
        "at most 64 KB. Shorten the prompt or the world.", true);
    return;
  }
  history.replaceState(null, "", link);
  say("The address bar now holds the prompt, world and input: copy it to share.");
  // the clipboard may ask for a permission nobody answers: the message above stands meanwhile
  const copied = await Promise.race([
    navigator.clipboard.writeText(link).then(() => true, () => false),
    new Promise((resolve) => setTimeout(() => resolve(false), 2000)),
  ]);
  if (copied) say("Link copied: it holds the prompt, world and input.");
}

/** The fields a `#s=` link holds, or null (none, or unreadable: said). */
async function shared() {
  const m = location.hash.match(/^#s=([A-Za-z0-9_-]*)$/);
  if (!location.hash.startsWith("#s=")) return null;
  try {
    if (!m) throw new Error("not URL-safe base64");
    const json = new TextDecoder().decode(await through(new DecompressionStream("deflate-raw"), fromBase64Url(m[1])));
    const fields = JSON.parse(json);
    if (typeof fields !== "object" || fields === null) throw new Error("not the playground's fields");
    return fields;
  } catch (e) {
    say("This shared link cannot be read (it may have been cut short): " + e.message, true);
    return null;
  }
}

// ------------------------------------------------------------------ start

async function main() {
  listen();
  setStatus("loading");
  editors.prompt = window.RunvilEditor.create($("prompt"), { language: "markdown", onRun: run });
  editors.world = window.RunvilEditor.create($("world"), { language: "yaml", onRun: run });
  const [ex, tr] = await Promise.all([fetch("examples.json"), fetch("tour.json")]);
  examples = await ex.json();
  tour = await tr.json();
  for (const e of examples) {
    const option = document.createElement("option");
    option.value = e.name;
    option.textContent = `${e.chapter}: ${e.name}`;
    $("examples").appendChild(option);
  }
  const params = new URLSearchParams(location.search);
  const wanted = params.get("example");
  const chapter = Number(params.get("tour"));
  if (params.has("tour") && !showStop(chapter, true)) {
    $("error").textContent = `there is no chapter ${params.get("tour")} in the tour`;
  }
  if (wanted && !choose(wanted)) $("error").textContent = `there is no example named ${wanted}`;
  const fields = await shared();
  if (fields) {
    $("examples").value = "";
    fill(fields);
  } else if (!wanted && !params.has("tour")) {
    choose(examples[0].name);
  }
  if (params.has("ref") && !(await showPage(params.get("ref")))) {
    $("error").textContent = `there is no page ${params.get("ref")} in the reference`;
  }
  if (!stop) {
    const of = examples.find((e) => e.name === $("examples").value);
    const number = of ? tour.find((c) => c.title === of.chapter).number : tour[0].number;
    if (page) stop = number; // (the page stays; Previous goes back to this chapter)
    else showStop(number, false);
  }
  $("examples").addEventListener("change", (ev) => {
    if (choose(ev.target.value)) {
      const of = examples.find((e) => e.name === ev.target.value);
      showStop(tour.find((c) => c.title === of.chapter).number, false);
    }
  });
  $("tour-prev").addEventListener("click", () => {
    if (page) go(stop || tour[0].number, false); // back to the tour, the editors as they are
    else go(tour[tour.findIndex((c) => c.number === stop) - 1].number);
  });
  $("tour-next").addEventListener("click", () => go(tour[tour.findIndex((c) => c.number === stop) + 1].number));
  const follow = (ev) => {
    const a = ev.target.closest("a[href^='?tour='], a[href^='?ref=']");
    if (!a) return;
    ev.preventDefault();
    const to = new URLSearchParams(a.getAttribute("href"));
    if (to.has("ref")) goPage(to.get("ref")).catch((e) => say("The reference could not load: " + e, true));
    else go(Number(to.get("tour")));
  };
  $("tour-text").addEventListener("click", follow);
  $("reference").addEventListener("click", follow);
  $("run").addEventListener("click", run);
  $("stop").addEventListener("click", startWorker);
  $("share").addEventListener("click", () => share().catch((e) => say("Share failed: " + e, true)));
  $("repl-reset").addEventListener("click", () => replLine(null, true));
  $("repl-input").addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || busy || $("status").textContent === "loading") return;
    const line = ev.target.value;
    ev.target.value = "";
    replLine(line, false);
  });
  $("input").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) run();
  });
}

main().catch((e) => { $("error").textContent = "the playground could not start: " + e; });
