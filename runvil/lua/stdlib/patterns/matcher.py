"""Lua 5.4 patterns: the matcher behind string.find/match/gmatch/gsub.

Two engines give identical results:
- every pattern Python's `re` can express with Lua's meaning (all but `%b`,
  malformed or unbalanced patterns, too many captures, patterns deep enough
  to hit Lua's MAXCCALLS) is translated to a regex (lpattern_re), which
  backtracks in the same order as Lua's matcher, so the first match found
  is the same; it runs on `re` when its Plan bounds the search's work on
  the subject (re cannot be stopped by the step budget);
- everything else runs on a backtracking matcher written after the
  semantics of lstrlib.c's `match`, metered by the step budget, raising
  Lua's errors lazily, exactly when Lua's matcher reaches the offending
  pattern item.

A match is reported as (start, end, caps): 0-based start, exclusive end, and
the list of capture values (a str, an int for a position capture, or
UNFINISHED for a capture still open when the pattern ended).
"""

from __future__ import annotations

import re

from ...runtime import values
from ...errors import LuaError
from ...errors import lua_error as error  # luaL_error: positioned at the caller
from .items import MAXCAPTURES, MAXCCALLS, class_end, item_set
from .regex import translate

#: matcher calls between two charges of the step budget, and the steps one
#: call costs: a runaway match spends the budget in about the time a loop
#: of Lua code does
FUEL = 2000
STEPS_PER_CALL = 16
CAP_UNFINISHED = -1
CAP_POSITION = -2
SPECIALS = frozenset("^$*+?.([%-")


class _Unfinished:
    __slots__ = ()

    def __repr__(self):
        return "UNFINISHED"


UNFINISHED = _Unfinished()


# ------------------------------------------------------ backtracking matcher


