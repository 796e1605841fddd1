// The playground page: the fields, the examples menu, and a Web Worker
// (worker.js) where Pyodide and runvil run, so the page stays responsive
// while a block runs up to its step limit. site.json, written by
// `runvil playground`, says where Pyodide is and which wheels to load.
"use strict";

const $ = (id) => document.getElementById(id);
let worker = null;
let site = null;
let busy = false;
let nextId = 1;
let replAsked = null; // the REPL line sent, as shown after its prompt

function setStatus(text) {
  $("status").textContent = text;
  $("run").disabled = text !== "ready" && text !== "done";
}

function startWorker() {
  if (worker) worker.terminate();
  busy = false;
  setStatus("loading");
  worker = new Worker("worker.js");
  worker.onmessage = (ev) => onWorkerMessage(ev.data);
  worker.onerror = (ev) => {
    $("error").textContent = "the playground's worker failed: " + (ev.message || "unknown error");
  };
  worker.postMessage({ type: "init", site });
}

function onWorkerMessage(msg) {
  if (msg.type === "ready") {
    setStatus("ready");
  } else if (msg.type === "failed") {
    $("error").textContent = msg.message;
  } else if (msg.type === "result") {
    busy = false;
    $("result").textContent = msg.result;
    $("error").textContent = msg.error;
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

function texts() {
  return { prompt: $("prompt").value, world: $("world").value, input: $("input").value };
}

function run() {
  if (busy || $("run").disabled) return;
  busy = true;
  $("result").textContent = "";
  $("error").textContent = "";
  setStatus("running");
  worker.postMessage({ type: "run", id: nextId++, ...texts() });
}

function replLine(line, fresh) {
  if (busy) return;
  busy = true;
  replAsked = line === null ? null : $("repl-prompt").textContent + " " + line + "\n";
  setStatus("running");
  worker.postMessage({ type: "repl", id: nextId++, line, fresh, ...texts() });
}

function choose(name) {
  const example = (site.examples || []).find((e) => e.name === name);
  if (!example) return false;
  $("examples").value = name;
  $("prompt").value = example.prompt;
  $("world").value = example.world;
  $("input").value = example.input;
  $("result").textContent = "";
  $("error").textContent = "";
  return true;
}

async function main() {
  setStatus("loading");
  site = await (await fetch("site.json")).json();
  site.examples = await (await fetch("examples.json")).json();
  for (const e of site.examples) {
    const option = document.createElement("option");
    option.value = e.name;
    option.textContent = `${e.chapter}: ${e.name}`;
    $("examples").appendChild(option);
  }
  const wanted = new URLSearchParams(location.search).get("example");
  if (wanted && !choose(wanted)) $("error").textContent = `there is no example named ${wanted}`;
  $("examples").addEventListener("change", (ev) => choose(ev.target.value));
  $("run").addEventListener("click", run);
  $("stop").addEventListener("click", startWorker);
  $("repl-reset").addEventListener("click", () => replLine(null, true));
  $("repl-input").addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || busy || $("status").textContent === "loading") return;
    const line = ev.target.value;
    ev.target.value = "";
    replLine(line, false);
  });
  for (const id of ["prompt", "world", "input"]) {
    $(id).addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) run();
    });
  }
  startWorker();
}

main().catch((e) => { $("error").textContent = "the playground could not start: " + e; });
