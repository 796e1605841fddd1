"""Runs one engine on one benchmark, in its own process.

    python -m benchmarks.child ENGINE MODE PATH N REPS BUDGET

MODE is `bench` (PATH is a program defining bench(n); time bench(n)) or
`parse` (PATH is a Lua source file; time parsing it, N is ignored).

Protocol, one line each on stdout (anything else on stdout is ignored):
    @@BENCH LOADED <seconds>
    @@BENCH RUN <cpu seconds> <wall seconds> <checksum>   (one per repetition)
    @@BENCH NA <reason>                   (engine not available)
    @@BENCH ERROR <message>
The child stops repeating early once the runs so far plus one more would
exceed BUDGET seconds (at least one run is always made).
"""

from __future__ import annotations

import gc
import math
import sys
import time
import traceback

TAG = "@@BENCH"


def emit(*parts) -> None:
    line = " ".join(str(p) for p in parts).replace("\n", "\\n")
    sys.stdout.write(f"{TAG} {line}\n")
    sys.stdout.flush()


def lua_tostring(v) -> str:
    """The checksum as Lua's tostring would print it (ints vs floats differ)."""
    if isinstance(v, tuple):  # several results: the first one
        v = v[0] if v else None
    if v is None:
        return "nil"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if math.isnan(v):
            return "nan"
        s = "%.14g" % v
        if all(c in "-0123456789" for c in s):
            s += ".0"
        return s
    if isinstance(v, bytes):
        return v.decode("latin-1")
    if isinstance(v, str):
        return v
    return f"<{type(v).__name__}>"


def failure(engines, engine: str, source: str, what: str) -> None:
    explain = engines.EXPLAIN.get(engine)
    extra = ""
    if explain is not None:
        try:
            extra = explain(source)
        except Exception:  # noqa: BLE001
            extra = ""
    emit("ERROR", f"{what} ({extra})" if extra else what)


def main(argv: list[str]) -> int:
    engine, mode, path, n, reps, budget = argv
    n, reps, budget = int(n), int(reps), float(budget)
    with open(path, encoding="utf-8") as f:
        source = f.read()

    from benchmarks import engines

    table = engines.LOADERS if mode == "bench" else engines.PARSERS
    if engine not in table:
        emit("NA", f"no {mode} adapter for {engine}")
        return 0
    func = table[engine]
    t0 = time.perf_counter()
    try:
        if mode == "bench":
            bench = func(source)
        else:
            parse = func()
            parse(engines.WARMUP_SOURCE)
            bench = lambda _n: parse(source)  # noqa: E731
    except ImportError as e:
        emit("NA", f"{type(e).__name__}: {e}")
        return 0
    except BaseException as e:  # noqa: BLE001
        failure(engines, engine, source, f"load: {type(e).__name__}: {e}")
        traceback.print_exc()
        return 1
    emit("LOADED", f"{time.perf_counter() - t0:.6f}")

    spent = 0.0
    for _ in range(reps):
        gc.collect()
        try:
            w0, c0 = time.perf_counter(), time.process_time()
            result = bench(n)
            dt = time.process_time() - c0
            wall = time.perf_counter() - w0
        except BaseException as e:  # noqa: BLE001
            failure(engines, engine, source, f"{type(e).__name__}: {e}")
            traceback.print_exc()
            return 1
        checksum = "-" if mode == "parse" else lua_tostring(result)
        emit("RUN", f"{dt:.6f}", f"{wall:.6f}", checksum)
        spent += wall
        if spent + wall > budget:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
