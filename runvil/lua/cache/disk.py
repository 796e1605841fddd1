"""The user's cache folder: what start-up would otherwise rebuild in every
process (the parser's LALR table, syntax/parser.py; compiled chunks, compiler/chunkcache.py).

The folder is RUNVIL_CACHE_DIR, else $XDG_CACHE_HOME/runvil, else
~/.cache/runvil; RUNVIL_CACHE=0 turns the caches off. An entry is one file,
written whole under a temporary name and renamed over the old one, so a
reader sees an old entry or a new one, never half of one, whatever other
processes write at the same time. Each entry starts with a checksum of its
payload and holds its full key, so a damaged file or a stale one reads as a
miss and is rebuilt. Nothing here fails a run: a folder that cannot be made
or written only costs time. (No hashlib: importing OpenSSL costs more than
the cache saves on a small run; zlib's checksums and the stored key do.)
"""

from __future__ import annotations

import os
import zlib

from ...version import __version__

_MAGIC = b"RVC1"
_OFF = ("0", "off", "no", "false")

#: (name, size, mtime) of runvil.lua's files: part of every key, so that an
#: edited checkout never serves code or tables made by the old compiler
_fingerprint: bytes | None = None


def cache_dir() -> str | None:
    """The cache folder, or None when the caches are turned off."""
    if os.environ.get("RUNVIL_CACHE", "1").strip().lower() in _OFF:
        return None
    d = os.environ.get("RUNVIL_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME")
    if not base or not os.path.isabs(base):  # the XDG spec: a relative path is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "runvil")


def code_fingerprint() -> bytes:
    """Identifies the installed compiler and parser: runvil's version and the
    size and modification time of each file of runvil.lua and the grammar."""
    global _fingerprint
    if _fingerprint is None:
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # runvil/lua
        files = []
        for folder in [os.path.join(os.path.dirname(pkg), "_grammar")] + [d for d, _, _ in sorted(os.walk(pkg))]:
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            files += [os.path.join(folder, n) for n in names if n.endswith((".py", ".lark"))]
        _fingerprint = files_fingerprint(files)
    return _fingerprint


def files_fingerprint(files: list[str]) -> bytes:
    """runvil's version and the size and modification time of each of
    `files`: what a cache entry made by the code in them is keyed by."""
    parts = [__version__]
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            parts.append(f"{f}:missing")
            continue
        parts.append(f"{f}:{st.st_size}:{st.st_mtime_ns}")
    return "\n".join(parts).encode("utf-8", "surrogateescape")


def make_key(*fields: bytes) -> bytes:
    """One key of several fields, each prefixed by its length, so no two
    different field lists (a source holding NUL bytes, say) make one key."""
    return b"".join(len(f).to_bytes(8, "little") + f for f in fields)


def entry_path(kind: str, key: bytes) -> str | None:
    """Where the entry for `key` lives (None: caches off). The name is two
    checksums of the key; the key stored inside settles a collision."""
    folder = cache_dir()
    if folder is None:
        return None
    return os.path.join(folder, f"{kind}-{zlib.crc32(key):08x}{zlib.adler32(key):08x}.bin")


def read(path: str) -> bytes | None:
    """The payload of an entry, or None when it is missing or damaged."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if len(data) < 8 or data[:4] != _MAGIC:
        return None
    payload = data[8:]
    if zlib.crc32(payload).to_bytes(4, "little") != data[4:8]:
        return None
    return payload


#: entries not rewritten for this long are removed by `prune`
MAX_AGE = 30 * 24 * 3600
#: a temporary file this old was left by a writer that died
STALE_TEMP = 3600


def prune(folder: str | None = None, now: float | None = None) -> None:
    """Removes old entries so the folder does not grow without bound (each
    change of runvil or its compiler makes new keys for every chunk). Run
    when the parser's table is written: once per runvil version."""
    import time

    folder = folder or cache_dir()
    if folder is None:
        return
    now = time.time() if now is None else now
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for e in entries:
        if not e.name.endswith(".bin"):
            continue
        limit = STALE_TEMP if e.name.startswith(".tmp-") else MAX_AGE
        try:
            if now - e.stat().st_mtime > limit:
                os.unlink(e.path)
        except OSError:  # gone already, or not ours to remove
            pass


def write(path: str, payload: bytes) -> None:
    """Writes an entry atomically (temporary file, then os.replace);
    a failure leaves the cache as it was."""
    import tempfile

    folder = os.path.dirname(path)
    tmp = None
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".bin")
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + zlib.crc32(payload).to_bytes(4, "little") + payload)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
