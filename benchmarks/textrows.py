"""Text operations side by side: each row one Lua pattern operation over
the same ~900 KB of generated prose, timed on runvil, on Python's `re`
doing the same work, and on the lua5.4 binary, in one run.

    .venv/bin/python -m benchmarks.textrows [--size BYTES] [--reps N] [--engines runvil,re,lua5.4]
                                            [--baseline DIR]

Prints a Markdown table of CPU seconds (best of N; the rows of issue 28
and the text work prompts do). Every row returns a checksum, and the
engines must agree on it (a different one is marked MISMATCH).
`--baseline DIR` adds a column for the runvil of another checkout (e.g. an
earlier commit's `git archive`), run in its own process. runvil runs with
its default limits (a row stopped by the step budget shows the error);
TEXTROWS_NO_STEP_LIMIT=1 lifts the step limit.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # when run as `python benchmarks/textrows.py` (after PYTHONPATH: see --baseline)
    sys.path.append(str(ROOT))

WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Lorem", "ipsum", "dolor",
         "sit", "amet", "runvil", "prompt", "model", "tool", "answer", "JSON", "reply", "a", "of")


def make_text(size: int) -> str:
    """Deterministic prose: sentences of words with numbers, e-mail
    addresses, URLs, runs of blanks and line breaks, ~`size` chars."""
    out = []
    total = 0
    seed = 7
    line = []
    while total < size:
        seed = (seed * 1103515245 + 12345) % 2147483648
        r = seed >> 8
        w = WORDS[r % len(WORDS)]
        k = r % 97
        if k < 4:
            w = f"{w}.{WORDS[(r >> 7) % len(WORDS)]}@example{r % 7}.org"
        elif k < 8:
            w = str(r % 100000)
        elif k < 10:
            w = f"https://www.{w}.com/page{r % 50}"
        elif k < 12:
            w = w + ","
        elif k < 13:
            w = w.capitalize() + "."
        line.append(w)
        if len(line) >= 8 + r % 9:
            text = ("  " if k % 3 == 0 else "") + " ".join(line) + (" \t" if k % 5 == 0 else "")
            out.append(text)
            total += len(text) + 1
            line = []
    return "\n".join(out)


# name -> (Lua body of `function(s) ... end` returning a number, Python twin)
def _py_gmatch_words(s):
    n = 0
    for _ in re.finditer(r"[A-Za-z]+", s):
        n += 1
    return n


def _py_gsub_digits(s):
    r, n = re.subn(r"[0-9]+", "#", s)
    return len(r) + n


def _py_titlecase(s):
    r, n = re.subn(r"([A-Za-z])([A-Za-z]*)", lambda m: m.group(1).upper() + m.group(2), s)
    return len(r) + n


def _py_emails(s):
    n = 0
    for m in re.finditer(r"([A-Za-z0-9.]+)@([A-Za-z0-9.]+\.[A-Za-z]+)", s):
        n += len(m.group(1)) + len(m.group(2))
    return n


def _py_spaces(s):
    r, n = re.subn(r"[\t-\r ]+", " ", s)
    return len(r) + n


def _py_lines_fields(s):
    n = 0
    for m in re.finditer(r"[^\n]+", s):
        line = m.group()
        f = re.match(r"[\t-\r ]*([^ \t]+)[\t-\r ]+([^ \t]+)", line)
        if f:
            n += len(f.group(1)) + len(f.group(2))
    return n


def _py_trim(s):
    n = 0
    for m in re.finditer(r"[^\n]+", s):
        body = re.match(r"[\t-\r ]*(.*?)[\t-\r ]*\Z", m.group(), re.S).group(1)
        n += len(body)
    return n


def _py_template(s):
    vars_ = {"the": "THE", "fox": "FOX", "model": "MODEL"}

    def mark(m):
        w = m.group(1)
        return "{" + w + "}" if w in vars_ else w

    tpl = re.sub(r"(?<![A-Za-z0-9])([A-Za-z0-9]+)(?![A-Za-z0-9])", mark, s[:200000])
    r, n = re.subn(r"\{([A-Za-z0-9_]+)\}", lambda m: vars_.get(m.group(1), m.group()), tpl)
    return len(r) + n


def _py_lazy_tags(s):
    n = 0
    for m in re.finditer(r"<(.*?)>", s.replace("model", "<model>"), re.S):
        n += len(m.group(1))
    return n


def _py_find_plain(s):
    n, i = 0, 0
    while True:
        j = s.find("model", i)
        if j < 0:
            return n
        n += j + 1
        i = j + 5


ROWS: dict[str, tuple[str, str, object]] = {
    "gmatch-words": ('for w in s:gmatch("%a+")', """
        local n = 0
        for w in s:gmatch("%a+") do n = n + 1 end
        return n""", _py_gmatch_words),
    "gsub-digits": ('s:gsub("%d+", "#")', """
        local r, n = s:gsub("%d+", "#")
        return #r + n""", _py_gsub_digits),
    "titlecase": ('s:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end)', """
        local r, n = s:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end)
        return #r + n""", _py_titlecase),
    "emails": ('for u, h in s:gmatch("([%w%.]+)@([%w%.]+%.%a+)")', """
        local n = 0
        for u, h in s:gmatch("([%w%.]+)@([%w%.]+%.%a+)") do n = n + #u + #h end
        return n""", _py_emails),
    "spaces": ('s:gsub("%s+", " ")', """
        local r, n = s:gsub("%s+", " ")
        return #r + n""", _py_spaces),
    "lines-fields": ('lines, then line:match("^%s*(%S+)%s+(%S+)")', """
        local n = 0
        for line in s:gmatch("[^\\n]+") do
          local a, b = line:match("^%s*([^ \\t]+)%s+([^ \\t]+)")
          if a then n = n + #a + #b end
        end
        return n""", _py_lines_fields),
    "trim": ('lines, then line:match("^%s*(.-)%s*$")', """
        local n = 0
        for line in s:gmatch("[^\\n]+") do n = n + #line:match("^%s*(.-)%s*$") end
        return n""", _py_trim),
    "template": ('%f[%w] words to {name}, then gsub("{(%w+)}", table)', """
        local vars = {the = "THE", fox = "FOX", model = "MODEL"}
        local tpl = s:sub(1, 200000)
        tpl = tpl:gsub("%f[%w](%w+)%f[%W]", function(w) if vars[w] then return "{" .. w .. "}" end end)
        local r, n = tpl:gsub("{([%w_]+)}", vars)
        return #r + n""", _py_template),
    "lazy-tags": ('words to <word>, then for w in s:gmatch("<(.-)>")', """
        local n = 0
        for w in s:gsub("model", "<model>"):gmatch("<(.-)>") do n = n + #w end
        return n""", _py_lazy_tags),
    "find-plain": ('while: s:find("model", i, true)', """
        local n, i = 0, 1
        while true do
          local a, b = s:find("model", i, true)
          if not a then return n end
          n = n + a
          i = b + 1
        end""", _py_find_plain),
}


