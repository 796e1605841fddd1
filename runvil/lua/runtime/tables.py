"""LuaTable: Lua's table with an array part and a hash part.

Keys are normalized so Python's equalities do not leak into Lua: a float
with an integral value is stored as the integer (Lua: `t[1.0]` is `t[1]`),
and booleans are stored under private key objects (Python: `True == 1`).

Invariants the hot paths rely on:
- `arr[i-1]` holds key i; `arr` never ends in None (trailing nils are popped),
  though it may hold None holes in the middle.
- `hash` never holds the integer key `len(arr) + 1` (it migrates into `arr`),
  so `len(arr)` is always a border, and `#t` is O(1).
- A nil assigned to an existing hash key leaves a None tombstone, so `next`
  and `pairs` can continue over a table whose fields are being cleared, as
  Lua allows; tombstones are swept when new keys are added.
- `hash` is never replaced by another dict, nor `arr` by another list:
  compiled code may hold them (a loop holds the array parts it reads).
- A string key in WATCHED_KEYS is written through set_str only (a table's
  watcher is told there).
"""

from __future__ import annotations

import weakref

from ..compiler.contract import WATCHED_KEYS


class _BoolKey:
    __slots__ = ("value",)

    def __init__(self, value: bool):
        self.value = value

    def __repr__(self):
        return f"<key {self.value}>"


TRUE_KEY = _BoolKey(True)
FALSE_KEY = _BoolKey(False)

_MAXI = 2**63 - 1
_MINI = -(2**63)


def normalize_key(k):
    """The dict key for Lua key k (k not nil, not NaN, not a plain str/int)."""
    t = type(k)
    if t is float:
        if k.is_integer() and -9.3e18 < k < 9.3e18:
            i = int(k)
            if _MINI <= i <= _MAXI:
                return i
        return k
    if t is bool:
        return TRUE_KEY if k else FALSE_KEY
    return k


def denormalize_key(k):
    if type(k) is _BoolKey:
        return k.value
    return k


def watch(table: LuaTable, watcher) -> None:
    """Has set_str call `watcher()` after each write of one of WATCHED_KEYS
    in `table`: the coroutine twins watch `coroutine` in the global table
    and `yield` in the coroutine library, so a twin's `coroutine.yield(x)`
    tests one flag, not two lookups (runvil.lua.runtime.generators); the
    string library watches `__index` in the string metatable and `upper`
    and `lower` in itself (stdlib/string._watch_index). The table
    holds its watcher weakly (its state keeps it): a value that held its own
    key would never die."""
    table.watcher = weakref.ref(watcher)


