"""`require` and the `package` library as Lua 5.4's manual (§6.3) and its
loadlib.c have them: `package.path`, `cpath`, `config`, `loaded`,
`preload`, `searchers`, `searchpath` and `loadlib`; the preload and Lua-file
searchers, and the C searchers, which find no C module (runvil runs no C).

Where files are looked for is a `ModuleFiles`: either the whole file system
as `lua5.4` sees it (`runvil lua --allow all`), or one folder, the boundary
of a sandbox (a prompt's folder, a script's): there a file name that is
absolute or that resolves (symlinks followed) outside the folder names no
file, only regular files count, and a module above the size bound is
refused before it is read whole. `require` keeps Lua's texts either way.
"""

from __future__ import annotations

import os
import stat

from ..debuginfo import builtin
from ..errors import LuaError, LuaSyntaxError, lua_error
from ..runtime import values as V
from ..runtime.args import check_str, opt_str
from ..runtime.calls import ccall
from ..runtime.tables import LuaTable
from . import lib_table

#: package.config: directory separator, template separator, substitution
#: mark, executable-directory mark, the mark ignored in C function names
CONFIG = "/\n;\n?\n!\n-\n"
#: the templates of a sandbox, relative to its folder
SANDBOX_PATH = "./?.lua;./?/init.lua"
SANDBOX_CPATH = "./?.so"
#: Debian's lua5.4 5.4.4 (`lua5.4 -e 'print(package.path)'`, and cpath)
LUA_PATH_DEFAULT = ("/usr/local/share/lua/5.4/?.lua;/usr/local/share/lua/5.4/?/init.lua;"
                    "/usr/local/lib/lua/5.4/?.lua;/usr/local/lib/lua/5.4/?/init.lua;"
                    "/usr/share/lua/5.4/?.lua;/usr/share/lua/5.4/?/init.lua;./?.lua;./?/init.lua")
LUA_CPATH_DEFAULT = ("/usr/local/lib/lua/5.4/?.so;/usr/lib/x86_64-linux-gnu/lua/5.4/?.so;/usr/lib/lua/5.4/?.so;"
                     "/usr/local/lib/lua/5.4/loadall.so;./?.so")
#: the largest module `runvil lua` reads (a prompt's bound is its block's)
MAX_MODULE_BYTES = 16 * 1024 * 1024
TOO_BIG = "module '{name}' is {size} bytes of Lua; the limit is {limit} bytes"
NO_C = "dynamic libraries not enabled; check your Lua installation"


class ModuleTooBig(Exception):
    def __init__(self, size: int):
        self.size = size


class ModuleFiles:
    """The files `require` may read. `root` None: any file, relative to the
    current directory, as lua5.4; else only regular files inside `root`
    (resolved with realpath), relative to it. `chunk_name(filename)`: the
    chunk name of a module found as `filename` (Lua's: "@" + filename)."""

    def __init__(self, root: str | None = None, max_bytes: int = MAX_MODULE_BYTES, chunk_name=None):
        self.root = root
        self._real_root = None  # resolved at the first lookup: most states never require
        self.max_bytes = max_bytes
        self.chunk_name = chunk_name or (lambda filename: "@" + filename)

    def host_path(self, filename: str) -> str | None:
        """The path to open for a Lua file name, or None when it may not be."""
        raw = filename.encode("latin-1").decode("utf-8", "surrogateescape")
        if "\0" in raw or not raw:
            return None
        if self.root is None:
            return raw
        if os.path.isabs(raw):
            return None
        if self._real_root is None:
            self._real_root = os.path.realpath(self.root)
        root = self._real_root
        try:
            real = os.path.realpath(os.path.join(root, raw))
        except (OSError, ValueError):
            return None
        if not real.startswith(root.rstrip(os.sep) + os.sep):
            return None
        return real

    def readable(self, filename: str) -> bool:
        """searchpath's test (loadlib.c's `readable`: fopen for reading)."""
        path = self.host_path(filename)
        if path is None:
            return False
        try:
            if self.root is None:
                return os.access(path, os.R_OK)
            return stat.S_ISREG(os.stat(path).st_mode) and os.access(path, os.R_OK)
        except (OSError, ValueError):
            return False

    def read(self, filename: str) -> bytes:
        """A module's bytes: its size is checked before it is read, and a
        FIFO or device is never waited on. Raises OSError, ModuleTooBig."""
        path = self.host_path(filename)
        if path is None:
            raise FileNotFoundError(2, "No such file or directory")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(21, "Is a directory")
            if not stat.S_ISREG(st.st_mode):
                raise OSError(22, "not a regular file")
            if st.st_size > self.max_bytes:
                raise ModuleTooBig(st.st_size)
            data = f.read(self.max_bytes + 1)
        if len(data) > self.max_bytes:
            raise ModuleTooBig(len(data))
        return data


