"""What generated code and the runtime agree on: the facts the code
generator relies on when it emits a fast path, kept here, beneath the
runtime, so that both sides read the one definition."""

from __future__ import annotations

#: a string result at most this long is built without reserving memory
#: (a concatenation of short operands is emitted inline: compiler/operators.py)
TINY_RESULT = 256

#: `s:m()` with no arguments, s a string, while the string metatable's
#: __index is the string library and its `m` the library's own function (a
#: flag, kept true by the watcher of both tables): answered inline from the
#: library's table of one-char results, the function called for any other
#: string. method -> (the namespace's name for the flag, for the table)
INLINE_STRING_METHODS = {"upper": ("_SUPOK", "_SUPPERC"), "lower": ("_SLOWOK", "_SLOWERC")}

#: `s:sub(i, j)`, `s:byte(i)`, `s:find(p, i, true)`, `s:find(p, i)` and
#: `s:match(p)` on a string, while the string metatable's __index is the
#: string library and its method the one it opened with (the flag, kept true
#: as INLINE_STRING_METHODS' are): done inline by Python's own slice, `ord`,
#: `str.find` or the pattern's regex where the arguments are in the shape
#: that needs no more (compiler/strcalls.py). A constant pattern is the
#: library's compiled one (`_MP`, `_mpat`: stdlib/string.py), taken where
#: the library's own fast path would take it: the generated code reads its
#: `match_values` (the values `s:match(p)` gives on its regex, 0: not on
#: its regex), `bare` (`s:find(p)` on its regex, no captures), `first_group`
#: (the group of match's first value) and `find_rx` (the regex safe on
#: every subject; None: ask `_rxfor`, the regex safe on this one).
#: method -> the namespace's name for the flag
INLINE_STRING_CALLS = {"sub": "_SSUBOK", "byte": "_SBYTEOK", "find": "_SFINDOK", "match": "_SMATCHOK"}

#: string keys whose writes may be watched: compiled code stores them
#: through set_str, never into `hash` itself (compiler/stores.py); the
#: runtime's tables call the watcher (runtime/tables.py): `coroutine` and
#: `yield` for the coroutine twins, `__index` for the string methods
#: (`_SIh`: the hash of the string metatable's __index table), and the
#: methods answered inline (their flags)
WATCHED_KEYS = frozenset({"coroutine", "yield", "__index", *INLINE_STRING_METHODS, *INLINE_STRING_CALLS})
