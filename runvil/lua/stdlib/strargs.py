"""What the string library's functions share about their arguments and
results: Lua's relative positions, and a builtin's values."""

from __future__ import annotations

from ..runtime.values import Multi


def ret_values(vals):
    """A builtin's values: one alone, or a Multi."""
    if len(vals) == 1:
        return vals[0]
    return Multi(vals)


def posrelat_start(pos: int, n: int) -> int:
    """posrelatI: a 1-based start position clipped to [1, inf)."""
    if pos > 0:
        return pos
    if pos == 0 or pos < -n:
        return 1
    return n + pos + 1


def posrelat_end(pos: int, n: int) -> int:
    """getendpos: a 1-based end position clipped to [0, n]."""
    if pos > n:
        return n
    if pos >= 0:
        return pos
    if pos < -n:
        return 0
    return n + pos + 1
