// The playground's Web Worker: loads Pyodide and, at the same time, the
// site's bundle (site-packages.zip: runvil and the packages a run imports)
// and the parser's prebuilt table; keeps runvil's cache folder and the
// modules' bytecode in IndexedDB (a second visit compiles nothing again),
// and a memory snapshot of Pyodide taken once runvil is imported (a second
// visit starts from it instead of starting Python and importing again; a
// first visit starts from the site's own, snapshot.bin.gz, where the
// command that wrote the site could make one: snapshot.mjs);
// then runs what the page asks through runvil.host.playground.session's
// Page (JSON in and out: no proxy of a Python object is kept, so the
// snapshot can be taken between two calls), one message at a time.
// Between the page's messages it parses a first prompt and runs the
// examples once in the background, so that running one later reuses what
// was compiled for it; the snapshot is taken after that, on a first visit. Each step's time is posted to the page (`timing`)
// and printed on the console.
"use strict";

const started = performance.now();
const CACHE = "/cache"; // kept in IndexedDB
const SNAPSHOTS = "runvil-playground-snapshots"; // the IndexedDB database of the memory snapshot
let pyodide = null;
let ready = false; // _page, a session.Page, is in Python's __main__
let site = null;
let lazyLoaded = false;
let snapshotKey = null; // where a first visit saves its snapshot (null: it has one)
const tasks = []; // the page's messages, in order
let background = []; // examples to run while nothing else waits
let pumping = false;
let dirty = false; // the cache folder changed since it was last saved
let saving = false;

function mark(name, since) {
  const ms = Math.round(performance.now() - since);
  self.postMessage({ type: "timing", name, ms });
  return performance.now();
}

self.onmessage = (ev) => {
  if (ev.data.type === "warm") background = background.filter((item) => item.firstParse).concat(ev.data.items);
  else tasks.push(ev.data);
  pump();
};

async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (tasks.length || (ready && background.length)) {
      if (tasks.length) {
        await safely(tasks.shift());
      } else {
        warmOne(background.shift());
        if (!background.length) {
          if (snapshotKey) takeSnapshot();
          save();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 0)); // lets the page's next message in first
    }
  } finally {
    pumping = false;
  }
  if (dirty) save();
}

/** One background item: the first parse, or a run of an example. */
function warmOne(item) {
  const t = performance.now();
  try {
    if (item.firstParse) pyodide.runPython("session.first_parse()");
    else call({ type: "run", prompt: item.prompt, world: item.world, input: item.input });
    mark(item.firstParse ? "first parse" : "background run: " + item.name, t);
  } catch (e) {
    // the learner's own run of it shows what went wrong
  }
  dirty = true;
}

/** Python's memory now (runvil imported, the examples parsed and run
 * once), saved for the next visit. */
function takeSnapshot() {
  const key = snapshotKey;
  snapshotKey = null;
  const t = performance.now();
  let made = null;
  try {
    made = pyodide.makeMemorySnapshot();
  } catch (e) {
    return; // the next visit starts Python again
  }
  mark("snapshot taken", t);
  writeSnapshot(key, made).catch(() => {});
}

/** Page.call: a message to the Python side, its answer. */
function call(msg) {
  return JSON.parse(pyodide.runPython(`_page.call(${JSON.stringify(JSON.stringify(msg))})`));
}

async function safely(msg) {
  try {
    await handle(msg);
  } catch (e) {
    // a Python exception's message is its traceback: its last line, as the command says it
    const lines = String(e && e.message ? e.message : e).trim().split("\n");
    const text = "runvil: internal error: " + lines[lines.length - 1] + "\n";
    if (msg.type === "run") self.postMessage({ type: "result", id: msg.id, result: "", error: text, view: "" });
    else if (msg.type === "repl") self.postMessage({ type: "repl", opened: "", output: text, more: false });
    else self.postMessage({ type: "failed", message: text });
  }
}

async function handle(msg) {
  if (msg.type === "init") return init();
  if (msg.type === "run") {
    const t = performance.now();
    const out = await withLazyPackages(() => call(msg));
    const ms = Math.round(performance.now() - t);
    dirty = true;
    self.postMessage({ type: "result", id: msg.id, ms, ...out });
  } else if (msg.type === "repl") {
    const out = await withLazyPackages(() => call(msg));
    self.postMessage({ type: "repl", ...out });
  }
}

/** Runs `body`; if it needs a package the bundle does not hold, unpacks
 * the site's other wheels and runs it again. */
async function withLazyPackages(body) {
  try {
    return body();
  } catch (e) {
    if (lazyLoaded || !String(e && e.message).includes("ModuleNotFoundError")) throw e;
    const t = performance.now();
    await Promise.all((site.lazy || []).map(async (wheel) => unpack(await fetchBytes(wheel), "wheel")));
    lazyLoaded = true;
    mark("the other wheels", t);
    return body();
  }
}

async function fetchBytes(url) {
  const reply = await fetch(url);
  if (!reply.ok) throw new Error(`cannot load ${url}: status ${reply.status}`);
  return reply.arrayBuffer();
}

/** A gzipped file's bytes, unpacked as they arrive. */
async function fetchGzipped(url) {
  const reply = await fetch(url);
  if (!reply.ok) throw new Error(`cannot load ${url}: status ${reply.status}`);
  const unpacked = reply.body.pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(unpacked).arrayBuffer());
}

function sitePackages() {
  return pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
}

function unpack(buffer, format) {
  pyodide.unpackArchive(buffer, format, { extractDir: sitePackages() });
}

