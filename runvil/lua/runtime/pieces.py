"""Long work inside one builtin call, cut into pieces so the limits are
checked as it goes.

The step countdown is what brings a check of the CPU time, the wall time
and the memory (runvil.lua.state `_tick`); compiled code decrements it at
loop iterations and calls, but a builtin that works on a 100 MB string in
one Python call, or loops in Python over every char of it, would run
between two checks for as long as its input makes it. So above a size
(PIECE_BYTES, PIECE_ITEMS) such work is done a piece at a time, and each
piece charges its steps to the running state's meter before it runs: the
countdown runs out in the middle of the call, and the state's own check
raises the limit's error there. Below that size nothing changes: small
calls and the fast paths cost what they did.

Compiling a chunk (Lua's `load`) is charged the same way: steps in
proportion to its size and its memory reserved before any work, the
limits checked between the stages and every so many tokens of the parse.
"""

from __future__ import annotations

from .machine import RUNNING

#: the bytes of one piece of a pass over a string at C speed (upper of a
#: non-ASCII string: about 70 ns a byte, so a piece is well under 0.1 s)
PIECE_BYTES = 1 << 20
#: the items (chars, matches, values) of one piece of a loop in Python
PIECE_ITEMS = 1 << 14
#: bytes a step pays for in a piece done at C speed (as stdlib/limits.py's
#: BYTES_PER_STEP: one step per 32 bytes)
BYTES_PER_STEP = 5
#: steps one item of a loop in Python costs (a char of utf8.len, a position
#: of gsub's own scan: about a microsecond, a step being about 60 ns)
STEPS_PER_ITEM = 16


def charge(steps: int) -> None:
    """Charges steps to the running state's countdown; when it runs out,
    the state's check runs (and raises the limit passed, if any)."""
    RUNNING[0].meter(steps)


def charge_items(n: int) -> None:
    """Charges n items of a loop in Python (called once per PIECE_ITEMS)."""
    RUNNING[0].meter(n * STEPS_PER_ITEM)


def counted(sub):
    """A replacement function for re.subn that charges PIECE_ITEMS matches
    every PIECE_ITEMS calls (gsub of a long subject, whose replacement may
    call nothing that charges: a table's hash, a function's empty result)."""
    left = PIECE_ITEMS
    meter = RUNNING[0].meter

    def each(m):
        nonlocal left
        left -= 1
        if not left:
            left = PIECE_ITEMS
            meter(PIECE_ITEMS * STEPS_PER_ITEM)
        return sub(m)

    return each


#: the longest subject re.subn replaces in with a literal text in one call
#: that no check can stop (about 30 ns a match at most: 0.5 s)
SUBN_AT_ONCE = 16 << 20


def counted_template(template, size: int):
    """gsub's template (a text, or a function of the match) for a subject
    of `size` bytes: as it is up to SUBN_AT_ONCE, else counted."""
    if size <= SUBN_AT_ONCE:
        return template
    if type(template) is str:
        text = template.replace("\\\\", "\\")  # (re's escape of a literal backslash, undone)
        return counted(lambda m: text)
    return counted(template)


def by_pieces(op, s: str) -> str:
    """op(s) for an op on a string whose result is the join of its results
    on the string's pieces (a change of case, a translation), its steps
    charged, a piece at a time on a long string. The pieces are kept until they are joined: their
    bytes are reserved besides the result's (which the caller reserved)."""
    n = len(s)
    m = RUNNING[0]
    if n <= PIECE_BYTES:
        m.meter(n >> BYTES_PER_STEP)
        return op(s)
    m.guard(n)
    out = []
    steps = PIECE_BYTES >> BYTES_PER_STEP
    for i in range(0, n, PIECE_BYTES):
        m.meter(steps)
        out.append(op(s[i:i + PIECE_BYTES]))
    return "".join(out)