class LuaTable:
    __slots__ = ("arr", "hash", "meta", "_tomb", "_iter", "watcher", "order", "__weakref__")

    def __init__(self, arr: list | None = None, hash: dict | None = None):
        self.arr = arr if arr is not None else []
        self.hash = hash if hash is not None else {}
        self.meta = None  # the metatable: a LuaTable or None
        self._tomb = 0  # number of None tombstones in hash
        self._iter = None  # (last key, iterator) cache for next()
        self.watcher = None  # what set_str tells of a write of one of WATCHED_KEYS (see watch)
        #: Lua's walk order where it is not arr's then the hash's (_keyed_only):
        #: (keys, key -> index, len(arr)), good while no key is added (arr no
        #: longer than it was, no new key in the hash)
        self.order = None

    # ------------------------------------------------------------ raw get

    def get(self, k):
        if type(k) is str:
            return self.hash.get(k)
        if type(k) is int:
            arr = self.arr
            if 0 < k <= len(arr):
                return arr[k - 1]
            return self.hash.get(k)
        if k is None:
            return None
        if type(k) is float:
            if k != k:
                return None
            k = normalize_key(k)
            if type(k) is int:
                arr = self.arr
                if 0 < k <= len(arr):
                    return arr[k - 1]
            return self.hash.get(k)
        return self.hash.get(normalize_key(k))

    def get_int(self, k: int):
        arr = self.arr
        if 0 < k <= len(arr):
            return arr[k - 1]
        return self.hash.get(k)

    # ------------------------------------------------------------ raw set

    def set(self, k, v):
        """Raw set. Raises ValueError for nil or NaN keys (callers word it)."""
        if type(k) is str:
            self.set_str(k, v)
            return
        if type(k) is not int:
            if k is None:
                raise ValueError("index is nil")
            if type(k) is float:
                if k != k:
                    raise ValueError("index is NaN")
            k = normalize_key(k)
            if type(k) is not int:
                self._set_hash(k, v)
                return
        self.set_int(k, v)

    def set_str(self, k: str, v):
        h = self.hash
        if v is None:
            if h.get(k) is not None:
                h[k] = None
                self._tomb += 1
        else:
            if k not in h:
                if self._tomb:
                    self._sweep()
                self._iter = self.order = None
            h[k] = v
        if k in WATCHED_KEYS and (w := self.watcher) is not None and (f := w()) is not None:
            f()

    def set_int(self, k: int, v):
        arr = self.arr
        n = len(arr)
        if 0 < k <= n:
            arr[k - 1] = v
            if v is None and k == n:
                arr.pop()
                while arr and arr[-1] is None:
                    arr.pop()
            return
        if k == n + 1:
            if v is None:
                return
            arr.append(v)
            h = self.hash
            if h:
                # keys n+2, n+3, ... waiting in the hash part move over
                k += 1
                while k in h:
                    w = h.pop(k)
                    if w is None:
                        self._tomb -= 1
                        break
                    arr.append(w)
                    k += 1
                self._iter = None
            return
        self._set_hash(k, v)

    # a non-integer key of any other type is stored the same way
    _set_hash = set_str

    def _sweep(self):
        """Drops tombstones, in place (compiled code may hold `hash`)."""
        h = self.hash
        if self._tomb > 8 and self._tomb * 2 > len(h):
            dead = [k for k, v in h.items() if v is None]
            for k in dead:
                del h[k]
            self._tomb = 0

    # ------------------------------------------------------------- length

    def length(self) -> int:
        """A border, as the raw `#` operator: O(1) by the invariants."""
        n = len(self.arr)
        if n:
            return n
        h = self.hash
        if not h or h.get(1) is None:
            return 0
        # a key 1 stored while arr was non-empty, which then shrank:
        # luaH_getn's search of the hash part, doubling then halving
        i, j = 1, 2
        while h.get(j) is not None:
            i = j
            if j > _MAXI // 2:
                j = _MAXI
                if h.get(j) is not None:
                    return j
                break
            j *= 2
        while j - i > 1:
            m = (i + j) // 2
            if h.get(m) is None:
                j = m
            else:
                i = m
        return i

    # ---------------------------------------------------------- traversal

    def next(self, k):
        """Lua's next: the (key, value) after k, or None at the end.

        Raises Lua's "invalid key to 'next'" when k is not a key of the
        table (one removed and swept since, or never there)."""
        arr = self.arr
        if self.order is not None and len(arr) <= self.order[2]:
            return self._ordered_next(k)
        if k is None:
            i = 0
        elif type(k) is int and 0 < k <= len(arr):
            i = k
        elif type(k) is float and k.is_integer() and 0 < k <= len(arr):
            i = int(k)
        else:
            i = -1
        if i >= 0:
            n = len(arr)
            while i < n:
                v = arr[i]
                i += 1
                if v is not None:
                    return i, v
            return self._hash_next(None)
        return self._hash_next(k)

    def _hash_next(self, k):
        h = self.hash
        cache = self._iter
        if k is None:
            # the first live key, without copying the items (`next(t) == nil`
            # tests a table for emptiness); a walk that goes on from it finds
            # its place below, a few tombstones in
            for key, v in h.items():
                if v is not None:
                    self._iter = None
                    return denormalize_key(key), v
            self._iter = None
            return None
        if cache is not None and type(cache[0]) is type(k) and cache[0] == k:
            it = cache[1]
        else:
            nk = normalize_key(k)
            if k != k or nk not in h:
                from ..errors import LuaError

                raise LuaError("invalid key to 'next'")
            items = list(h.items())
            pos = 0
            for pos, (key, _v) in enumerate(items):
                if key == nk and type(key) is type(nk):
                    break
            it = iter(items[pos + 1 :])
        for key, v in it:
            if v is not None and h.get(key) is not None:
                v = h[key]
                key = denormalize_key(key)
                self._iter = (key, it)
                return key, v
        self._iter = None
        return None

    def _ordered_next(self, k):
        """next over `order` (integer keys only: no key to denormalize)."""
        keys, at, _n = self.order
        if k is None:
            i = 0
        else:
            i = at.get(int(k) if type(k) is float and k.is_integer() else k) if type(k) in (int, float) else None
            if i is None:
                from ..errors import LuaError

                raise LuaError("invalid key to 'next'")
            i += 1
        get = self.get_int
        while i < len(keys):
            key = keys[i]
            v = get(key)
            if v is not None:
                return key, v
            i += 1
        return None

    def keys_snapshot(self) -> list:
        """Every key with a non-nil value, in walk order: 1..#arr, then the
        hash part in insertion order (or Lua's `order`). The sandbox `pairs`
        walks this list."""
        arr, h = self.arr, self.hash
        if self.order is not None and len(arr) <= self.order[2]:
            get = self.get_int
            return [k for k in self.order[0] if get(k) is not None]
        keys = [i for i, v in enumerate(arr, 1) if v is not None] if arr else []
        if h:
            if TRUE_KEY in h or FALSE_KEY in h:
                keys += [denormalize_key(k) for k, v in h.items() if v is not None]
            else:  # no key to denormalize: spares a call per key
                keys += [k for k, v in h.items() if v is not None]
        return keys

    def __repr__(self):
        return f"<LuaTable {id(self):#x}>"


