"""docs/DECISIONS.md stays a record a newcomer can read: short, by area,
each decision in its current form. History (issue and session numbers,
before-and-after measurements) belongs to git and benchmarks/history/."""

from __future__ import annotations

import re
from pathlib import Path

RECORD = Path(__file__).resolve().parents[1] / "docs" / "DECISIONS.md"

#: the areas, in order: decisions are filed under them
AREAS = ["The language", "The Lua package", "The Engine", "Providers and Packs", "Hosts", "Batches",
         "The browser", "Tests and benchmarks"]


def test_the_record_is_short():
    words = len(RECORD.read_text(encoding="utf-8").split())
    assert words <= 5000, f"docs/DECISIONS.md has {words} words; keep it under about 5,000"


def test_the_record_is_by_area():
    headings = re.findall(r"^## (.+)$", RECORD.read_text(encoding="utf-8"), re.M)
    assert headings == AREAS


def test_the_record_tells_no_history():
    text = RECORD.read_text(encoding="utf-8")
    history = re.findall(r"(?i)\bissues? #?\d+|\bsession \d+|\d(?: ?M)? ?(?:→|->) ?\d", text)
    assert not history, f"history in docs/DECISIONS.md (it goes to git and benchmarks/history/): {history}"