def reversed_by_pieces(s: str) -> str:
    """s[::-1], a piece at a time on a long string (its steps charged)."""
    n = len(s)
    m = RUNNING[0]
    if n <= PIECE_BYTES:
        m.meter(n >> BYTES_PER_STEP)
        return s[::-1]
    m.guard(n)
    out = []
    steps = PIECE_BYTES >> BYTES_PER_STEP
    for end in range(n, 0, -PIECE_BYTES):
        m.meter(steps)
        out.append(s[max(0, end - PIECE_BYTES):end][::-1])
    return "".join(out)


#: the most parts joined in one call (about 10 ns a part, and their bytes)
JOINED_AT_ONCE = 1 << 18


def joined_by_pieces(sep: str, parts: list) -> str:
    """sep.join(parts), its steps charged, a piece of PIECE_ITEMS parts at
    a time on a long list."""
    n = len(parts)
    if n <= JOINED_AT_ONCE:
        RUNNING[0].meter(n)
        return sep.join(parts)
    m = RUNNING[0]
    out = []
    for i in range(0, n, PIECE_ITEMS):
        piece = sep.join(parts[i:i + PIECE_ITEMS])
        m.meter(PIECE_ITEMS + (len(piece) >> BYTES_PER_STEP))
        out.append(piece)
    return sep.join(out)


# ------------------------------------------------------------- compiling

#: steps charged per byte of a chunk `load` compiles, before compiling it,
#: and again after each of the stages parsing and resolving: parsing,
#: resolving and generating code take about 2-8 us a byte together
#: (runvil.lua.syntax, runvil.lua.compiler), a step being about 60 ns
COMPILE_STEPS_PER_BYTE = 16
#: steps charged per byte of the generated Python source before CPython
#: compiles it (about 0.45 us a byte, in one call that no check can stop;
#: the source is about 12 times as long as the chunk)
PYTHON_STEPS_PER_BYTE = 4
#: steps charged per token parsed and per statement compiled, as they go
#: (every parser.TOKENS_PER_PROGRESS tokens and every 1024 statements)
STEPS_PER_TOKEN = 8
STEPS_PER_STATEMENT = 64
#: bytes of memory reserved per byte of a chunk before compiling it: the
#: peak growth of the resident size while a chunk of 1.36 MB of global
#: assignments, table constructors and `do local ... end` blocks compiled
#: (parse 95 MB, code generation 254 MB, CPython's compile of the 17 MB
#: generated source 1.9 GB: ru_maxrss after each stage) was about 1,400
#: bytes a byte
COMPILE_BYTES_PER_BYTE = 1400
#: a chunk this short is compiled as before, uncharged: `load`'s own
#: step cost covers it
SMALL_CHUNK = 4096


class CompileMeter:
    """The `progress` of a compile that Lua's `load` runs
    (compiler.codegen.compile_chunk): charges the running state's step
    countdown stage by stage, so its check (CPU and wall time, steps,
    memory) runs while a long chunk compiles."""

    __slots__ = ("size", "meter")

    def __init__(self, size: int):
        self.size = size
        self.meter = RUNNING[0].meter

    def __call__(self, stage: str, n: int) -> None:
        if stage == "tokens":
            self.meter(n * STEPS_PER_TOKEN)
        elif stage == "statements":
            self.meter(n * STEPS_PER_STATEMENT)
        elif stage == "generated":
            self.meter(n * PYTHON_STEPS_PER_BYTE)
        else:  # the end of a stage: parsed, resolved
            self.meter(self.size * COMPILE_STEPS_PER_BYTE)


def compile_meter(size: int) -> CompileMeter | None:
    """Before `load` compiles a chunk of `size` bytes: charges its first
    steps and reserves its memory (so a step or memory limit refuses a
    chunk too large before any work), and returns the progress to compile
    it with; None for a short chunk."""
    if size <= SMALL_CHUNK:
        return None
    m = RUNNING[0]
    m.meter(size * COMPILE_STEPS_PER_BYTE)
    m.guard(size * COMPILE_BYTES_PER_BYTE)
    return CompileMeter(size)
