"""The run's workspace folder and the `files` Pack that works in it
(host.md "Built-in Packs").

Decisions:
- `--workspace DIR` names a folder the user keeps: it is made when missing
  and never removed. Without it, a fresh temporary folder is made for the
  run and removed when the run ends, is interrupted or is terminated (and at
  interpreter exit, should a path be missed).
- A path is relative to the workspace: absolute paths, `..` parts and
  symbolic links leading outside are refused. Messages name the path as the
  model gave it, never the folder's place on the host.
- `files/write` may grow the workspace by at most `write_quota` bytes per run
  (default 100,000,000): a file written over counts its new size less its
  old one. `files/read` returns at most READ_MAX_BYTES of UTF-8 text;
  `files/list` names at most LIST_MAX files.
"""

from __future__ import annotations

import atexit
import errno
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path, PurePosixPath, PureWindowsPath

from .packbase import PackError, object_schema

DEFAULT_WRITE_QUOTA = 100_000_000
READ_MAX_BYTES = 2_000_000
LIST_MAX = 1000


class Workspace:
    """A folder the `files` Pack may read and write, with the run's write
    quota. Thread-safe: bound calls of one batch run at the same time, and
    `close()` may come from a signal while a write goes on."""

    def __init__(self, root: str | Path, *, owned: bool, write_quota: int = DEFAULT_WRITE_QUOTA):
        self.root = Path(root).resolve()
        self.owned = owned  # made for this run: removed by close()
        self.write_quota = write_quota
        self.written = 0  # bytes this run's writes added (less what they replaced)
        self.closed = False
        self._lock = threading.RLock()  # re-entrant: a signal may close it mid-write on the same thread
        if owned:
            atexit.register(self.close)

    @classmethod
    def temporary(cls, write_quota: int = DEFAULT_WRITE_QUOTA) -> "Workspace":
        return cls(tempfile.mkdtemp(prefix="runvil-workspace-"), owned=True, write_quota=write_quota)

    @classmethod
    def at(cls, folder: str | Path, write_quota: int = DEFAULT_WRITE_QUOTA) -> "Workspace":
        """The user's folder, made when missing; OSError when it cannot be."""
        p = Path(folder)
        if p.exists() and not p.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "not a folder")
        p.mkdir(parents=True, exist_ok=True)
        return cls(folder, owned=False, write_quota=write_quota)

    @property
    def path(self) -> str:
        return str(self.root)

    def close(self) -> None:
        """Refuses further writes; removes the folder when the run made it."""
        with self._lock:
            self.closed = True
            if self.owned:
                shutil.rmtree(self.root, ignore_errors=True)
                atexit.unregister(self.close)

    # ----------------------------------------------------------- paths

    def locate(self, rel, tool: str) -> Path:
        """The host path of a workspace path, or PackError."""
        where = f"files/{tool}"
        if not isinstance(rel, str) or not rel.strip():
            raise PackError(f"{where}: path must be a non-empty string")
        if "\0" in rel:
            raise PackError(f"{where}: a path cannot hold a NUL character")
        try:
            os.fsencode(rel)
        except UnicodeError:  # a lone surrogate from a model's JSON
            raise PackError(f"{where}: {_shown(rel)} is not a valid file name") from None
        if PurePosixPath(rel).is_absolute() or PureWindowsPath(rel).is_absolute() or rel.startswith("\\"):
            raise PackError(f"{where}: absolute paths are refused; give a path inside the workspace")
        if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
            raise PackError(f"{where}: {_shown(rel)} leaves the workspace ('..' is not allowed)")
        try:
            p = (self.root / rel).resolve()
        except (OSError, RuntimeError) as e:  # a symlink loop, a name too long
            raise PackError(f"{where}: {_shown(rel)}: {_reason(e)}") from None
        if p != self.root and self.root not in p.parents:
            raise PackError(f"{where}: {_shown(rel)} leads outside the workspace (through a symbolic link)")
        return p

    def relative(self, p: Path) -> str:
        return p.relative_to(self.root).as_posix()


