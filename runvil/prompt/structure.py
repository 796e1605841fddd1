"""The structure of a prompt file: the `---` lines around the frontmatter
(whose YAML frontmatter.py reads), and the Markdown body: the H1, the
sections, and their pieces.

Only the block structure the language needs is read, line by line, with
CommonMark's rules for the parts it uses (docs/reference/prompt-file.md):

- An **ATX heading** is up to 3 spaces, 1 to 6 `#`, then a space, a tab or
  the end of the line; an optional closing run of `#` is dropped and the
  text is trimmed (`## Chat ##` is section `Chat`). Setext headings (text
  underlined with `===` or `---`) are not headings here: they stay prose.
  Heading text is taken as written (`## The *Chat*` is named `The *Chat*`).
- A **fence** opens with up to 3 spaces and at least three backticks or
  tildes, and closes with a run of the same character at least as long, on
  its own line. The first word of the info string decides: exactly `lua`
  makes a Lua block, anything else (or nothing) is prose. The indentation of
  the opening fence is removed from the code lines, as CommonMark does.
  Nothing inside a fence is a heading.
- An **HTML comment** that starts a line (`<!--`, up to 3 spaces) runs to
  the line holding `-->`; it is kept in the prose piece, nothing inside it
  is a heading or a fence, and the Engine drops comments when it fills in
  prose, so a commented-out section stays out, as Markdown viewers show.
- Quotes and list items are not looked into: `> ## x` is prose.

The body must be: blank lines or HTML comments, exactly one H1, its body,
then H2 sections with unique, non-empty names. Each problem is a
`Structure` error with its line; all of them are collected. A prose piece
holds consecutive non-Lua lines; blank-only stretches are dropped, so a
`Prose` always has text.
"""

from __future__ import annotations

import re

from ..structs import Struct
from .model import LuaBlock, ParseError, Prose, Section

MESSAGE = "invalid frontmatter: {detail}"  # frontmatter.py's problems too
NO_FRONTMATTER = "the file must start with a '---' line that opens the frontmatter"
UNCLOSED = "the frontmatter opened on line {line} is never closed with a '---' line"
NO_H1 = "no H1 heading: a prompt needs one '# Title' line before its sections"
TEXT_BEFORE_H1 = "text before the H1 heading: the body starts with its '# Title' line"
H1_AFTER_H2 = "H1 heading after a section: the '# Title' line must come before every '## Section'"
SECOND_H1 = "a second H1 heading (the first is on line {first})"
EMPTY_SECTION_NAME = "a section heading needs a name"
DUPLICATE_SECTION = "duplicate section name `{name}` (first on line {first})"
UNTERMINATED_FENCE = "unterminated code fence: {fence} is never closed"
MORE_ERRORS = "... and {count} more errors (only the first {limit} are listed)"
MANY_MORE_ERRORS = "... and more than {count} more errors (reading stopped at line {line})"

#: the parse errors listed for one file; the rest are counted (a 16 MB file
#: of `#` lines would otherwise make eight million of them)
MAX_ERRORS = 100
#: the errors counted past MAX_ERRORS before the body is read no further
MAX_COUNTED = 10_000

H1_CHUNK = "h1"
SECTION_CHUNK = "section `{name}`"

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*\Z")
_CLOSING_HASHES = re.compile(r"(?:\A|[ \t]+)#+\Z")
_FENCE = re.compile(r"( {0,3})(`{3,}|~{3,})(.*)\Z")
_COMMENT = re.compile(r" {0,3}<!--")


def _is_delimiter(line: str) -> bool:
    return line.rstrip(" \t") == "---"


def split_frontmatter(lines: list[str]) -> tuple[int | None, int, str | None]:
    """Finds the frontmatter in the file's lines. Returns (end, body_start,
    problem): `end` is the 1-based line of the closing `---` (None when
    there is no usable frontmatter), `body_start` the first body line, and
    `problem` a frontmatter detail when the delimiters are wrong."""
    if not lines or not _is_delimiter(lines[0]):
        return None, 1, NO_FRONTMATTER
    for i in range(1, len(lines)):
        if _is_delimiter(lines[i]):
            return i + 1, i + 2, None
    return None, len(lines) + 1, UNCLOSED.format(line=1)


