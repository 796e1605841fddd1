"""The parsed prompt file as frozen classes (runvil.structs), and the parse error.

A `Prompt` is the whole file (docs/reference/prompt-file.md): its frontmatter, its H1
title and body, and its sections. Each section is a sequence of *pieces* in
file order: `Prose` (kept verbatim, never blank) and `LuaBlock` (compiled
with its chunk name and the prompt file's line numbers). Everything here is
immutable: sequences are tuples, so one parsed prompt can back many runs.
"""

from __future__ import annotations

from os import PathLike

from ..structs import Struct, field

#: The parse error kinds of docs/reference/prompt-file.md "Parse errors and their kinds".
KINDS = ("Frontmatter", "Structure", "Lua")


class ParseError(Exception):
    """A prompt that cannot be parsed: `kind`, exact `message`, 1-based file
    `line`, and the `path` as given. `str(e)` is `path:line: message`."""

    def __init__(self, kind: str, message: str, line: int, path: str):
        if kind not in KINDS:
            raise ValueError(f"unknown parse error kind {kind!r}")
        super().__init__(kind, message, line, path)
        self.kind, self.message, self.line, self.path = kind, message, line, path

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"

    def __repr__(self) -> str:
        return f"ParseError({self.kind!r}, {self.message!r}, line={self.line}, path={self.path!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParseError):
            return NotImplemented
        return self.args == other.args

    __hash__ = Exception.__hash__


class RoleOptions(Struct, frozen=True):
    """Options of one model role (`models:` in the frontmatter, docs/reference/models.md).
    An option that is not set is None."""

    model: str | None = None
    temperature: float | int | None = None
    top_p: float | int | None = None
    max_tokens: int | None = None
    thinking: str | None = None
    context: int | None = None


class Frontmatter(Struct, frozen=True):
    """The validated frontmatter. `extra` holds the ignored `x-` keys."""

    name: str
    description: str
    runvil: int = 0
    models: dict[str, RoleOptions] = field(factory=dict)
    uses: tuple[str, ...] = ()
    max_tool_iterations: int = 24
    extra: dict[str, object] = field(factory=dict)


def trim_blank_lines(text: str) -> str:
    """Drops leading and trailing blank lines (lines of only whitespace),
    as the Engine does to prose; inner lines and indentation stay."""
    lines = text.split("\n")
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end])


class Prose(Struct, frozen=True):
    """Markdown text between blocks, verbatim (lines joined by `\\n`, no
    final newline). `line` is the file line of its first line. Other fences,
    H3+ headings and HTML comments are prose too (the Engine drops the
    comments when it fills prose in). Never entirely blank."""

    text: str
    line: int

    @property
    def trimmed(self) -> str:
        return trim_blank_lines(self.text)


class LuaBlock(Struct, frozen=True):
    """A ```lua block: its code (text, without the fences), `line` (the file
    line of the first code line, which is also Lua's line 1 position after
    padding), its chunk name, and the compiled chunk (None only inside the
    parser, before compilation)."""

    code: str
    line: int
    chunkname: str
    compiled: object = field(default=None, eq=False, repr=False)


Piece = Prose | LuaBlock


class Section(Struct, frozen=True):
    """An H2 section, or the H1 body (`name` None). `line` is the heading's
    file line; `pieces` are Prose and LuaBlock in file order."""

    name: str | None
    line: int
    pieces: tuple[Piece, ...] = ()

    @property
    def blocks(self) -> tuple[LuaBlock, ...]:
        return tuple(p for p in self.pieces if isinstance(p, LuaBlock))


class Prompt(Struct, frozen=True):
    """A parsed prompt file. `source_lines[n - 1]` is file line n (newlines
    normalized to `\\n`)."""

    path: PathLike  # a pathlib.Path (pathlib is imported when a Prompt is made)
    frontmatter: Frontmatter
    title: str
    h1: Section
    sections: tuple[Section, ...]
    source_lines: tuple[str, ...] = field(repr=False, eq=False)
    #: The folder holding the prompt file (where `require` looks), made
    #: absolute when the prompt is parsed.
    folder: PathLike = field(init=False, repr=False, eq=False)  # a pathlib.Path
    _index: dict[str, int] = field(init=False, repr=False, eq=False)

    def __post_init__(self):
        from pathlib import Path

        object.__setattr__(self, "folder", Path(self.path).absolute().parent)
        object.__setattr__(self, "_index", {s.name: i for i, s in enumerate(self.sections)})

    @property
    def name(self) -> str:
        return self.frontmatter.name

    def section(self, name: str) -> Section | None:
        """The section called `name` (exact match), or None."""
        i = self._index.get(name)
        return None if i is None else self.sections[i]

    def index_of(self, name: str) -> int | None:
        """The position of section `name` in file order, or None."""
        return self._index.get(name)
