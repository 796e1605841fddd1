"""What the compiler makes (`Compiled`) and the one entry point that makes
it (`compile_lua`), kept apart from the compiler itself: a chunk served by
the disk cache (cache/chunks.py) needs neither the parser (lark) nor the code
generator, so a short run does not import them.
"""

from __future__ import annotations

import itertools

#: numbers the chunks of this process: generated names and file names
#: (`c7_2`, `<lua:7>`) carry it, so chunks sharing a namespace never clash
chunk_ids = itertools.count(1)

#: chunk file name (`<lua:7>`) -> (its Python source, the cache's renamer or
#: None): what generator twins are made from (compiler/generators.py)
PY_SOURCE: dict = {}


class Compiled:
    """A compiled chunk: Python code made once, instantiated per state.

    `instantiate(namespace, env)` runs the code's definitions in a state's
    namespace and returns the chunk's main function with `env` as _ENV.
    """

    __slots__ = ("name", "code", "main", "env_is_cell", "source")

    def __init__(self, name, code, main, env_is_cell, source):
        self.name, self.code, self.main = name, code, main
        self.env_is_cell, self.source = env_is_cell, source

    def instantiate(self, namespace: dict, env):
        exec(self.code, namespace)
        factory = namespace.pop(f"_mk_{self.main}")
        return factory([env] if self.env_is_cell else env)


def compile_lua(source: str, chunkname: str, fast_env: bool = True, cache: bool = False) -> Compiled:
    """Parses and compiles Lua source (one char per byte); `chunkname` is
    the name used in messages as is. Raises LuaSyntaxError. With `cache`,
    the chunk comes from (or goes to) the disk cache (cache/chunks.py): for
    the host's chunks (prompt blocks, `runvil lua`), not for Lua's `load`."""
    if cache:
        from ..cache.chunks import cached_compile

        return cached_compile(source, chunkname, fast_env)
    from .codegen import compile_tree
    from ..syntax.parser import parse

    return compile_tree(parse(source, chunkname), fast_env)