def chunk_name(owner: str, index: int) -> str:
    """`{owner} prologue` for a container's first block, then `block 2`..."""
    return f"{owner} prologue" if index == 1 else f"{owner} block {index}"


def read_heading(line: str) -> tuple[int, str] | None:
    """(level, text) when `line` is an ATX heading."""
    m = _ATX.match(line)
    if not m:
        return None
    text = _CLOSING_HASHES.sub("", m.group(2) or "")
    return len(m.group(1)), text.strip(" \t")


def read_fence(line: str) -> tuple[str, int, str] | None:
    """(fence run, indent, info word) when `line` opens a fence."""
    m = _FENCE.match(line)
    if not m:
        return None
    indent, run, info = m.groups()
    if run[0] == "`" and "`" in info:
        return None
    words = info.split()
    return run, len(indent), words[0] if words else ""


def closes_fence(line: str, run: str) -> bool:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return False
    body = stripped.rstrip(" \t")
    return len(body) >= len(run) and body == run[0] * len(body)


def _fence_end(lines: list[str], start: int, run: str) -> int:
    """The line closing the fence opened on line `start` (past the end
    when there is none)."""
    end = start + 1
    while end <= len(lines) and not closes_fence(lines[end - 1], run):
        end += 1
    return end


def _comment_end(lines: list[str], start: int) -> int:
    """The line holding the `-->` of the comment opened on line `start`
    (the last line when there is none, as in CommonMark)."""
    at = lines[start - 1].index("<!--") + 4
    end = start
    while end <= len(lines) and "-->" not in lines[end - 1][at if end == start else 0 :]:
        end += 1
    return min(end, len(lines))


def _dedent(line: str, indent: int) -> str:
    i = 0
    while i < indent and i < len(line) and line[i] == " ":
        i += 1
    return line[i:]


class Body(Struct, frozen=True):
    """The parsed Markdown body: title, H1 body, sections, problems."""

    title: str
    h1: Section
    sections: tuple[Section, ...]
    errors: tuple[ParseError, ...]
    dropped: tuple = (0, 0, 0)  # errors past MAX_ERRORS: (how many, the first one's line, the line reading stopped at)


class _Container:
    """Collects the pieces of the H1 body or of one section."""

    def __init__(self, name: str | None, line: int, owner: str):
        self.name, self.line, self.owner = name, line, owner
        self.pieces: list = []
        self.prose: list[str] = []
        self.prose_line = 0
        self.blocks = 0

    def add_prose(self, line_no: int, text: str) -> None:
        if not self.prose:
            self.prose_line = line_no
        self.prose.append(text)

    def flush(self) -> None:
        if self.prose and any(line.strip() for line in self.prose):
            self.pieces.append(Prose("\n".join(self.prose), self.prose_line))
        self.prose = []

    def add_block(self, code_lines: list[str], first_line: int) -> None:
        self.flush()
        self.blocks += 1
        self.pieces.append(LuaBlock("\n".join(code_lines), first_line, chunk_name(self.owner, self.blocks)))

    def section(self) -> Section:
        self.flush()
        return Section(self.name, self.line, tuple(self.pieces))


