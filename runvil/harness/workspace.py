"""The run's workspace folder and the `files` Pack that works in it
(docs/reference/configuration.md).

Decisions:
- `--workspace DIR` names a folder the user keeps: it is made when missing
  and never removed. Without it, a fresh temporary folder is made for the
  run and removed when the run ends, is interrupted or is terminated (and at
  interpreter exit, should a path be missed).
- A path is relative to the workspace: absolute paths and `..` parts are
  refused, and no symbolic link is followed, wherever it leads. Messages
  name the path as the model gave it, never the folder's place on the host.
- Every operation walks the path one part at a time from a descriptor of
  the workspace folder (`dir_fd`, `O_NOFOLLOW`), and decides on what it
  opened (`fstat`), never on a check made by name before: another process
  swapping a folder for a link between two steps cannot lead a read or a
  write outside. Anything but a folder or a regular file (a FIFO, a device,
  a socket) is refused without blocking (`O_NONBLOCK`), and so is a file
  with more than one name (a hard link may join it to a file outside).
- `files/write` may grow the workspace by at most `write_quota` bytes per
  run (default 100,000,000): a file written over counts its new size less
  its old one. `files/read` returns at most READ_MAX_BYTES of UTF-8 text;
  `files/list` names at most LIST_MAX regular files, one per line; a name
  holding a control character or starting with `"` is shown as a JSON
  string, so every line is one name.
"""

from __future__ import annotations

import atexit
import errno
import json
import os
import re
import shutil
import stat
import tempfile
import threading
from pathlib import Path, PurePosixPath, PureWindowsPath

from .packbase import PackError, object_schema

DEFAULT_WRITE_QUOTA = 100_000_000
READ_MAX_BYTES = 2_000_000
LIST_MAX = 1000
LIST_DEPTH = 64  # folders deeper than this are not listed
LIST_SCAN_MAX = 100 * LIST_MAX  # files a listing looks at, at most
#: a file with other names may be one outside the workspace, linked in
HARD_LINKED = "has other names (hard links), which may lie outside the workspace: it is not read or written"

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = os.O_NOFOLLOW
_NONBLOCK = os.O_NONBLOCK
_OPEN_FOLDER = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _NONBLOCK | _CLOEXEC
_LINK_ERRNOS = {errno.ELOOP, getattr(errno, "EMLINK", errno.ELOOP)}  # O_NOFOLLOW met a link (EMLINK: BSD)


class Workspace:
    """A folder the `files` Pack may read and write, with the run's write
    quota. Thread-safe: bound calls of one batch run at the same time, and
    `close()` may come from a signal while a write goes on. The folder is
    held open from the start, so each call starts from the folder itself."""

    def __init__(self, root: str | Path, *, owned: bool, write_quota: int = DEFAULT_WRITE_QUOTA):
        self.root = Path(root).resolve()
        self.owned = owned  # made for this run: removed by close()
        self.write_quota = write_quota
        self.written = 0  # bytes this run's writes added (less what they replaced)
        self.closed = False
        self._lock = threading.RLock()  # re-entrant: a signal may close it mid-write on the same thread
        self._fd = os.open(self.root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
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
        """Refuses further calls; removes the folder when the run made it."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
            os.close(self._fd)
            if self.owned:
                shutil.rmtree(self.root, ignore_errors=True)
                atexit.unregister(self.close)

    def folder(self, tool: str) -> int:
        """A descriptor of the workspace folder of the caller's own (it closes
        it), or PackError once the workspace is closed."""
        with self._lock:
            if self.closed:
                raise PackError(f"files/{tool}: the run's workspace is closed")
            return os.dup(self._fd)

    # ----------------------------------------------------------- paths

    def parts(self, rel, tool: str) -> list[str]:
        """The parts of a workspace path, or PackError."""
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
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if not parts:
            raise PackError(f"{where}: {_shown(rel)} is a folder")
        return parts

    def open_parent(self, rel, tool: str, make=None) -> tuple[int, str]:
        """(a descriptor of the folder holding the path's last part, that
        part): walked from the workspace folder one part at a time, never
        through a link; with `make`, missing folders are made (`make()` is
        called first: it may refuse by raising)."""
        parts = self.parts(rel, tool)
        fd = self.folder(tool)
        try:
            for name in parts[:-1]:
                try:
                    inner = _open_folder(name, fd)
                except FileNotFoundError:
                    if make is None:
                        raise
                    make()
                    try:
                        os.mkdir(name, 0o777, dir_fd=fd)
                    except FileExistsError:  # made meanwhile: the open below decides
                        pass
                    inner = _open_folder(name, fd)
                os.close(fd)
                fd = inner
        except BaseException as e:
            os.close(fd)
            if isinstance(e, OSError):
                raise _failure(tool, rel, e) from None
            raise
        return fd, parts[-1]


def _open_folder(name: str, parent: int) -> int:
    """A descriptor of the folder `name` in `parent`, never through a link
    (OSError ELOOP for one: Linux says ENOTDIR when O_DIRECTORY meets it)."""
    try:
        return os.open(name, _OPEN_FOLDER, dir_fd=parent)
    except NotADirectoryError:
        try:  # only to name the refusal: the open above has refused already
            link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        except OSError:
            link = False
        if link:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP)) from None
        raise


def _failure(tool: str, rel: str, e: OSError) -> PackError:
    """The tool's message for an OSError met on the path `rel`."""
    where = f"files/{tool}: {_shown(rel)}"
    if e.errno in _LINK_ERRNOS:
        return PackError(f"{where} passes through a symbolic link, which the workspace does not follow")
    if e.errno == errno.ENOTDIR:
        return PackError(f"{where}: a part of the path is a file, not a folder")
    if e.errno == errno.EISDIR:
        return PackError(f"files/{tool}: {_shown(rel)} is a folder")
    if e.errno == errno.ENXIO:  # a FIFO no one reads, a socket
        return PackError(f"files/{tool}: {_shown(rel)} is not a regular file")
    return PackError(f"{where}: {_reason(e)}")


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
        parent, name = self.workspace.open_parent(rel, "read")
        try:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=parent)
        except OSError as e:
            raise _failure("read", rel, e) from None
        finally:
            os.close(parent)
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise PackError(f"files/read: {_shown(rel)} is a folder")
            if not stat.S_ISREG(info.st_mode):
                raise PackError(f"files/read: {_shown(rel)} is not a regular file")
            if info.st_nlink > 1:
                raise PackError(f"files/read: {_shown(rel)} {HARD_LINKED}")
            if info.st_size > READ_MAX_BYTES:
                raise PackError(f"files/read: {_shown(rel)} is {info.st_size} bytes; "
                                f"a read returns at most {READ_MAX_BYTES}")
            data = _read_at_most(fd, READ_MAX_BYTES + 1)  # it may grow after fstat
        except OSError as e:
            raise _failure("read", rel, e) from None
        finally:
            os.close(fd)
        if len(data) > READ_MAX_BYTES:
            raise PackError(f"files/read: {_shown(rel)} is more than {READ_MAX_BYTES} bytes; "
                            f"a read returns at most {READ_MAX_BYTES}")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise PackError(f"files/read: {_shown(rel)} is not UTF-8 text") from None

    def write(self, rel, content) -> str:
        ws = self.workspace
        parts = ws.parts(rel, "write")
        if not isinstance(content, str):
            raise PackError("files/write: content must be a string")
        data = _utf8(content)

        def grown(old: int) -> int:
            """What the workspace grows by with this write, or PackError."""
            total = ws.written + len(data) - old
            if total > ws.write_quota:
                left = max(0, ws.write_quota - ws.written)
                raise PackError(f"files/write: writing {len(data)} bytes to {_shown(rel)} would pass the run's "
                                f"write quota of {ws.write_quota} bytes ({left} left)")
            return total

        with ws._lock:
            parent, name = ws.open_parent(rel, "write", make=lambda: grown(0))
            try:
                fd, old = _open_for_writing(parent, name, rel, grown)
            except OSError as e:
                raise _failure("write", rel, e) from None
            finally:
                os.close(parent)
            try:
                total = grown(old)
                os.ftruncate(fd, 0)
                _write_all(fd, data)
            except OSError as e:
                raise _failure("write", rel, e) from None
            finally:
                os.close(fd)
            ws.written = total
        return f"wrote {len(data)} bytes to {'/'.join(parts)}"

    def list(self) -> str:
        names = _regular_files(self.workspace.folder("list"))
        if not names:
            return "the workspace has no files"
        names.sort()
        shown = "\n".join(_listed(n) for n in names[:LIST_MAX])
        more = len(names) - LIST_MAX
        if more > 0:
            shown += f"\n... and {more}{'+' if len(names) >= LIST_SCAN_MAX else ''} more files"
        return shown


