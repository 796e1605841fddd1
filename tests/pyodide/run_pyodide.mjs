// Runs runvil's command line on Pyodide in Node, as a user of Pyodide
// would: load the pinned Pyodide (the npm package's folder), unpack
// runvil's wheel and its pure-Python dependencies into site-packages,
// mount the repository at /repo, and call runvil.host.cli.main(argv) for
// each argv in turn, from /work, where `examples` and `conformance` are the
// repository's (runvil itself is imported from site-packages, the wheel's,
// never from the repository). Prints a first line {"runvil": FILE} (where
// runvil was imported from), then one JSON line per call:
//   {"argv": [...], "code": 0, "stdout": "...", "stderr": "...", "seconds": 1.2}
// or, when the interpreter itself failed, {"argv": [...], "crash": "..."}.
// An argv ["@python", CODE] runs CODE instead (its stdout and stderr taken
// the same way), as code in a notebook's cell would run.
//
// usage: node run_pyodide.mjs CONFIG.json
//   CONFIG: {"pyodide": DIR, "wheels": [PATH...], "repo": DIR, "runs": [[ARG...]...], "env": {NAME: VALUE}}
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const require = createRequire(path.join(config.pyodide, "package.json"));
const { loadPyodide } = require(path.join(config.pyodide, "pyodide.js"));

const started = Date.now();
const pyodide = await loadPyodide({ indexURL: config.pyodide + path.sep, env: config.env || {} });
const sitePackages = pyodide.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
for (const wheel of config.wheels) {
  pyodide.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel", { extractDir: sitePackages });
}
pyodide.FS.mkdirTree("/repo");
pyodide.mountNodeFS("/repo", config.repo);
for (const name of ["examples", "conformance"]) {
  pyodide.FS.mkdirTree("/work");
  pyodide.FS.symlink("/repo/" + name, "/work/" + name);
}
pyodide.runPython(`
import contextlib, io, json, os, sys, time
os.chdir("/work")

def stream():
    """A stdout like a pipe's: text, with the bytes underneath (\`buffer\`)."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape", newline="\\n",
                            write_through=True)

def text(s):
    s.flush()
    return s.buffer.getvalue().decode("utf-8", "replace")

def run_cli(argv_json):
    from runvil.host.cli import main
    argv = json.loads(argv_json)
    out, err = stream(), stream()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        if argv[:1] == ["@python"]:  # Python code, run as a notebook cell would be
            exec(argv[1], {"__name__": "__cell__"})
            code = 0
        else:
            code = main(argv)
    return json.dumps({"code": code, "stdout": text(out), "stderr": text(err),
                       "seconds": round(time.perf_counter() - t0, 3)})
`);
const runCli = pyodide.globals.get("run_cli");
process.stdout.write(JSON.stringify({ runvil: pyodide.runPython("import runvil; runvil.__file__") }) + "\n");
console.error(`pyodide ${pyodide.version} ready in ${(Date.now() - started) / 1000} s`);
for (const argv of config.runs) {
  let line;
  try {
    line = { argv, ...JSON.parse(runCli(JSON.stringify(argv))) };
  } catch (e) {
    line = { argv, crash: String(e && e.stack ? e.stack : e).slice(-4000) };
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
