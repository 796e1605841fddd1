"""Lua patterns on Python's `re` (runvil.lua.stdlib.patterns.regex): every pattern
`re` can express with Lua's meaning runs on it, with Lua 5.4's results.

A differential test runs find, match, gmatch (a generic for, its
iterator called, and both in turn) and gsub (string, table and function replacements) in a
runvil state and in real Lua 5.4 (lupa) on generated patterns and
subjects, and says which path (re or the metered matcher) each took; the
shapes of issue 28 are checked to take re on a long text, and runaway
patterns to be stopped by the step budget."""

from __future__ import annotations

import re
import time
from contextlib import contextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runvil.lua import LimitExceeded, LuaState
from runvil.lua.stdlib.patterns.matcher import compile_pattern
from runvil.lua.stdlib.patterns.regex import RISKY_WORK, translate
from runvil.lua.stdlib import strgmatch

lupa = pytest.importorskip("lupa")

from .string_support import BOUNDED  # noqa: E402

# ------------------------------------------------------------- the program

PROGRAM = r"""
local s, p, init, repl = ...
local out = {}
local function put(ok, ...)
  local t = {tostring(ok)}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    t[#t + 1] = math.type(v) or type(v)
    t[#t + 1] = tostring(v)
  end
  out[#out + 1] = table.concat(t, ",")
end
put(pcall(string.find, s, p, init))
put(pcall(string.match, s, p, init))
put(pcall(function()
  local r = {}
  for a, b, c in s:gmatch(p, init) do
    r[#r + 1] = tostring(a) .. "/" .. tostring(b) .. "/" .. tostring(c)
    if #r > 40 then break end
  end
  return table.concat(r, ";")
end))
put(pcall(function()
  local r = {}
  for a in s:gmatch(p) do r[#r + 1] = tostring(a) if #r > 40 then break end end
  return table.concat(r, ";")
end))
put(pcall(function()
  local it, r = s:gmatch(p), {}
  for _ = 1, 40 do
    local a, b = it()
    if a == nil then break end
    r[#r + 1] = tostring(a) .. "/" .. tostring(b)
  end
  return table.concat(r, ";")
end))
put(pcall(function()
  local it, r = s:gmatch(p), {}
  for a in it do r[#r + 1] = tostring(a) if #r == 6 then break end end
  for _ = 1, 3 do r[#r + 1] = tostring((it())) end
  for a in it do r[#r + 1] = tostring(a) .. "/" .. tostring((it())) if #r > 40 then break end end
  return table.concat(r, ";")
end))
put(pcall(string.gsub, s, p, repl))
put(pcall(string.gsub, s, p, repl, 2))
put(pcall(string.gsub, s, p, {a = "A", ab = 1, x = false, ["1"] = "one", [" "] = "_"}))
put(pcall(string.gsub, s, p, function(a, b)
  if a == "b" then return nil end
  if a == "x" then return false end
  if a == "1" then return 2.5 end
  return "<" .. tostring(a) .. "," .. tostring(b) .. ">"
end))
return table.concat(out, "\n")
"""

_STATE = LuaState()
_OURS = _STATE.load(PROGRAM, "=patterns")
_L = lupa.lua54.LuaRuntime(encoding=None)
_REAL = _L.execute(b"return function(...) return (load(...)) end")(PROGRAM.encode(), b"=patterns")
_POSITION = re.compile(r"(?m)^(false,string,)[^\n,]*?:\d+: ")


def ours(s: str, p: str, init, repl: str) -> str:
    _STATE.reset_limits()
    return _POSITION.sub(r"\1", _STATE.call(_OURS, s, p, init, repl)[0])


def real(s: str, p: str, init, repl: str) -> str:
    args = [x.encode("latin-1") if type(x) is str else x for x in (s, p, init, repl)]
    return _POSITION.sub(r"\1", _REAL(*args).decode("latin-1"))


def path(p: str, s: str, gmatch: bool = False) -> str:
    """Which engine a search of s with p runs on."""
    pat = compile_pattern(p, gmatch)
    return "re" if pat.regex is not None and pat.regex_for(s) is not None else "matcher"


