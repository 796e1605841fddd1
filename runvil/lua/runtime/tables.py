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
    __slots__ = ("arr", "hash", "meta", "_tomb", "_iter", "watcher", "__weakref__")

    def __init__(self, arr: list | None = None, hash: dict | None = None):
        self.arr = arr if arr is not None else []
        self.hash = hash if hash is not None else {}
        self.meta = None  # the metatable: a LuaTable or None
        self._tomb = 0  # number of None tombstones in hash
        self._iter = None  # (last key, iterator) cache for next()
        self.watcher = None  # what set_str tells of a write of one of WATCHED_KEYS (see watch)

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
                self._iter = None
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
        # Only reachable after a key 1 was stored in the hash while arr was
        # non-empty and then arr shrank: fall back to a search.
        i = 1
        while h.get(i + 1) is not None:
            i += 1
        return i

    # ---------------------------------------------------------- traversal

    def next(self, k):
        """Lua's next: the (key, value) after k, or None at the end.

        Raises Lua's "invalid key to 'next'" when k is not a key of the
        table (one removed and swept since, or never there)."""
        arr = self.arr
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

    def keys_snapshot(self) -> list:
        """Every key with a non-nil value, in walk order: 1..#arr, then the
        hash part in insertion order. The sandbox `pairs` walks this list."""
        arr, h = self.arr, self.hash
        keys = [i for i, v in enumerate(arr, 1) if v is not None] if arr else []
        if h:
            if TRUE_KEY in h or FALSE_KEY in h:
                keys += [denormalize_key(k) for k, v in h.items() if v is not None]
            else:  # no key to denormalize: spares a call per key
                keys += [k for k, v in h.items() if v is not None]
        return keys

    def __repr__(self):
        return f"<LuaTable {id(self):#x}>"