/** Mounts CACHE on IndexedDB and reads what an earlier visit saved; false
 * when the browser offers no IndexedDB here (the cache then lives in
 * memory only). */
async function mountCache() {
  pyodide.FS.mkdirTree(CACHE);
  try {
    pyodide.FS.mount(pyodide.FS.filesystems.IDBFS, {}, CACHE);
    await new Promise((resolve, reject) => pyodide.FS.syncfs(true, (err) => (err ? reject(err) : resolve())));
    return true;
  } catch (e) {
    return false;
  }
}

function save() {
  if (saving) return; // what changes meanwhile is saved the next time
  saving = true;
  dirty = false;
  const t = performance.now();
  pyodide.FS.syncfs(false, (err) => {
    saving = false;
    if (!err) mark("cache saved", t);
    if (!tasks.length && !background.length && !pumping) self.postMessage({ type: "idle" });
  });
}

/** The snapshot database's one store, in a promise. */
function snapshotStore(mode) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(SNAPSHOTS, 1);
    open.onupgradeneeded = () => open.result.createObjectStore("snapshot");
    open.onerror = () => reject(open.error);
    open.onsuccess = () => resolve(open.result.transaction("snapshot", mode).objectStore("snapshot"));
  });
}

/** The snapshot an earlier visit saved for this Pyodide and this bundle,
 * or null. */
async function readSnapshot(key) {
  const store = await snapshotStore("readonly");
  const saved = await new Promise((resolve, reject) => {
    const got = store.get("pyodide");
    got.onsuccess = () => resolve(got.result);
    got.onerror = () => reject(got.error);
  });
  return saved && saved.key === key ? saved.bytes : null;
}

async function writeSnapshot(key, bytes) {
  const t = performance.now();
  const store = await snapshotStore("readwrite");
  await new Promise((resolve, reject) => {
    const put = store.put({ key, bytes }, "pyodide");
    put.onsuccess = resolve;
    put.onerror = () => reject(put.error);
  });
  mark(`snapshot saved (${Math.round(bytes.length / 1e6)} MB)`, t);
}

async function init() {
  let t = performance.now();
  site = await (await fetch("site.json")).json();
  const base = new URL(site.pyodide, self.location.href).href;
  const bundle = fetchBytes(site.bundle); // while Pyodide loads
  const table = fetchBytes(site.table);
  const key = `${base} ${site.stamp}`;
  const snapshot = readSnapshot(key).catch(() => null);
  bundle.catch(() => {});
  table.catch(() => {});
  importScripts(base + "pyodide.js");
  const env = { RUNVIL_CACHE_DIR: CACHE + "/runvil", HOME: "/home/pyodide" };
  let saved = await snapshot;
  let shipped = false; // the site's own snapshot (written with the site), on a first visit
  if (!saved && site.snapshot) {
    saved = await fetchGzipped(site.snapshot).catch(() => null);
    shipped = saved !== null;
  }
  if (saved) {
    try {
      // (the site's snapshot is started so that one can be taken again, with the examples run)
      pyodide = await loadPyodide({ indexURL: base, env, _loadSnapshot: saved, _makeSnapshot: shipped });
    } catch (e) {
      pyodide = null; // a snapshot this Pyodide cannot load: start as on a first visit
      shipped = false;
    }
  }
  if (!pyodide) {
    saved = null;
    pyodide = await loadPyodide({ indexURL: base, env, _makeSnapshot: true });
  }
  t = mark(shipped ? "pyodide from the site's snapshot" : saved ? "pyodide from its snapshot" : "pyodide", t);
  const kept = await mountCache();
  t = mark(kept ? "cache read" : "no IndexedDB: cache in memory", t);
  unpack(await bundle, "zip");
  // the bundle's stamp dates its files, so the bytecode cached for them
  // (and runvil's compiled chunks, keyed by its files) stay valid across visits
  pyodide.runPython(`
import os, sys, sysconfig
for folder, _, names in os.walk(sysconfig.get_paths()["purelib"]):
    for name in names:
        os.utime(os.path.join(folder, name), (${site.stamp}, ${site.stamp}))
sys.pycache_prefix = "${CACHE}/pyc"
sys.dont_write_bytecode = False  # Pyodide's default is True
`);
  t = mark("bundle unpacked", t);
  if (!saved) {
    pyodide.FS.writeFile("/tmp/parser-table.bin", new Uint8Array(await table));
    const said = pyodide.runPython(`
from runvil.host.playground import boot
boot.install_table("/tmp/parser-table.bin")`);
    t = mark("parser table " + said, t);
    const times = JSON.parse(pyodide.runPython(`
import json
from runvil.host.playground import session
_page = session.Page()
json.dumps(session.imports())`));
    for (const [name, ms] of Object.entries(times)) self.postMessage({ type: "timing", name, ms });
    background.unshift({ firstParse: true }); // before any example the page sends
    snapshotKey = key;
  } else if (shipped) {
    // runvil is imported and the parser built; its table goes into the cache folder as well
    pyodide.FS.writeFile("/tmp/parser-table.bin", new Uint8Array(await table));
    pyodide.runPython(`
from runvil.host.playground import boot
boot.install_table("/tmp/parser-table.bin")`);
    t = mark("parser table installed", t);
    snapshotKey = key;
  } else {
    call({ type: "forget_repl" }); // a REPL of the visit that made the snapshot
  }
  ready = true;
  mark("ready", started);
  self.postMessage({ type: "ready" });
  save(); // the bytecode and the table, before anything else happens
}

tasks.push({ type: "init" }); // at once: the page need not ask
pump();
