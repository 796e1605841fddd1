"""runvil.prompt: a prompt file (Markdown + YAML frontmatter + Lua blocks)
parsed into a `Prompt`, or into every `ParseError` it has (docs/reference/prompt-file.md).

    prompt = read_prompt("first-chat.md")    # raises the first ParseError
    prompt = parse_text(text, path="x.md")
    errors = check_text(text, "x.md")         # all of them, for `runvil check`

Every ```lua block is compiled here, with its chunk name and the file's line
numbers (the code is padded with newlines so Lua's line N is file line N), so
a block that does not compile fails the parse, before any run. Errors are
ordered by file line. Newlines (`\\r\\n`, `\\r`) read as `\\n`; a leading
UTF-8 byte order mark is dropped. A file that is not UTF-8 is a `Structure`
error on the line of the first bad byte.

Hostile files end in a parse error, never a crash: the parse runs on a
thread with a large stack (the Lua front end and PyYAML recurse), a file is
at most `MAX_FILE_BYTES`, a block at most `MAX_BLOCK_BYTES` of Lua and a
prompt `MAX_BLOCKS` blocks and `MAX_LUA_BYTES` bytes of Lua (compiling
costs about 30 s per MB), and a block the compiler cannot handle
for its size or depth is a `Lua` parse error naming the limit.
"""

from __future__ import annotations

import os
import re
from os import PathLike

from runvil.lua.api import LuaSyntaxError, compile_lua
from runvil.lua.api import run_lua

from ..structs import replace
from .frontmatter_cache import read_frontmatter
from .interpolate import NULL, USERDATA, InterpolationError, NotJSON, fill
from .model import Frontmatter, LuaBlock, ParseError, Prompt, Prose, RoleOptions, Section, trim_blank_lines
from .structure import MESSAGE as _FM_MESSAGE
from .structure import NO_FRONTMATTER, capped, read_body, split_frontmatter

__all__ = [
    "NULL",
    "USERDATA",
    "Frontmatter",
    "InterpolationError",
    "LuaBlock",
    "NotJSON",
    "ParseError",
    "Prompt",
    "Prose",
    "RoleOptions",
    "Section",
    "check_file",
    "check_text",
    "compile_block",
    "fill",
    "read_prompt",
    "parse_text",
    "trim_blank_lines",
]

NOT_UTF8 = "the file is not valid UTF-8 (byte 0x{byte:02x})"
TOO_BIG_FILE = "the file is {size} bytes; the limit is {limit} bytes"
TOO_BIG_BLOCK = "{chunk}: the block is {size} bytes of Lua; the limit is {limit} bytes"
TOO_COMPLEX = "{chunk}: the block nests too deeply to compile"

#: a prompt file's size (bytes)
MAX_FILE_BYTES = 16 * 1024 * 1024
#: one ```lua block's size (UTF-8 bytes): compiling takes ~30 s per MB
MAX_BLOCK_BYTES = 256 * 1024
#: the Lua of a whole prompt: its blocks, and their bytes
MAX_BLOCKS = 1000
MAX_LUA_BYTES = 512 * 1024
TOO_MANY_BLOCKS = "the prompt has more than {limit} Lua blocks"
TOO_MUCH_LUA = "the prompt's Lua blocks hold more than {limit} bytes"