class _Matcher:
    """One subject and one pattern: lstrlib's MatchState."""

    __slots__ = ("s", "send", "p", "pend", "level", "cinit", "clen", "depth", "classes", "fuel", "pat")

    def __init__(self, pat: "LPattern", s: str):
        self.pat = pat
        self.fuel = FUEL
        self.s = s
        self.send = len(s)
        self.p = pat.body
        self.pend = len(pat.body)
        self.classes = pat.classes
        self.cinit = [0] * MAXCAPTURES
        self.clen = [0] * MAXCAPTURES
        self.level = 0
        self.depth = MAXCCALLS

    def item(self, pi: int):
        r = self.classes.get(pi)
        if r is None:
            ep = class_end(self.p, pi)
            r = self.classes[pi] = (ep, item_set(self.p, pi, ep))
        return r

    def refuel(self, used: int) -> None:
        """Charges the step budget for `used` matcher calls."""
        self.fuel = FUEL
        values.charge_steps(used * STEPS_PER_CALL)

    def match(self, si, pi):
        if self.depth == 0:
            error("pattern too complex")
        self.depth -= 1
        self.fuel -= 1
        if self.fuel < 0:
            self.refuel(FUEL)
        p, pend, s, send = self.p, self.pend, self.s, self.send
        while pi != pend:
            c = p[pi]
            if c == "(":  # start capture (a position capture if "()")
                lvl = self.level
                if lvl >= MAXCAPTURES:
                    error("too many captures")
                self.cinit[lvl] = si
                if pi + 1 < pend and p[pi + 1] == ")":
                    self.clen[lvl] = CAP_POSITION
                    pi += 2
                else:
                    self.clen[lvl] = CAP_UNFINISHED
                    pi += 1
                self.level = lvl + 1
                si = self.match(si, pi)
                if si is None:
                    self.level -= 1
                break
            if c == ")":  # end capture
                lvl = self.level - 1
                while lvl >= 0 and self.clen[lvl] != CAP_UNFINISHED:
                    lvl -= 1
                if lvl < 0:
                    error("invalid pattern capture")
                self.clen[lvl] = si - self.cinit[lvl]
                si = self.match(si, pi + 1)
                if si is None:
                    self.clen[lvl] = CAP_UNFINISHED
                break
            if c == "$" and pi + 1 == pend:
                if si != send:
                    si = None
                break
            if c == "%" and pi + 1 < pend:
                d = p[pi + 1]
                if d == "b":
                    si = self.balance(si, pi + 2)
                    if si is None:
                        break
                    pi += 4
                    continue
                if d == "f":
                    pi += 2
                    if pi >= pend or p[pi] != "[":
                        error("missing '[' after '%f' in pattern")
                    ep, cs = self.item(pi)
                    prev = s[si - 1] if si > 0 else "\0"
                    cur = s[si] if si < send else "\0"
                    if prev not in cs and cur in cs:
                        pi = ep
                        continue
                    si = None
                    break
                if "0" <= d <= "9":
                    si = self.match_capture(si, ord(d) - 49)
                    if si is None:
                        break
                    pi += 2
                    continue
            # a single-char class with an optional quantifier
            ep, cs = self.item(pi)
            q = p[ep] if ep < pend else ""
            if si >= send or s[si] not in cs:
                if q == "*" or q == "?" or q == "-":
                    pi = ep + 1
                    continue
                si = None
                break
            if q == "":
                si += 1
                pi = ep
                continue
            if q == "?":
                r = self.match(si + 1, ep + 1)
                if r is not None:
                    si = r
                    break
                pi = ep + 1
                continue
            if q == "*" or q == "+":  # max_expand
                lo = si + 1 if q == "+" else si
                i = si + 1
                while i < send and s[i] in cs:
                    i += 1
                self.fuel -= (i - si) >> 4
                ep += 1
                while i >= lo:
                    r = self.match(i, ep)
                    if r is not None:
                        break
                    i -= 1
                si = r if i >= lo else None
                break
            if q == "-":  # min_expand
                ep += 1
                while True:
                    r = self.match(si, ep)
                    if r is not None:
                        si = r
                        break
                    if si < send and s[si] in cs:
                        si += 1
                    else:
                        si = None
                        break
                break
            si += 1  # any other char after the class is not a quantifier
            pi = ep
        self.depth += 1
        return si

    def balance(self, si, pi):
        if pi >= self.pend - 1:
            error("malformed pattern (missing arguments to '%b')")
        s, send = self.s, self.send
        b, e = self.p[pi], self.p[pi + 1]
        if si >= send or s[si] != b:
            return None
        pat = self.pat
        if pat.scanned[0] is not s:
            pat.scanned = [s, 0]
        if pat.scanned[1] > 2 * send + 1000:
            # scanning from each start is quadratic: look the span up
            return pat.balanced_spans(s, b, e).get(si)
        start = si
        cont = 1
        i = si + 1
        while i < send:
            c = s[i]
            if c == e:
                cont -= 1
                if cont == 0:
                    pat.scanned[1] += i - start
                    return i + 1
            elif c == b:
                cont += 1
            i += 1
        pat.scanned[1] += i - start
        self.fuel -= (i - start) >> 4
        return None

    def match_capture(self, si, lvl):
        if lvl < 0 or lvl >= self.level or self.clen[lvl] == CAP_UNFINISHED:
            error(f"invalid capture index %{lvl + 1}")
        n = self.clen[lvl]
        if n == CAP_POSITION:
            return None  # Lua compares a huge (size_t)-2 length: never matches
        init = self.cinit[lvl]
        self.fuel -= n >> 4  # the comparison's length, as max_expand charges its scan
        if self.send - si >= n and self.s.startswith(self.s[init:init + n], si):
            return si + n
        return None

    def captures(self) -> list:
        out = []
        s = self.s
        for i in range(self.level):
            n = self.clen[i]
            init = self.cinit[i]
            if n == CAP_UNFINISHED:
                out.append(UNFINISHED)
            elif n == CAP_POSITION:
                out.append(init + 1)
            else:
                out.append(s[init:init + n])
        return out

    def try_at(self, si):
        self.level = 0
        self.depth = MAXCCALLS
        return self.match(si, 0)