class Package:
    """One state's `package` library: its tables, and `require` in two
    steps (`find_loader`, then `store` once the loader ran) so that a host
    whose loaders may wait (the Engine's) runs the loader its own way."""

    def __init__(self, state, files: ModuleFiles, path: str, cpath: str, load_cache: bool = False):
        self.state = state
        state.parts.append(self)
        self.files = files
        self.load_cache = load_cache
        self.preload = LuaTable()
        self.on_read = None  # (file name, its bytes) of each module read: the Engine keeps their hashes

        def searchpath(*args):
            return self._searchpath(*args)

        self.table = t = lib_table({"searchpath": searchpath, "loadlib": _loadlib}, "package.")
        G = state.G
        # every opened library, as linit.c leaves them (the tables are new:
        # their hashes are filled directly)
        self.loaded = LuaTable(hash={name: value for name, value in G.hash.items()
                                     if type(value) is LuaTable and (value is G or name in LIBRARY_NAMES)})
        self.loaded.hash["package"] = t
        t.hash.update(path=path, cpath=cpath, config=CONFIG, loaded=self.loaded, preload=self.preload,
                      searchers=LuaTable(arr=self._searchers()))
        G.set_str("package", t)

    def release(self) -> None:
        """The state is released: the library and its searchers' closures
        refer to each other, and no longer to the state; `package` and
        `package.loaded` (which hold each other and every library) are
        emptied."""
        for t in (self.table, self.loaded, self.preload):
            if t is not None:
                t.hash.clear()
                t.arr.clear()
        self.state = self.table = self.loaded = self.preload = self.on_read = None

    # ------------------------------------------------------------ require

    def require(self, *args):
        """ll_require: the cached value (one result), or the loader's value
        and its data (two)."""
        name = check_str(args, 1, "require")
        cached = self.loaded.get(name)
        if cached is not None and cached is not False:
            return cached
        loader, data = self.find_loader(name)
        results = V.expand(ccall(loader, name, data))
        return self.store(name, results[0] if results else None, data)

    def find_loader(self, name: str) -> tuple:
        """findloader: asks each searcher in turn; raises Lua's `module not
        found` listing what each said."""
        searchers = self.table.get("searchers")
        if type(searchers) is not LuaTable:
            lua_error("'package.searchers' must be a table")
        notes = []
        i = 1
        while True:
            searcher = searchers.get(i)
            if searcher is None:
                lua_error(f"module '{name}' not found:{''.join(notes)}")
            found = V.expand(ccall(searcher, name))
            first = found[0] if found else None
            if V.type_name(first) == "function":
                return first, found[1] if len(found) > 1 else None
            if type(first) is str or type(first) in (int, float):
                notes.append("\n\t" + (first if type(first) is str else V.tostring_basic(first)))
            i += 1

    def store(self, name: str, value, data):
        """The rest of ll_require once the loader returned `value`."""
        if value is not None:
            self.loaded.set(name, value)
        value = self.loaded.get(name)
        if value is None:
            value = True
            self.loaded.set(name, True)
        return V.Multi((value, data))

    # ---------------------------------------------------------- searchers

    def _searchers(self) -> list:
        """package.searchers: builtins (closures, each a function of its own)."""
        @builtin
        def preload(*args):
            return self._search_preload(*args)

        @builtin
        def lua(*args):
            return self._search_lua(*args)

        @builtin
        def c(*args):
            return self._search_c(*args)

        @builtin
        def croot(*args):
            return self._search_croot(*args)

        return [preload, lua, c, croot]

    def _search_preload(self, *args):
        name = check_str(args, 1, "?")
        loader = self.preload.get(name)
        if loader is None:
            return f"no field package.preload['{name}']"
        return V.Multi((loader, ":preload:"))

    def _search_lua(self, *args):
        name = check_str(args, 1, "?")
        filename, message = self._find_file(name, "path")
        if filename is None:
            return message
        return V.Multi((self.load_module(name, filename), filename))

    def _search_c(self, *args):
        name = check_str(args, 1, "?")
        filename, message = self._find_file(name, "cpath")
        if filename is None:
            return message
        return _refused_c(name, filename)

    def _search_croot(self, *args):
        name = check_str(args, 1, "?")
        root, dot, _rest = name.partition(".")
        if not dot:
            return V.EMPTY
        filename, message = self._find_file(root, "cpath")
        if filename is None:
            return message
        return _refused_c(name, filename)

    def _find_file(self, name: str, field: str) -> tuple:
        path = self.table.get(field)
        if type(path) in (int, float):
            path = V.tostring_basic(path)
        if type(path) is not str:
            lua_error(f"'package.{field}' must be a string")
        return search_path(self.files, name, path, ".", "/")

    def load_module(self, name: str, filename: str):
        """luaL_loadfile and checkload: the module's chunk, or Lua's `error
        loading module` with what went wrong."""
        try:
            try:
                raw = self.files.read(filename)
                if self.on_read is not None:
                    self.on_read(filename, raw)
                source = _file_source(raw)
            except ModuleTooBig as e:
                raise LuaSyntaxError(TOO_BIG.format(name=name, size=e.size, limit=self.files.max_bytes)) from None
            except OSError as e:
                what = "read" if isinstance(e, IsADirectoryError) else "open"
                raise LuaSyntaxError(f"cannot {what} {filename}: {e.strerror}") from None
            return self.state.load(source, self.files.chunk_name(filename), cache=self.load_cache)
        except LuaSyntaxError as e:
            message = e.value if type(e.value) is str else V.tostring_basic(e.value)
            raise LuaError(f"error loading module '{name}' from file '{filename}':\n\t{message}") from None

    def _searchpath(self, *args):
        name = check_str(args, 1, "searchpath")
        path = check_str(args, 2, "searchpath")
        sep = opt_str(args, 3, "searchpath", ".")
        dirsep = opt_str(args, 4, "searchpath", "/")
        filename, message = search_path(self.files, name, path, sep, dirsep)
        return filename if filename is not None else V.Multi((None, message))