def _regular_files(root: int) -> list[str]:
    """The workspace paths of the regular files under the folder `root`
    (a descriptor, closed here): each folder is opened from its parent's
    descriptor without following a link, so one swapped for a link is not
    entered. Only the folders on the current path are held open (at most
    LIST_DEPTH); the scan stops after LIST_SCAN_MAX files."""
    found: list[str] = []
    stack = [("", root, None)]  # (path prefix, folder descriptor, its sub-folders not yet entered)
    try:
        while stack and len(found) < LIST_SCAN_MAX:
            prefix, fd, pending = stack[-1]
            if pending is None:
                pending = []
                try:
                    with os.scandir(fd) as entries:
                        for entry in entries:
                            if entry.is_dir(follow_symlinks=False):
                                pending.append(entry.name)
                            elif entry.is_file(follow_symlinks=False):
                                found.append(prefix + entry.name)
                except OSError:  # removed or unreadable meanwhile
                    pass
                pending.sort(reverse=True)
                stack[-1] = (prefix, fd, pending)
            if not pending or len(stack) > LIST_DEPTH:
                os.close(stack.pop()[1])
                continue
            name = pending.pop()
            try:
                inner = _open_folder(name, fd)
            except OSError:  # swapped for a link or a file, or removed
                continue
            stack.append((prefix + name + "/", inner, None))
    finally:
        for _, fd, _ in stack:
            os.close(fd)
    return found


def _open_for_writing(parent: int, name: str, rel: str, grown) -> tuple[int, int]:
    """(a descriptor open for writing, the file's size before): an existing
    regular file, or a new one (made only when `grown(0)` does not refuse).
    Nothing else is opened for writing."""
    flags = os.O_WRONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC
    while True:
        try:
            fd = os.open(name, flags, dir_fd=parent)
        except FileNotFoundError:
            grown(0)
            try:
                return os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o666, dir_fd=parent), 0
            except FileExistsError:  # made meanwhile: open it as it is now
                continue
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
            os.close(fd)
            why = "is not a regular file" if not stat.S_ISREG(info.st_mode) else HARD_LINKED
            raise PackError(f"files/write: {_shown(rel)} {why}")
        return fd, info.st_size


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _listed(name: str) -> str:
    """A workspace file's name as `files/list` shows it: as it is, or as a
    JSON string when it could be misread (a newline would split it)."""
    if name.isprintable() and not name.startswith('"'):
        return name
    return json.dumps(name)


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
