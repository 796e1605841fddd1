"""What generated code and the runtime agree on: the facts the code
generator relies on when it emits a fast path, kept here, beneath the
runtime, so that both sides read the one definition."""

from __future__ import annotations

#: string keys whose writes may be watched: compiled code stores them
#: through set_str, never into `hash` itself (compiler/stores.py); the
#: runtime's tables call the watcher (runtime/tables.py): `coroutine` and
#: `yield` for the coroutine twins, `__index` for the string methods
#: (`_SIh`: the hash of the string metatable's __index table)
WATCHED_KEYS = frozenset({"coroutine", "yield", "__index"})

#: a string result at most this long is built without reserving memory
#: (a concatenation of short operands is emitted inline: compiler/operators.py)
TINY_RESULT = 256

#: `s:m()` with no arguments, s a string, while the string library's own
#: function is still its `m` (`_SIh`): answered inline from the library's
#: table of one-char results, the function called for any other string.
#: method -> (the namespace's name for the library's function, for its table)
INLINE_STRING_METHODS = {"upper": ("_SUPPER", "_SUPPERC"), "lower": ("_SLOWER", "_SLOWERC")}