# ---------------------------------------------------------- the generators

_CHARS = "ab x.-@_1\n\t\xe9\xff\0"
_LITERAL = st.sampled_from(["a", "b", "x", " ", "@", "_", "1", "\n", "\xe9", "\xff", "\0", "%.", "%-", "%%",
                            "%(", "%)", "%[", "%]", "%^", "%$", "%*", "%+", "%?", "%@"])
_CLASS = st.sampled_from(["." , "%a", "%d", "%s", "%w", "%p", "%l", "%u", "%x", "%c", "%g",
                          "%A", "%D", "%S", "%W", "%P", "%z"])
_SET = st.sampled_from(["[%w%.]", "[^%s]", "[a-c]", "[%a_]", "[^\n]", "[]]", "[^]]", "[a-]", "[\xe0-\xff]",
                        "[%s%p]", "[^%w@]", "[.-]", "[^ab]", "[%]x]", "[_%d]"])
_ITEM = st.builds(lambda one, q: one + q, st.one_of(_LITERAL, _CLASS, _SET),
                  st.sampled_from(["", "", "", "*", "+", "-", "?"]))
_ZERO = st.sampled_from(["%f[%w]", "%f[%W]", "%f[%s]", "%f[%z]", "%f[^%z]", "()"])


@st.composite
def well_formed(draw) -> str:
    """A pattern `re` can express: balanced captures, back references to
    closed ones, no `%b`; anchors and `$` / `^` inside as literals."""
    out = []
    opened = []  # open capture numbers
    closed = []
    ncaps = 0
    for _ in range(draw(st.integers(1, 6))):
        k = draw(st.integers(0, 9))
        if k <= 4:
            out.append(draw(_ITEM))
        elif k == 5:
            out.append(draw(_ZERO))
            if out[-1] == "()":
                ncaps += 1
        elif k == 6 and ncaps < 31:
            out.append("(")
            ncaps += 1
            opened.append(ncaps)
        elif k == 7 and opened:
            out.append(")")
            closed.append(opened.pop())
        elif k == 8 and closed:
            out.append("%" + str(draw(st.sampled_from(closed))))
        else:
            out.append(draw(st.sampled_from(["$", "^", "a", "%s+"])))
    out.extend(")" * len(opened))
    head = draw(st.sampled_from(["", "", "^"]))
    tail = draw(st.sampled_from(["", "", "$"]))
    return head + "".join(out) + tail


_RAW = st.text(alphabet="ab%()[]^$-*+?.fb1", max_size=8)  # malformed patterns too: their errors
SUBJECTS = st.text(alphabet=_CHARS, max_size=24)
INITS = st.one_of(st.none(), st.integers(-30, 30))
REPLS = st.sampled_from(["<%0>", "%1-%1", "[%2]", "%%", "x", "", "%a", "%", "%9"])


@BOUNDED
@given(well_formed(), SUBJECTS, INITS, REPLS)
def test_expressible_patterns_run_on_re_with_lua_results(p, s, init, repl):
    body = p[1:] if p.startswith("^") else p
    assert translate(body) is not None, p  # everything re can express goes to it
    ways = (path(p, s), path(p, s, gmatch=True))
    expected = real(s, p, init, repl)
    assert ours(s, p, init, repl) == expected, (p, s, init, repl, ways)
    with walks_by_findall():  # as on a subject past _FINDALL_MIN chars
        assert ours(s, p, init, repl) == expected, (p, s, init, repl, ways, "findall")


@contextmanager
def walks_by_findall():
    """A for over gmatch takes the rest of its matches by findall on a
    short subject too."""
    old = strgmatch._FINDALL_MIN
    strgmatch._FINDALL_MIN = -1
    try:
        yield
    finally:
        strgmatch._FINDALL_MIN = old


@BOUNDED
@given(st.one_of(_RAW, well_formed()), SUBJECTS, INITS, REPLS)
def test_any_pattern_gives_lua_results_or_errors(p, s, init, repl):
    ways = (path(p, s), path(p, s, gmatch=True))
    assert ours(s, p, init, repl) == real(s, p, init, repl), (p, s, init, repl, ways)


