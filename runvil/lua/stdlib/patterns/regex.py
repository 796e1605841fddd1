"""Lua patterns as Python regexes, and how long such a regex may run.

A Lua pattern without `%b` is a sequence of items that Python's `re`
reproduces exactly: `re` backtracks in Lua's order (a greedy `*`/`+` tries
the longest run first, `-` is `*?`, `?` tries one before none), so the first
match it finds is Lua's. Captures are groups (a position capture an empty
group), `$` at the end is `\\Z`, `.` matches any char (DOTALL), classes and
sets are byte sets in the C locale, `%f[set]` is a pair of one-char
lookarounds and `%1` a back reference to a closed text capture (to a position capture it
never matches, as in Lua).

Where backtracking into a quantified item can never help (the chars that
may follow it are not in its set, or what follows always succeeds), the
item is made possessive (`*+`, `++`, `?+`): the match is the same, and a
failing search does not retry every shorter run.

`re` cannot be stopped by the step budget, so each translation carries a
`Plan`: a bound of the work one search does, as a function of the
subject's length and of its longest runs of each quantified item's chars.
lpattern hands a subject to `re` only when that bound is small (see
`Plan.fits`); any other subject runs on the metered matcher.
"""

from __future__ import annotations

import re

from ...errors import LuaError
from .items import ALL, ALL_CHARS, MAXCAPTURES, MAXCCALLS, class_end, item_set

#: the most work (elementary steps of re, a few ns each) one search may risk
RISKY_WORK = 10**8


def set_regex(cs: frozenset) -> str:
    if len(cs) == 256:
        return "."
    if len(cs) == 1:
        return re.escape(next(iter(cs)))
    codes = sorted(ord(c) for c in cs)
    if not codes:
        return "[^\\x00-\\xff]"
    parts = []
    i = 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        a, b = codes[i], codes[j]
        parts.append(f"\\x{a:02x}" if a == b else f"\\x{a:02x}-\\x{b:02x}")
        i = j + 1
    return "[" + "".join(parts) + "]"


def _frontier(cs: frozenset) -> str:
    """%f[set]: the previous char (NUL at the start) is not in the set and
    the current one (NUL at the end) is."""
    setrx = set_regex(cs)
    if "\0" in cs:
        return f"(?<={set_regex(ALL - cs)})(?:(?={setrx})|\\Z)"
    return f"(?<!{setrx})(?={setrx})"


# ------------------------------------------------------------------ items

# an item: (kind, chars, quantifier); kinds: "open", "close", "pos" (a
# position capture), "end" (a final '$'), "front" (%f[chars]), "ref"
# (quantifier: the capture's number), "one" (a single-char class, with
# quantifier "", "*", "+", "-" or "?"), "never" (a back reference to a
# position capture)
_OPTIONAL = ("*", "?", "-")


def _items(p: str):
    """The items of p, or None when it has `%b`, an unbalanced or
    position-capture back reference, or is malformed (the matcher raises
    Lua's error where Lua's does)."""
    items = []
    stack = []  # the open text captures
    ncaps = 0
    closed = set()
    pend = len(p)
    i = 0
    while i < pend:
        c = p[i]
        if c == "(":
            if i + 1 < pend and p[i + 1] == ")":
                items.append(("pos", None, ""))
                closed.add(ncaps)
                ncaps += 1
                i += 2
            else:
                items.append(("open", None, ""))
                stack.append(ncaps)
                ncaps += 1
                i += 1
            continue
        if c == ")":
            if not stack:
                return None
            items.append(("close", None, ""))
            closed.add(stack.pop())
            i += 1
            continue
        if c == "$" and i + 1 == pend:
            items.append(("end", None, ""))
            break
        if c == "%" and i + 1 < pend and p[i + 1] in "bf0123456789":
            d = p[i + 1]
            if d == "b":
                return None
            if d == "f":
                if i + 2 >= pend or p[i + 2] != "[":
                    return None
                ep = class_end(p, i + 2)
                items.append(("front", item_set(p, i + 2, ep), ""))
                i = ep
                continue
            lvl = ord(d) - 49  # a back reference to a closed capture
            if lvl < 0 or lvl not in closed:
                return None
            if items_kind_at(items, lvl) == "pos":
                items.append(("never", None, ""))  # Lua compares a (size_t)-2 length: never matches
            else:
                items.append(("ref", None, lvl + 1))
            i += 2
            continue
        ep = class_end(p, i)
        cs = item_set(p, i, ep)
        q = ""
        if ep < pend and p[ep] in "*+-?":
            q = p[ep]
            ep += 1
        items.append(("one", cs, q))
        i = ep
    if stack or ncaps > MAXCAPTURES:
        return None
    return items


