"""The playground's speed in headless Chromium on a loopback server: page
load to `ready` and each tutorial example's Run to its result, on a first
visit (fresh profile: empty HTTP cache, no IndexedDB) and a second.

    .venv/bin/python -m benchmarks.playground [--pyodide DIR] [--playwright DIR] [--output PATH]

It writes the site with `runvil playground OUT --pyodide DIR` (default:
the Pyodide test tier's npm folder), serves it on 127.0.0.1 and drives
Debian's chromium through playwright-core (default: the tier's folder
too; `RUNVIL_PYODIDE=1 python -m pytest tests/pyodide` installs both).
Prints a Markdown table (to --output too, when given).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = Path(os.environ.get("RUNVIL_PYODIDE_CACHE") or Path.home() / ".cache" / "runvil-tests")


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def measure(pyodide: Path, playwright: Path, chromium: str) -> dict:
    sys.path.insert(0, str(ROOT))
    from runvil.host.playground import write_site
    from runvil.host.playground.examples import EXAMPLES_JSON

    examples = [e["name"] for e in json.loads(EXAMPLES_JSON.read_text(encoding="utf-8"))]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "site"
        write_site(out, str(pyodide))
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        config = Path(tmp) / "config.json"
        config.write_text(json.dumps({
            "playwright": str(playwright), "chromium": chromium, "profile": str(Path(tmp) / "profile"),
            "url": f"http://127.0.0.1:{server.server_address[1]}/", "examples": examples,
        }))
        try:
            done = subprocess.run(["node", str(HERE / "playground.mjs"), str(config)], capture_output=True,
                                  text=True, timeout=1800)
        finally:
            server.shutdown()
    if not done.stdout.strip():
        raise SystemExit(f"the browser run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(report: dict) -> str:
    lines = [f"Machine: {platform.machine()}, {os.cpu_count()} cores, load average "
             f"{os.getloadavg()[0]:.1f} at the end; {platform.platform()}", ""]
    for v in report["visits"]:
        lines.append(f"### {v['label']} visit: ready in {v['ready'] / 1000:.2f} s")
        lines.append("")
        lines.append("worker steps (ms): " + ", ".join(f"{k} {ms}" for k, ms in v["steps"].items()))
        lines.append("")
        lines.append("Run to the result shown, as the page measures it (and as the driver sees it: click to the"
                     " status read back)")
        lines.append("")
        lines.append("| example | first Run (ms) | second Run (ms) |")
        lines.append("|---|---:|---:|")
        for name in v["rounds"][0]:
            (d1, p1), (d2, p2) = v["rounds"][0][name], v["rounds"][1][name]
            lines.append(f"| {name} | {p1} ({d1}) | {p2} ({d2}) |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pyodide", type=Path, default=CACHE / "pyodide-0.29.5" / "node_modules" / "pyodide")
    p.add_argument("--playwright", type=Path,
                   default=CACHE / "playwright-core-1.65.2" / "node_modules" / "playwright-core")
    p.add_argument("--output", type=Path)
    args = p.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is not installed (apt-get install -y chromium)")
    text = table(measure(args.pyodide, args.playwright, chromium))
    print(text)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