@pytest.mark.parametrize("p, s", [
    ("()" * 32 + "a", "a"),  # 32 captures: the most
    ("()" * 33 + "a", "a"),  # too many
    ("(" * 40 + "a" + ")" * 40, "a"),
    ("a?" * 210 + "b", "a" * 300),  # Lua's "pattern too complex"
    ("%f[%w]%w+", "\xe9t\xe9 ok"),
    ("[%w%.]+@[%w%.]+%.%a+", "x mail: john.smith@mail.example.org."),
    ("(.-)%s*$", "  text \t\n"),
    ("(%d+)%.(%d)", "1.23.4"),
    ("", "abc"),
    (".-", "abc"),
    ("x*", "axxb"),
    ("%f[%z]", "ab"),
    ("%f[^%z]", "ab"),
])
@pytest.mark.parametrize("init", [None, 1, 2, -1, 10])
def test_edge_shapes(p, s, init):
    assert ours(s, p, init, "<%0>") == real(s, p, init, "<%0>"), (p, s, init)


# ------------------------------------------------------ paths on long text

_TEXT = ("Reply from the model: contact john.smith@mail.example.org or ops@runvil.dev, "
         "ticket 12345 at https://www.example.com/page7  \t\n") * 9000  # ~900 KB

ISSUE_SHAPES = ["%a+", "%d+", "(%a)(%a*)", "([%w%.]+)@([%w%.]+%.%a+)", "%s+", "[^\n]+",
                "%f[%w](%w+)%f[%W]", "{([%w_]+)}", "(%w+)=(%w+)", '"(%w+)":%s*"([^"]*)"', "%s*(.-)%s*$"]


@pytest.mark.parametrize("p", ISSUE_SHAPES)
def test_text_shapes_run_on_re_on_a_long_text(p):
    if p == "%s*(.-)%s*$":  # a search of the whole text tries each start: n^2
        assert path("^" + p, _TEXT) == "re"  # anchored (a trim): one start
    else:
        assert path(p, _TEXT) == "re" and path(p, _TEXT, gmatch=True) == "re"


def test_backtracking_is_cut_where_it_cannot_help():
    """Runs whose next char can never be theirs are possessive; runs that
    may give back chars stay greedy or lazy."""
    assert translate("([%w%.]+)@")[0].startswith(r"([\x2e\x30-\x39\x41-\x5a\x61-\x7a]++)@")
    assert translate("%a+%a")[0] == r"[\x41-\x5a\x61-\x7a]+[\x41-\x5a\x61-\x7a]"
    assert translate("%s*(.-)%s*$")[0] == r"[\x09-\x0d\x20]*+(.*?)[\x09-\x0d\x20]*+\Z"
    assert translate("a-b")[0] == "a*+b"  # a lazy run of a's before a b can only end at the b
    assert translate("a-")[0] == "a*?"  # nothing after: empty at once


LAZY_SHAPES = ["<(.-)>", "%[(.-)%]", '"(.-)"', "(.-)x", "a(.-)[xy]", "<(%a-)>", "(.-)>$", "<(.-)>.", "<(.-)>b",
               "(.-)()>", "x(.-)"]


@pytest.mark.parametrize("p", LAZY_SHAPES)
@pytest.mark.parametrize("s", ["<a><bc>d>", "<<a>>", "xx<>y", "[a[b]c]", 'say "hi" and "yo"', "no stop at all",
                               "a1x a2y ax", "<a\nb>", "", ">", "<ab>x<cd>b"])
def test_lazy_runs_before_a_stop_char_match_as_in_lua(p, s):
    for init in (None, 2, -3):
        assert ours(s, p, init, "<%0>") == real(s, p, init, "<%0>"), (p, s, init)