def items_kind_at(items: list, lvl: int) -> str:
    """The kind ("open" or "pos") of capture number lvl + 1."""
    k = -1
    for kind, _, _ in items:
        if kind == "open" or kind == "pos":
            k += 1
            if k == lvl:
                return kind
    return ""


def _end_ok(items: list, j: int) -> bool:
    """items[j:] match the empty string at the subject's end."""
    return all(k in ("open", "close", "pos", "end") or (k == "one" and q in _OPTIONAL) for k, _, q in items[j:])


def _always(items: list, j: int) -> bool:
    """items[j:] match at every position (only optional items, or a `.*`
    / `.-` that can reach the end, where the rest matches)."""
    for k in range(j, len(items)):
        kind, cs, q = items[k]
        if kind in ("open", "close", "pos"):
            continue
        if kind == "one" and q in _OPTIONAL:
            if q != "?" and len(cs) == 256 and _end_ok(items, k + 1):
                return True
            continue
        return False
    return True


def _trivial(items: list, n: int) -> list[bool]:
    """For each j up to n: items[j:] are optional items and captures alone,
    so a match reaching them succeeds at once (their scans are part of the
    match). One pass from the end: a pattern of a megabyte is one."""
    trivial = [True] * (n + 1)
    ok = all(k in ("open", "close", "pos") or (k == "one" and q in _OPTIONAL) for k, _, q in items[n:])
    trivial[n] = ok
    for j in range(n - 1, -1, -1):
        k, _, q = items[j]
        ok = ok and (k in ("open", "close", "pos") or (k == "one" and q in _OPTIONAL))
        trivial[j] = ok
    return trivial


def _first(items: list, j: int) -> frozenset:
    """The chars items[j:] may consume first (a frontier's set counts, as
    it tests the char there; a back reference may start with any)."""
    first: set = set()
    for kind, cs, q in items[j:]:
        if kind in ("open", "close", "pos"):
            continue
        if kind == "end":
            break
        if kind == "ref":
            return ALL
        if kind == "never":
            break
        first |= cs
        if kind == "one" and q in ("", "+"):
            break
    return frozenset(first)


def _lazy_stop(items: list, j: int) -> frozenset | None:
    """The set of the single char that must follow the lazy run items[j]
    (captures aside) when whatever comes after that char always matches,
    else None. Then the run stops at the first char of that set, as a
    possessive run of its other chars does: `<(.-)>` is `<([^>]*+)>`."""
    k = j + 1
    while k < len(items) and items[k][0] in ("open", "close", "pos"):
        k += 1
    if k == len(items):
        return None
    kind, cs, q = items[k]
    if kind != "one" or q != "" or not _always(items, k + 1):
        return None
    return cs


