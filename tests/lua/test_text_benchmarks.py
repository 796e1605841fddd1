"""The text benchmarks of issue 28 (textops, textwork) give the same
checksum on runvil, their plain-Python twins and C Lua (lupa), and the
side-by-side table of text operations still runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_text_benchmarks_agree_with_their_twins_and_lua():
    pytest.importorskip("lupa")
    p = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--only", "textops,textwork",
         "--engines", "runvil,python,lupa", "--output", "-", "--strict"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "MISMATCH" not in p.stdout and "textwork" in p.stdout and "textops" in p.stdout


@pytest.mark.tier
def test_text_rows_agree_with_their_python_twins():
    sys.path.insert(0, str(ROOT))
    from benchmarks import textrows

    text = textrows.make_text(20_000)
    ours, theirs = textrows.run_runvil(text, 1), textrows.run_re(text, 1)
    assert set(ours) == set(textrows.ROWS)
    for name in textrows.ROWS:
        assert ours[name][1] == theirs[name][1], name
    assert '| `for w in s:gmatch("%a+")` |' in textrows.table({"runvil": ours, "re": theirs}, ["runvil", "re"])
