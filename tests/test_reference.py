"""The language reference (docs/reference/) says what runvil does: every
example on its pages runs here and must give what the page shows, every
heading the conformance cases cite is a heading of exactly one page, and
the globals it lists are exactly the ones a prompt's Lua sees.

An example is a fenced block whose info string's second word is
`example` (a `lua` block: the body of the section `## Example` of the
reference's example prompt; a `markdown` block: a whole prompt file) or
`sandbox` (Lua run as `runvil lua` runs it). The fenced blocks after it, up
to the next example, say what it gives: `yaml world` (the scripted world),
`text result` (the run's result), `text error` (the run error, as
`error[Kind]: message`), `json requests` (what each request sent: a
request's `messages`, or an object of some of its fields), `text events`
(the types of the run's events, in order) and `text output` (what a
sandbox example prints)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "docs" / "reference"
CONFORMANCE = ROOT / "runvil" / "conformance"

#: the prompt a `lua example` block runs in: its body is the section's one block
EXAMPLE_PROMPT = """---
name: example
description: Runs one example of the language reference.
runvil: 0
uses: [web]
models:
  writer: {}
  reviewer: {}
---

# Example

## Example

```lua
BODY
```
"""

_FENCE = re.compile(r"^(`{3,})([^\n`]*)\n(.*?)^\1[ \t]*$", re.S | re.M)
_OUTCOMES = {"world", "result", "error", "requests", "events", "output"}


def pages() -> list[Path]:
    return sorted(REFERENCE.glob("*.md"))


def fenced(text: str):
    """(language, role, body, line) of each fenced block."""
    for m in _FENCE.finditer(text):
        words = m.group(2).split()
        lang = words[0] if words else ""
        role = words[1] if len(words) > 1 else ""
        yield lang, role, m.group(3), text.count("\n", 0, m.start()) + 1


def examples():
    """Each example with what follows it: (id, kind, source, {outcome: text})."""
    found = []
    for page in pages():
        current = None
        for lang, role, body, line in fenced(page.read_text(encoding="utf-8")):
            if role in ("example", "sandbox"):
                kind = "sandbox" if role == "sandbox" else ("prompt" if lang == "markdown" else "block")
                current = (f"{page.name}:{line}", kind, body, {})
                found.append(current)
            elif role in _OUTCOMES and current is not None:
                assert role not in current[3], f"{page.name}:{line}: a second `{role}` for one example"
                current[3][role] = body
    return found


EXAMPLES = examples()


def run_prompt(prompt: str, world: dict) -> dict:
    """The run's `--json` object, from `runvil run` in this process (as
    `runvil conformance` runs a case)."""
    from runvil.host.conformance import run_case

    return run_case({"prompt": prompt, "world": world})


def event_types(prompt: str, world: dict) -> list[str]:
    """The types of the events the run reports, in order (the run log's `type`s)."""
    import runvil
    from runvil.engine.run import Run
    from runvil.harness.answerer import choose_answerer
    from runvil.harness.drive import drive

    parsed = runvil.parse_text(prompt)
    bindings, answer, _ = choose_answerer(list(parsed.frontmatter.models), script=dict(world))
    run = Run(parsed, bindings=bindings, input=answer.world_input)
    drive(run, answer)
    return [e.type for e in run.events.events]


def run_sandbox(code: str) -> str:
    """What `runvil lua -e CODE` prints (stdout, then an uncaught error as `runvil: ...`)."""
    from runvil.host.luaoutput import STANDALONE_LIMITS, error_message
    from runvil.lua.api import LuaError, LuaState

    out: list[str] = []
    state = LuaState(stdout=out.append, allow_load=True, limits=STANDALONE_LIMITS)
    try:
        state.call(state.load(code.encode("utf-8").decode("latin-1"), "=(command line)"))  # Lua strings are bytes
    except LuaError as e:
        out.append(f"runvil: {error_message(e.value)}\n")
    return "".join(out).encode("latin-1").decode("utf-8")


def _subset(want, got) -> bool:
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and _subset(v, got[k]) for k, v in want.items())
    return want == got


