"""lparser.c's limits for the syntax checker (syntax/checker.py): at most 200
local variables in a function (MAXVARS), 255 upvalues (MAXUPVAL) and 255
registers (MAXREGS, lcode.c), each raised as Lua words it: "too many local
variables (limit is 200) in main function near ','", "function or
expression needs too many registers near 'x'". Registers are counted where
lcode.c takes them, closely enough that the `near` token is Lua's."""

from __future__ import annotations

MAXVARS, MAXUPVAL, MAXREGS = 200, 255, 255


class Func:
    """What lparser.c's FuncState counts against Lua's limits: the locals
    declared (active ones first, then those of a `local` not yet in
    scope), the upvalues by name, and the registers in use (`free`, an
    estimate that follows lcode.c where values go to registers); and the
    labels its open blocks hold, (name, line), for lparser.c's checkrepeated,
    which fails a parse at the repeated label, before any later error."""

    __slots__ = ("active", "free", "labels", "line", "nactive", "names", "nreg", "parent", "upvals")

    def __init__(self, parent, line: int, upvals=()):
        self.parent = parent
        self.line = line  # linedefined; 0 for the main function
        self.names: list[str] = []
        self.nactive = 0
        self.active: dict[str, int] = {}  # name -> how many active locals have it
        self.nreg = 0  # registers the active locals hold
        self.free = 0
        self.upvals = set(upvals)
        self.labels: list[tuple[str, int]] = []

    def where(self) -> str:
        return "main function" if self.line == 0 else f"function at line {self.line}"


class Limits:
    """The checker's bookkeeping of locals, upvalues and registers (a mixin:
    the checker holds `fn`, the function being read, and `error`)."""

    def errorlimit(self, fn: Func, limit: int, what: str):
        self.error(f"too many {what} (limit is {limit}) in {fn.where()}")

    def new_localvar(self, name: str):
        fn = self.fn
        if len(fn.names) + 1 > MAXVARS:
            self.errorlimit(fn, MAXVARS, "local variables")
        fn.names.append(name)

    def adjustlocalvars(self, n: int, regs: int | None = None):
        """The last `n` declared locals come into scope, `regs` of them
        (default all) in registers (a compile-time constant holds none)."""
        fn = self.fn
        active = fn.active
        for name in fn.names[fn.nactive : fn.nactive + n]:
            active[name] = active.get(name, 0) + 1
        fn.nactive += n
        fn.nreg += n if regs is None else regs
        fn.free = fn.nreg

    def close_scope(self, names: int, nactive: int, nreg: int):
        """A block ends: the locals declared in it (from index `names` on)
        go out of scope."""
        fn = self.fn
        active = fn.active
        for name in fn.names[names : fn.nactive]:
            active[name] -= 1
        del fn.names[names:]
        fn.nactive, fn.nreg = nactive, nreg
        fn.free = nreg

    def setfree(self, n: int):
        """luaK_checkstack: registers up to `n` are in use."""
        if n > self.fn.free:
            if n >= MAXREGS:
                self.error("function or expression needs too many registers")
            self.fn.free = n

    def singlevar(self, name: str) -> str:
        """Resolves a name as singlevar does (a global reads _ENV), adding
        the upvalues it needs; returns "local", "upvalue" or "global"."""
        kind = self._var(self.fn, name)
        if kind is None:
            self._var(self.fn, "_ENV")
            return "global"
        return kind

    def _var(self, fn: Func | None, name: str) -> str | None:
        if fn is None:
            return None
        if fn.active.get(name):
            return "local"
        if name in fn.upvals:
            return "upvalue"
        if self._var(fn.parent, name) is None:
            return None
        if len(fn.upvals) + 1 > MAXUPVAL:
            self.errorlimit(fn, MAXUPVAL, "upvalues")
        fn.upvals.add(name)
        return "upvalue"
