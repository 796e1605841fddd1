"""Property: random prompt structures (H1 body, sections, prose, Lua blocks,
other fences holding heading-like lines, H3s, HTML comments) written as
Markdown parse back to the same sections, pieces, lines and chunk names."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from runvil.prompt import LuaBlock, Prose, parse_text
from runvil.prompt.structure import chunk_name

from .util import BODY_LINE, doc

PROSE_LINES = [
    "Some prose.",
    "Ask about {{topic}} in **bold**.",
    "#hashtag is not a heading",
    "    ## indented is not a heading",
    "> ## quoted is not a heading",
    "text with ``` inside",
    "\\## escaped",
    "Étape — unicode",
    "---",
]
LUA_LINES = ["local a = 1", "-- ## not a heading", "x = {1, 2}", "  y = 'z' .. [[# h]]", ""]
FENCE_CONTENT = ["# not an h1", "## not a section", "plain", ""]

blank_lines = st.lists(st.just(""), max_size=2)


@st.composite
def items(draw):
    """One body item: (kind, lines written, payload)."""
    kind = draw(st.sampled_from(["prose", "lua", "fence", "h3", "comment"]))
    if kind == "prose":
        return "prose", draw(st.lists(st.sampled_from(PROSE_LINES), min_size=1, max_size=3)), None
    if kind == "h3":
        return "prose", [draw(st.sampled_from(["### Sub", "#### Deeper", "###### Six ######"]))], None
    if kind == "comment":
        return "prose", ["<!--", draw(st.sampled_from(["## hidden", "```lua", "# hidden h1"])), "-->"], None
    char = draw(st.sampled_from("`~"))
    run = char * draw(st.integers(3, 5))
    if kind == "lua":
        code = draw(st.lists(st.sampled_from(LUA_LINES), max_size=3))
        info = draw(st.sampled_from(["lua", "lua {.numberLines}", " lua"]))
        return "lua", [run + info, *code, run], code
    other = "~~~" if char == "`" else "```"
    content = draw(st.lists(st.sampled_from([*FENCE_CONTENT, other]), max_size=3))
    info = draw(st.sampled_from(["", "python", "Lua", "lua2", "md"]))
    return "prose", [run + info, *content, run], None


section_names = st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,10}", fullmatch=True).map(str.strip)


@st.composite
def prompts(draw):
    names = draw(st.lists(section_names, max_size=5, unique=True))
    h1_items = draw(st.lists(items(), max_size=4))
    sections = [(name, draw(st.lists(items(), max_size=4))) for name in names]
    return h1_items, sections


class Writer:
    """Writes the Markdown and, alongside, the pieces a parser must find."""

    def __init__(self):
        self.lines: list[str] = []
        self.pieces: list = []
        self.run: list[str] = []
        self.run_line = 0
        self.blocks = 0
        self.owner = ""

    @property
    def next_line(self) -> int:
        return BODY_LINE + len(self.lines)

    def prose(self, lines: list[str]) -> None:
        if not self.run:
            self.run_line = self.next_line
        self.run.extend(lines)
        self.lines.extend(lines)

    def flush(self) -> None:
        if any(line.strip() for line in self.run):
            self.pieces.append(Prose("\n".join(self.run), self.run_line))
        self.run = []

    def start(self, heading: str, owner: str) -> tuple:
        self.flush()
        done = tuple(self.pieces)
        self.pieces, self.blocks, self.owner = [], 0, owner
        self.lines.append(heading)
        return done

    def item(self, kind: str, lines: list[str], code) -> None:
        if kind == "prose":
            self.prose(lines)
            return
        self.flush()
        self.blocks += 1
        self.pieces.append(LuaBlock("\n".join(code), self.next_line + 1, chunk_name(self.owner, self.blocks)))
        self.lines.extend(lines)


@given(prompts(), st.data())
def test_random_structures_parse_back(structure, data):
    h1_items, sections = structure
    w = Writer()
    w.start("# Title", "h1")
    for kind, lines, code in h1_items:
        w.prose(data.draw(blank_lines))
        w.item(kind, lines, code)
    expected = []
    for name, section_items in sections:
        heading = data.draw(st.sampled_from([f"## {name}", f"##   {name}  ", f"## {name} ##", f" ## {name}"]))
        done = w.start(heading, f"section `{name}`")
        expected.append(done)
        line = w.next_line - 1
        for kind, lines, code in section_items:
            w.prose(data.draw(blank_lines))
            w.item(kind, lines, code)
        expected[-1] = (done, name, line)
    w.prose(data.draw(blank_lines))
    last = w.start("", "")
    text = doc("\n".join(w.lines[:-1]) + "\n")

    prompt = parse_text(text, "p.md")

    h1_pieces = expected[0][0] if expected else last
    section_pieces = [e[0] for e in expected[1:]] + ([last] if expected else [])
    assert prompt.title == "Title" and prompt.h1.line == BODY_LINE
    assert prompt.h1.pieces == h1_pieces
    assert [(s.name, s.line) for s in prompt.sections] == [(name, line) for _, name, line in expected]
    assert [s.pieces for s in prompt.sections] == section_pieces
    for section in (prompt.h1, *prompt.sections):
        assert all(b.compiled is not None for b in section.blocks)