def split_lines(text: str) -> list[str]:
    """The file's lines, newlines normalized; line n is `lines[n - 1]`."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line, it starts none
    return lines


def compile_block(block: LuaBlock, path: str) -> LuaBlock | ParseError:
    """Compiles one block with the file's line numbers: the compiled block,
    or its `Lua` parse error (Lua's own message, which names the chunk)."""
    size = len(block.code.encode("utf-8", "surrogatepass"))
    if size > MAX_BLOCK_BYTES:
        message = TOO_BIG_BLOCK.format(chunk=block.chunkname, size=size, limit=MAX_BLOCK_BYTES)
        return ParseError("Lua", message, block.line, path)
    # The code starts on file line `block.line`: a long comment spanning the
    # lines before it keeps Lua's line numbers the file's, and the scanner
    # skips it in one step (one newline token per line made `runvil check`
    # quadratic in the number of blocks).
    pad = "--[[" + "\n" * (block.line - 2) + "]]\n" if block.line > 1 else ""
    source = pad + block.code
    try:
        # Lua strings hold bytes: the chunk name too (a section may be named `Café`)
        lua_name = block.chunkname.encode("utf-8").decode("latin-1")
        compiled = compile_lua(source.encode("utf-8", "surrogatepass").decode("latin-1"), lua_name, cache=True)
    except LuaSyntaxError as exc:
        message = exc.value if isinstance(exc.value, str) else str(exc)
        message = message.encode("latin-1", "replace").decode("utf-8", "replace")
        m = re.match(re.escape(block.chunkname) + r":(\d+):", message)
        return ParseError("Lua", message, int(m.group(1)) if m else block.line, path)
    except (RecursionError, MemoryError):
        return ParseError("Lua", TOO_COMPLEX.format(chunk=block.chunkname), block.line, path)
    return replace(block, compiled=compiled)


def _over_lua_budget(sections, path: str) -> ParseError | None:
    """The `Structure` error of a prompt with more Lua than `MAX_BLOCKS`
    blocks or `MAX_LUA_BYTES` bytes, on the line of the block past it."""
    count = size = 0
    for section in sections:
        for piece in section.pieces:
            if isinstance(piece, LuaBlock):
                count += 1
                size += len(piece.code.encode("utf-8", "surrogatepass"))
                if count > MAX_BLOCKS:
                    return ParseError("Structure", TOO_MANY_BLOCKS.format(limit=MAX_BLOCKS), piece.line, path)
                if size > MAX_LUA_BYTES:
                    return ParseError("Structure", TOO_MUCH_LUA.format(limit=MAX_LUA_BYTES), piece.line, path)
    return None


def _compile_section(section: Section, path: str, errors: list[ParseError]) -> Section:
    pieces = []
    for piece in section.pieces:
        if isinstance(piece, LuaBlock):
            compiled = compile_block(piece, path)
            if isinstance(compiled, ParseError):
                errors.append(compiled)
                continue
            piece = compiled
        pieces.append(piece)
    return replace(section, pieces=tuple(pieces))


def _parse(text: str, path: str, make: bool = True) -> tuple[Prompt | None, list[ParseError]]:
    """The Prompt (None when there are errors, or with `make` false: `runvil
    check` needs only the errors) and every parse error."""
    lines = split_lines(text)
    errors: list[ParseError] = []
    end, body_start, problem = split_frontmatter(lines)
    frontmatter: Frontmatter | None = None
    if problem is not None:
        errors.append(ParseError("Frontmatter", _FM_MESSAGE.format(detail=problem), 1, path))
    else:
        frontmatter, fm_errors = read_frontmatter("\n".join(lines[1 : end - 1]), 2, path)
        errors.extend(fm_errors)
    if end is None and problem != NO_FRONTMATTER:
        return None, errors  # an unclosed frontmatter swallowed the body
    body = read_body(lines, body_start, path)
    errors.extend(body.errors)
    too_much = _over_lua_budget((body.h1, *body.sections), path)
    if too_much is not None:  # compiling it all would take minutes
        return None, capped([*errors, too_much], body.dropped, path)
    h1 = _compile_section(body.h1, path, errors)
    sections = tuple(_compile_section(s, path, errors) for s in body.sections)
    errors = capped(errors, body.dropped, path)
    if errors or frontmatter is None or not make:
        return None, errors
    from pathlib import Path  # here, not at the top: a check makes no Prompt and needs no pathlib

    prompt = Prompt(Path(path), frontmatter, body.title, h1, sections, tuple(lines))
    return prompt, errors


def _parse_on_big_stack(text: str, path: str, make: bool = True) -> tuple[Prompt | None, list[ParseError]]:
    """`_parse` on a thread whose stack fits the recursion limit the Lua
    runtime sets process-wide (a deep input must not crash the process)."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FILE_BYTES:
        return None, [ParseError("Structure", TOO_BIG_FILE.format(size=size, limit=MAX_FILE_BYTES), 1, path)]
    return run_lua(lambda: _parse(text, path, make))


def check_text(text: str, path: str = "<prompt>") -> list[ParseError]:
    """Every parse error of the prompt `text`, in file-line order."""
    return _parse_on_big_stack(text, str(path), make=False)[1]


def parse_text(text: str, path: str | PathLike = "<prompt>") -> Prompt:
    """Parses a prompt from its text; raises the first ParseError."""
    prompt, errors = _parse_on_big_stack(text, str(path))
    if errors:
        raise errors[0]
    assert prompt is not None
    return prompt


def _read(path: str | PathLike) -> tuple[str | None, ParseError | None]:
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        size = max(os.stat(path).st_size, len(data))  # a device reports 0
        return None, ParseError("Structure", TOO_BIG_FILE.format(size=size, limit=MAX_FILE_BYTES), 1, str(path))
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, ParseError("Structure", NOT_UTF8.format(byte=data[exc.start]), line, str(path))


def read_prompt(path: str | PathLike) -> Prompt:
    """Reads and parses a prompt file; raises the first ParseError (an
    unreadable file raises OSError as usual)."""
    text, error = _read(path)
    if error is not None:
        raise error
    return parse_text(text, path)


def check_file(path: str | PathLike) -> list[ParseError]:
    """Every parse error of the prompt file at `path` (OSError if unreadable)."""
    text, error = _read(path)
    return [error] if error is not None else check_text(text, str(path))
