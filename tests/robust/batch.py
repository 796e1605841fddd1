"""Running hostile cases through the real `runvil` command, bounded.

A batch of command lines runs in one subprocess (`driver.py`) under an
address-space limit and a timeout; each case must end with exit status
0-3, no signal, no `runvil: internal error`, valid `--json` output, and a
run log whose last event is `run_ended`. When the subprocess dies (a signal,
a timeout), the first case without a result is the culprit.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("driver.py")
#: the address space of a case's process (issue 10: "4 GiB")
MEMORY = 4 * 1024**3
#: seconds one case may take (issue 10: "a 30 s bound")
CASE_SECONDS = 30.0
#: small run budgets, so a runaway case ends quickly (the limits' own
#: tests show each stops its runaway at its budget)
LIMITS = """\
[limits]
block_steps = 2000000
block_seconds = 5
run_steps = 4000000
run_seconds = 8
section_entries = 200
"""


def _bounded() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run_batch(cases: list[list[str]], cwd: Path) -> list[dict]:
    """Results of the cases, in order; a case the process did not finish
    gets `{"rc": "died: ..."}` and ends the list."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), RUNVIL_CONFIG="")
    env.pop("RUNVIL_TRACEBACK", None)
    try:
        p = subprocess.run([sys.executable, str(DRIVER)], input=json.dumps(cases), capture_output=True, text=True,
                           cwd=cwd, env=env, timeout=CASE_SECONDS * len(cases), preexec_fn=_bounded)
        out, died = p.stdout, (f"died: exit status {p.returncode}: {p.stderr[-1500:]}" if p.returncode else None)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        died = "died: the batch timed out"
    results = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    if len(results) < len(cases):
        results.append({"rc": died or "died: no result", "out": "", "err": "", "seconds": 0, "json_ok": None})
    return results


def problems(argv: list[str], result: dict) -> list[str]:
    """What is wrong with one case's result (empty when it is fine)."""
    found = []
    rc = result["rc"]
    if rc not in (0, 1, 2, 3):
        found.append(f"exit status {rc}")
    if "internal error" in result["err"]:
        found.append("internal error: " + result["err"][-600:])
    if result["json_ok"] is False and rc in (0, 1, 3):  # a usage error prints no JSON
        found.append("--json output is not one valid JSON object: " + result["out"][-300:])
    if result["seconds"] > CASE_SECONDS:
        found.append(f"took {result['seconds']:.1f} s")
    if "--log" in argv and rc in (0, 1):
        log = Path(argv[argv.index("--log") + 1])
        lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
        if not lines or json.loads(lines[-1]).get("type") != "run_ended":
            found.append("the run log does not end with run_ended")
    return found


#: failures in other helpers' areas (issue 10), by a text of their error:
#: a batch whose only failures are these is an expected failure, naming
#: the owner, until the fix lands
KNOWN_ELSEWHERE: dict[str, str] = {}


def assert_robust(cases: list[list[str]], cwd: Path, files: dict[str, str] | None = None) -> list[dict]:
    """Runs the cases; fails naming every bad case with its reproducer, or
    returns their results."""
    import pytest

    results = run_batch(cases, cwd)
    report, owners = [], set()
    for argv, result in zip(cases, results):
        found = problems(argv, result)
        if found:
            shown = {k: v[:400] for k, v in (files or {}).items() if k in " ".join(argv)}
            report.append(f"runvil {' '.join(a[:200] for a in argv)}\n  " + "\n  ".join(found) + f"\n  files: {shown}")
            owners.add(next((o for k, o in KNOWN_ELSEWHERE.items() if k in result["err"]), None))
    if report and None not in owners:
        pytest.xfail("; ".join(sorted(owners)))
    assert not report, "\n\n".join(report)
    return results
