"""Runs a batch of `runvil` command lines in this one process, as the
robustness tests' subprocess: one interpreter start for many cases.

Reads a JSON list of argv lists on stdin; for each, calls the CLI's `main`
with stdout and stderr captured through strict UTF-8 text streams (as a
real terminal's would be), and writes one JSON line per case to the real
stdout: `rc`, the ends of `out` and `err`, `seconds` (CPU seconds: a
loaded machine stretches the wall clock, not the work), and `json_ok` (for
`--json`: stdout is one valid JSON object).
"""

from __future__ import annotations

import io
import json
import os
import sys
import time


def run_case(argv: list[str]) -> dict:
    from runvil.host.cli import main

    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict", write_through=True)
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="backslashreplace", write_through=True)
    real = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    start = time.process_time()
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 2
    except BaseException as e:  # noqa: BLE001 - reported, the batch goes on
        rc = f"raised {type(e).__name__}: {e}"
    finally:
        sys.stdout, sys.stderr = real
    seconds = time.process_time() - start
    stdout = out_bytes.getvalue()
    stderr = err_bytes.getvalue().decode("utf-8", "replace")
    json_ok = None
    if "--json" in argv:
        try:
            json.loads(stdout.decode("utf-8"))
            json_ok = True
        except ValueError:
            json_ok = False
    return {"rc": rc, "out": stdout[-2000:].decode("utf-8", "replace"), "err": stderr[-2000:],
            "seconds": seconds, "json_ok": json_ok}


def main() -> None:
    cases = json.loads(sys.stdin.read())
    report = os.fdopen(os.dup(1), "w", encoding="utf-8")
    for argv in cases:
        report.write(json.dumps(run_case(argv)) + "\n")
        report.flush()


if __name__ == "__main__":
    main()