#: the libraries linit.c puts in package.loaded (with _G and package)
LIBRARY_NAMES = frozenset(("coroutine", "table", "io", "os", "string", "math", "utf8", "debug"))


def search_path(files: ModuleFiles, name: str, path: str, sep: str, dirsep: str) -> tuple:
    """loadlib.c's searchpath: (the first readable file name, None), or
    (None, the `no file` lines of every template tried)."""
    if sep and sep in name:
        name = name.replace(sep, dirsep)
    filled = path.replace("?", name)
    for filename in filled.split(";"):
        if filename and files.readable(filename):
            return filename, None
    return None, "no file '" + filled.replace(";", "'\n\tno file '") + "'"


def _refused_c(name: str, filename: str):
    """What the C searchers say of a file they found: runvil has no C
    loader, so the module is not loaded (a note, as a searcher's)."""
    return f"no module '{name}' in file '{filename}' ({NO_C})"


@builtin
def _loadlib(*args):
    check_str(args, 1, "loadlib")
    check_str(args, 2, "loadlib")
    return V.Multi((None, NO_C, "absent"))


def _file_source(data: bytes) -> str:
    from ..files import file_source

    return file_source(data)


def open_package(state, files: ModuleFiles, path: str = SANDBOX_PATH, cpath: str = SANDBOX_CPATH,
                 load_cache: bool = False) -> Package:
    """Opens `package` and `require` in a state (after its other libraries,
    so that package.loaded holds them)."""
    package = Package(state, files, path, cpath, load_cache)

    def require(*args):
        return package.require(*args)

    state.G.set_str("require", lib_table({"require": require}).hash["require"])
    return package


def environment_path(variable: str, default: str) -> str:
    """loadlib.c's setpath: LUA_PATH_5_4 (or LUA_PATH) when set, its `;;`
    standing for the default."""
    value = os.environ.get(variable + "_5_4")
    if value is None:
        value = os.environ.get(variable)
    if value is None:
        return default
    value = value.encode("utf-8", "surrogateescape").decode("latin-1")
    at = value.find(";;")
    if at < 0:
        return value
    before, after = value[:at], value[at + 2 :]
    return (before + ";" if before else "") + default + (";" + after if after else "")


def package_defaults() -> tuple[str, str]:
    """lua5.4's package.path and package.cpath, with its environment."""
    return environment_path("LUA_PATH", LUA_PATH_DEFAULT), environment_path("LUA_CPATH", LUA_CPATH_DEFAULT)