def top_captures(p: str):
    """The indices (from 0) of the outermost captures of a pattern body
    when together they are the whole match (every item that consumes is
    inside one: `(%a)(%a*)`, `%f[%w](%w+)`), else None: a match is
    then its captures joined."""
    items = _items(p)
    if items is None:
        return None
    tops = []
    depth = 0
    ncaps = 0
    for kind, _, _ in items:
        if kind == "open":
            if depth == 0:
                tops.append(ncaps)
            depth += 1
            ncaps += 1
        elif kind == "close":
            depth -= 1
        elif kind == "pos":
            ncaps += 1
        elif depth == 0 and kind not in ("end", "front", "never"):  # (those consume nothing)
            return None
    return tuple(tops) if tops else None


# ------------------------------------------------------------ translation


def translate(p: str):
    """(regex source, position-capture flags, least match length, Plan) for
    the body of a Lua pattern (its '^' taken off), or None when `re`
    cannot give Lua's result (`%b`, a malformed pattern, more than
    MAXCAPTURES captures, a pattern deep enough to hit MAXCCALLS)."""
    try:
        items = _items(p)
    except LuaError:
        return None
    if items is None:
        return None
    out = []
    costs = []  # the Plan's items: (cost kind, chars)
    poscaps = []
    minlen = 0
    depth = 1  # upper bound of nested match() calls, as Lua counts them
    prev_front = None  # a frontier's set just before, with nothing consumed before it
    consumed = False
    for j, (kind, cs, q) in enumerate(items):
        if kind == "open" or kind == "pos":
            depth += 1
            poscaps.append(kind == "pos")
            out.append("()" if kind == "pos" else "(")
            costs.append(("zero", None))
            continue
        if kind == "close":
            depth += 1
            out.append(")")
            costs.append(("zero", None))
            continue
        if kind == "end":
            out.append("\\Z")
            costs.append(("one", None))
            continue
        if kind == "front":
            out.append(_frontier(cs))
            costs.append(("one", None))
            prev_front = None if consumed else cs
            continue
        if kind == "never":
            out.append("(?!)")
            costs.append(("one", None))
            continue
        if kind == "ref":
            out.append(f"(?:\\{q})")
            costs.append(("ref", None))
            prev_front = None
            consumed = True
            continue
        out.append(set_regex(cs))
        if q == "":
            minlen += 1
            costs.append(("one", None))
        else:
            depth += 1
            if q == "+":
                minlen += 1
            # backtracking into the run never helps when what follows always
            # matches, or cannot start with one of its chars
            plain = _always(items, j + 1) or cs.isdisjoint(_first(items, j + 1))
            if q == "-":
                stop = _lazy_stop(items, j)
                if _always(items, j + 1):
                    out.append("*?")  # the rest matches at once: an empty run
                    costs.append(("zero", None))
                elif plain:
                    out.append("*+")  # the rest can only match after the whole run
                    costs.append(("scan", cs))
                elif stop is not None:  # `(.-)>`: the run ends at the first char of the stop set
                    out[-1] = set_regex(cs - stop) + "*+"
                    costs.append(("scan", cs - stop))
                else:
                    out.append("*?")
                    costs.append(("lazy", cs))
            elif plain:
                out.append(q + "+")
                # a run starting where a frontier of its chars holds (each
                # start its own position) is a whole run: such runs never
                # overlap, their scans sum to n
                linear = q == "?" or (prev_front is not None and cs <= prev_front)  # `?+`: one char at most
                costs.append(("one" if linear else "scan", None if linear else cs))
            else:
                out.append(q)
                costs.append(("maybe" if q == "?" else "run", cs))
        prev_front = None
        consumed = True
    if depth > MAXCCALLS:
        return None
    return "".join(out), tuple(poscaps), minlen, Plan(costs, items)


# ------------------------------------------------------------------ plans


