"""Every message text of the conversation modules is the chapter's own
text (the specification's conversations chapter) and is asserted by some test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from runvil.engine import models
from runvil.engine.conversation import compaction, compose, loop, messages, records, replace, rounds, views

ROOT = Path(__file__).resolve().parents[2]
# the spec beside the repo, or beside the folder of its worktrees
SPEC = next((p for p in (ROOT.parent / "shared" / "spec" / "conversations.md",
                         ROOT.parent.parent / "shared" / "spec" / "conversations.md") if p.exists()),
            ROOT.parent / "shared" / "spec" / "conversations.md")
MODULES = (records, messages, views, replace, compaction, loop, compose, rounds, models)
# texts the chapter leaves to us (docs/reference/conversations.md or our own wording)
NOT_IN_CHAPTER = {"REJECTED", "UNREACHABLE", "RAW_MODEL_CONTEXT", "H_RECEIVER", "USER_SEPARATOR", "SYSTEM_SEPARATOR",
                  "META_LIMIT", "ROLES", "FIELDS", "OVERFLOW_PHRASES", "EXHAUSTED", "DETAIL", "REASONING_IGNORED", "EMPTY_FALLBACK",
                  "MISSING_MODEL", "SYSTEM_PARTS", "TRUNCATED_TOOL_ROUND",
                  "COMPACTOR_AT"}  # a help line names the compactor


def texts():
    for mod in MODULES:
        source = Path(mod.__file__).read_text(encoding="utf-8")
        for name, value in vars(mod).items():
            defined_here = re.search(rf"^{name} = ", source, re.M)  # not one imported from elsewhere
            if defined_here and name.isupper() and isinstance(value, str) and " " in value:
                yield pytest.param(name, value, id=f"{mod.__name__.rsplit('.', 1)[1]}.{name}")


def pattern(text: str) -> str:
    """A regex for a format string: each {placeholder} matches the chapter's
    own placeholder (N, {size}, ...) or a worked example."""
    parts = re.split(r"\{[a-z_0-9]*\}", text)
    return ".+?".join(re.escape(p) for p in parts)


@pytest.mark.skipif(not SPEC.exists(), reason="the spec is not beside the repo")
@pytest.mark.parametrize("name, text", list(texts()))
def test_text_is_the_chapters(name, text):
    if name in NOT_IN_CHAPTER:
        pytest.skip("not a text of the conversations chapter")
    spec = SPEC.read_text(encoding="utf-8")
    assert re.search(pattern(text), spec), text


@pytest.mark.parametrize("name, text", list(texts()))
def test_text_is_asserted_by_a_test(name, text):
    if name in ("USER_SEPARATOR", "SYSTEM_SEPARATOR"):
        pytest.skip("a joiner, not a message")
    head = re.split(r"\{[a-z_0-9]*\}", text)[0][:40] or re.split(r"\{[a-z_0-9]*\}", text)[1][:40]
    sources = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("test_*.py") if p.name != Path(__file__).name)
    sources += "".join(p.read_text(encoding="utf-8") for p in (ROOT / "runvil" / "conformance").rglob("*.yaml"))
    assert head in sources, text