# ------------------------------------------------------- constructors
#
# Lua sizes a constructor's array part by its positional items, nils
# included, and `#` then finds a border by its own search (ltable.c,
# luaH_getn), which need not be the last non-nil item: `#{nil, nil, 3}` is
# 3 and `#{1, nil, 3, nil, nil}` is 1. The functions below work out that
# border once, as the table is made, and lay the table out so that
# `len(arr)` is it: the invariants above hold, and `#` stays O(1).

#: positional items a constructor stores at once (lparser.c's LFIELDS_PER_FLUSH)
_FLUSH = 50


def from_list(arr: list) -> LuaTable:
    """`{a, b, c}` (or `{...}`, `table.pack`): the items are the array part."""
    if not arr or arr[-1] is not None:
        return LuaTable(arr)
    if len(arr) > 1 and arr[-2] is not None:
        arr.pop()
        return LuaTable(arr)
    return _laid_out(arr, {}, 0)


def from_items(vals: list, layout: tuple) -> LuaTable:
    """Any other constructor, item by item as Lua stores them: `layout`
    says 0 = positional, 1 = keyed (key and value follow in `vals`), 2 =
    the expanded last positional (the rest of `vals`). Keyed items are
    stored as they come; positional ones in batches of _FLUSH, so one wins
    over a keyed item of the same index unless the keyed item comes after
    its batch was stored. Raises ValueError for a nil or NaN key (callers
    word it), as `LuaTable.set`."""
    keyed_items = layout.count(1)
    size = len(vals) - 2 * keyed_items if layout[-1] == 2 else len(layout) - keyed_items
    if size >= _FLUSH:
        return _batched(vals, layout, size)
    # one batch, stored last: positional items win over every keyed one in range
    slots = []
    keyed = {}
    tomb = i = 0
    for kind in layout:
        if kind == 0:
            slots.append(vals[i])
            i += 1
        elif kind == 1:
            k, v = vals[i], vals[i + 1]
            i += 2
            if type(k) is not str:
                k = _key(k)
                if type(k) is int and 0 < k <= size:
                    continue
            tomb += _keyed(keyed, k, v)
        else:
            slots += vals[i:]
            break
    if not slots and keyed and layout[-1] != 2 and all(type(k) is int for k in keyed):
        return _keyed_only(vals, keyed, keyed_items, tomb)
    if (not slots or slots[-1] is not None) and keyed.get(size + 1) is None:
        t = LuaTable(slots, keyed)  # the common case: the border is the array part's end
        t._tomb = tomb
        return t
    return _laid_out(slots, keyed, tomb)


def _keyed_only(vals: list, keyed: dict, nh: int, tomb: int) -> LuaTable:
    """A constructor of keyed items only (`vals`: key, value, key, ...).
    Lua keeps them all in its hash part, sized for `nh` of them, and `next`
    walks that part's nodes in order; for integer keys the node is known
    (ltable.c's luaH_newkey: a key's main position is its value modulo the
    size; a collision with a live key takes the last never used node, and
    the colliding key moves there if it is not in its own main position; a
    nil value is not inserted), so the table walks them in Lua's order
    (`order`) while its keys stay where runvil keeps them:
    `{[0] = "Sunday", [1] = "Monday", ...}` from 0. (Only integer keys: with
    any other key, Lua's order depends on its string hashes' seed.)"""
    t = _laid_out([], dict(keyed), tomb)
    size = 1
    while size < nh:
        size *= 2
    mod = (size - 1) | 1
    nodes = [None] * size  # the key of each node
    live = [False] * size
    free = size
    where: dict = {}  # key -> its node
    for i in range(0, len(vals), 2):
        k, alive = normalize_key(vals[i]), vals[i + 1] is not None
        at = where.get(k)
        if at is not None:
            live[at] = alive
            continue
        if not alive:
            continue
        main = (k & _M64) % mod
        if live[main]:
            free -= 1
            while nodes[free] is not None:
                free -= 1
            other = nodes[main]
            if (other & _M64) % mod != main:  # the colliding key moves to the free node
                nodes[free], live[free] = other, True
                where[other] = free
            else:
                main = free
        elif nodes[main] is not None:  # a key set to nil: its node is taken
            del where[nodes[main]]
        nodes[main], live[main] = k, True
        where[k] = main
    order = [k for k in nodes if k is not None]
    # then keys no node holds, none live: replaced by a later item, or holes
    # of arr (filled in place, they are walked last, where Lua adds a node)
    held = set(order)
    order += [k for k in (*keyed, *range(1, len(t.arr) + 1)) if k not in held and not held.add(k)]
    if order != [*range(1, len(t.arr) + 1), *t.hash]:
        t.order = (order, {k: i for i, k in enumerate(order)}, len(t.arr))
    return t


