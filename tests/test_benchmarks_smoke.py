"""The benchmark command still runs (a quick smoke run, not a timing)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_framework_and_hash_benchmarks_agree_with_their_twins():
    """The unit-test framework and bit-operation benchmarks give the same
    checksum on runvil, their plain-Python twins and C Lua (lupa)."""
    p = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "testfw,hashes", "--engines", "runvil,python,lupa",
         "--output", "-", "--strict"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "MISMATCH" not in p.stdout and "| testfw |" in p.stdout and "| hashes |" in p.stdout


def test_startup_table_has_a_row_per_command():
    sys.path.insert(0, str(ROOT))
    from benchmarks.startup import COMMANDS, render

    text = render([(label, 0.1 * (i + 1)) for i, (label, _) in enumerate(COMMANDS)], reps=3)
    assert "| `python -c pass` | 100 | 1.0× |" in text
    assert "| `runvil lua -e ''` | 200 | 2.0× |" in text


CACHEGRIND_REPORT = """==1== Cachegrind, a cache and branch-prediction profiler
==1== 
==1== I   refs:      1,784,947,447
"""


def test_instruction_counts_read_cachegrind_and_render_the_tables():
    sys.path.insert(0, str(ROOT))
    from benchmarks.instructions import refs, render

    assert refs(CACHEGRIND_REPORT) == 1_784_947_447
    text = render({"pipeline": {"runvil": 189.7, "python": 22.4}, "json": {"runvil": 595.0, "python": 118.8},
                   "fib": {"runvil": 52.7, "python": 11.8}})
    assert "| pipeline | 10000 | 189.7 | 22.4 | 8.47× |" in text
    assert "| fib | 20 | 52.7 | 11.8 | 4.47× |" in text
    whole, micro = text.split("## Micro-benchmarks")
    assert "geometric mean: 6.51× plain Python (2 benchmarks), highest 8.47×" in whole  # sqrt(8.47 * 5.01)
    assert "geometric mean: 4.47× plain Python (1 benchmarks)" in micro


def test_an_instruction_count_child_runs_each_engine():
    # what runs under cachegrind, here without it: loads the program, calls bench(n)
    for engine in ("runvil", "python"):
        p = subprocess.run([sys.executable, "-m", "benchmarks.instructions", "--child", engine, "pipeline", "50", "2"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr


@pytest.mark.skipif(not os.environ.get("RUNVIL_SLOW_TESTS") or shutil.which("valgrind") is None,
                    reason="slow, needs valgrind: set RUNVIL_SLOW_TESTS=1")
def test_instruction_counts_under_cachegrind():
    sys.path.insert(0, str(ROOT))
    from benchmarks.instructions import count

    python, runvil = count("python", "fib", 12), count("runvil", "fib", 12)
    assert 0 < python < runvil < 50 * python
