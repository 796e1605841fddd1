"""Lua's garbage-collection semantics on Python's collector: weak tables
(`__mode`) and finalizers (`__gc`), as Lua 5.4's manual (§2.5) lets a
program observe them.

A state's Collector knows the tables given a metatable with `__mode` and
the objects marked for finalization (given a metatable with `__gc`, in
that order). Between collections they are held as any value is: a weak
table keeps its entries and a marked object lives, as in Lua, where an
entry goes only when a collection runs. A collection (`collect`, run by
`collectgarbage`, the step meter's check and the state's close) does,
with Python's automatic collector held off:

1. it takes the collectable keys and values out of every weak table and
   each marked object out of the mark list, each into a `_Held` that only
   refers to itself, so that nothing of runvil keeps them alive;
2. it runs Python's collector with DEBUG_SAVEALL: what is unreachable
   stays in `gc.garbage` instead of being freed, a marked object among it
   is queued for its finalizer (resurrected, in the reverse order of
   marking), and a weak entry whose key or value is unreachable is
   dropped (a key being finalized stays until the next collection, as
   Lua keeps it);
3. it puts the live entries back in their order and the live marks back
   in the list, and lets the rest go.

Finalizers then run, each once, with the object as argument; an error in
one becomes Lua's warning `error in __gc (message)` (shown where the
granted `warn` is on, dropped elsewhere). A collection runs by itself at
the step meter's check (runvil.lua.state `_tick`) once enough objects were
marked since the last one (as many as lived after it, MIN_MARKS at
least: Lua's pause of 200% counted in finalizable objects) or enough CPU
time went by, never more often than its own cost allows (COST_RATIO), but
at least once a CPU second while objects are marked that fast.
Its weak entries go at once; its finalizers run at the next safe point:
where compiled code calls that check (runvil.lua.state `_safe_point`: a
loop's iteration, a function's entry, a metamethod's call), never where a
builtin charges its work (it may be inside Python code that no Lua may
interrupt) nor inside an operator a generator twin runs directly. There
each is a nested call that may not yield, as Lua's GCTM makes it, so a
twin may call the check as a plain helper: a yield inside a finalizer is
`attempt to yield across a C-call boundary` (a wait on the inline backend
too), never a suspension of the code it interrupted. Ephemeron tables
(weak keys whose values refer to their own keys) keep such entries: the
value is held strongly while the collector runs.
"""

from __future__ import annotations

import gc
import time
import weakref

from ..errors import LimitExceeded, LuaError, stack_overflow_message
from .calls import ccall
from .helpers import CATCHER_CODES, closed_after
from .machine import RUNNING
from .tables import LuaTable, _BoolKey

#: the fewest objects marked for finalization between two automatic collections
MIN_MARKS = 1000
#: an automatic collection waits at least this many times its last one's CPU time
COST_RATIO = 10

#: values Lua never removes from a weak table: strings, numbers, booleans
_VALUES = (str, int, float, bool, type(None), _BoolKey)


class _Held:
    """A weak table's collectable key or value, referred to by itself alone
    while the collector decides whether anything else reaches it."""

    __slots__ = ("obj", "me")

    def __init__(self, obj):
        self.obj = obj
        self.me = self

    def release(self):
        obj, self.obj, self.me = self.obj, None, None
        return obj


class _Part:
    """A weak table's key or value while the collector runs: its _Held by
    id alone (found again in gc.garbage, where every _Held goes)."""

    __slots__ = ("id",)

    def __init__(self, ident: int):
        self.id = ident


class _Marked(_Held):
    """An object marked for finalization, with its place in the order of marking."""

    __slots__ = ("seq",)

    def __init__(self, obj, seq: int):
        super().__init__(obj)
        self.seq = seq


def weak_mode(t: LuaTable) -> tuple[bool, bool]:
    """(weak keys, weak values) by the metatable's `__mode` now."""
    mt = t.meta
    mode = mt.hash.get("__mode") if mt is not None else None
    if type(mode) is not str:
        return False, False
    return "k" in mode, "v" in mode


