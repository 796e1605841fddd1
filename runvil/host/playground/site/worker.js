// The playground's Web Worker: loads Pyodide, unpacks runvil's wheel and
// its pure-Python dependencies into site-packages, then runs what the page
// asks, one message at a time, through runvil.host.playground.session.
"use strict";

let pyodide = null;
let session = null;
let repl = null;
let replTexts = null;
let queue = Promise.resolve();

self.onmessage = (ev) => {
  queue = queue.then(() => handle(ev.data)).catch((e) => {
    // a Python exception's message is its traceback: its last line, as the command says it
    const lines = String(e && e.message ? e.message : e).trim().split("\n");
    const text = "runvil: internal error: " + lines[lines.length - 1] + "\n";
    if (ev.data.type === "run") self.postMessage({ type: "result", result: "", error: text, view: "" });
    else if (ev.data.type === "repl") self.postMessage({ type: "repl", opened: "", output: text, more: false });
    else self.postMessage({ type: "failed", message: text });
  });
};

async function handle(msg) {
  if (msg.type === "init") return init(msg.site);
  if (msg.type === "run") {
    const r = session.run(msg.prompt, msg.world, msg.input);
    const out = r.toJs({ dict_converter: Object.fromEntries });
    r.destroy();
    self.postMessage({ type: "result", ...out });
  } else if (msg.type === "repl") {
    let opened = "";
    const texts = JSON.stringify([msg.prompt, msg.world, msg.input]);
    if (msg.fresh || repl === null || texts !== replTexts) {
      if (repl !== null) repl.destroy();
      repl = session.Repl(msg.prompt, msg.world, msg.input);
      replTexts = texts;
      opened = repl.open();
    }
    let more = false;
    let output = "";
    if (msg.line !== null) {
      const r = repl.chunk(msg.line);
      const out = r.toJs({ dict_converter: Object.fromEntries });
      r.destroy();
      output = out.output;
      more = out.more;
    }
    self.postMessage({ type: "repl", opened, output, more });
  }
}

async function init(site) {
  const base = new URL(site.pyodide, self.location.href).href;
  importScripts(base + "pyodide.js");
  pyodide = await loadPyodide({ indexURL: base });
  const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  for (const wheel of site.wheels) {
    const reply = await fetch(wheel);
    if (!reply.ok) throw new Error(`cannot load ${wheel}: status ${reply.status}`);
    pyodide.unpackArchive(await reply.arrayBuffer(), "wheel", { extractDir: sitePackages });
  }
  session = pyodide.pyimport("runvil.host.playground.session");
  try {
    session.warm_up();
  } catch (e) {
    // whatever stops it stops the first run too, which shows it in #error
  }
  self.postMessage({ type: "ready" });
}