class Plan:
    """A bound of the work of one regex search, from the subject.

    For each item the cost of an attempt through it that fails (Horner
    from the last item): a single char 1 + the rest, a possessive run
    (`scan`) its length + 1 + the rest, a run `re` may backtrack through
    (`run`, `lazy`) (its length + 1) × (1 + the rest), `?` twice the rest,
    a back reference the subject's length + the rest. Where the rest
    cannot fail (`_trivial`), an attempt fails at its first char or
    succeeds, and a success's scan is part of its match: matches do not
    overlap, so those scans sum to the subject's length.

    A search tries each start: starts × cost + n. When a mandatory char
    (a gate: `@` in `([%w.]+)@(...)`) follows possessive runs alone,
    only starts whose runs end at one of the subject's gate chars go on,
    at most (1 + the runs' length) of them per gate char; the rest's cost
    is paid that often only.
    """

    __slots__ = ("costs", "sets", "tables", "linear", "gate", "gate_table", "gate_chars", "_cache", "lone", "to_stop")

    def __init__(self, costs: list, items: list):
        n = len(costs)
        trivial = _trivial(items, n)
        # an item followed by trivially matching items fails at its first char
        self.costs = [(kind if not trivial[j + 1] or kind in ("zero", "ref") else "one", cs)
                      for j, (kind, cs) in enumerate(costs)]
        sets = []
        for _, cs in self.costs:
            if cs is not None and len(cs) < 256 and cs not in sets:
                sets.append(cs)
        self.sets = sets
        self.tables = {cs: bytes(c in cs for c in ALL_CHARS) for cs in sets}
        # a set of every char but one (a lazy item before that char: `<(.-)>`): its
        # longest run is the widest gap between that char's occurrences
        self.lone = {cs: next(c for c in ALL_CHARS if c not in cs) for cs in sets if len(cs) == 255}
        self.linear = all(kind in ("zero", "one") for kind, _ in self.costs)
        # the gate: the first single char after captures, frontiers and
        # possessive runs (every start goes there by one way at most)
        self.gate = None
        self.gate_chars = None
        self.gate_table = None
        for j, (kind, cs) in enumerate(self.costs):
            if kind == "zero" or kind == "scan" or (kind == "one" and items[j][0] != "one"):
                continue
            if kind == "one" and items[j][2] == "":
                gcs = items[j][1]
                self.gate = j
                self.gate_chars = "".join(sorted(gcs)) if len(gcs) <= 4 else None
                self.gate_table = bytes(c in gcs for c in ALL_CHARS)
            break
        self._cache = {}
        self.to_stop = _to_stop(self.costs, items, trivial)

    def cost(self, lens: dict, n: int, lo: int = 0, hi: int | None = None) -> int:
        """The cost of a failing attempt through costs[lo:hi], runs of each
        set at most lens[set] long (n for any set lens lacks)."""
        c = 1
        for kind, cs in reversed(self.costs[lo:hi]):
            if kind == "zero":
                continue
            if kind == "one":
                c += 1
                continue
            if kind == "ref":
                c += n + 1
                continue
            m = lens.get(cs, n) + 1
            if kind == "scan":
                c += m
            elif kind == "maybe":
                c = 2 * c + 1
            else:  # run, lazy
                c = m * (1 + c)
        return c

    def work(self, lens: dict, n: int, starts: int, gates: int | None = None) -> int:
        """The work of a search over starts, by the plain bound or, with
        the count of gate chars, the gated one (the smaller)."""
        plain = starts * self.cost(lens, n) + n
        if gates is None or self.gate is None:
            return plain
        g = self.gate
        span = 1 + sum(lens.get(cs, n) if kind == "scan" else kind == "one" for kind, cs in self.costs[:g])
        gated = starts * self.cost(lens, n, 0, g + 1) + gates * span * self.cost(lens, n, g + 1) + n
        return min(plain, gated)

    def short_enough(self, anchored: bool) -> int:
        """The longest subject on which the search is safe whatever its
        runs (computed once per anchoring)."""
        key = ("n", anchored)
        r = self._cache.get(key)
        if r is None:
            lo, hi = 0, 1
            while hi < 1 << 40 and self.work({}, hi, 1 if anchored else hi + 1) <= RISKY_WORK:
                lo, hi = hi, hi * 2
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if self.work({}, mid, 1 if anchored else mid + 1) <= RISKY_WORK:
                    lo = mid
                else:
                    hi = mid
            r = self._cache[key] = lo
        return r

    def fits(self, s: str, anchored: bool) -> bool:
        """Whether a search of s is within RISKY_WORK: the longest run of
        each set's chars is looked up in s (as bytes, one pass each, plus
        a few `in` tests; a set of all chars but one by a split at that
        char); the gate chars counted when that helps."""
        n = len(s)
        starts = 1 if anchored else n + 1
        if self.to_stop is not None and self._to_stop_work(s, n, starts) <= RISKY_WORK:
            return True
        raw = None
        lens = {}
        for cs in self.sets:
            c = self.lone.get(cs)
            if c is not None and s.count(c) <= n >> 6:  # (few pieces: the list is at most n/8 bytes)
                lens[cs] = max(map(len, s.split(c)))  # exact, without a pass of translate
                continue
            if raw is None:
                raw = s.encode("latin-1", "replace")
            lens[cs] = _longest_run(raw.translate(self.tables[cs]), n)
        if self.work(lens, n, starts) <= RISKY_WORK:
            return True
        if self.gate is None:
            return False
        if self.gate_chars is not None:
            gates = sum(s.count(c) for c in self.gate_chars)
        else:
            gates = (raw or s.encode("latin-1", "replace")).translate(self.gate_table).count(1)
        return self.work(lens, n, starts, gates) <= RISKY_WORK


    def _to_stop_work(self, s: str, n: int, starts: int) -> int:
        """The work of a search by a pattern of single chars, then a run of
        every char but one up to that char (`<(.-)>`, `"(.-)"`), then
        items that always match (`to_stop`): an attempt whose chars match
        runs to the next stop char and succeeds, and successes never
        overlap, so only the starts too near the subject's end for a stop
        char after them can scan far. Two searches from the end: no pass
        over the whole subject, as the longest run between stop chars
        would take."""
        size, stop, first = self.to_stop
        last = s.rfind(stop)  # the starts after last - size find no stop char
        tail = n - 1 - last
        late = min(starts, tail + size + 1)
        if first is not None:
            late = min(late, s.count(first, max(0, last - size + 1)))
        return starts * (size + 2) + 2 * n + late * (tail + size + 2)


