"""The Engine's modules import in one direction (issue 9, item 7): the
layer table in runvil/engine/__init__.py's docstring is the declared order,
and every import of every Engine module, at its top or inside a function,
points to its own layer or one below, with no cycle anywhere."""

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


def test_the_prompt_layer_names_the_engine_only_in_prompt_start():
    """`prompt.start()` is the public API's way into the Engine (host.md
    "The Python API"); the prompt layer imports it only when called."""
    uses = []
    for path in (ROOT / "runvil" / "prompt").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [tree] + [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for target, line, _ in imports_of(path):
            if ".engine" in target or target.startswith("runvil.engine"):
                inside = [f.name for f in functions[1:] if f.lineno <= line <= f.end_lineno]
                uses.append((path.name, inside[-1] if inside else None))
    assert set(uses) == {("model.py", "start")}
