// `runvil playground OUT --pyodide DIR` runs this with Node once the site is
// written: Pyodide started from the site's own files, the site's bundle
// unpacked and runvil imported as the page's worker does it (worker.js,
// init), the parser built by a first parse, then Python's memory saved as
// OUT/snapshot.bin.gz (25 MB, 8 MB gzipped). A first visit starts Pyodide from it instead of
// starting Python and importing runvil in the browser (the files it
// unpacked are not in the snapshot: the worker unpacks the bundle again).
//
//     node snapshot.mjs OUT
"use strict";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";

const out = process.argv[2];
const site = JSON.parse(fs.readFileSync(path.join(out, "site.json"), "utf8"));
const base = path.resolve(out, site.pyodide) + "/";
const { loadPyodide } = createRequire(import.meta.url)(base + "pyodide.js");
const CACHE = "/cache"; // as worker.js: runvil's cache folder and the bytecode
const env = { RUNVIL_CACHE_DIR: CACHE + "/runvil", HOME: "/home/pyodide" };
const bytes = (name) => new Uint8Array(fs.readFileSync(path.join(out, name)));

const pyodide = await loadPyodide({ indexURL: base, env, _makeSnapshot: true, stdout: () => {}, stderr: () => {} });
pyodide.FS.mkdirTree(CACHE);
const purelib = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
pyodide.unpackArchive(bytes(site.bundle), "zip", { extractDir: purelib });
pyodide.runPython(`
import sys
sys.pycache_prefix = "${CACHE}/pyc"
sys.dont_write_bytecode = False
`);
pyodide.FS.writeFile("/tmp/parser-table.bin", bytes(site.table));
pyodide.runPython(`
from runvil.host.playground import boot, session
boot.install_table("/tmp/parser-table.bin")
_page = session.Page()
session.imports()
session.first_parse()
`);
fs.writeFileSync(path.join(out, "snapshot.bin.gz"), zlib.gzipSync(pyodide.makeMemorySnapshot(), { level: 6 }));
