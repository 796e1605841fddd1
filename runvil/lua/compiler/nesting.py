"""Deeply nested statements: a block nested past CPython's limits is hoisted
into a local function of the Lua function and called in its place.

CPython allows 20 statically nested blocks (loops, try) and 100 levels of
indentation per file; Lua allows about 200 nested statements. So when a
block's statements would start past `NEST_BLOCKS` loops or `NEST_INDENT`
levels, they become `def _deepN():` at the top of the Lua function's body,
where indentation starts over. Every Lua local such a function binds is
`nonlocal` (bound at the top of the Lua function), so all hoisted blocks of
one Lua function share its locals, however deeply they were nested. What
leaves the block crosses the function boundary as its return value: None
(fell through), `_BRK` (a break), a label's name (a goto), or a 1-tuple
holding the Lua function's return value; the call site then does the same
thing one level out. `_deep` functions count as their Lua function in
positions and stack levels (`debuginfo.lua_frames`).
"""

from __future__ import annotations

from ..syntax import ast as A

#: loops (and try blocks) a Python function may hold before a block is hoisted
NEST_BLOCKS = 12
#: indentation levels within one Python function before a block is hoisted
NEST_INDENT = 30
#: indentation of a Lua function's body and of a hoisted function's body
BODY_INDENT = 2


class NestingHoister:
    """Mixin of FunctionCompiler: the hoisting of deep blocks."""

    def init_nesting(self):
        self.base_ind = BODY_INDENT
        self.static = 0  # statically nested Python blocks around the code being emitted
        self.frames: list[dict] = []  # hoisted blocks being compiled, innermost last
        self.block_defs: list = []  # their definitions, emitted at the top of the body
        self.hoisted_binds: set = set()  # Lua locals some hoisted block binds

    def too_deep(self, ind: int) -> bool:
        return self.static >= NEST_BLOCKS or ind - self.base_ind >= NEST_INDENT

    def nested(self, blocks: int):
        """Context of a construct that opens `blocks` static Python blocks."""
        return _Nested(self, blocks)

    def bind(self, pyname: str):
        """Notes that the code being emitted binds a Lua local."""
        if self.frames:
            self.frames[-1]["binds"].add(pyname)

    def barrier(self) -> dict | None:
        """The innermost hoisted block, when no loop lies between it and the
        code being emitted (break, goto and return must cross it)."""
        for ctx in reversed(self.loops):
            if ctx["kind"] == "hoist":
                return ctx["frame"]
        return None

    def hoist_block(self, stmts: list, ind: int):
        """Compiles stmts into a hoisted function and emits its call."""
        self.chunk.n_hoisted += 1
        name = f"_deep{self.chunk.n_hoisted}"
        line = stmts[0].line or self.node.line
        frame = {"binds": set(), "gotos": [], "brk": False, "ret": False}
        saved = self.base_ind, self.static
        self.base_ind, self.static = BODY_INDENT + 1, 0
        self.frames.append(frame)
        self.loops.append({"kind": "hoist", "continue": None, "frame": frame})
        mark = len(self.em.lines)
        try:
            self.stmts(stmts, BODY_INDENT + 1)
        finally:
            self.loops.pop()
            self.frames.pop()
            self.base_ind, self.static = saved
        body = self.em.lines[mark:]
        del self.em.lines[mark:]
        head = [(BODY_INDENT, f"def {name}():", line)]
        if frame["binds"]:
            head.append((BODY_INDENT + 1, f"nonlocal {', '.join(sorted(frame['binds']))}", line))
            self.hoisted_binds |= frame["binds"]
        self.block_defs.extend(head + body)
        if not (frame["brk"] or frame["gotos"] or frame["ret"]):
            self.em.emit(ind, f"{name}()", line)
            return
        r = self.temp()
        self.em.emit(ind, f"if ({r} := {name}()) is not None:", line)
        if frame["brk"]:
            self.em.emit(ind + 1, f"if {r} is _BRK:", line)
            self.s_Break(A.Break(line=line), ind + 2)
        for label in frame["gotos"]:
            self.em.emit(ind + 1, f"if {r} == {label!r}:", line)
            self.s_Goto(A.Goto(label, line=line), ind + 2)
        if frame["ret"]:
            self.emit_return(f"{r}[0]", ind + 1, line)

    def break_out(self, ind: int, line: int) -> bool:
        """A break that must leave a hoisted block first: emits it."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or loop["kind"] != "hoist":
            return False
        loop["frame"]["brk"] = True
        self.em.emit(ind, "return _BRK", line)
        return True

    def goto_out(self, frame: dict, label: str, ind: int, line: int):
        if label not in frame["gotos"]:
            frame["gotos"].append(label)
        self.em.emit(ind, f"return {label!r}", line)

    def emit_return(self, value: str, ind: int, line: int):
        """`return value`, giving back the steps of the loops it leaves."""
        inner = []
        for loop in reversed(self.loops):
            if loop["kind"] == "hoist":
                break
            inner.append(loop)
        for loop in reversed(inner):
            if loop.get("refund"):
                self.em.emit(ind, loop["refund"], line)
        frame = self.barrier()
        if frame is not None:
            frame["ret"] = True
            self.em.emit(ind, f"return ({value},)", line)
        else:
            self.em.emit(ind, f"return {value}", line)

    def nesting_prologue(self, params: set) -> list:
        """Lines for the top of the Lua function's body: the bindings the
        hoisted blocks' `nonlocal`s need, then the blocks themselves."""
        if not self.block_defs:
            return []
        out = []
        names = sorted(self.hoisted_binds - params)
        if names:
            out.append((BODY_INDENT, " = ".join(names) + " = None", self.node.line))
        return out + self.block_defs


class _Nested:
    __slots__ = ("fc", "n")

    def __init__(self, fc, n: int):
        self.fc, self.n = fc, n

    def __enter__(self):
        self.fc.static += self.n

    def __exit__(self, *exc):
        self.fc.static -= self.n
