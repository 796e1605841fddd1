"""The page's first step in Pyodide, after worker.js has unpacked the
bundle (bundle.py): put the prebuilt parser table into the cache folder,
so that no lark table is built in the browser.

The cache folder (RUNVIL_CACHE_DIR) is kept in the browser's IndexedDB by
worker.js: a second visit finds the table, and the compiled chunks, there.
"""

from __future__ import annotations

import marshal
import os


def install_table(table_file: str) -> str:
    """Writes the prebuilt table (the site's parser-table.bin, at
    `table_file`) as this runvil's own cache entry: its key's blank field
    becomes this runvil's fingerprint. Says what it did (`kept`,
    `installed`, or why not)."""
    from ...lua.api import disk_cache
    from ...version import __version__

    try:
        with open(table_file, "rb") as f:
            payload = f.read()
    except OSError:
        payload = b""
    if not payload:
        return "no table in the site"
    try:
        version, fields, names, states, start, end = marshal.loads(payload)
        blank = fields.index(None)
    except (ValueError, EOFError, TypeError, AttributeError):
        return "the site's table cannot be read"
    if version != __version__ or _grammar() not in fields:
        return "the site's table is for another runvil"
    fields[blank] = disk_cache.code_fingerprint()
    key = disk_cache.make_key(*fields)
    path = disk_cache.entry_path("tables", key)
    if path is None:
        return "the cache is off"
    if os.path.exists(path):
        return "kept"
    disk_cache.write(path, marshal.dumps((key, names, states, start, end)))
    return "installed"


def _grammar() -> bytes:
    """The text of the Lua grammar this runvil parses with (one field of
    the table's key)."""
    from pathlib import Path

    from ... import _grammar

    try:
        return (Path(_grammar.__file__).parent / "lua.lark").read_bytes()
    except OSError:
        return b""
