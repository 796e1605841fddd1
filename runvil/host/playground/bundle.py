"""What lets the page start in seconds: one zip of the site-packages a run
needs and the parser's table, both made here, where it is cheap.

- `site-packages.zip`: runvil and the few distributions a run imports
  (CORE), merged from their wheels, so the page fetches one file while
  Pyodide loads and unpacks it at once; the other wheels stay in wheels/,
  unpacked only if a run imports one of them.
  When a Python of Pyodide's version is on PATH (`python3.13`), their
  bytecode comes beside it in `bytecode.zip` (unchecked-hash .pyc files:
  valid whatever the files' dates), which halves the imports of a first
  visit (a second one starts from a memory snapshot and needs none).
- `parser-table.bin`: the parser's LALR table, which lark takes seconds
  to build on Pyodide. The page writes it into its cache folder under the
  key its own runvil computes (boot.py), so the parser finds it there as
  it finds a table it built itself. The table is plain data (marshal of
  ints, strings, tuples and dicts, read alike by every Python 3), with
  the reductions named by the parser's methods; it is tagged with what it
  was made from, and the page uses it only if its files are the same.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from .pins import PYODIDE_ENV
from .wheels import canonical

BUNDLE = "site-packages.zip"
BYTECODE = "bytecode.zip"
TABLE = "parser-table.bin"
#: what a run in the page imports besides runvil and the standard library
#: (test_playground checks it on CPython)
CORE = ("lark", "attrs", "pyyaml")
#: runvil's own files the page serves itself: not needed in site-packages
_SERVED = "runvil/host/playground/site/"


def write_bundle(out: Path, wheels: list[Path]) -> dict:
    """Writes the bundle, its bytecode (if it can) and the table into
    `out`; returns what site.json says of them: their names (`bytecode`:
    None when there is none), the wheels left out (`lazy`) and the bundle's stamp (a number from its
    hash: the page dates the unpacked files with it, so that the bytecode
    and compiled chunks it caches stay valid exactly as long as the
    bundle is the same)."""
    wanted = {"runvil", *CORE}
    files: dict[str, tuple[zipfile.ZipInfo, bytes]] = {}
    for wheel in wheels:
        if canonical(wheel.name.split("-")[0]) not in wanted:
            continue
        with zipfile.ZipFile(wheel) as z:
            for info in z.infolist():
                if not info.filename.startswith(_SERVED):
                    files[info.filename] = (info, z.read(info))
    compiled = bytecode({name: data for name, (_info, data) in files.items() if name.endswith(".py")})
    target = out / BUNDLE
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as bundle:
        for info, data in files.values():
            bundle.writestr(info, data, zipfile.ZIP_DEFLATED)
    if compiled:
        with zipfile.ZipFile(out / BYTECODE, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in sorted(compiled.items()):
                z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    (out / TABLE).write_bytes(table_payload())
    digest = hashlib.sha256(target.read_bytes()).digest()
    # a date in 2001-2035 that changes with the bundle
    stamp = 1_000_000_000 + int.from_bytes(digest[:4], "little") % 1_000_000_000
    lazy = [f"wheels/{w.name}" for w in wheels if canonical(w.name.split("-")[0]) not in wanted]
    return {"bundle": BUNDLE, "table": TABLE, "stamp": stamp, "lazy": lazy,
            "bytecode": BYTECODE if compiled else None}


def pyodide_python() -> str | None:
    """A Python of the pinned Pyodide's version on PATH, or None."""
    want = PYODIDE_ENV["python_version"]
    found = shutil.which(f"python{want}")
    if found is None:
        return None
    try:
        said = subprocess.run([found, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return found if said.returncode == 0 and said.stdout.strip() == want else None


def bytecode(sources: dict[str, bytes]) -> dict[str, bytes]:
    """The .pyc files (archive path -> bytes, in __pycache__ folders) of
    `sources`, compiled by pyodide_python(); empty without one."""
    python = pyodide_python()
    if python is None or not sources:
        return {}
    with tempfile.TemporaryDirectory() as folder:
        for name, data in sources.items():
            path = Path(folder, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        try:
            done = subprocess.run([python, "-m", "compileall", "-q", "-j0", "--invalidation-mode", "unchecked-hash",
                                   folder], capture_output=True, timeout=600)
        except (OSError, subprocess.SubprocessError):
            return {}
        if done.returncode != 0:
            return {}
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(Path(folder).rglob("*.pyc"))}


def table_tag() -> tuple:
    """What a table is valid for: runvil's version, lark's, and the
    hashes of the grammar and of the parser whose methods it names."""
    import lark

    from ...lua.syntax import parser
    from ...version import __version__

    grammar = Path(parser._grammar_path()).read_bytes()
    code = Path(parser.__file__).read_bytes()
    return (__version__, lark.__version__, hashlib.sha256(grammar).hexdigest(), hashlib.sha256(code).hexdigest())


@contextlib.contextmanager
def _cache_in(folder: str):
    """runvil's cache folder is `folder` while the block runs."""
    saved = {k: os.environ.get(k) for k in ("RUNVIL_CACHE_DIR", "RUNVIL_CACHE")}
    os.environ["RUNVIL_CACHE_DIR"] = folder
    os.environ.pop("RUNVIL_CACHE", None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def table_payload() -> bytes:
    """The parser's table as its cache entry holds it, under table_tag()
    instead of the key (which names this machine's files)."""
    from ...lua.cache import disk
    from ...lua.syntax import parser, tables

    with tempfile.TemporaryDirectory() as folder, _cache_in(folder):
        grammar = str(parser._grammar_path())
        tables.store(grammar, parser._get_table(), parser._builder)
        entries = [e for e in os.listdir(folder) if e.startswith("tables-")]
        stored = disk.read(os.path.join(folder, entries[0])) if len(entries) == 1 else None
    if stored is None:
        return b""  # not storable: the page builds the table itself
    _key, names, states, start, end = marshal.loads(stored)
    return marshal.dumps((table_tag(), names, states, start, end))