def lua_chunk() -> str:
    """The rows as a Lua table of functions, ROWS[name](s)."""
    parts = ["ROWS = {}"]
    for name, (_, body, _) in ROWS.items():
        parts.append(f'ROWS["{name}"] = function(s){body}\nend')
    return "\n".join(parts)


_LUA_DRIVER = """
local path, reps = arg[1], tonumber(arg[2])
local f = assert(io.open(path, "rb")); local s = f:read("a"); f:close()
for _, name in ipairs(NAMES) do
  local best, sum = math.huge, nil
  for _ = 1, reps do
    collectgarbage(); collectgarbage()
    local t0 = os.clock()
    sum = ROWS[name](s)
    local dt = os.clock() - t0
    if dt < best then best = dt end
  end
  io.write(name, " ", string.format("%.6f", best), " ", tostring(sum), "\\n")
end
"""


def run_lua(text: str, reps: int) -> dict:
    exe = shutil.which("lua5.4")
    if exe is None:
        return {}
    names = "NAMES = {" + ", ".join(f'"{n}"' for n in ROWS) + "}\n"
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "text.txt")
        with open(data, "wb") as f:
            f.write(text.encode("latin-1"))
        script = os.path.join(tmp, "rows.lua")
        with open(script, "w", encoding="utf-8") as f:
            f.write(names + lua_chunk() + _LUA_DRIVER)
        out = subprocess.run([exe, script, data, str(reps)], capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        name, dt, checksum = line.split()
        res[name] = (float(dt), checksum)
    return res


def _best(fn, reps: int):
    import gc

    best, result = float("inf"), None
    for _ in range(reps):
        gc.collect()
        t0 = time.process_time()
        result = fn()
        best = min(best, time.process_time() - t0)
    return best, result


def run_runvil(text: str, reps: int) -> dict:
    from runvil.lua import LuaState
    from runvil.lua.state import Limits

    st = LuaState(limits=Limits(steps=None) if os.environ.get("TEXTROWS_NO_STEP_LIMIT") else None)
    st.execute(lua_chunk(), "=rows")
    rows = st.G.get("ROWS")
    res = {}
    for name in ROWS:
        fn = rows.get(name)
        try:
            dt, r = _best(lambda: st.call(fn, text)[0], reps)
        except Exception as e:  # noqa: BLE001  (a limit hit is a cell, not the end of the table)
            dt, r = None, f"error: {e}"
        res[name] = (dt, str(r))
    return res


def run_re(text: str, reps: int) -> dict:
    res = {}
    for name, (_, _, py) in ROWS.items():
        dt, r = _best(lambda: py(text), reps)
        res[name] = (dt, str(r))
    return res


def run_baseline(folder: str, size: int, reps: int) -> dict:
    """The runvil column of another checkout, from a process importing it."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(folder))
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--size", str(size), "--reps", str(reps),
                          "--engines", "runvil", "--json"], capture_output=True, text=True, env=env, check=True).stdout
    return {k: tuple(v) for k, v in json.loads(out).items()}


def table(results: dict, engines: list) -> str:
    head = "| operation | " + " | ".join(engines) + " | runvil / re |"
    lines = [head, "|---|" + "---:|" * (len(engines) + 1)]
    for name, (label, _, _) in ROWS.items():
        ref = results.get("lua5.4", {}).get(name, (None, None))[1]
        cells = []
        for e in engines:
            dt, checksum = results[e].get(name, (None, None))
            if dt is None:
                cells.append("n/a" if checksum is None else checksum)
            elif ref is not None and checksum != ref:
                cells.append(f"{dt:.3f} MISMATCH")
            else:
                cells.append(f"{dt:.3f}")
        rv, rx = results.get("runvil", {}).get(name), results.get("re", {}).get(name)
        ratio = f"{rv[0] / rx[0]:.2f}x" if rv and rx and rv[0] is not None and rx[0] else "-"
        lines.append(f"| `{label}` | " + " | ".join(cells) + f" | {ratio} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.textrows", description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=900_000, help="chars of text (default 900000)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions, the best is kept (default 3)")
    ap.add_argument("--engines", default="runvil,re,lua5.4")
    ap.add_argument("--baseline", metavar="DIR", help="also time the runvil of this checkout")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one engine's results, for --baseline
    args = ap.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",")]
    text = make_text(args.size)
    runners = {"runvil": run_runvil, "re": run_re, "lua5.4": run_lua}
    results = {}
    if args.baseline:
        results["baseline"] = run_baseline(args.baseline, args.size, args.reps)
        engines.insert(0, "baseline")
    for e in engines:
        if e not in results:
            results[e] = runners[e](text, args.reps)
    if args.json:
        print(json.dumps(results[engines[0]]))
        return 0
    print(f"{len(text)} chars, CPU seconds, best of {args.reps}\n")
    print(table(results, engines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
