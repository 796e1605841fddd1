"""Every message the spec quotes is produced verbatim by the code: each
text of spec_messages.py is made by a small prompt, through the Python
API on a scripted world, and compared byte for byte. With the spec beside
the repo, each listed text is still quoted there, and every text the spec
sets apart as a message (alone on a line, or a bullet of "Record error
messages", or backquoted in the specification's language chapter) is listed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import runvil
from runvil.engine.effects import ModelReply

from .spec_messages import MESSAGES, NOT_MESSAGES

ROOT = Path(__file__).resolve().parents[2]


def spec_folder() -> Path | None:
    """The spec beside the repo (../shared/spec), or beside its worktrees."""
    for up in (ROOT.parent, ROOT.parent.parent):
        folder = up / "shared" / "spec"
        if (folder / "conversations.md").exists():
            return folder
    return None


SPEC = spec_folder()
needs_spec = pytest.mark.skipif(SPEC is None, reason="the spec is not beside the repo")

HEAD = ("---\nname: t\ndescription: A test prompt.\nrunvil: 0\nmodels:\n  writer: {{}}\n{extra}---\n\n"
        "# T\n\n{first}## A\n\n```lua\nmodels.use('writer')\n"
        "local ok, e = pcall(function()\n{lua}\nend)\nreturn tostring(e)\n```\n")


def made(entry: dict) -> str:
    """The text the entry's prompt makes: its result (tostring of the
    error it caught), or the message of the error it failed with."""
    extra = entry.get("extra", "")
    if "prompt" in entry:
        text = f"---\nname: t\ndescription: A test prompt.\nrunvil: 0\nmodels:\n  writer: {{}}\n{extra}---\n\n"
        text += entry["prompt"]
    else:
        text = HEAD.format(extra=extra, first=entry.get("first", ""), lua=entry["lua"])
    try:
        prompt = runvil.parse_text(text)
    except runvil.ParseError as e:
        assert entry.get("parse"), e
        return e.message
    world = {"models": {"writer": {"context": 4096}}, "replies": entry.get("replies", [{"text": "ok"}] * 4)}
    try:
        if entry.get("harness") == "empty":  # a reply a Host builds itself: no backend phrase
            return runvil.run(prompt, harness=lambda effect: ModelReply(""))
        return runvil.run(prompt, script=world)
    except runvil.RunFailed as e:
        return e.error.message


@pytest.mark.parametrize("entry", MESSAGES, ids=[f"{i}:{e['example'][:50]}" for i, e in enumerate(MESSAGES)])
def test_the_code_says_the_spec_text(entry):
    got = made(entry)
    if entry.get("prefixed"):  # Lua's own error: `section `A` prologue:N: ` first
        got = re.sub(r"^section `[^`]*` (?:prologue|block \d+):\d+: ", "", got)
    assert got == entry["example"]


def test_each_example_fits_its_spec_text():
    for entry in MESSAGES:
        parts = re.split(r"\{[a-z_ +0-9]*\}|\b[NJK]\b", entry["spec"])
        assert re.search(".+?".join(re.escape(p) for p in parts), entry["example"]), entry


def _spec_texts() -> dict[str, str]:
    return {name: (SPEC / name).read_text(encoding="utf-8") for name in ("conversations.md", "runvil.md", "host.md")}


@needs_spec
def test_each_listed_text_is_quoted_by_the_spec():
    texts = {name: " ".join(text.split()) for name, text in _spec_texts().items()}  # the specification wraps its lines
    for entry in MESSAGES:
        assert " ".join(entry["spec"].split()) in texts[entry["where"].split(" § ")[0]], entry["spec"]


def quoted_in_conversations(text: str) -> list[str]:
    """The chapter's texts set apart as messages: a one-line paragraph after
    a paragraph that ends with a colon, and the message of a bullet that
    reads `• TEXT comes from ...`."""
    paras = re.split(r"\n\s*\n", text)
    found = []
    for before, para in zip([""] + paras, paras):
        lines = para.strip().split("\n")
        if len(lines) == 1 and before.strip().endswith(":") and not lines[0].startswith("•"):
            found.append(lines[0])
        found += [m.group(1) for m in (re.match(r"• (.*?) comes from", line) for line in lines) if m]
    return found


def quoted_in_runvil(text: str) -> list[str]:
    """runvil.md's backquoted texts of three words or more."""
    return [a or b for a, b in re.findall(r"``(.+?)``|`([^`\n]+)`", text) if len((a or b).split()) >= 3]


@needs_spec
def test_every_text_the_spec_quotes_is_listed():
    texts = _spec_texts()
    listed = {e["spec"] for e in MESSAGES} | {e["example"] for e in MESSAGES} | NOT_MESSAGES
    quoted = quoted_in_conversations(texts["conversations.md"]) + quoted_in_runvil(texts["runvil.md"])
    prose = [q for q in quoted if len(q) > 200 or q.endswith(".")]  # a sentence, not a message
    missing = [q for q in quoted if q not in listed and q not in prose]
    assert missing == []