class FilesPack:
    """`files/read`, `files/write`, `files/list` in a Workspace."""

    name = "files"
    tools = {
        "read": {"description": "Read a text file of the run's workspace.",
                 "parameters": object_schema({"path": {"type": "string"}}, ["path"])},
        "write": {"description": "Write a text file in the run's workspace (folders are made as needed).",
                  "parameters": object_schema({"path": {"type": "string"}, "content": {"type": "string"}},
                                              ["path", "content"])},
        "list": {"description": "List the files of the run's workspace.", "parameters": object_schema({}, [])},
    }

    def __init__(self, workspace: Workspace | None = None):
        self.workspace = workspace

    def perform(self, tool: str, arguments: dict) -> str:
        if self.workspace is None:
            raise PackError("files: no workspace folder for this run")
        if tool == "read":
            return self.read(arguments.get("path"))
        if tool == "write":
            return self.write(arguments.get("path"), arguments.get("content"))
        if tool == "list":
            return self.list()
        raise PackError(f"files has no tool {tool}")

    def read(self, rel) -> str:
        p = self.workspace.locate(rel, "read")
        try:
            if p.is_dir():
                raise PackError(f"files/read: {_shown(rel)} is a folder")
            size = p.stat().st_size
            if size > READ_MAX_BYTES:
                raise PackError(f"files/read: {_shown(rel)} is {size} bytes; a read returns at most {READ_MAX_BYTES}")
            data = p.read_bytes()
        except OSError as e:
            raise PackError(f"files/read: {_shown(rel)}: {_reason(e)}") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise PackError(f"files/read: {_shown(rel)} is not UTF-8 text") from None

    def write(self, rel, content) -> str:
        ws = self.workspace
        p = ws.locate(rel, "write")
        if not isinstance(content, str):
            raise PackError("files/write: content must be a string")
        data = _utf8(content)
        with ws._lock:
            if ws.closed:
                raise PackError("files/write: the run's workspace is closed")
            try:
                if p.is_dir():
                    raise PackError(f"files/write: {_shown(rel)} is a folder")
                old = p.stat().st_size if p.is_file() else 0
                grown = ws.written + len(data) - old
                if grown > ws.write_quota:
                    left = max(0, ws.write_quota - ws.written)
                    raise PackError(f"files/write: writing {len(data)} bytes to {_shown(rel)} would pass the run's "
                                    f"write quota of {ws.write_quota} bytes ({left} left)")
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(data)
            except (FileExistsError, NotADirectoryError):
                raise PackError(f"files/write: {_shown(rel)}: a part of the path is a file, not a folder") from None
            except OSError as e:
                raise PackError(f"files/write: {_shown(rel)}: {_reason(e)}") from None
            ws.written = grown
        return f"wrote {len(data)} bytes to {ws.relative(p)}"

    def list(self) -> str:
        ws = self.workspace
        names = []
        for folder, dirs, files in os.walk(ws.root, followlinks=False):
            dirs.sort()
            for f in files:
                p = Path(folder) / f
                if p.is_symlink():
                    try:
                        ws.locate(ws.relative(p), "list")
                    except PackError:
                        continue  # a link leading outside is not the workspace's
                names.append(ws.relative(p))
        if not names:
            return "the workspace has no files"
        names.sort()
        shown = "\n".join(names[:LIST_MAX])
        return shown if len(names) <= LIST_MAX else f"{shown}\n... and {len(names) - LIST_MAX} more files"


def _shown(rel: str) -> str:
    """A model's path as messages show it: on one line, cut when long."""
    text = rel if len(rel) <= 200 else rel[:200] + "..."
    return text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text


def _reason(e: BaseException) -> str:
    """An OSError's reason without the file name (which is a host path)."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror[0].lower() + e.strerror[1:]
    return "cannot be followed" if isinstance(e, RuntimeError) else type(e).__name__


def _utf8(text: str) -> bytes:
    """A tool argument's text as bytes: bytes a Lua string carried come back
    as they were; a lone surrogate from a model's JSON becomes U+FFFD."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return _LONE_SURROGATE.sub("\ufffd", text).encode("utf-8", "surrogateescape")


_LONE_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")  # not one of surrogateescape's U+DC80..U+DCFF