def read_body(lines: list[str], start: int, path: str) -> Body:
    """Reads file lines `start`.. (1-based; `lines[0]` is line 1)."""
    errors: list[ParseError] = []
    dropped = [0, 0, 0]  # errors past MAX_ERRORS: their count, the first one's line, the line reading stopped at

    def fail(message: str, line: int, **fields) -> None:
        if len(errors) < MAX_ERRORS:
            errors.append(ParseError("Structure", message.format(**fields) if fields else message, line, path))
            return
        dropped[0] += 1
        dropped[1] = dropped[1] or line
        if dropped[0] >= MAX_COUNTED:
            dropped[2] = line

    h1: _Container | None = None
    late_h1 = False  # an H1 that came after a section (its own error)
    title = ""
    sections: list[_Container] = []
    first_of: dict[str, int] = {}
    # Before the H1, text goes to a scratch container that is then dropped.
    current = _Container(None, start, H1_CHUNK)
    before_h1 = current
    text_before_h1 = False
    n = start
    last = len(lines)
    while n <= last and not dropped[2]:
        line = lines[n - 1]
        fence = read_fence(line)
        if fence is not None:
            run, indent, word = fence
            end = _fence_end(lines, n, run)
            if current is before_h1 and not text_before_h1:
                fail(TEXT_BEFORE_H1, n)
                text_before_h1 = True
            if end > last:
                fail(UNTERMINATED_FENCE, n, fence=line.strip())
                for k in range(n, last + 1):
                    current.add_prose(k, lines[k - 1])
                break
            if word == "lua":
                current.add_block([_dedent(lines[k - 1], indent) for k in range(n + 1, end)], n + 1)
            else:
                for k in range(n, end + 1):
                    current.add_prose(k, lines[k - 1])
            n = end + 1
            continue
        if _COMMENT.match(line):
            end = _comment_end(lines, n)
            for k in range(n, end + 1):
                current.add_prose(k, lines[k - 1])
            n = end + 1
            continue
        heading = read_heading(line)
        if heading is not None and heading[0] <= 2:
            level, text = heading
            if level == 1:
                if h1 is not None:
                    fail(SECOND_H1, n, first=h1.line)
                elif sections:
                    fail(H1_AFTER_H2, n)
                    late_h1 = True
                else:
                    h1 = current = _Container(None, n, H1_CHUNK)
                    title = text
                    n += 1
                    continue
                current.add_prose(n, line)
            else:
                if not text:
                    fail(EMPTY_SECTION_NAME, n)
                elif text in first_of:
                    fail(DUPLICATE_SECTION, n, name=text, first=first_of[text])
                else:
                    first_of[text] = n
                current = _Container(text, n, SECTION_CHUNK.format(name=text))
                sections.append(current)
            n += 1
            continue
        if current is before_h1 and line.strip() and not text_before_h1:
            fail(TEXT_BEFORE_H1, n)
            text_before_h1 = True
        current.add_prose(n, line)
        n += 1
    if h1 is None and not late_h1 and not dropped[2]:  # (an H1 may follow where reading stopped)
        # Without any H1, "text before the H1" would only repeat the point.
        # An H1 after the sections has its own error: "no H1" would be false.
        errors[:] = [e for e in errors if e.message != TEXT_BEFORE_H1]
        first_text = next((k for k in range(start, last + 1) if lines[k - 1].strip()), None)
        candidates = [k for k in (first_text, sections[0].line if sections else None) if k is not None]
        errors.append(ParseError("Structure", NO_H1, min(candidates) if candidates else max(1, min(start, last)), path))
    h1_section = h1.section() if h1 is not None else Section(None, 0, ())
    return Body(title, h1_section, tuple(s.section() for s in sections), tuple(errors), tuple(dropped))


def capped(errors: list[ParseError], dropped: tuple, path: str) -> list[ParseError]:
    """A file's parse errors in line order: the first MAX_ERRORS, then one
    that counts the rest (with the `dropped` ones read_body did not keep)."""
    errors = sorted(errors, key=lambda e: e.line)
    count = dropped[0] + max(0, len(errors) - MAX_ERRORS)
    if not count:
        return errors
    first = min([e.line for e in errors[MAX_ERRORS:]] + ([dropped[1]] if dropped[0] else []))
    if dropped[2]:
        more = MANY_MORE_ERRORS.format(count=count, line=dropped[2])
    else:
        more = MORE_ERRORS.format(count=count, limit=MAX_ERRORS)
    return errors[:MAX_ERRORS] + [ParseError("Structure", more, first, path)]
