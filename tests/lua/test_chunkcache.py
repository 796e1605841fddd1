"""The disk caches of start-up (issue 13, item 3): compiled chunks keyed by
source, chunk name and runvil version, and the parser's LALR table keyed by
the grammar and lark's version; both in the user's cache folder, safe
against concurrent writers and a corrupt cache file, and turned off by
RUNVIL_CACHE=0."""

from __future__ import annotations

import marshal
import multiprocessing
import os
from pathlib import Path

import pytest

from runvil.lua import LuaError, LuaState, LuaSyntaxError, compile_lua
from runvil.lua.compiler import codegen as C
from runvil.lua.cache import disk as diskcache
from runvil.lua.syntax import parser, tables as parsetables

PROGRAM = """
local function counter(start)
  local n = start
  return function(step) n = n + (step or 1); return n end
end
local c = counter(10)
c(); c(5)
local t = {}
for i = 1, 3 do t[#t + 1] = ("%d:%s"):format(i, select('#', 1, 2)) end
return c(0), table.concat(t, ",")
"""


def entries(folder: Path, kind: str = "chunk") -> list[Path]:
    return sorted(folder.glob(f"{kind}-*.bin")) if folder.exists() else []


def run(compiled, *args):
    st = LuaState()
    try:
        return st.call(st.instantiate(compiled), *args)
    finally:
        st.close()


def fresh_compiles(monkeypatch) -> list:
    """Counts the chunks the compiler itself makes from here on."""
    made = []
    real = C.compile_tree

    def counting(chunk, *args):
        made.append(chunk.name)
        return real(chunk, *args)

    monkeypatch.setattr(C, "compile_tree", counting)
    return made


# ------------------------------------------------------------------ chunks


def test_a_second_compile_of_the_same_chunk_is_read_from_the_cache(cache, monkeypatch):
    made = fresh_compiles(monkeypatch)
    first = compile_lua(PROGRAM, "=prog", cache=True)
    assert len(entries(cache)) == 1 and made == ["=prog"]
    second = compile_lua(PROGRAM, "=prog", cache=True)
    assert made == ["=prog"]  # no parse, no code generation
    assert run(first) == run(second) == (16, "1:2,2:2,3:2")
    # a chunk from the cache is numbered anew: its names are its own
    assert second.code.co_filename != first.code.co_filename
    assert second.main != first.main and second.main in second.source


def test_without_cache_nothing_is_read_or_written(cache, monkeypatch):
    made = fresh_compiles(monkeypatch)
    compile_lua(PROGRAM, "=prog")
    compile_lua(PROGRAM, "=prog")
    assert made == ["=prog", "=prog"] and entries(cache) == []


@pytest.mark.parametrize("change", ["source", "chunkname", "fast_env", "version", "python"])
def test_a_changed_key_misses(cache, monkeypatch, change):
    made = fresh_compiles(monkeypatch)
    compile_lua(PROGRAM, "=prog", cache=True)
    source, name, fast_env = PROGRAM, "=prog", True
    if change == "source":
        source = PROGRAM + " "
    elif change == "chunkname":
        name = "=other"
    elif change == "fast_env":
        fast_env = False
    elif change == "version":  # another runvil (or an edited compiler file)
        monkeypatch.setattr(diskcache, "_fingerprint", diskcache.code_fingerprint() + b"+1")
    else:
        monkeypatch.setattr("runvil.lua.compiler.chunkcache.MAGIC_NUMBER", b"\x00\x00\r\n")
    compile_lua(source, name, fast_env, cache=True)
    assert len(made) == 2 and len(entries(cache)) == 2


def test_fields_holding_nul_bytes_do_not_make_one_key():
    assert diskcache.make_key(b"a\0b", b"c") != diskcache.make_key(b"a", b"b\0c")


@pytest.mark.parametrize("src, want", [
    ("local t = nil\nlocal function f(x)\n  return x.y.z\nend\nreturn f({y = 1})\n",
     "errs:3: attempt to index a number value (field 'y')"),
    ("local s = string\n\nreturn s.rep()", "errs:3: bad argument #1 to 'rep' (string expected, got no value)"),
])
def test_error_positions_and_names_are_the_same_from_the_cache(cache, src, want):
    messages = []
    for _ in range(2):  # a miss, then a hit
        with pytest.raises(LuaError) as e:
            run(compile_lua(src, "errs", cache=True))
        messages.append(e.value.value)
    with pytest.raises(LuaError) as e:
        run(compile_lua(src, "errs"))
    assert messages == [e.value.value] * 2 == [want] * 2


