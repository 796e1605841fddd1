"""Frontmatter read before, from the disk cache: a prompt whose frontmatter
was read without a problem starts without PyYAML (importing it and building
its loader cost about as much as `python -c pass`).

An entry (cache/disk.py: the folder, atomic writes, checksums) is keyed by
the frontmatter's text and by what reads it: runvil's version and the size
and modification time of frontmatter.py, model.py, this file and PyYAML's
own `__init__.py`. It holds the Frontmatter's fields, marshaled. Only a
frontmatter without problems is stored, and only when marshal can hold its
values (an `x-` key's `!!timestamp` cannot): a problem is always found and
worded by frontmatter.py, with its line, as without the cache. So a hit is
the very Frontmatter that reading the YAML would give.
"""

from __future__ import annotations

import marshal
import os

from ..lua.api import disk_cache as diskcache
from .model import Frontmatter, ParseError, RoleOptions

_VERSION = b"frontmatter-1"
_fingerprint: bytes | None = None


def read_frontmatter(text: str, first_line: int, path: str) -> tuple[Frontmatter | None, list[ParseError]]:
    """frontmatter.read_frontmatter, through the cache."""
    key = diskcache.make_key(_VERSION, _reader_fingerprint(), text.encode("utf-8", "surrogatepass"))
    entry = diskcache.entry_path("front", key)
    if entry is not None:
        hit = _load(entry, key)
        if hit is not None:
            return hit, []
    from .frontmatter import read_frontmatter as read_yaml

    frontmatter, errors = read_yaml(text, first_line, path)
    if entry is not None and frontmatter is not None and not errors:
        _store(entry, key, frontmatter)
    return frontmatter, errors


def _reader_fingerprint() -> bytes:
    global _fingerprint
    if _fingerprint is None:
        from importlib.util import find_spec

        here = os.path.dirname(os.path.abspath(__file__))
        files = [os.path.join(here, name) for name in ("frontmatter.py", "model.py", "frontmatter_cache.py")]
        spec = find_spec("yaml")
        files.append(spec.origin if spec is not None and spec.origin else "")
        _fingerprint = diskcache.files_fingerprint(files)
    return _fingerprint


def _store(entry: str, key: bytes, fm: Frontmatter) -> None:
    models = {role: tuple(getattr(opts, n) for n in RoleOptions._fields) for role, opts in fm.models.items()}
    fields = tuple(models if n == "models" else getattr(fm, n) for n in Frontmatter._fields)
    try:
        payload = marshal.dumps((key, fields))
    except (ValueError, RecursionError):  # a value marshal cannot hold: read the YAML each time
        return
    diskcache.write(entry, payload)


def _load(entry: str, key: bytes) -> Frontmatter | None:
    payload = diskcache.read(entry)
    if payload is None:
        return None
    try:
        stored_key, fields = marshal.loads(payload)
        if stored_key != key:
            return None
        values = dict(zip(Frontmatter._fields, fields, strict=True))
        values["models"] = {role: RoleOptions(*opts) for role, opts in values["models"].items()}
        return Frontmatter(**values)
    except (ValueError, EOFError, TypeError, AttributeError, RecursionError):
        return None
