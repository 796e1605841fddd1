"""The benchmark command still runs (a quick smoke run, not a timing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_benchmarks_run_quickly():
    p = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "fib", "--engines", "runvil,python", "--output", "-",
         "--strict"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "fib" in p.stdout and "runvil" in p.stdout


def test_engine_rounds_benchmark_runs():
    sys.path.insert(0, str(ROOT))
    from benchmarks.engine_rounds import bench_rounds

    r = bench_rounds(rounds=10)
    assert r["rounds"] == 11 and r["records at the end"] == 23