def call_finalizer(f, obj, warn) -> None:
    """`__gc(obj)` as Lua's GCTM calls it: a nested call that may not
    yield (so a generator twin's step check may run it: compiler/shapes.py
    NO_YIELD), whose error becomes a warning (luaE_warnerror). A sandbox
    limit is no Lua error: it goes on up."""
    m = RUNNING[0]
    co = m.co
    if co is not None:
        co.nny += 1
    try:
        ccall(f, obj)
    except LimitExceeded:
        raise
    except (LuaError, RecursionError) as e:
        msg = stack_overflow_message(e) if isinstance(e, RecursionError) else e.value
        msg = closed_after(msg, co or m)  # a protected call: what its error left closes here
        if warn is not None:
            warn(f"error in __gc ({msg if type(msg) is str else 'error object is not a string'})")
    finally:
        if co is not None:
            co.nny -= 1


CATCHER_CODES.add(call_finalizer.__code__)


def _with_dead_keys(skip: set) -> list:
    """The tables (of any state: Python's heap is one) holding a dead key
    that is an object, but those in `skip`."""
    found = []
    for o in gc.get_objects():
        if type(o) is LuaTable and o._tomb and id(o) not in skip:
            if any(v is None and not isinstance(k, _VALUES) for k, v in o.hash.items()):
                found.append(o)
    return found


