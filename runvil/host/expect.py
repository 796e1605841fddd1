"""Comparing a case's `expect` with the JSON a run printed
(runvil/conformance/FORMAT.md "How results are compared"), and showing each field
that differs as want and got.

Values compare as JSON: `true` is not `1`, `1` is `1.0`, mappings compare
every key. An expected value may instead be `{contains: TEXT}` or
`{matches: REGEX}`, at any depth. Two fields compare key by key instead, so an implementation may
carry more than a case names: `error` (the keys the case gives) and each
`requests` entry (the keys it gives). `request_count` is the number of
`requests`.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass

class _Absent:
    """A field the output does not have; one object, in worker processes too."""

    def __reduce__(self):
        return "ABSENT"


ABSENT = _Absent()
LONG = 60  # characters past which a value is shown as a line diff


@dataclass
class Mismatch:
    field: str  # e.g. `result`, `error.message`, `requests[2].messages`
    want: object
    got: object
    note: str | None = None  # what explains the difference, when the case does not ask for it

    def lines(self) -> list[str]:
        """The mismatch as indented lines: want/got, or a line diff when long."""
        want, got = _shown(self.want), _shown(self.got)
        several_lines = any(isinstance(v, str) and "\n" in v for v in (self.want, self.got))
        if max(len(want), len(got)) <= LONG and not several_lines:
            lines = [f"  {self.field}:", f"    want: {want}", f"    got:  {got}"]
        else:
            a, b = _diff_lines(self.want), _diff_lines(self.got)
            diff = difflib.unified_diff(a, b, "want", "got", lineterm="", n=2)
            lines = [f"  {self.field}:"] + [f"    {line}" for line in diff]
        if self.note is not None:
            lines.append(f"    ({self.note})")
        return [_printable(line) for line in lines]


MATCHERS = ("contains", "matches")


def matcher(want) -> tuple[str, object] | None:
    """`{contains: TEXT}` or `{matches: REGEX}` in a case's expected value:
    (which, its operand); None for a plain expected value."""
    if isinstance(want, dict) and len(want) == 1:
        (key, operand), = want.items()
        if key in MATCHERS:
            return key, operand
    return None


def check_matchers(want, where: str) -> None:
    """Refuses a matcher that cannot work (ValueError naming `where`): a
    `matches` that is not a valid regular expression, a `contains` that is
    not text."""
    todo = [(want, where)]
    while todo:
        v, place = todo.pop()
        m = matcher(v)
        if m is not None:
            which, operand = m
            if not isinstance(operand, str):
                raise ValueError(f"{place}: {{{which}: ...}} needs a text, got {_shown(operand)}")
            if which == "matches":
                try:
                    re.compile(operand)
                except re.error as e:
                    raise ValueError(f"{place}: {{matches: {operand}}} is not a regular expression: {e}") from None
        elif isinstance(v, dict):
            todo.extend((x, f"{place}.{k}") for k, x in v.items())
        elif isinstance(v, list):
            todo.extend((x, f"{place}[{i + 1}]") for i, x in enumerate(v))


def same(a, b) -> bool:
    """JSON equality: booleans are not numbers, numbers compare by value.
    An expected `{contains: TEXT}` holds for a text that contains TEXT (or
    a list with an element equal to it), `{matches: REGEX}` for a text in
    which the regular expression finds a match (Python's `re.search`)."""
    m = matcher(a)
    if m is not None:
        which, operand = m
        if which == "contains":
            if isinstance(b, str):
                return isinstance(operand, str) and operand in b
            return isinstance(b, list) and any(same(operand, x) for x in b)
        return isinstance(b, str) and isinstance(operand, str) and re.search(operand, b) is not None
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def compare(expect: dict, got: dict) -> list[Mismatch]:
    """Every field of `expect` that the output `got` does not match."""
    out: list[Mismatch] = []
    for key, want in expect.items():
        value = got.get(key, ABSENT)
        if key == "request_count":
            n = len(got.get("requests") or [])
            if not same(want, n):
                out.append(Mismatch(key, want, n))
        elif key == "error" and isinstance(want, dict) and matcher(want) is None and isinstance(value, dict):
            out.extend(_keys(f"{key}.", want, value))
        elif key == "requests" and isinstance(want, list) and isinstance(value, list):
            out.extend(_requests(want, value))
        elif value is ABSENT or not same(want, value):
            noted = any(m.note for m in out)
            out.append(Mismatch(key, want, value, note=None if noted else _why(key, expect, got)))
    return out


def _why(key: str, expect: dict, got: dict) -> str | None:
    """The run's error, beside a wrong `ok` or `result` of a case that does
    not name the error: the reason a run failed is never hidden."""
    err = got.get("error")
    if key not in ("ok", "result") or "error" in expect or not isinstance(err, dict):
        return None
    return f"the run failed: error[{err.get('kind')}]: {err.get('message')}"


def _keys(prefix: str, want: dict, got: dict) -> list[Mismatch]:
    return [Mismatch(prefix + k, w, got.get(k, ABSENT)) for k, w in want.items()
            if k not in got or not same(w, got[k])]


def _requests(want: list, got: list) -> list[Mismatch]:
    out = []
    if len(want) != len(got):
        out.append(Mismatch("requests (how many)", len(want), len(got)))
    for i, (w, g) in enumerate(zip(want, got), 1):
        if isinstance(w, dict) and matcher(w) is None and isinstance(g, dict):
            out.extend(_keys(f"requests[{i}].", w, g))
        elif not same(w, g):
            out.append(Mismatch(f"requests[{i}]", w, g))
    return out


_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def _printable(line: str) -> str:
    """The line with control characters and lone surrogates (bytes that
    were not UTF-8) as escapes: safe on a terminal and in any file."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), line)


def _shown(v) -> str:
    if v is ABSENT:
        return "(absent)"
    return json.dumps(v, ensure_ascii=False)


def _diff_lines(v) -> list[str]:
    """A value as lines to diff: a text's own lines, other JSON indented."""
    if isinstance(v, str):
        return v.split("\n")
    if v is ABSENT:
        return ["(absent)"]
    return json.dumps(v, ensure_ascii=False, indent=2).split("\n")
