"""Core semantics: every chunk of tests/lua/cases/*.lua runs on runvil's Lua
and on real Lua 5.4 (lupa) and must print the same and end the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import ours, real

CASES = Path(__file__).parent / "cases"


def _chunks():
    for path in sorted(CASES.glob("*.lua")):
        text = path.read_text(encoding="latin-1")
        line = 1
        for i, chunk in enumerate(text.split("\n-- ===\n")):
            yield pytest.param(chunk, id=f"{path.stem}-{i}-L{line}")
            line += chunk.count("\n") + 2


@pytest.mark.parametrize("code", list(_chunks()))
def test_same_as_lua54(code):
    assert ours(code) == real(code)