class Collector:
    """The weak tables and the marked objects of one state."""

    def __init__(self):
        self.weak: weakref.WeakSet = weakref.WeakSet()
        self.marked: dict = {}  # id(obj) -> _Marked, in the order of marking (a marked object cannot die)
        self.seq = 0
        self.pending: list = []  # objects found by a collection whose finalizers have not run yet
        self.finalizing = False
        self.warn = None  # the granted `warn`'s sink for a finalizer's error; None drops it
        self.stopped = False  # collectgarbage('stop'): no automatic collection
        self.marks = 0  # objects marked since the last collection
        self.threshold = MIN_MARKS  # the marks that make an automatic collection due
        self.cost = 0.0  # CPU seconds the last collection took

    def __bool__(self) -> bool:
        return bool(self.marked) or bool(self.pending) or len(self.weak) > 0

    def metatable_set(self, t, mt) -> None:
        """What setmetatable(t, mt) tells: a weak table; a marked object
        (only a `__gc` present now marks, as in Lua; once until finalized)."""
        if mt is None:
            return
        h = mt.hash
        if h.get("__mode") is not None:
            self.weak.add(t)
        if h.get("__gc") is not None and id(t) not in self.marked:
            self.marks += 1
            self.seq += 1
            self.marked[id(t)] = _Marked(t, self.seq)

    # ------------------------------------------------------------ a collection

    def collect(self) -> None:
        """One full collection, then every finalizer waiting."""
        self.sweep()
        self.finish()

    def due(self, since: float, every: float) -> bool:
        """Whether an automatic collection should run, `since` CPU seconds
        after the last one: `every` seconds have passed, or as many objects
        were marked as lived after it; not sooner than its cost allows. The
        cost grows with the garbage found, so once enough objects were
        marked the wait is `every` at most: else a loop that makes garbage
        faster than a tenth of its collection's pace would wait ten times
        longer for each collection than for the last."""
        if self.stopped:
            return False
        wait = self.cost * COST_RATIO
        if self.marks >= self.threshold:
            return since >= (wait if wait < every else every)
        return since >= every and since >= wait

    def sweep(self) -> None:
        """One full collection whose finalizers wait (for `finish`)."""
        if self.finalizing:  # asked for by a finalizer: Python's collection alone
            gc.collect()
            return
        start = time.process_time()
        self.pending.extend(self._collect())
        self.cost = time.process_time() - start
        self.marks = 0
        self.threshold = max(MIN_MARKS, len(self.marked))

    def finish(self) -> None:
        """Runs the finalizers waiting, at a safe point (`collectgarbage`,
        the step check compiled code calls): Lua code may run here (none
        runs while a finalizer does, or inside an operator that a generator
        twin called directly: they wait for the next safe point)."""
        if self.pending and not self.finalizing and not RUNNING[0].direct:
            due, self.pending = self.pending, []
            self._finalize(due)

    def _collect(self) -> list:
        """Steps 1 to 3 of the module's docstring; the objects due for
        finalization, in the reverse order of marking."""
        enabled = gc.isenabled()
        gc.disable()
        flags = gc.get_debug()
        start = len(gc.garbage)
        try:
            taken = []
            for t in list(self.weak):
                wk, wv = weak_mode(t)
                if wk or wv:
                    taken.append(self._take(t, wk, wv))
            dead_keys = [self._take_dead_keys(t) for t in _with_dead_keys({id(t) for t, _, _ in taken})]
            self.marked.clear()  # each _Marked now refers to itself alone
            gc.set_debug(flags | gc.DEBUG_SAVEALL)
            try:
                gc.collect()
            finally:
                gc.set_debug(flags)
            found = gc.garbage[start:]
            del gc.garbage[start:]
            garbage = {id(x) for x in found}
            holders = {id(x): x for x in found if isinstance(x, _Held)}  # every _Held: nothing else refers to one
            marked = sorted((x for x in found if type(x) is _Marked), key=lambda x: -x.seq)
            due = []
            for x in marked:
                if id(x.obj) in garbage:
                    due.append(x.release())
                else:
                    self.marked[id(x.obj)] = x
            self.marked = dict(sorted(self.marked.items(), key=lambda item: item[1].seq))
            due_ids = {id(x) for x in due}
            for t, items, arr in taken:
                self._put_back(t, items, arr, holders, garbage, due_ids)
            for t, items in dead_keys:
                self._put_back_dead_keys(t, items, holders, garbage, due_ids)
            del found, marked, holders
        finally:
            if enabled:
                gc.enable()
        gc.collect()  # what gc.garbage alone kept goes now
        return due

    @staticmethod
    def _take_dead_keys(t: LuaTable):
        """Empties a table into its entries, each dead key (one whose value
        was set to nil, kept for `next`) that is an object as a _Part: Lua
        does not mark a dead key, so it keeps no object alive."""
        items = [(_Part(id(_Held(k))) if v is None and not isinstance(k, _VALUES) else k, v)
                 for k, v in t.hash.items()]
        t.hash.clear()
        t._iter = None
        return t, items

    @staticmethod
    def _put_back_dead_keys(t: LuaTable, items: list, holders: dict, garbage: set, due: set) -> None:
        """Refills a table in its order, without the dead keys that nothing
        else reaches (no walk can be at one: its loop would hold it)."""
        h = t.hash
        for k, v in items:
            if type(k) is _Part:
                k = holders[k.id].release()
                if id(k) in garbage and id(k) not in due:
                    t._tomb -= 1
                    continue
            h[k] = v

    @staticmethod
    def _take(t: LuaTable, wk: bool, wv: bool):
        """Empties a weak table into its entries and array values, each
        weak collectable part a _Held known here by a weak reference and
        its id alone (so that only the _Held itself refers to it)."""
        def hold(v, weak):
            if weak and not isinstance(v, _VALUES):
                return _Part(id(_Held(v)))
            return v

        items = [(hold(k, wk), hold(v, wv)) for k, v in t.hash.items() if v is not None]
        arr = [hold(v, wv) for v in t.arr]
        t.hash.clear()  # (the same dict: compiled code may hold it)
        t.arr.clear()
        t._tomb = 0
        t._iter = None
        return t, items, arr

    @staticmethod
    def _put_back(t: LuaTable, items: list, arr: list, holders: dict, garbage: set, due: set) -> None:
        """Refills a weak table with the entries that live: a dead value
        drops its entry, a dead key too unless it waits for its finalizer."""
        def alive(x, key: bool):
            if type(x) is not _Part:
                return True, x
            obj = holders[x.id].release()
            if id(obj) not in garbage or key and id(obj) in due:
                return True, obj
            return False, None

        h = t.hash
        for k, v in items:
            ok_k, key = alive(k, True)
            ok_v, value = alive(v, False)
            if ok_k and ok_v:
                h[key] = value
        values = [value if ok else None for ok, value in (alive(v, False) for v in arr)]
        while values and values[-1] is None:
            values.pop()
        t.arr.extend(values)

    # ------------------------------------------------------------ finalizers

    def _finalize(self, due: list) -> None:
        self.finalizing = True
        i = 0
        try:
            while i < len(due):
                obj = due[i]
                i += 1
                mt = getattr(obj, "meta", None)
                f = mt.hash.get("__gc") if mt is not None else None
                if f is not None:
                    call_finalizer(f, obj, self.warn)
        finally:
            self.finalizing = False
            if i < len(due):  # a limit stopped them: the rest wait
                self.pending[:0] = due[i:]

    def close(self) -> None:
        """The state closes: every marked object's finalizer, live or not,
        in the reverse order of marking (one stopped by a limit ends alone)."""
        self.pending += [held.release() for held in reversed(self.marked.values())]
        self.marked.clear()
        while self.pending:
            due, self.pending = self.pending, []
            try:
                self._finalize(due)
            except LimitExceeded:  # (that finalizer is done; the others still run)
                pass
