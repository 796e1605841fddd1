"""The machine: everything a running Lua program needs besides its code and
its values, on one object (docs/DECISIONS.md, "The machine").

A `Machine` holds the running context's nested C calls (`depth`,
runvil.lua.runtime.calldepth), its running coroutine (`co`, None: a main
coroutine), whether a generator twin calls an operator helper directly
(`direct`), and the state whose limits it runs under: that state's string
metatable, the largest string one operation may build (`max_string`, from
its memory limit), its memory guard and step meter (runvil.lua.stdlib.limits),
and the bytes of small results not reserved yet (`unreserved`).

Every LuaState has a machine of its own, which its calls from the host run
under; an Engine context runs under a machine of its own too, made from the
one that first ran it (runvil.engine.scheduler). A state made on the Lua
thread binds the running machine to itself (`bind`), as the Engine's
contexts make their section's state. Coroutines of a state share its
machine: a resume sets `depth` and `co` and puts them back as it returns.

`RUNNING[0]` is the running machine: the one slot of per-run state in a
module, because exactly one context of the process runs at a time
(runvil.lua.runtime.contexts). `switch` is how a context switch changes it.
"""

from __future__ import annotations

#: the largest string one operation may build outside any state's limit
DEFAULT_MAX_STRING = 2**31


def _unmetered(n: int) -> None:
    """The guard and meter of a machine bound to no state: nothing to count."""


class Machine:
    """What the running Lua needs: see the module's docstring."""

    __slots__ = ("depth", "co", "direct", "state", "string_meta", "max_string", "guard", "meter", "unreserved",
                 "unwinding")

    def __init__(self, state=None):
        self.depth = 0
        self.co = None
        self.unwinding = None  # the main coroutine's closing values an error left, for its catcher
        self.direct = False
        self.unreserved = 0
        self.state = None
        self.string_meta = None
        self.max_string = DEFAULT_MAX_STRING
        self.guard = self.meter = _unmetered
        if state is not None:
            self.bind(state)

    def bind(self, state) -> None:
        """Runs the Lua of `state` from now on: its string metatable, its
        memory limit, its guard and meter (set by its library's install)."""
        self.state = state
        self.string_meta = state.string_meta
        memory = state.limits.memory
        self.max_string = memory if memory is not None else 2**62
        self.guard = getattr(state, "guard", None) or _unmetered
        self.meter = getattr(state, "meter", None) or _unmetered

    def unbind(self) -> None:
        """Runs no state's Lua any more (its state was released): keeps
        nothing of it, so the two form no reference cycle."""
        self.state = None
        self.string_meta = None
        self.guard = self.meter = _unmetered

    def fork(self) -> "Machine":
        """A machine for a new context: the same values as this one's, its
        own from now on (the context starts where its starter was)."""
        m = Machine.__new__(Machine)
        for name in Machine.__slots__:
            setattr(m, name, getattr(self, name))
        return m


#: the running machine (the documented exception: one slot, one context runs)
RUNNING = [Machine()]
#: the machine that runs while no state's call does
IDLE = RUNNING[0]


def running() -> Machine:
    return RUNNING[0]


def switch(machine: Machine) -> Machine:
    """Makes `machine` the running one; returns the one that ran before
    (a context switch, a call from the host; whoever switches puts the
    previous one back)."""
    prev = RUNNING[0]
    RUNNING[0] = machine
    return prev
