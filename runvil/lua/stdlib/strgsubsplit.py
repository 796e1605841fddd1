"""gsub with a function or table replacement on a subject of up to
SPLIT_MAX chars: the regex splits the subject at once (re.split, in C: the
text before each match, then the match and its captures), and a Python
loop finds each match's value, from left to right, as Lua's add_value
does. No match object is made and re calls no Python code: a call of the
function is a plain call from the loop.

The sizes are reserved as gsub's own loop reserves them (strgsub._gsub):
each match adds its text's size and tests one bound, where
_reserve_grown has work (a step past what is reserved, or past the
string limit), so a runaway result stops before the next call."""

from __future__ import annotations

import re

from ..runtime import indexing as LI
from ..runtime import values
from ..runtime.tables import LuaTable
from ..runtime.values import EMPTY, Multi, reserve_memory
from .limits import reserve_result
from .patterns.matcher import error
from .patterns.regex import top_captures

#: the longest subject split at once: re.split holds every match's pieces
#: (a few slots and strings per match) until the end; a longer subject
#: goes through re.subn, which holds only the result's pieces
SPLIT_MAX = 1 << 20

#: gsub reserves the memory of its replacements in steps of this many bytes
RESERVE_STEP = 64 * 1024


def gsub_by_split(pat, src: str, repl, count: int, limit: int):
    """gsub(src, pat, repl) of at most `count` matches, for a regex with
    text captures only that no match of is empty."""
    rx, tops = _splitter(pat)
    ncaps = len(pat.poscaps)
    first = 1 if tops is not None else 2  # (the regex has one more group: the whole match)
    stride = ncaps + first  # per match: the text before it, [the match,] its captures
    parts = rx.split(src, count)
    n = (len(parts) - 1) // stride
    caps = [parts[i::stride] for i in range(first, stride)]
    joined = None  # the captures a kept match is joined from
    if tops is None:
        texts = parts[1::stride]
    elif len(tops) == 1:
        texts = caps[tops[0]]  # (read at each match before its value is written)
    else:
        texts = [None] * n
        joined = [caps[i] for i in tops]
    # texts[k]: match k's text, replaced in place by its value
    if type(repl) is LuaTable:  # a string key: the first capture, or the whole match
        # the hash part (nothing is called), or through __index
        f = repl.hash.get if repl.meta is None else (lambda key: LI.index(repl, key))
        found = map(f, caps[0] if ncaps else texts)
    else:
        found = map(repl, *caps) if ncaps else map(repl, texts)
    kept = _replace_each(found, texts, joined, limit)
    if kept == n:  # no replacement changed it: the subject itself
        return Multi((src, n))
    out = [None] * (2 * n + 1)
    out[0::2] = parts[0::stride]
    out[1::2] = texts
    res = "".join(out)
    reserve_result(len(res))
    return Multi((res, n))


def _splitter(pat) -> tuple:
    """(the regex re.split runs, the outermost captures that make up the
    whole match): the pattern's regex when its captures make up every
    match, else the regex inside one more group (its back references
    renumbered) and None."""
    sp = pat.split_rx
    if sp is None:
        tops = top_captures(pat.body)
        if tops is not None:
            sp = (pat.regex, tops)
        else:
            body = re.sub(r"\(\?:\\([1-9])\)", lambda m: f"(?:\\{int(m[1]) + 1})", pat.regex.pattern)
            sp = (re.compile(f"({body})", pat.regex.flags), None)
        pat.split_rx = sp
    return sp


def _replace_each(found, texts: list, joined, limit: int) -> int:
    """texts[k] = the value of match k, found[k], for each match in order
    (found: a lazy map, so each call is made when the loop asks for its
    value, after the one before was taken); a value nil or false, or no
    value, keeps the match's text (when `joined`, its captures joined).
    Returns how many were kept."""
    size = kept = 0
    check_at = min(RESERVE_STEP, limit + 1)
    grown = [0, True, 0]
    for k, v in enumerate(found):
        if type(v) is str:
            texts[k] = v
            if (size := size + len(v)) < check_at:
                continue
        elif v is EMPTY or v is None or (v := value_text(v)) is None:
            if joined is not None:
                texts[k] = _joined(joined, k)
            size += len(texts[k])
            kept += 1
        else:
            size += len(v)
            texts[k] = v
        if size >= check_at:
            check_at = reserve_to(grown, size, limit)
    return kept


def _joined(columns: list, k: int) -> str:
    """Match k's text from the captures that make it up."""
    return "".join([c[k] for c in columns])


def value_text(v):
    """A function's or table's replacement value as add_value takes it:
    its text, or None to keep the match (nil, false, no value, a first
    value nil or false); any other type is an error."""
    if type(v) is Multi:
        v = values.first(v)
    tv = type(v)
    if tv is str:
        return v
    if v is None or v is False:
        return None
    if tv is int or tv is float:
        return values.fmt_number(v)
    error(f"invalid replacement value (a {values.type_name(v)})")


def reserve_to(grown: list, size: int, limit: int) -> int:
    """reserve_grown with the replacements at `size` (grown: its state);
    the next size to check at."""
    grown[0] = size
    reserve_grown(grown, limit)
    return min(grown[2] + RESERVE_STEP, limit + 1)


def reserve_grown(state: list, limit: int) -> None:
    """The replacements of a gsub have grown (state: their size, changed,
    the size reserved so far): reserved in steps, the result is reserved
    whole at the end; past the string limit at once."""
    size = state[0]
    if size - state[2] >= RESERVE_STEP:
        reserve_memory(size - state[2])
        state[2] = size
    if size > limit:
        reserve_memory(size)
