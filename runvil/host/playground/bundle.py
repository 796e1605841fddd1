"""What lets the page start in seconds: one zip of the site-packages a run
needs and the parser's table, both made here, where it is cheap.

- `site-packages.zip`: runvil and the few distributions a run imports
  (CORE), merged from their wheels, so the page fetches one file while
  Pyodide loads and unpacks it at once; the other wheels stay in wheels/,
  unpacked only if a run imports one of them.
- `parser-table.bin`: the parser's LALR table, which lark takes seconds
  to build on Pyodide: the cache entry a parse writes (plain data: marshal
  of ints, strings, tuples and dicts, read alike by every Python 3). Its
  key is a list of fields, one of which names this machine's files (the
  fingerprint of runvil.lua): the site ships the fields with that one left
  blank, and the page fills in its own (boot.py) and writes the entry
  into its cache folder, where the parser finds it as it finds a table it
  built itself.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .wheels import canonical

BUNDLE = "site-packages.zip"
TABLE = "parser-table.bin"
#: what a run in the page imports besides runvil and the standard library
#: (test_playground checks it on CPython)
CORE = ("lark", "attrs", "pyyaml")
#: runvil's own files the page serves itself: not needed in site-packages
_SERVED = "runvil/host/playground/site/"


def write_bundle(out: Path, wheels: list[Path]) -> dict:
    """Writes the bundle and the table into `out`; returns what site.json
    says of them: their names, the wheels left out (`lazy`) and the bundle's stamp (a number from its
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
    target = out / BUNDLE
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as bundle:
        for info, data in files.values():
            bundle.writestr(info, data, zipfile.ZIP_DEFLATED)
    (out / TABLE).write_bytes(table_payload())
    digest = hashlib.sha256(target.read_bytes()).digest()
    # a date in 2001-2035 that changes with the bundle
    stamp = 1_000_000_000 + int.from_bytes(digest[:4], "little") % 1_000_000_000
    lazy = [f"wheels/{w.name}" for w in wheels if canonical(w.name.split("-")[0]) not in wanted]
    return {"bundle": BUNDLE, "table": TABLE, "stamp": stamp, "lazy": lazy}


def key_fields(key: bytes) -> list[bytes]:
    """The fields of a cache key (disk.make_key: each field after its
    length, 8 bytes little-endian)."""
    fields, pos = [], 0
    while pos < len(key):
        size = int.from_bytes(key[pos:pos + 8], "little")
        fields.append(key[pos + 8:pos + 8 + size])
        pos += 8 + size
    return fields


def table_payload() -> bytes:
    """The parser's table as a parse in a fresh process writes it into an
    empty cache folder, with its key's fingerprint field left blank and
    runvil's version beside it; empty if there is no such entry."""
    from ...lua.api import disk_cache
    from ...version import __version__

    with tempfile.TemporaryDirectory() as folder:
        # this runvil, whether installed or in a checkout, and the dependencies installed beside the interpreter
        env = dict(os.environ, RUNVIL_CACHE_DIR=folder, PYTHONPATH=str(Path(__file__).resolve().parents[3]))
        env.pop("RUNVIL_CACHE", None)
        probe = "from runvil.lua.api import compile_lua; compile_lua('return 1', '=table', cache=True)"
        done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, timeout=600)
        entries = [e for e in os.listdir(folder) if e.startswith("tables-")]
        stored = disk_cache.read(os.path.join(folder, entries[0])) if done.returncode == 0 and len(entries) == 1 else None
    if stored is None:
        return b""  # the page builds the table itself
    key, names, states, start, end = marshal.loads(stored)
    fields: list = key_fields(key)
    here = disk_cache.code_fingerprint()
    if fields.count(here) != 1:
        return b""
    fields[fields.index(here)] = None
    return marshal.dumps((__version__, fields, names, states, start, end))