def _to_stop(costs: list, items: list, trivial: list):
    """(the count of single chars before the run, the stop char, the first
    of those chars or None) when the pattern is single chars and
    captures, a possessive run of every char but one, captures, that
    char alone, then items that always match; else None."""
    size = 0
    first = None
    j = 0
    while j < len(items) and (items[j][0] in ("open", "close", "pos") or (items[j][0] == "one" and items[j][2] == "")):
        if items[j][0] == "one":
            if size == 0 and len(items[j][1]) == 1:
                first = next(iter(items[j][1]))
            size += 1
        j += 1
    if j == len(items) or costs[j][0] != "scan" or len(costs[j][1]) != 255:
        return None
    stop = next(c for c in ALL_CHARS if c not in costs[j][1])
    j += 1
    while j < len(items) and items[j][0] in ("open", "close", "pos"):
        j += 1
    if j == len(items) or items[j][0] != "one" or items[j][2] != "" or items[j][1] != {stop} or not trivial[j + 1]:
        return None
    return size, stop, first


def _longest_run(t: bytes, n: int) -> int:
    """An upper bound of the longest run of 1 bytes in t, within 1/8 of it
    above 8 (a few `in` tests of t)."""
    m = 8
    if b"\1" * m not in t:
        return m - 1
    while m * 2 <= n and b"\1" * (m * 2) in t:
        m *= 2
    lo, hi = m, min(2 * m, n + 1)  # a run of lo exists, none of hi
    for _ in range(3):
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        if b"\1" * mid in t:
            lo = mid
        else:
            hi = mid
    return hi - 1
