"""The Engine's modules import in one direction (issue 9, item 7): the
layer table in runvil/engine/__init__.py's docstring is the declared order,
and every import of every Engine module, at its top or inside a function,
points to its own layer or one below, with no cycle anywhere.

The same holds for the whole project (issue 23, item 4): the top-level
layers are `lua` < `prompt` < `engine` < `harness` < the root package (the
Python API, `runvil.run`) < `host`, with `structs`, `threads`,
`_grammar` and `version` beneath them all; no import points up, no modules outside
runvil/lua import each other in a circle, no module imports another
package's private name, and outside runvil/lua only `runvil.lua.api` is
imported. Inside runvil/lua, the stages (syntax < compiler < runtime <
stdlib < the embedding) import only downward. Imports inside functions
count everywhere."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "runvil" / "engine"


def declared_layers() -> list[tuple[str, list[str]]]:
    """(layer, modules) from the docstring's table, top layer first."""
    doc = ast.get_docstring(ast.parse((ENGINE / "__init__.py").read_text(encoding="utf-8")))
    rows = [line.strip("|").split("|") for line in doc.splitlines() if line.startswith("| ")]
    layers: list[tuple[str, list[str]]] = []
    for layer, modules, _holds in rows[1:]:  # a row with no layer goes on with the one above
        if layer.strip():
            layers.append((layer.strip(), []))
        layers[-1][1].extend(m.strip() for m in modules.split(",") if m.strip())
    return layers


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> list[tuple[str, int, bool]]:
    """(imported module, line, inside a function or class?) for every import
    in a file; `from .x import name` counts as importing `x`, and also
    `x.name` when that is a module of its own."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    top = {id(n) for n in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            targets = [module] + [f"{module}.{a.name}" for a in node.names]
        else:
            continue
        for t in targets:
            found.append((t, node.lineno, id(node) not in top))
    return found


def engine_graph() -> dict[str, set[str]]:
    """Engine module -> the Engine modules it imports (package __init__s
    aside: they hold no code)."""
    files = {module_name(p): p for p in ENGINE.rglob("*.py") if p.name != "__init__.py"}
    return {name: {t for t, _, _ in imports_of(p) if t in files and t != name} for name, p in files.items()}


def layer_problems(layers: list[tuple[str, list[str]]], graph: dict[str, set[str]]) -> list[str]:
    """Every module in exactly one layer, no import upward, no cycle."""
    rank = {}
    problems = []
    for i, (_, modules) in enumerate(layers):
        for m in modules:
            full = f"runvil.engine.{m}"
            if full in rank:
                problems.append(f"{m} is in two layers")
            rank[full] = i
    problems += [f"{m} is in no layer" for m in graph if m not in rank]
    problems += [f"{m} is in the table but no module" for m in rank if m not in graph]
    for m, targets in sorted(graph.items()):
        for t in sorted(targets):
            if m in rank and t in rank and rank[t] < rank[m]:
                problems.append(f"{m} ({layers[rank[m]][0]}) imports {t} ({layers[rank[t]][0]}), a layer above it")
    state: dict[str, str] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = "open"
        for t in sorted(graph.get(m, ())):
            if state.get(t) == "open":
                problems.append("import cycle: " + " -> ".join(path[path.index(t):] + [t]))
            elif t not in state:
                visit(t, path + [t])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return problems


def test_every_engine_import_points_down_and_none_forms_a_cycle():
    assert layer_problems(declared_layers(), engine_graph()) == []


def test_the_table_names_the_globals_on_top_and_the_core_below():
    names = [name for name, _ in declared_layers()]
    assert names.index("globals") < names.index("rounds") < names.index("conversation") < names.index("base")
    layer = {m: name for name, modules in declared_layers() for m in modules}
    assert {layer[m] for m in ("models", "tools", "tasks", "conversation.compaction")} == {"globals"}
    assert layer["scheduler"] == "base"


def test_the_checker_sees_an_upward_import_and_a_cycle():
    layers = [("top", ["a"]), ("bottom", ["b", "c"])]
    graph = {"runvil.engine.a": {"runvil.engine.b"}, "runvil.engine.b": {"runvil.engine.a", "runvil.engine.c"},
             "runvil.engine.c": {"runvil.engine.b"}}
    problems = layer_problems(layers, graph)
    assert "runvil.engine.b (bottom) imports runvil.engine.a (top), a layer above it" in problems
    assert any(p.startswith("import cycle: runvil.engine.a -> runvil.engine.b -> runvil.engine.a") for p in problems)
    assert any("runvil.engine.b -> runvil.engine.c -> runvil.engine.b" in p for p in problems)


def test_the_engine_imports_no_harness_host_or_http():
    for path in ENGINE.rglob("*.py"):
        for target, line, _ in imports_of(path):
            assert not target.startswith(("runvil.harness", "runvil.host", "httpx")), f"{path.name}:{line}"


def test_the_prompt_layer_imports_no_engine():
    """`prompt.start()` (runvil/__init__.py) is the Engine's
    StartablePrompt, which `runvil.parse_file` returns: the prompt layer
    itself names the Engine nowhere, not even inside a function."""
    for path in (ROOT / "runvil" / "prompt").rglob("*.py"):
        for target, line, _ in imports_of(path):
            assert ".engine" not in target and not target.startswith("runvil.engine"), f"{path.name}:{line}"


# ------------------------------------------------------------------ the whole project

#: the top-level layers, bottom first; the root package (`runvil.run`, the
#: Python API, and `%load_ext runvil`'s hook into the host's notebook magic)
#: is the facade over all of them
PROJECT_LAYERS = [("base", ["structs", "threads", "_grammar", "version"]), ("lua", ["lua"]), ("prompt", ["prompt"]),
                  ("engine", ["engine"]), ("harness", ["harness"]), ("host", ["host"]), ("api", [""])]

#: the one module of runvil.lua that the rest of runvil imports: the
#: embedding surface (issue 23, item 1). A reach-in past it fails here.
LUA_SURFACE = {"runvil.lua.api"}

#: upward imports allowed by name (none)
KNOWN_UPWARD: set = set()


def package_modules(root: Path) -> dict[str, Path]:
    """Every module of the package at `root` (a folder), package __init__s
    included, by dotted name."""
    base = root.parent
    out = {}
    for p in root.rglob("*.py"):
        parts = list(p.relative_to(base).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def import_edges(name: str, path: Path, modules: dict) -> list[tuple[str, int, str | None]]:
    """(imported module, line, the private name taken from it or None) for
    every import in the file, inside functions too. `from p import m`
    imports the module `p.m` when there is one, else `p` itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    edges = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            edges += [(a.name, node.lineno, None) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                module = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                module = node.module
            for a in node.names:
                sub = f"{module}.{a.name}"
                if sub in modules:
                    edges.append((sub, node.lineno, None))
                else:
                    private = a.name.startswith("_") and not a.name.startswith("__")
                    edges.append((module, node.lineno, a.name if private else None))
    return [(t, line, priv) for t, line, priv in edges if t in modules]


def package_of(module: str, modules: dict) -> str:
    return module if modules[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def project_problems(root: Path, layers=PROJECT_LAYERS, lua_surface=LUA_SURFACE, known=KNOWN_UPWARD) -> list[str]:
    """Upward imports between the top-level layers, import circles among the
    modules outside `lua`, private names imported from another package, and
    reach-ins into `lua` past its surface, for the package at `root`."""
    top = root.name
    modules = package_modules(root)
    rank = {(f"{top}.{p}" if p else top): i for i, (_, prefixes) in enumerate(layers) for p in prefixes}
    names = [n for n, _ in layers]

    def layer(m: str) -> int:
        parts = m.split(".")
        return rank.get(".".join(parts[:2]), rank[top])

    def in_lua(m: str) -> bool:
        return m == f"{top}.lua" or m.startswith(f"{top}.lua.")

    problems = []
    graph: dict[str, set[str]] = {}
    for m, path in sorted(modules.items()):
        for t, line, private in import_edges(m, path, modules):
            where = f"{m}:{line}"
            if layer(t) > layer(m) and (m, t) not in known:
                problems.append(f"{where} ({names[layer(m)]}) imports {t} ({names[layer(t)]}), a layer above it")
            if private and not in_lua(m) and package_of(t, modules) != package_of(m, modules):
                problems.append(f"{where} imports {private}, a private name of {t}")
            if in_lua(t) and not in_lua(m) and t not in lua_surface:
                problems.append(f"{where} imports {t}, past the Lua embedding surface")
            if t != m and not in_lua(m) and not in_lua(t):
                graph.setdefault(m, set()).add(t)
    state: dict[str, str] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = "open"
        for t in sorted(graph.get(m, ())):
            if state.get(t) == "open":
                problems.append("import circle: " + " -> ".join(path[path.index(t):] + [t]))
            elif t not in state:
                visit(t, path + [t])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return problems


def test_the_project_imports_only_downward_with_no_circle_and_no_private_name():
    assert project_problems(ROOT / "runvil") == []


def test_the_lua_surface_lists_only_modules_that_exist():
    modules = package_modules(ROOT / "runvil")
    assert LUA_SURFACE <= set(modules)
    assert {m for m, _ in KNOWN_UPWARD} <= set(modules)


def write_package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()
    return root


CLEAN = {"structs.py": "", "lua/values.py": "", "lua/parser.py": "from . import values\n",
         "prompt/model.py": "from ..structs import *\n",
         "engine/run.py": "from ..lua import values\nfrom ..prompt.model import Prompt\n",
         "harness/echo.py": "from ..engine.run import Run\n",
         "host/cmd.py": "from ..harness import echo\nfrom ..version import __version__\n",
         "version.py": "__version__ = '0'\n", "__init__.py": "def hook():\n    from .host import cmd\n"}


def test_the_checker_passes_a_clean_throwaway_package(tmp_path):
    root = write_package(tmp_path / "runvil", CLEAN)
    assert project_problems(root, lua_surface={"runvil.lua", "runvil.lua.values"}, known=set()) == []


def test_the_checker_sees_each_kind_of_violation_in_a_throwaway_package(tmp_path):
    bad = {**CLEAN,
           # upward, hidden in a function
           "prompt/model.py": "def start():\n    from ..engine.run import Run\n",
           # a circle held together by an import inside a function
           "host/cli.py": "from .conformance import conformance_command\n",
           "host/conformance.py": "def run_here():\n    from .cli import main\n",
           # another package's private name
           "host/batch/answering.py": "from ..cmd import _Answerer\n",
           # a reach-in past the Lua surface
           "engine/vm.py": "from ..lua.parser import parse\n",
           # upward from lua, and a circle inside lua (not this check's)
           "lua/files.py": "def f():\n    from ..harness import echo\n",
           "lua/values.py": "from . import parser\n"}
    problems = project_problems(write_package(tmp_path / "runvil", bad),
                                lua_surface={"runvil.lua", "runvil.lua.values"}, known=set())
    assert sorted(problems) == sorted([
        "runvil.prompt.model:2 (prompt) imports runvil.engine.run (engine), a layer above it",
        "runvil.lua.files:2 (lua) imports runvil.harness.echo (harness), a layer above it",
        "runvil.host.batch.answering:1 imports _Answerer, a private name of runvil.host.cmd",
        "runvil.engine.vm:1 imports runvil.lua.parser, past the Lua embedding surface",
        "import circle: runvil.host.cli -> runvil.host.conformance -> runvil.host.cli",
        "import circle: runvil.engine.run -> runvil.prompt.model -> runvil.engine.run",  # the upward one closes one
    ])


def test_a_private_name_within_its_own_package_is_allowed(tmp_path):
    files = {**CLEAN, "host/cmd.py": "_x = 1\n", "host/other.py": "from .cmd import _x\n"}
    root = write_package(tmp_path / "runvil", files)
    assert project_problems(root, lua_surface={"runvil.lua", "runvil.lua.values"}, known=set()) == []


# ------------------------------------------------------------------ the stages of runvil/lua

#: runvil/lua's stages, bottom first (issue 23, items 1 and 4): each module
#: (by its path below runvil.lua; a package name covers what is in it)
#: imports only its own stage or those beneath. The most specific prefix wins.
LUA_STAGES = [("base", ["errors", "debuginfo", "numbers", "stack", "files", "cache", "cache.disk"]),
              ("syntax", ["syntax"]), ("compiler", ["compiler"]), ("runtime", ["runtime"]),
              ("stdlib", ["stdlib"]), ("embedding", ["", "state", "convert", "api"])]

#: the import circle left inside the runtime: the value model (values), the
#: operators on it and the nested-call count, each calling into the others
#: (the next step of issue 23 untangles it); any other circle, or a larger
#: one, fails
KNOWN_LUA_CIRCLES: list = []


def lua_stage_problems(root: Path, stages=LUA_STAGES, known_circles=KNOWN_LUA_CIRCLES) -> list[str]:
    """Upward imports between the stages of the package `root` (a folder
    like runvil/lua) and its import circles beyond `known_circles`."""
    modules = package_modules(root.parent)
    prefix = f"{root.parent.name}.{root.name}"
    inner = {m: p for m, p in modules.items() if m == prefix or m.startswith(prefix + ".")}
    rank = {}
    for i, (_, names) in enumerate(stages):
        for n in names:
            rank[n] = i

    def stage(m: str) -> int:
        rel = m[len(prefix):].lstrip(".")
        best = None
        for n in rank:
            if rel == n or rel.startswith(n + ".") or n == "" and rel == "":
                if best is None or len(n) > len(best):
                    best = n
        assert best is not None, f"{m} is in no stage"
        return rank[best]

    problems = []
    graph: dict[str, set[str]] = {}
    for m, path in sorted(inner.items()):
        for t, line, _ in import_edges(m, path, modules):
            if t in inner and t != m:
                graph.setdefault(m, set()).add(t)
                if stage(t) > stage(m):
                    problems.append(f"{m}:{line} ({stages[stage(m)][0]}) imports {t} ({stages[stage(t)][0]}), a stage above it")
    # strongly connected components (Tarjan), each a circle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    counter = [0]

    def connect(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            circle = set()
            while True:
                w = stack.pop()
                on.discard(w)
                circle.add(w)
                if w == v:
                    break
            short = {c[len(prefix) + 1:] for c in circle}
            if len(circle) > 1 and short not in known_circles:
                problems.append("import circle: " + ", ".join(sorted(short)))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return problems


def test_the_lua_stages_import_only_downward_with_no_circle_but_the_known_one():
    assert lua_stage_problems(ROOT / "runvil" / "lua") == []


def test_the_stage_checker_sees_an_upward_import_and_a_new_circle(tmp_path):
    root = write_package(tmp_path / "runvil", {
        "lua/errors.py": "", "lua/syntax/parser.py": "from ..errors import LuaError\n",
        "lua/compiler/codegen.py": "def f():\n    from ..runtime import values\n",  # upward, inside a function
        "lua/runtime/values.py": "from . import tables\n", "lua/runtime/tables.py": "from . import values\n",
        "lua/stdlib/base.py": "from ..runtime import values\n", "lua/api.py": "from .stdlib import base\n"})
    problems = lua_stage_problems(root / "lua", known_circles=[])
    assert sorted(problems) == sorted([
        "runvil.lua.compiler.codegen:2 (compiler) imports runvil.lua.runtime.values (runtime), a stage above it",
        "import circle: runtime.tables, runtime.values",
    ])
