"""The page's first steps in Pyodide, after worker.js has unpacked the
bundle (bundle.py): put the prebuilt parser table into the cache folder,
so that no lark table is built in the browser.

The cache folder (RUNVIL_CACHE_DIR) is kept in the browser's IndexedDB by
worker.js, with the bytecode of the imported modules (sys.pycache_prefix):
a second visit imports and compiles nothing it did before.
"""

from __future__ import annotations

import marshal
import os


def install_table(table_file: str) -> str:
    """Writes the prebuilt table (the site's parser-table.bin, at
    `table_file`) as this runvil's own cache entry; says what it did
    (`kept`, `installed`, or why not)."""
    from ...lua.cache import disk
    from ...lua.syntax import parser, tables
    from .bundle import table_tag

    try:
        with open(table_file, "rb") as f:
            payload = f.read()
    except OSError:
        payload = b""
    if not payload:
        return "no table in the site"
    key = tables._key(str(parser._grammar_path()))
    path = disk.entry_path("tables", key) if key is not None else None
    if path is None:
        return "the cache is off"
    if os.path.exists(path):
        return "kept"
    try:
        tag, names, states, start, end = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return "the site's table cannot be read"
    if tuple(tag) != table_tag():
        return "the site's table is for other files"
    disk.write(path, marshal.dumps((key, names, states, start, end)))
    return "installed"
