"""Editing a list with replace (docs/reference/conversations.md "Editing a list with
replace"): only inside a compactor, the range rule and its messages, and
all-or-nothing edits."""

from __future__ import annotations

import math

from ...lua.api import float_to_int, fmt_number, tostring_basic, type_name
from ..errors import raise_lua
from .records import RecordError, record_from_table

OUTSIDE_COMPACTOR = "replace works only inside a compactor; rewrite history with models.compact(compactor, reason)"
NOT_INTEGER = "replace {which} must be an integer, got {got}"
OUT_OF_BOUNDS = (
    "replace({first}, {last}) is out of bounds on a list of {n} records: it needs 1 <= first <= last + 1 <= {n1}"
)


def _bound(value, which: str) -> int:
    if type(value) is int:
        return value
    if type(value) is float:
        i = float_to_int(value)
        if i is not None:
            return i
        if math.isfinite(value) and not value.is_integer():
            # a float with a fraction shows itself; inf, nan and integral
            # floats no integer holds are named by type (docs/reference/conversations.md)
            raise_lua(NOT_INTEGER.format(which=which, got=fmt_number(value)))
    raise_lua(NOT_INTEGER.format(which=which, got=type_name(value)))


def replace_records(lst, args: tuple):
    """messages:replace(first, last, records...): checks in order — a
    compactor is running, first, last, the range — then each record at the
    position it takes; applies all of them or none."""
    vm = lst.vm
    if vm is None or not vm.compacting:
        raise_lua(OUTSIDE_COMPACTOR)
    args = tuple(args) + (None, None)
    first = _bound(args[0], "first")
    last = _bound(args[1], "last")
    n = len(lst.records)
    if not (1 <= first <= last + 1 <= n + 1):
        raise_lua(OUT_OF_BOUNDS.format(first=tostring_basic(args[0]), last=tostring_basic(args[1]), n=n, n1=n + 1))
    new = []
    for i, value in enumerate(args[2:-2] if len(args) > 4 else (), 0):
        try:
            new.append(record_from_table(value, first + i))
        except RecordError as e:
            raise_lua(str(e))
    try:
        lst.splice(first, last, new)
    except RecordError as e:
        raise_lua(str(e))
    return lst