#: the unsigned 64-bit view of an integer key (l_castS2U)
_M64 = (1 << 64) - 1


def _batched(vals: list, layout: tuple, size: int) -> LuaTable:
    """from_items for _FLUSH positional items or more, batch by batch."""
    slots = [None] * size
    keyed = {}
    tomb = 0
    pending = []
    done = i = 0
    for kind in layout:
        if len(pending) == _FLUSH:  # lparser.c's closelistfield, as the next item starts
            slots[done : done + _FLUSH] = pending
            done += _FLUSH
            pending = []
        if kind == 0:
            pending.append(vals[i])
            i += 1
        elif kind == 1:
            k, v = vals[i], vals[i + 1]
            i += 2
            if type(k) is not str:
                k = _key(k)
                if type(k) is int and 0 < k <= size:
                    slots[k - 1] = v
                    continue
            tomb += _keyed(keyed, k, v)
        else:
            pending += vals[i:]
            break
    slots[done : done + len(pending)] = pending
    return _laid_out(slots, keyed, tomb)


def _keyed(keyed: dict, k, v) -> int:
    """Stores a constructor's keyed item outside the array part; 1 when it
    left a tombstone (a nil over a value: `next` may still pass the key)."""
    if v is not None:
        keyed[k] = v
    elif keyed.get(k) is not None:
        keyed[k] = None
        return 1
    return 0


def _key(k):
    """A constructor's key as the hash part holds it; ValueError for nil or NaN."""
    if k is None:
        raise ValueError("index is nil")
    if type(k) is float and k != k:
        raise ValueError("index is NaN")
    return normalize_key(k)


def _laid_out(slots: list, keyed: dict, tomb: int) -> LuaTable:
    """The table whose array part Lua sized to len(slots) (None for nil)
    and whose other keys are `keyed`, with `arr` cut at the border Lua's
    `#` gives: the slots past it move to the hash part."""
    n = len(slots)
    border = _lua_border(slots, keyed)
    if border > n + 2 * len(keyed) + 8:
        # a far border from doubling over sparse keys: no list that long,
        # the nearer border of consecutive keys instead
        border = n
        while keyed.get(border + 1) is not None:
            border += 1
    if border > n:
        for j in range(n + 1, border + 1):
            if j in keyed:
                v = keyed.pop(j)
                tomb -= v is None
            else:
                v = None
            slots.append(v)
        t = LuaTable(slots, keyed)
    else:
        rest = {j: v for j, v in enumerate(slots[border:], border + 1) if v is not None}
        del slots[border:]
        if rest:
            rest.update(keyed)  # (the array part first, as Lua walks it)
            keyed = rest
        t = LuaTable(slots, keyed)
    t._tomb = tomb
    return t


def _lua_border(slots: list, keyed: dict) -> int:
    """The border luaH_getn finds in a table fresh from a constructor: its
    binary search in the array part when the last slot is nil, else the
    doubling search on into the hash part."""
    n = len(slots)
    if n and slots[-1] is None:
        if n > 1 and slots[-2] is not None:
            return n - 1
        i, j = 0, n
        while j - i > 1:
            m = (i + j) // 2
            if slots[m - 1] is None:
                j = m
            else:
                i = m
        return i
    if keyed.get(n + 1) is None:
        return n

    def present(k):
        return (slots[k - 1] if k <= n else keyed.get(k)) is not None

    j = max(n, 1)
    while True:
        i = j
        if j <= _MAXI // 2:
            j *= 2
        else:
            j = _MAXI
            if not present(j):
                break
            return j
        if not present(j):
            break
    while j - i > 1:
        m = (i + j) // 2
        if present(m):
            i = m
        else:
            j = m
    return i
