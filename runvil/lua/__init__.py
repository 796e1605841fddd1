"""runvil.lua: a Lua 5.4 subset in pure Python — parse, resolve, compile,
run — with the sandboxed standard library. It knows nothing of prompts.

Its stages are packages, each importing only those below it:

- `syntax/`: Lua source to a syntax tree (entry: `syntax.parse`);
- `compiler/`: a syntax tree to Python code (entry: `compiler.codegen.compile_chunk`);
- `runtime/`: what compiled code runs on: values, operators, tables, calls,
  execution contexts;
- `stdlib/`: Lua's standard library, on the runtime;
- `cache/`: compiled chunks and parse tables on disk;
- beneath them all: `errors`, `numbers`, `stack` (where Lua runs), `files`;
- on top: `state` (a LuaState: one sandboxed interpreter) and `api`, the
  embedding surface: the rest of runvil imports nothing else of this package.

The package itself offers the same names as `api` (`from runvil.lua import
LuaState`), imported at first use."""


def __getattr__(name: str):
    from importlib import import_module

    api = import_module(f"{__name__}.api")  # (not `from . import api`: that would ask this hook for `api`)
    try:
        value = getattr(api, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__():
    from importlib import import_module

    return sorted(set(globals()) | set(import_module(f"{__name__}.api").__all__))