def test_a_lazy_run_before_one_char_is_a_possessive_run_of_the_other_chars():
    """`-` then a single char, after which the pattern always matches: the
    run ends at the first char of that set, with no backtracking."""
    assert translate("<(.-)>")[0] == r"<([\x00-\x3d\x3f-\xff]*+)>"
    assert translate('"(%w-)"')[0].endswith("*+)\"")
    assert translate("<(.-)>.")[0] == "<(.*?)>."  # a char after the stop: the run may go past a '>'
    assert translate("(.-)>b")[0] == "(.*?)>b"


@pytest.mark.parametrize("p", ["<(.-)>", '"(.-)"', "%[(.-)%]"])
def test_lazy_captures_run_on_re_on_a_long_text(p):
    text = ("<tag> some text [ref] with \"quoted\" words " * 30_000)  # ~1.3 MB
    assert path(p, text) == "re" and path(p, text, gmatch=True) == "re"


def test_a_run_up_to_its_stop_char_is_bounded_by_the_subject_after_the_last_stop():
    """`<(.-)>` on re: an attempt whose '<' matches runs to the next '>' and
    succeeds, so only starts after the last '>' can scan far. The bound
    reads the subject from its end (no pass over it); many '<' with no '>'
    after them still go to the metered matcher."""
    tags = compile_pattern("<(.-)>", gmatch=True)
    assert tags.plan.to_stop == (1, ">", "<")
    assert compile_pattern("<(.-)>.").plan.to_stop is None  # the run may go past a '>'
    assert compile_pattern("<(.-)>$").plan.to_stop is None
    text = ("words <tag> and more words " + "x" * 5_000 + " ") * 200  # gaps of 5 KB: no longest-run pass needed
    assert tags.plan._to_stop_work(text, len(text), len(text) + 1) < 10 * len(text)
    assert tags.regex_for(text) is not None
    hostile = text + "<" * 20_000  # each '<' after the last '>' scans to the end
    assert tags.plan._to_stop_work(hostile, len(hostile), len(hostile) + 1) > RISKY_WORK
    assert tags.regex_for(hostile) is None
    assert compile_pattern("^<(.-)>").regex_for(hostile) is not None  # anchored: one start
    assert path("<(.-)>", hostile, gmatch=True) == "matcher"


def test_the_plan_sends_long_runs_to_the_metered_matcher():
    pat = compile_pattern("([%w%.]+)@([%w%.]+%.%a+)")
    assert pat.regex_for(_TEXT) is not None
    assert pat.regex_for("a" * 200_000 + "@" + _TEXT[:300_000]) is None  # each start scans the run: n^2
    trim = compile_pattern("^%s*(.-)%s*$")
    assert trim.regex_for(" " * 10 + "x" * 500_000) is not None  # one start, short blank runs
    assert trim.regex_for(" x" * 10_000 + " " * 20_000) is None  # each lazy step scans the blanks


@pytest.mark.parametrize("code", [
    "local s = string.rep('a', 300000) return s:find('.-.-.-.-b')",
    "local s = string.rep('a', 300000) return s:find('(a*)(a*)(a*)b')",
    "local s = string.rep('a', 300000) return s:gsub('[%w%.]+@', '')",
    "local s = string.rep('ab', 100000) return s:match('^(.-)%s*(.-)%s*(.-)x$')",
    "local s = string.rep('a', 300000) for a in s:gmatch('(a-)%1b') do end",
])
def test_runaway_patterns_are_stopped_by_the_step_budget(code):
    """The issue's target: a runaway pattern stops within 2 s (of CPU, so
    that other work on a loaded machine does not count)."""
    st = LuaState()
    fn = st.load(code)
    t = time.process_time()
    with pytest.raises(LimitExceeded, match="step limit exceeded"):
        st.call(fn)
    assert time.process_time() - t < 2.0


def test_risky_work_is_a_fraction_of_a_second_of_re():
    """RISKY_WORK elementary steps of a backtracking regex take well under
    the 2 s the step budget is allowed."""
    rx = re.compile("[a-z]+[a-z]+@")
    n = int((6 * RISKY_WORK / 40) ** (1 / 3))  # a search of n a's: about n^3 / 6 steps, a 40th of RISKY_WORK
    t = time.process_time()
    assert rx.search("a" * n) is None
    assert (time.process_time() - t) * 40 < 2.0
