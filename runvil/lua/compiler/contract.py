"""What generated code and the runtime agree on: the facts the code
generator relies on when it emits a fast path, kept here, beneath the
runtime, so that both sides read the one definition."""

from __future__ import annotations

#: string keys whose writes may be watched: compiled code stores them
#: through set_str, never into `hash` itself (compiler/stores.py); the
#: runtime's tables call the watcher (runtime/tables.py)
WATCHED_KEYS = frozenset({"coroutine", "yield"})

#: a string result at most this long is built without reserving memory
#: (a concatenation of short operands is emitted inline: compiler/operators.py)
TINY_RESULT = 256
