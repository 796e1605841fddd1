"""Errors that point into the prompt file: on a terminal, after the plain
`error[Kind]: message` line (the public contract, unchanged), the
offending line of the `.md` file with a caret under the place, as modern
compilers show it:

      --> examples/hello.md:14:11
       |
    14 | print(t.x.y)
       |         ^ attempt to index a nil value (field 'x')

The place comes from the message: Lua names the variable (`global 'x'`,
`field 'y'`), a syntax error the token (`near '='`), a `{{name}}` error
the name; without one, the whole line is underlined.
"""

from __future__ import annotations

import re
import sys

# `section `Chat` prologue:13:` / `h1 block 2:7:`: the file line
_POSITION = re.compile(r"(?:section `[^`]*` |h1 )(?:prologue|block \d+):(\d+):\s*")
_NAMED = re.compile(r"\((?:global|local|field|method|upvalue|constant) '([^']+)'\)")
_NEAR = re.compile(r"near '([^']+)'")
_MISSING = re.compile(r"^global `([^`]+)` is (?:nil|a userdata)")
_MODULE = re.compile(r"^([\w./-]+\.lua):(\d+):\s*")


def on_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def snippet(path: str, lines, line: int, col: int | None, width: int, note: str) -> str:
    """The rustc-style picture of one file line: the line, then a caret
    (or an underline `width` long) at column `col` (1-based)."""
    text = lines[line - 1].rstrip("\n").expandtabs(4)
    if col is None:
        stripped = text.lstrip()
        col, width = len(text) - len(stripped) + 1, max(1, len(stripped.rstrip()))
    gutter = " " * len(str(line))
    marks = " " * (col - 1) + "^" * max(1, width)
    return (f"{gutter}--> {path}:{line}:{col}\n{gutter} |\n{line} | {text}\n"
            f"{gutter} | {marks}{' ' + note if note else ''}\n")


def _place(text: str, name: str | None, last: bool) -> tuple[int | None, int]:
    """Where `name` is on the line (1-based column and width), if it is:
    its first occurrence, or its last for the token a syntax error stopped
    at (the parser read what came before it)."""
    if name:
        text = text.expandtabs(4)
        hits = list(re.finditer(r"(?<![\w.])" + re.escape(name) + r"(?!\w)", text)) or list(
            re.finditer(re.escape(name), text))
        if hits:
            return (hits[-1] if last else hits[0]).start() + 1, len(name)
    return None, 0


def explain(path: str, lines, line: int | None, message: str, name: str | None = None) -> str | None:
    """The picture for an error at a file line, or None when the line is
    not in the file."""
    if line is None or not (1 <= line <= len(lines)):
        return None
    note = _POSITION.sub("", message, count=1)
    named, near = _NAMED.search(note), _NEAR.search(note)
    if name is None and (named or near):
        name = (named or near).group(1)
    col, width = _place(lines[line - 1], name, last=named is None and near is not None)
    return snippet(path, lines, line, col, width, note)


