"""The parser's LALR table on disk: lark builds it from grammar/lua.lark and
syntax/parser.py recasts it for `_drive`, tens of milliseconds that every process
would pay before parsing its first chunk.

The entry (see cache/disk.py for the folder and the atomic writes) is keyed
by the grammar's text, lark's version and runvil's fingerprint (its
version and the files of runvil.lua). It holds the recast table with each
reduction's callback named by its `_Builder` method, bound again on load.
Writing it (once per runvil version) also prunes the folder's old entries.
"""

from __future__ import annotations

import marshal

from ..cache import disk as diskcache

_VERSION = b"tables-1"


def _key(grammar: str) -> bytes | None:
    import lark

    try:
        with open(grammar, "rb") as f:
            text = f.read()
    except OSError:
        return None
    return diskcache.make_key(_VERSION, lark.__version__.encode(), diskcache.code_fingerprint(), text)


def load(grammar: str, builder):
    """The table `parser._get_table` makes, read from the cache, or None."""
    key = _key(grammar)
    path = diskcache.entry_path("tables", key) if key is not None else None
    if path is None:
        return None
    payload = diskcache.read(path)
    if payload is None:
        return None
    try:
        stored_key, names, states, start, end = marshal.loads(payload)
        reductions = [(size, origin, None if name is None else getattr(builder, name))
                      for size, origin, name in names]
        table = {state: {sym: act if act >= 0 else reductions[~act] for sym, act in actions.items()}
                 for state, actions in states.items()}
    except (ValueError, EOFError, TypeError, AttributeError, IndexError, RecursionError):
        return None
    if stored_key != key:
        return None
    return table, start, end


def store(grammar: str, table, builder) -> None:
    """Writes the table; a reduction whose callback is not one of the
    builder's methods leaves it unwritten (rebuilt each time)."""
    key = _key(grammar)
    path = diskcache.entry_path("tables", key) if key is not None else None
    if path is None:
        return
    states, start, end = table
    method_names = {f: n for n, f in vars(type(builder)).items() if callable(f)}
    names: list = []  # distinct reductions: (size, origin, callback name)
    index: dict = {}

    def encode(act):
        if act.__class__ is int:
            return act
        size, origin, callback = act
        if callback is None:
            name = None
        elif getattr(callback, "__self__", None) is builder and callback.__func__ in method_names:
            name = method_names[callback.__func__]
        else:
            raise LookupError(callback)
        entry = (size, origin, name)
        if entry not in index:
            index[entry] = len(names)
            names.append(entry)
        return ~index[entry]

    try:
        encoded = {state: {sym: encode(act) for sym, act in actions.items()} for state, actions in states.items()}
    except LookupError:
        return
    try:
        payload = marshal.dumps((key, names, encoded, start, end))
    except ValueError:  # not plain data: never a run's failure, only a cache miss
        return
    diskcache.write(path, payload)
    diskcache.prune()  # a new table: a new runvil or compiler, whose old chunks age out