# ------------------------------------------------------------ the patterns


class LPattern:
    """A compiled Lua pattern (anchor stripped unless compiled for gmatch)."""

    __slots__ = ("body", "anchor", "regex", "poscaps", "classes", "first", "nonempty", "spans", "plan", "scanned", "safe",
                 "plain", "any_rx", "textcaps", "find_rx", "single", "subs", "short", "split_rx", "match_values",
                 "bare", "first_group")

    def __init__(self, p: str, gmatch: bool = False):
        self.plain = not gmatch and SPECIALS.isdisjoint(p)  # find searches it as plain text
        self.subs = {}  # gsub's replacement strings as re templates (see template_for)
        self.split_rx = None  # gsub's regex for re.split (strgsub._splitter)
        self.anchor = not gmatch and p[:1] == "^"
        self.body = body = p[1:] if self.anchor else p
        self.classes = {}
        self.spans = None  # (subject, b, e, spans) of the last %b table
        self.scanned = [None, 0]  # subject, chars %b scanned in it from its starts
        tr = translate(body)
        if tr is None:
            self.regex = None
            self.poscaps = ()
            self.nonempty = False
            self.plan = None
            self.short = -1
        else:
            self.regex = re.compile(tr[0], re.DOTALL)
            self.poscaps = tr[1]
            self.nonempty = tr[2] > 0  # so re.subn's scan is Lua's
            self.plan = tr[3]
            self.short = self.plan.short_enough(self.anchor)  # safe on a subject up to this long
        # the regex when it is safe on every subject (its work is linear)
        self.any_rx = self.regex if self.plan is not None and self.plan.linear else None
        # the captures are all text ones: m.groups() are Lua's captures
        self.textcaps = True not in self.poscaps
        # the regex find and match use on any subject: safe, text captures
        self.find_rx = self.any_rx if self.textcaps else None
        # what inline `s:match(p)` and `s:find(p)` read (compiler/contract.INLINE_STRING_CALLS)
        self.match_values = (len(self.poscaps) or 1) if self.regex is not None and self.textcaps else 0
        self.bare = self.regex is not None and not self.poscaps
        self.first_group = 1 if self.poscaps else 0
        self.safe = (None, None)  # the last subject and whether re is safe on it
        # the chars of a pattern of one single-char class ('[^ \t]', '%s',
        # '.'): find and match test the char at their start against them
        # before searching (as a scanner skipping blanks finds one at once)
        self.single = None
        if self.regex is not None and not self.poscaps and body[:1] in ("[", "%", ".") and body[:2] not in ("%b", "%f"):
            if class_end(body, 0) == len(body):
                self.single = item_set(body, 0, len(body))
        # a char every match must start with (lets search skip ahead)
        self.first = None
        if body and body[0] not in "()%[." and not (body == "$"):
            if len(body) < 2 or body[1] not in "*?-":
                self.first = body[0]
        elif body[:2] == "%b" and len(body) >= 4:
            self.first = body[2]

    def balanced_spans(self, s: str, b: str, e: str) -> dict:
        """For each b in s, the end of the span `%b` matches from there (as
        lstrlib's matchbalance finds it), computed once for the subject."""
        cached = self.spans
        if cached is not None and cached[0] is s and cached[1] == b and cached[2] == e:
            return cached[3]
        spans = {}
        if b == e:  # the closing char is tested first: a span ends at the next b
            k = s.find(b)
            while k >= 0:
                nxt = s.find(b, k + 1)
                if nxt >= 0:
                    spans[k] = nxt + 1
                k = nxt
        else:
            opened = []
            for m in re.finditer(f"[{re.escape(b)}{re.escape(e)}]", s):
                k = m.start()
                if s[k] == b:
                    opened.append(k)
                elif opened:
                    spans[opened.pop()] = k + 1
        values.charge_steps(len(s) >> 2)
        self.spans = (s, b, e, spans)
        return spans

    def caps_of(self, m) -> list:
        if not self.poscaps:
            return []
        if self.textcaps:
            return list(m.groups())
        return [m.start(g) + 1 if pos else m.group(g) for g, pos in enumerate(self.poscaps, 1)]

    def regex_for(self, s: str):
        """The regex, when it is safe on s: re cannot be stopped by the step
        budget, so a subject on which a search could work for long (the
        pattern's Plan says how long, from the subject's runs) runs on the
        metered matcher instead."""
        rx = self.regex
        if rx is None or len(s) <= self.short:
            return rx
        subject, safe = self.safe
        if subject is not s:
            safe = self.plan.fits(s, self.anchor)
            self.safe = (s, safe)
        return rx if safe else None

    def match_at(self, s: str, i: int):
        """The match starting exactly at i, as (i, end, caps), or None."""
        rx = self.regex_for(s)
        if rx is not None:
            m = rx.match(s, i)
            if m is None:
                return None
            return i, m.end(), self.caps_of(m)
        mt = _Matcher(self, s)
        e = mt.try_at(i)
        if e is None:
            return None
        return i, e, mt.captures()

    def search(self, s: str, i: int, lastmatch: int = -1):
        """The first match starting at or after i whose end is not
        `lastmatch` (Lua 5.4's rule against an empty match right after the
        previous one), as (start, end, caps), or None."""
        rx = self.regex_for(s)
        if rx is not None:
            while True:
                m = rx.search(s, i)
                if m is None:
                    return None
                e = m.end()
                if e != lastmatch:
                    return m.start(), e, self.caps_of(m)
                i = m.start() + 1
                if i > len(s):
                    return None
        mt = _Matcher(self, s)
        n = len(s)
        first = self.first
        while i <= n:
            if first is not None:
                i = s.find(first, i)
                if i < 0:
                    return None
            e = mt.try_at(i)
            if e is not None and e != lastmatch:
                return i, e, mt.captures()
            i += 1
        return None


