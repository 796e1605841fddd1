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


def test_whole_programs_agree_with_their_python_twins():
    """Each whole-program benchmark gives the same checksum on runvil, its
    plain-Python twin and C Lua (lupa), at the quick sizes."""
    p = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "json,report,textproc,oop,dijkstra,pipeline",
         "--engines", "runvil,python,lupa", "--output", "-", "--strict"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "MISMATCH" not in p.stdout
    assert "whole programs" in p.stdout


def test_startup_table_has_a_row_per_command():
    sys.path.insert(0, str(ROOT))
    from benchmarks.startup import COMMANDS, render

    text = render([(label, 0.1 * (i + 1)) for i, (label, _) in enumerate(COMMANDS)], reps=3)
    assert "| `python -c pass` | 100 | 1.0× |" in text
    assert "| `runvil lua -e ''` | 200 | 2.0× |" in text
