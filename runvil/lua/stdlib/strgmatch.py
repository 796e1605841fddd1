"""string.gmatch (lstrlib's gmatch): on a regex safe on the subject, an
iterator over re's matches that a generic for walks at C speed (the
first matches one by one, then the rest found by one findall); Lua's own
loop for the rest."""

from __future__ import annotations

import sys
from itertools import chain, islice, repeat
from operator import length_hint
from re import Match

from ..runtime.args import check_str, opt_int
from ..debuginfo import builtin
from .patterns.matcher import GMATCH_PATTERNS, all_captures, compile_pattern
from ..runtime.helpers import adjust
from ..runtime.values import EMPTY, Multi
from .strargs import posrelat_start, ret_values
from ..runtime.pieces import PIECE_ITEMS


def str_gmatch(*args):
    if len(args) == 2:  # the common shape, s:gmatch(p) on a regex safe on s
        s, p = args
        if type(s) is str and type(p) is str:
            pat = GMATCH_PATTERNS.get(p) or compile_pattern(p, gmatch=True)
            if pat.nonempty and (rx := pat.any_rx or pat.regex_for(s)) is not None:
                return builtin(_gmatch_by_regex(pat, rx, s))
    s = check_str(args, 1, "gmatch")
    p = check_str(args, 2, "gmatch")
    ls = len(s)
    init = posrelat_start(opt_int(args, 3, "gmatch", 1), ls) - 1
    if init > ls:
        init = ls + 1
    pat = compile_pattern(p, gmatch=True)
    if pat.nonempty and init <= ls and (rx := pat.regex_for(s)) is not None:
        # no empty match can occur, so re's scan is Lua's (the rule against
        # an empty match at the end of the last one never applies)
        return builtin(_gmatch_by_regex(pat, rx, s, init))
    state = [init, -1]  # next position, end of the last match

    def gmatch_iter(*_):
        src, last = state
        if src > ls:
            return EMPTY
        r = pat.search(s, src, last)
        if r is None:
            state[0] = ls + 1
            return EMPTY
        st, e, caps = r
        state[0] = state[1] = e
        return ret_values(all_captures(caps, s, st, e))

    builtin(gmatch_iter)
    return gmatch_iter


def _gmatch_by_regex(pat, rx, s: str, init: int = 0):
    """gmatch's iterator over re's matches (each call the next one, then
    nothing ever after), its values as push_captures makes them; a generic
    for walks the same matches without calling it (_walk_matches). The
    matches are in a box, [iterator, a walk by findall is running]: such
    a walk puts an iterator there that keeps its list in step, and when
    it ends one over the matches it left."""
    box = [rx.finditer(s, init), False]
    fn = _gmatch_iter(pat, box)
    fn.lua_walk_calls = lambda _s, c, n, steps, tick: _walk_matches(pat, rx, s, box, n, steps, tick)
    return fn


class _MatchWalk(chain):
    """A generic for's walk over gmatch's matches on re at C speed: the
    items mapped from re's matches, each paired with an item of a `repeat`
    whose length hint then tells how many were taken; on a subject of at
    most _FINDALL_MAX chars (and more than _FINDALL_MIN) only a head of _HEAD items, then the rest by
    one findall (_Rest). The mapped items' steps (one an item, as
    runtime._charged charges) are charged when the loop ends, the rest's
    when findall has found them (the loop's body charges as it goes, so
    the budget still stops a long loop)."""

    __slots__ = ("ticket", "steps", "rest", "paid")

    def close(self):
        steps, self.steps = self.steps, None
        if steps is not None:
            steps[0] -= _TICKETS - length_hint(self.ticket) - self.paid[0]
            if (rest := self.rest) is not None:
                rest.put_back()

    def throw(self, e):
        self.close()
        raise e


#: a walk's tickets: more than any subject has matches
_TICKETS = sys.maxsize
#: the matches a walk takes one by one before it finds the rest at once
#: (a loop left at its first items does not pay for the whole subject)
_HEAD = 4
#: the shortest subject whose remaining matches a walk finds at once (on a
#: short one, the walk's setup would cost more than it saves)
_FINDALL_MIN = 1024
#: the longest subject whose remaining matches a walk finds at once: their
#: strings are all alive together (some 60 bytes a char at most)
_FINDALL_MAX = 1 << 20


