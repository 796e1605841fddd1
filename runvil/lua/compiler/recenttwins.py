"""The twins made last in this process, by the text of their factory, so a
chunk compiled again (the same prompt run again, a block that many prompts
share, a playground's edit that left the other blocks as they were) takes
its twins without making them (compiler/generators.py).

Two chunks' factories of the same text but for the chunk number in their
identifiers (`_mk_c7_2`, `c7_2`) compile to the same code but for those
names: the key is the text with that number blanked (its digits kept in
number, so every column stays where it is) and the line the factory starts
at, and a hit is the twin made for the other chunk with its names and file
name made this chunk's. A twin holding a string constant that spells its
own chunk's number is not kept: renaming never touches constants, so only
a twin whose constants hold no such string is the same for any number.
"""

from __future__ import annotations

import re
import types

#: how many twins are kept (the most recent: a conformance suite's cases
#: repeat blocks close to each other) and the longest factory text kept
SIZE = 64
LONGEST = 32_768


class RecentTwins:
    """A bounded map from a factory's text (its number blanked) and first
    line to what the twin compiler made of it: (code or LEAF or None,
    numeric), the code's names spelling the number `text_id` of the text it
    was made from."""

    __slots__ = ("made",)

    def __init__(self):
        self.made: dict = {}  # key -> (text_id, made, numeric), least recent first

    @staticmethod
    def key(source: tuple[str, int] | None, text_id: int):
        """The key of a factory's (text, first line) in a chunk whose text
        spells its number `text_id`; None for one too long to keep."""
        if source is None or len(source[0]) > LONGEST:
            return None
        text, line = source
        blank = "\0" * len(str(text_id))  # (never in generated source: its strings are escaped)
        return _ids(text_id).sub(lambda m: f"{m.group(1) or ''}c{blank}_{m.group(2)}", text), line

    def get(self, key, text_id: int, filename: str):
        """(made, numeric) for the key, its names spelling `text_id` and its
        file name `filename`; None when not kept."""
        entry = self.made.pop(key, None)
        if entry is None:
            return None
        self.made[key] = entry  # (now the most recent)
        made_id, made, numeric = entry
        if type(made) is types.CodeType:
            made = _renamed(made, made_id, text_id, filename)
        return made, numeric

    def put(self, key, text_id: int, made, numeric: bool) -> None:
        if type(made) is types.CodeType and _spells(made, f"c{text_id}_"):
            return
        self.made[key] = (text_id, made, numeric)
        if len(self.made) > SIZE:
            del self.made[next(iter(self.made))]


def _ids(n: int) -> re.Pattern:
    """The generated identifiers of chunk number n (as the disk cache's
    renamer finds them: compiler/chunkcache.py)."""
    return re.compile(rf"\b(_mk_)?c{n}_(\d+)\b")


def _renamed(code: types.CodeType, old: int, new: int, filename: str) -> types.CodeType:
    if old == new and code.co_filename == filename:
        return code
    ids = _ids(old)

    def name(s: str) -> str:
        return ids.sub(lambda m: f"{m.group(1) or ''}c{new}_{m.group(2)}", s)

    def names(t: tuple) -> tuple:
        return tuple(name(s) for s in t)

    consts = tuple(_renamed(c, old, new, filename) if type(c) is types.CodeType else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_name=name(code.co_name), co_qualname=name(code.co_qualname),
                        co_names=names(code.co_names), co_varnames=names(code.co_varnames),
                        co_cellvars=names(code.co_cellvars), co_freevars=names(code.co_freevars), co_consts=consts)


def _spells(value, text: str) -> bool:
    """Whether a constant of the code (in a tuple, a frozenset, a nested
    code) is a string holding `text`."""
    if type(value) is types.CodeType:
        return any(_spells(c, text) for c in value.co_consts)
    if isinstance(value, (tuple, frozenset)):
        return any(_spells(c, text) for c in value)
    if isinstance(value, str):
        return text in value
    if isinstance(value, bytes):
        return text.encode("latin-1") in value
    return False


#: the process's recent twins (the one cache of the twin compiler that
#: outlives a chunk: it holds code, never a chunk or its info)
RECENT = RecentTwins()
