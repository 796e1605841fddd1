#!/usr/bin/env python3
"""Compare runvil's Lua with real Lua 5.4 on every program in this folder.

Usage: python compare.py [NAME ...]   (names without .lua; default: all)

Each NAME.lua is run from this folder with `lua5.4 NAME.lua` and with
`runvil lua NAME.lua`.  Compared: stdout (byte for byte), exit status, and the
error message (first line of stderr, with the `lua5.4: ` / `runvil: ` prefix
removed).  A unified diff is printed for each mismatch.  Programs where runvil
takes > 5 s, or times out, are reported too.

Environment: LUA (default lua5.4), RUNVIL (default <repo>/.venv/bin/runvil),
TIMEOUT per run in seconds (default 60), MAXDIFF (characters of diff shown),
SHIM_IO=1 (diagnostic only: emulate io.write in runvil while it has no io
library, so that other differences in the same program show up).

Exit status: 0 if everything matches, 1 otherwise.
"""
import difflib
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RUNVIL = os.environ.get("RUNVIL", os.path.join(ROOT, ".venv", "bin", "runvil"))
LUA = os.environ.get("LUA", "lua5.4")
TIMEOUT = float(os.environ.get("TIMEOUT", "60"))
MAXDIFF = int(os.environ.get("MAXDIFF", "6000"))
# Diagnostic only: with SHIM_IO=1, runvil runs a copy of each program whose
# first line is prefixed (same line, so line numbers are kept) with a tiny
# io.write emulation used only when runvil has no `io` library.  This lets the
# other differences in a program show up while `io` is missing.
SHIM_IO = os.environ.get("SHIM_IO") == "1"
SHIM = ("if not io then local b={} local P=print io={write=function(...) "
        "for i=1,select('#',...) do local v=select(i,...) "
        "if math.type(v)=='float' then v=string.format('%.14g',v) end "
        "b[#b+1]=tostring(v) end return io end} "
        "print=function(...) local t=table.pack(...) "
        "for i=1,t.n do t[i]=tostring(t[i]) end "
        "P(table.concat(b)..table.concat(t,'\\t',1,t.n)) b={} end end ")


def run(cmd, cwd=HERE):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        return {"out": e.stdout or b"", "err": "<timeout>", "rc": None,
                "time": time.perf_counter() - t0, "stderr": e.stderr or b""}
    dt = time.perf_counter() - t0
    return {"out": p.stdout, "rc": p.returncode, "time": dt, "stderr": p.stderr}


def errline(res, prefix):
    if "err" in res:
        return res["err"]
    lines = res["stderr"].decode("utf-8", "replace").splitlines()
    if not lines:
        return ""
    first = lines[0]
    if first.startswith(prefix):
        first = first[len(prefix):]
    return first


def compare(name):
    """Return a list of problem descriptions (empty if exact match)."""
    fname = name + ".lua"
    real = run([LUA, fname])
    if SHIM_IO:
        import tempfile
        tmp = tempfile.mkdtemp(prefix="luashim")
        with open(os.path.join(HERE, fname), "rb") as f:
            src = f.read()
        with open(os.path.join(tmp, fname), "wb") as f:
            f.write(SHIM.encode() + src)
        mine = run([RUNVIL, "lua", fname], cwd=tmp)
    else:
        mine = run([RUNVIL, "lua", fname])
    problems = []
    if real["out"] != mine["out"]:
        a = real["out"].decode("utf-8", "replace").splitlines(keepends=True)
        b = mine["out"].decode("utf-8", "replace").splitlines(keepends=True)
        diff = "".join(difflib.unified_diff(a, b, "lua5.4", "runvil", n=1))
        if not diff:
            diff = "(stdout differs only in bytes/line endings)\n"
        if len(diff) > MAXDIFF:
            diff = diff[:MAXDIFF] + "\n... (diff truncated)\n"
        problems.append("stdout differs:\n" + diff)
    e_real = errline(real, "lua5.4: ")
    e_mine = errline(mine, "runvil: ")
    if e_real != e_mine:
        problems.append("error message differs:\n  lua5.4: %r\n  runvil: %r"
                        % (e_real, e_mine))
    if real["rc"] != mine["rc"]:
        problems.append("exit status differs: lua5.4=%r runvil=%r"
                        % (real["rc"], mine["rc"]))
    tb = mine["stderr"].decode("utf-8", "replace")
    if "Traceback (most recent call last)" in tb:
        problems.append("runvil printed a Python traceback:\n" + tb[-2000:])
    if mine["time"] > 5 and real["time"] < 1:
        problems.append("slow: runvil %.1fs vs lua5.4 %.2fs"
                        % (mine["time"], real["time"]))
    return problems, real["time"], mine["time"]


def main(argv):
    names = [a[:-4] if a.endswith(".lua") else a for a in argv]
    if not names:
        names = sorted(f[:-4] for f in os.listdir(HERE) if f.endswith(".lua"))
    ok = 0
    bad = []
    for name in names:
        problems, tr, tm = compare(name)
        if problems:
            bad.append(name)
            print("=" * 70)
            print("MISMATCH %s  (lua %.2fs, runvil %.2fs)" % (name, tr, tm))
            for p in problems:
                print(p)
        else:
            ok += 1
            print("ok       %s  (lua %.2fs, runvil %.2fs)" % (name, tr, tm))
    print("-" * 70)
    print("%d/%d programs match exactly" % (ok, len(names)))
    if bad:
        print("mismatches: " + " ".join(bad))
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