class _Rest:
    """The matches after a walk's head, found by one findall (its strings,
    or tuples of them, are gmatch's values) from the next match's start
    (re's search from the head's last end finds that match first)."""

    __slots__ = ("rx", "s", "box", "steps", "tick", "start", "items", "taken")

    def __init__(self, rx, s: str, box: list, steps: list, tick):
        self.rx, self.s, self.box, self.steps, self.tick = rx, s, box, steps, tick
        self.items = None

    def __iter__(self):
        m = next(self.box[0], None)
        if m is None:
            return iter(())
        self.start = m.start()
        self.items = items = self.rx.findall(self.s, self.start)
        self.taken = it = iter(items)
        self.box[0] = _InStep(self)
        steps = self.steps
        steps[0] -= len(items)  # one step an item, for the work done
        if steps[0] < 0:
            self.tick()
        return it

    def taken_count(self) -> int:
        return len(self.items) - length_hint(self.taken)

    def put_back(self) -> None:
        """The loop has ended: the iterator's matches go on after the
        items it took (re finds them again only if it is called)."""
        box = self.box
        box[1] = False
        if self.items is not None:
            k = self.taken_count()
            box[0] = islice(self.rx.finditer(self.s, self.start), k, None) if k < len(self.items) else iter(())


class _InStep:
    """The box's iterator while a walk's rest is a list: the iterator
    called in the loop's body (Lua's for calls that same function) takes
    the next match, which the list then skips."""

    __slots__ = ("rest", "cursor", "at")

    def __init__(self, rest: _Rest):
        self.rest = rest
        self.cursor = None
        self.at = 0  # the matches the cursor has passed

    def __iter__(self):
        return self

    def __next__(self):
        rest = self.rest
        if self.cursor is None:
            self.cursor = rest.rx.finditer(rest.s, rest.start)
        k = rest.taken_count()
        for _ in range(k - self.at):  # the ones the loop took since
            next(self.cursor)
        m = next(self.cursor)
        next(rest.taken)
        self.at = k + 1
        return m


def checked(items, steps: list, tick, paid: list):
    """The items, their steps charged every PIECE_ITEMS of them (counted
    in `paid`: the walk's close charges the rest), so the state's check
    runs as a long walk goes."""
    k = PIECE_ITEMS
    for x in items:
        k -= 1
        if not k:
            k = PIECE_ITEMS
            paid[0] += PIECE_ITEMS
            steps[0] -= PIECE_ITEMS
            if steps[0] < 0:
                tick()
        yield x


def _walk_matches(pat, rx, s: str, box: list, n: int, steps: list, tick):
    """A generic for over gmatch's iterator (runtime.make_giter), natively:
    each item the next of the iterator's own matches (a loop left early
    leaves the rest to the next call; one inside a walk by findall goes
    one match at a time), as n loop values."""
    ncaps = len(pat.poscaps)
    matches = box[0]
    if pat.textcaps and (n == 1 and ncaps <= 1 or n == ncaps):
        at_once = _FINDALL_MIN < len(s) <= _FINDALL_MAX and not box[1]
        head = islice(matches, _HEAD) if at_once else matches
        paid = [0]  # the steps `checked` charged already
        if len(s) > _FINDALL_MAX:  # a long subject: the state's check as it goes, even with an empty body
            head = checked(head, steps, tick, paid)
        if n == ncaps and ncaps > 1:
            ticket = repeat(None, _TICKETS)  # groups(None): Lua's captures
            items = map(Match.groups, head, ticket)
        else:
            ticket = repeat(ncaps, _TICKETS)  # group(1), or group(0): the whole match
            items = map(Match.group, head, ticket)
        if at_once:
            box[1] = True
            rest = _Rest(rx, s, box, steps, tick)
            walk = _MatchWalk(items, rest)
        else:
            rest = None
            walk = _MatchWalk(items)
        walk.ticket = ticket
        walk.paid = paid
        walk.steps = steps
        walk.rest = rest
        return walk
    return _walk_values(pat, matches, n, ncaps, steps, tick)


def _walk_values(pat, matches, n: int, ncaps: int, steps: list, tick):
    """_walk_matches for position captures or a count of loop variables
    other than the captures': each item made from a match in Python."""
    k = 64  # 64 - the items not charged yet (as runtime._charged counts them)
    try:
        for m in matches:
            k -= 1
            if not k:
                k = 64
                steps[0] -= 64
                if steps[0] < 0:
                    tick()
            vals = (m.group(),) if not ncaps else tuple(pat.caps_of(m))
            yield vals[0] if n == 1 else adjust(vals, n)
    finally:
        steps[0] -= 64 - k


def _gmatch_iter(pat, box: list):
    ncaps = len(pat.poscaps)
    if ncaps == 0:
        def gmatch_iter(*_):
            m = next(box[0], None)
            return EMPTY if m is None else m.group()
    elif ncaps == 1 and pat.textcaps:
        def gmatch_iter(*_):
            m = next(box[0], None)
            return EMPTY if m is None else m.group(1)
    elif pat.textcaps:
        def gmatch_iter(*_):
            m = next(box[0], None)
            return EMPTY if m is None else Multi(m.groups())
    else:
        def gmatch_iter(*_):
            m = next(box[0], None)
            return EMPTY if m is None else ret_values(pat.caps_of(m))
    return gmatch_iter