def test_syntax_errors_are_not_cached(cache):
    for _ in range(2):
        with pytest.raises(LuaSyntaxError, match=r"^bad:1: unexpected symbol near '='$"):
            compile_lua("x = = end", "bad", cache=True)
    assert entries(cache) == []


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "wrong shape", "other key"])
def test_a_corrupt_entry_is_ignored_and_rebuilt(cache, monkeypatch, damage):
    compile_lua(PROGRAM, "=prog", cache=True)
    [entry] = entries(cache)
    good = entry.read_bytes()
    if damage == "garbage":
        entry.write_bytes(os.urandom(len(good)))
    elif damage == "truncated":
        entry.write_bytes(good[: len(good) // 2])
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "wrong shape":  # a valid checksum around the wrong contents
        diskcache.write(str(entry), marshal.dumps((1, 2, 3)))
    else:
        diskcache.write(str(entry), marshal.dumps((b"another key",) + marshal.loads(good[8:])[1:]))
    made = fresh_compiles(monkeypatch)
    assert run(compile_lua(PROGRAM, "=prog", cache=True)) == (16, "1:2,2:2,3:2")
    assert made == ["=prog"]
    assert entry.read_bytes() == good or marshal.loads(entry.read_bytes()[8:])[0] == marshal.loads(good[8:])[0]
    made.clear()
    compile_lua(PROGRAM, "=prog", cache=True)
    assert made == []  # the rebuilt entry serves the next compile


def test_an_unwritable_cache_folder_only_costs_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RUNVIL_CACHE_DIR", str(blocker / "cache"))
    assert run(compile_lua(PROGRAM, "=prog", cache=True)) == (16, "1:2,2:2,3:2")


@pytest.mark.parametrize("off", ["0", "off", "no", "false"])
def test_runvil_cache_0_turns_the_caches_off(cache, monkeypatch, off):
    monkeypatch.setenv("RUNVIL_CACHE", off)
    made = fresh_compiles(monkeypatch)
    compile_lua(PROGRAM, "=prog", cache=True)
    compile_lua(PROGRAM, "=prog", cache=True)
    assert made == ["=prog", "=prog"] and not cache.exists()
    assert diskcache.cache_dir() is None


def test_the_folder_follows_xdg_cache_home_then_home(monkeypatch, tmp_path):
    monkeypatch.delenv("RUNVIL_CACHE_DIR", raising=False)
    monkeypatch.delenv("RUNVIL_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diskcache.cache_dir() == str(tmp_path / "xdg" / "runvil")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert diskcache.cache_dir() == str(tmp_path / "home" / ".cache" / "runvil")


CHUNK_A = "local function mk() return function() return 'from A' end end\nreturn mk"
CHUNK_B = "local function mk() return function() return 'from B' end end\nreturn mk"


def _child(folder: str, fingerprint: bytes) -> None:
    """A spawned process's cache: the parent's folder and fingerprint (the
    shared checkout's files may change under a test; the keys must not)."""
    os.environ["RUNVIL_CACHE_DIR"] = folder
    os.environ.pop("RUNVIL_CACHE", None)
    diskcache._fingerprint = fingerprint


def _populate(folder: str, fingerprint: bytes) -> None:
    """In a process of its own (chunk numbers from 1): caches chunk B."""
    _child(folder, fingerprint)
    compile_lua(CHUNK_B, "=B", cache=True)


def _mix(folder: str, fingerprint: bytes, out) -> None:
    """Chunk A compiled afresh (number 1, as B's was when cached), then B
    from the cache, both in one state: each closure must stay its own."""
    _child(folder, fingerprint)
    st = LuaState()
    a = st.instantiate(compile_lua(CHUNK_A, "=A"))
    made = []
    C.compile_tree = lambda *args: made.append(args) or pytest.fail("chunk B was not read from the cache")
    b = st.instantiate(compile_lua(CHUNK_B, "=B", cache=True))
    mk_a, mk_b = st.call(a)[0], st.call(b)[0]
    out.put((st.call(st.call(mk_a)[0]), st.call(st.call(mk_b)[0]), made))


def _spawn(target, *args):
    ctx = multiprocessing.get_context("spawn")  # fresh processes: chunk numbers start at 1
    p = ctx.Process(target=target, args=args)
    p.start()
    return p


def test_a_cached_chunk_never_meets_the_names_of_a_chunk_compiled_here(tmp_path):
    fingerprint = diskcache.code_fingerprint()
    p = _spawn(_populate, str(tmp_path), fingerprint)
    p.join(120)
    assert p.exitcode == 0 and entries(tmp_path)
    out = multiprocessing.get_context("spawn").Queue()
    p = _spawn(_mix, str(tmp_path), fingerprint, out)
    got = out.get(timeout=120)
    p.join(120)
    assert got == (("from A",), ("from B",), [])


def _compile_many(folder: str, fingerprint: bytes, rounds: int, out) -> None:
    _child(folder, fingerprint)
    results = []
    for i in range(rounds):
        src = PROGRAM if i % 2 else f"return {i % 5} * 2, ...\n"
        st = LuaState()
        results.append(st.call(st.instantiate(compile_lua(src, "=w", cache=True)), "x"))
        st.close()
    out.put(results)


def test_concurrent_writers_leave_whole_entries(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    rounds = 12
    procs = [_spawn(_compile_many, str(tmp_path), diskcache.code_fingerprint(), rounds, out) for _ in range(4)]
    results = [out.get(timeout=180) for _ in procs]
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    want = [(16, "1:2,2:2,3:2") if i % 2 else ((i % 5) * 2, "x") for i in range(rounds)]
    assert results == [want] * 4
    assert len(entries(tmp_path)) == 6  # PROGRAM and five sources `return N * 2, ...`
    assert not list(tmp_path.glob(".tmp-*"))  # no temporary file left behind
    for e in entries(tmp_path):
        assert diskcache.read(str(e)) is not None


# ------------------------------------------------------------ parser tables


def _fresh_table(monkeypatch, cache_dir: str | None):
    """parser._get_table() as a new process would make it."""
    if cache_dir is None:
        monkeypatch.setenv("RUNVIL_CACHE", "0")
    else:
        monkeypatch.delenv("RUNVIL_CACHE", raising=False)
        monkeypatch.setenv("RUNVIL_CACHE_DIR", cache_dir)
    monkeypatch.setattr(parser, "_table", None)
    return parser._get_table()


def _by_name(table):
    states, start, end = table
    named = {s: {sym: a if a.__class__ is int else (a[0], a[1], a[2] and a[2].__func__.__name__)
                 for sym, a in acts.items()} for s, acts in states.items()}
    return named, start, end


def test_the_parse_table_is_cached_and_read_back_the_same(cache, monkeypatch):
    built = _fresh_table(monkeypatch, str(cache))
    assert len(entries(cache, "tables")) == 1
    monkeypatch.setattr(parsetables.diskcache, "write", lambda *a: pytest.fail("a hit writes nothing"))
    read = _fresh_table(monkeypatch, str(cache))
    assert read is not built and _by_name(read) == _by_name(built)
    # callbacks are bound to the parser's own builder again
    reductions = [a for acts in read[0].values() for a in acts.values() if a.__class__ is tuple and a[2]]
    assert reductions and all(a[2].__self__ is parser._builder for a in reductions)
    block = parser.parse("local x = f(1, 2) .. 'y'\nreturn x", "t")
    assert block.body.stmts and parser._table is read


def test_a_corrupt_parse_table_is_rebuilt(cache, monkeypatch):
    good = _by_name(_fresh_table(monkeypatch, str(cache)))
    [entry] = entries(cache, "tables")
    data = entry.read_bytes()
    entry.write_bytes(data[:100] + b"\xff" * 50 + data[150:])
    assert _by_name(_fresh_table(monkeypatch, str(cache))) == good
    assert entry.read_bytes() == data  # written again, whole


def test_the_parse_table_misses_for_another_lark(cache, monkeypatch):
    _fresh_table(monkeypatch, str(cache))
    import lark

    monkeypatch.setattr(lark, "__version__", lark.__version__ + ".post1")
    _fresh_table(monkeypatch, str(cache))
    assert len(entries(cache, "tables")) == 2


def test_no_parse_table_is_written_with_the_cache_off(cache, monkeypatch):
    _fresh_table(monkeypatch, None)
    assert not cache.exists()


# ---------------------------------------------------------------- pruning


def test_old_entries_and_dead_temporary_files_are_pruned(cache):
    compile_lua(PROGRAM, "=prog", cache=True)
    compile_lua(PROGRAM, "=other", cache=True)
    old, recent = entries(cache)
    dead_tmp = cache / ".tmp-dead.bin"
    live_tmp = cache / ".tmp-live.bin"
    foreign = cache / "notes.txt"
    for f in (dead_tmp, live_tmp, foreign):
        f.write_bytes(b"x")
    now = recent.stat().st_mtime
    os.utime(old, (now - diskcache.MAX_AGE - 10,) * 2)
    os.utime(dead_tmp, (now - diskcache.STALE_TEMP - 10,) * 2)
    os.utime(foreign, (now - diskcache.MAX_AGE - 10,) * 2)
    diskcache.prune(now=now)
    assert entries(cache) == [recent]
    assert not dead_tmp.exists() and live_tmp.exists() and foreign.exists()


def test_writing_a_new_parse_table_prunes_the_folder(cache, monkeypatch):
    compile_lua(PROGRAM, "=prog", cache=True)
    [old] = entries(cache)
    os.utime(old, (old.stat().st_mtime - diskcache.MAX_AGE - 10,) * 2)
    _fresh_table(monkeypatch, str(cache))  # the table is built and written
    assert entries(cache) == [] and len(entries(cache, "tables")) == 1