def parse_error_picture(err) -> str | None:
    """For a ParseError: its file line, read from its path."""
    try:
        with open(err.path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    return explain(err.path, lines, err.line, err.message)


def run_error_picture(prompt, message: str, failed_section: str | None) -> str | None:
    """For a run error: the line its message names, or for a `{{name}}`
    error the line holding `{{name` (in the section that failed, when the
    log says which)."""
    lines = list(prompt.source_lines)
    path = str(prompt.path)
    m = _POSITION.match(message) or _POSITION.search(message)
    if m is not None:
        return explain(path, lines, int(m.group(1)), message)
    module = _MODULE.match(message)
    if module is not None:  # a `require`d file beside the prompt
        return _module_picture(prompt, module.group(1), int(module.group(2)), message[module.end():])
    missing = _MISSING.match(message)
    if missing is None:
        return None
    found = _reference_line(prompt, missing.group(1), failed_section)
    if found is None:
        return None
    n, col, width = found
    return snippet(path, lines, n, col, width, message)


_SECTION = re.compile(r"^(?:section `([^`]*)`|h1) (?:prologue|block \d+):(\d+):")


def error_place(prompt, error, events) -> dict:
    """Where a run error happened, as `--json` adds it to the error: `file`,
    `line` and `section` (null in the H1 body), each only when known. The
    line is the one its message or its error value names, or for a
    `{{name}}` error the prose line that holds the reference."""
    failed = _failed_section(events)
    place: dict = {}
    for text in (error.message, getattr(error, "where", "") or ""):
        m = _SECTION.match(text)
        if m is not None:
            return {"file": str(prompt.path), "line": int(m.group(2)), "section": m.group(1)}
        module = _MODULE.match(text)
        if module is not None:
            from pathlib import Path

            return {"file": str(Path(prompt.path).parent / module.group(1)), "line": int(module.group(2)),
                    **({"section": failed} if failed is not None else {})}
    missing = _MISSING.match(error.message)
    if missing is not None:
        line = _reference_line(prompt, missing.group(1), failed)
        if line is not None:
            place = {"file": str(prompt.path), "line": line[0]}
    if failed is not None:
        place["section"] = failed
    return place


def place_line(place: dict) -> str | None:
    """`  --> prompt.md:12 (section `Plan`)`: a run error's place in one
    line, for stderr when it is not a terminal (a terminal gets the picture)."""
    if "line" not in place:
        return None
    section = place.get("section")
    where = f" (section `{section}`)" if section else " (the H1 body)" if "section" in place else ""
    return f"  --> {place['file']}:{place['line']}{where}\n"


def _failed_section(events) -> str | None:
    return next((e.section for e in reversed(events) if e.type == "section_ended" and e.data.get("failed")), None)


def _reference_line(prompt, name: str, failed_section: str | None) -> tuple[int, int, int] | None:
    """(line, column, width) of the first `{{name}}` in the failed section's
    lines (the whole file when the section is not known)."""
    lines = list(prompt.source_lines)
    first, last = 1, len(lines)
    if failed_section is not None:
        section = prompt.section(failed_section)
        if section is not None:
            first = section.line
            later = [s.line for s in prompt.sections if s.line > section.line]
            last = min(later) - 1 if later else len(lines)
    pattern = re.compile(r"\{\{\s*" + re.escape(name) + r"\s*\}\}")
    for n in range(first, last + 1):
        hit = pattern.search(lines[n - 1])
        if hit is not None and not lines[n - 1][: hit.start()].endswith("\\"):
            return n, len(lines[n - 1][: hit.start()].expandtabs(4)) + 1, hit.end() - hit.start()
    return None


def _module_picture(prompt, name: str, line: int, note: str) -> str | None:
    from pathlib import Path

    folder = Path(prompt.folder).resolve()
    file = (folder / name).resolve()
    if folder not in file.parents:
        return None
    try:
        lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    shown = str(Path(prompt.path).parent / name)
    return explain(shown, lines, line, note)


def show_parse_error(err, stream=None) -> None:
    """Writes the picture of a parse error after its `error[Parse]` line,
    only on a terminal."""
    stream = stream or sys.stderr
    if on_terminal(stream):
        picture = parse_error_picture(err)
        if picture:
            stream.write(picture)


def show_run_error(prompt, error, events, stream=None) -> None:
    """Writes the picture of a run error after its `error[Kind]` line,
    only on a terminal."""
    stream = stream or sys.stderr
    if not on_terminal(stream):
        if _MISSING.match(error.message):  # a prose-fill message names no line: say it
            line = place_line(error_place(prompt, error, events))
            if line:
                stream.write(line)
        return
    failed = _failed_section(events)
    picture = run_error_picture(prompt, error.message, failed)
    if picture:
        stream.write(picture)