@pytest.mark.parametrize("where,kind,source,outcomes", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_the_example_gives_what_the_page_shows(where, kind, source, outcomes):
    if kind == "sandbox":
        assert set(outcomes) == {"output"}, f"{where}: a sandbox example shows its `text output`"
        assert run_sandbox(source).rstrip("\n") == outcomes["output"].rstrip("\n")
        return
    assert ("result" in outcomes) != ("error" in outcomes), f"{where}: show one `text result` or `text error`"
    prompt = source if kind == "prompt" else EXAMPLE_PROMPT.replace("BODY", source.rstrip("\n"))
    from runvil.harness.scripted import read_world_text

    world = read_world_text(outcomes.get("world", "{}")) or {}  # as a world file is read: `14:05` is text
    got = run_prompt(prompt, world)
    if "result" in outcomes:
        assert got["error"] is None, f"{where}: {got['error']}"
        assert got["result"] == outcomes["result"].rstrip("\n")
    else:
        assert got["error"] is not None, f"{where}: the run gave {got['result']!r}"
        assert f"error[{got['error']['kind']}]: {got['error']['message']}" == outcomes["error"].rstrip("\n")
    if "events" in outcomes:
        assert event_types(prompt, world) == outcomes["events"].split(), where
    if "requests" in outcomes:
        want = json.loads(outcomes["requests"])
        sent = got["requests"]
        assert len(want) == len(sent), f"{where}: {len(sent)} requests"
        for w, s in zip(want, sent):
            assert _subset(w, s) if isinstance(w, dict) else w == s["messages"], f"{where}: {s}"


def test_every_example_shows_its_outcome():
    assert len(EXAMPLES) > 100
    for where, kind, _, outcomes in EXAMPLES:
        assert outcomes.keys() & {"result", "error", "output"}, f"{where}: an example without its outcome"


# ------------------------------------------------------------------ headings


def headings(page: Path) -> list[str]:
    """The page's Markdown headings (## and deeper), fenced blocks left out."""
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return re.findall(r"^#{2,6} (.+?)\s*$", text, re.M)


def spec_headings() -> set[str]:
    """The spec headings the conformance cases cite."""
    found = set()
    for path in CONFORMANCE.rglob("*.yaml"):  # a case's `spec:` line, its scalar read as YAML reads it
        for scalar in re.findall(r"^\s*(?:- )?spec: *(.+?) *$", path.read_text(encoding="utf-8"), re.M):
            found.add(str(yaml.safe_load(scalar)))
    return found


def test_every_cited_spec_heading_is_a_heading_of_exactly_one_page():
    where: dict[str, list[str]] = {}
    for page in pages():
        for heading in headings(page):
            where.setdefault(heading, []).append(page.name)
    cited = spec_headings()
    assert len(cited) > 100
    for heading in sorted(cited):
        assert len(where.get(heading, [])) == 1, f"{heading!r}: {where.get(heading, 'on no page')}"


# ------------------------------------------------------------------ globals

#: the pages whose tables list every global a prompt sees, one row each
GLOBAL_PAGES = ("globals.md", "lua.md")
_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)[`( ]")

LIST_GLOBALS = """---
name: globals
description: Lists every global a prompt's Lua sees.
runvil: 0
---

# Globals

## List

```lua
local out = {'messages'}
for k, v in pairs(_G) do
  out[#out + 1] = k
  if type(v) == 'table' and k ~= '_G' then
    for f in pairs(v) do out[#out + 1] = k .. '.' .. f end
  end
end
return table.concat(out, ' ')
```
"""


def engine_globals() -> set[str]:
    """Every global of a section VM (of `runvil chat`'s, which adds `chat`),
    and each field of each library table; `input` with an input."""
    import runvil
    from runvil.engine.run import Run
    from runvil.harness.drive import drive

    run = Run(runvil.parse_text(LIST_GLOBALS), input="x", chat=True)
    outcome = drive(run, lambda effect: None)
    assert outcome.ok, outcome.error
    return set(outcome.result.split())


def documented_globals() -> set[str]:
    """The names in the first cell of each table row of GLOBAL_PAGES."""
    names = set()
    for page in GLOBAL_PAGES:
        for line in (REFERENCE / page).read_text(encoding="utf-8").splitlines():
            if line.startswith("| `"):
                names |= set(_NAME.findall(line.split("|")[1]))
    return names


def test_the_reference_lists_exactly_the_globals_a_prompt_sees():
    actual, documented = engine_globals(), documented_globals()
    assert sorted(actual - documented) == [], "globals the reference does not list"
    assert sorted(documented - actual) == [], "listed globals a prompt does not see"


def test_the_builder_table_lists_exactly_the_methods_of_messages():
    """The list's colon methods (the Engine's own table of them) against the
    rows `messages:NAME(...)` of the builder table."""
    import runvil
    from runvil.engine.run import Run
    from runvil.harness.drive import drive

    methods: set[str] = set()
    run = Run(runvil.parse_text(LIST_GLOBALS), on_vm=lambda vm: methods.update(vm.messages._methods))
    drive(run, lambda effect: None)
    assert methods
    text = (REFERENCE / "conversations.md").read_text(encoding="utf-8")
    assert set(re.findall(r"^\| `messages:(\w+)\(", text, re.M)) == methods


def test_every_error_kind_and_run_error_kind_is_listed():
    from runvil.engine.errors import RUN_ERROR_KIND

    text = (REFERENCE / "error-values.md").read_text(encoding="utf-8")
    for kind, run_kind in RUN_ERROR_KIND.items():
        assert re.search(rf"^\| `{kind}` \|.*\| `{run_kind}` \|$", text, re.M), kind


def github_slug(heading: str) -> str:
    """The anchor a heading gets: lower case, punctuation dropped, spaces as `-`."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_every_link_into_the_reference_names_a_heading_there():
    slugs = {page.name: {github_slug(h) for h in headings(page)} for page in pages()}
    for page in pages():
        for target, anchor in re.findall(r"\]\(([\w.-]*\.md)?#([^)]+)\)", page.read_text(encoding="utf-8")):
            assert anchor in slugs[target or page.name], f"{page.name}: {target}#{anchor}"


def test_the_index_names_every_page():
    index = (REFERENCE / "language.md").read_text(encoding="utf-8")
    for page in pages():
        if page.name != "language.md":
            assert f"]({page.name})" in index, page.name


def test_the_readme_and_the_tutorial_link_the_reference():
    for doc, target in ((ROOT / "README.md", "docs/reference/language.md"),
                        (ROOT / "docs" / "tutorial" / "README.md", "../reference/language.md")):
        assert f"]({target})" in doc.read_text(encoding="utf-8"), doc
