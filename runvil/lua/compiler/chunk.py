"""What the compiler makes (`Compiled`; codegen.compile_chunk makes it), kept apart from the compiler itself: a chunk served by
the disk cache (compiler/chunkcache.py) needs neither the parser (lark) nor the code
generator, so a short run does not import them.
"""

from __future__ import annotations

import itertools

#: numbers the chunks of this process: generated names (`c7_2`) carry it,
#: so chunks sharing a namespace never clash (file names are
#: debuginfo.new_filename's)
chunk_ids = itertools.count(1)

class Compiled:
    """A compiled chunk: Python code made once, instantiated per state.

    `instantiate(namespace, env)` runs the code's definitions in a state's
    namespace and returns the chunk's main function with `env` as _ENV.
    `info` is what the chunk knows of itself (runvil.lua.debuginfo.ChunkInfo:
    its line map, call sites, generated source), held by its codes too.
    """

    __slots__ = ("name", "code", "main", "env_is_cell", "info")

    def __init__(self, name, code, main, env_is_cell, info):
        self.name, self.code, self.main = name, code, main
        self.env_is_cell, self.info = env_is_cell, info

    @property
    def source(self) -> str:
        """The generated Python source (identifiers as this process names them)."""
        info = self.info
        return info.rename.text(info.source) if info.rename is not None else info.source

    def instantiate(self, namespace: dict, env):
        exec(self.code, namespace)
        factory = namespace.pop(f"_mk_{self.main}")
        return factory([env] if self.env_is_cell else env)