#: compiled patterns by source: PATTERNS for find/match/gsub (builtins look
#: here first, one dict hit), GMATCH_PATTERNS for gmatch (no '^' anchor)
PATTERNS: dict = {}
GMATCH_PATTERNS: dict = {}


def compile_pattern(p: str, gmatch: bool = False) -> LPattern:
    cache = GMATCH_PATTERNS if gmatch else PATTERNS
    pat = cache.get(p)
    if pat is None:
        if len(cache) >= 512:
            cache.clear()
        pat = cache[p] = LPattern(p, gmatch)
    return pat


class _Refused:
    """What inline pattern calls get for a pattern the library refuses:
    fields that send them to the library's call, which raises its error."""

    match_values = 0
    bare = False


_REFUSED = _Refused()


def inline_pattern(p: str):
    """The compiled pattern an inline `s:find(p)` or `s:match(p)` reads
    (compiler/strcalls.py), where PATTERNS has it no more: compiled as the
    library compiles it, or _REFUSED."""
    try:
        return compile_pattern(p)
    except LuaError:
        return _REFUSED


def find_match(s: str, p: str, init: int):
    """The first match of p in s from 0-based init, honouring '^'."""
    pat = compile_pattern(p)
    if pat.anchor:
        return pat.match_at(s, init)
    return pat.search(s, init)


def has_specials(p: str) -> bool:
    return not SPECIALS.isdisjoint(p)


# ------------------------------------------------------------- captures


def capture(caps: list, i: int, s: str, st: int, e: int):
    """Capture i (0-based) as get_onecapture: the whole match when there are
    no captures and i == 0."""
    if i >= len(caps):
        if i != 0:
            error(f"invalid capture index %{i + 1}")
        return s[st:e]
    v = caps[i]
    if v is UNFINISHED:
        error("unfinished capture")
    return v


def all_captures(caps: list, s: str, st: int, e: int, whole: bool = True) -> tuple:
    """All captures as push_captures (the whole match if none and `whole`)."""
    if not caps:
        return (s[st:e],) if whole else ()
    for v in caps:
        if v is UNFINISHED:
            error("unfinished capture")
    return tuple(caps)
