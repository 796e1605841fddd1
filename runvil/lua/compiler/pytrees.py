"""Python syntax trees as the twin compiler (compiler/generators.py)
needs them, and fast: one factory of a chunk's generated source parsed
alone, trees copied, walked, and located (given the positions of the code
they replace) without the generic helpers of `ast` and `copy`, which cost
the twin compiler most of its time."""

from __future__ import annotations

import ast
import re
import warnings

#: where a factory starts in a chunk's generated source (one at the start
#: of a line: the code generator writes every other line indented, and its
#: string constants on one line)
_FACTORY = re.compile(r"^def (_mk_\w+)\(", re.M)


def compile_quietly(source, filename: str):
    """compile() of generated code (a source or a tree) with Python's
    SyntaxWarnings off: a Lua constant may give a test such as
    `(-0.0) is False`, and generated code is never the user's business."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile(source, filename, "exec")


def factory_source(info, name: str) -> tuple[str, int] | None:
    """The text of the chunk's factory `name` (its own lines of the
    source) and the line it starts at, or None when the source has no
    such factory."""
    spans = info.trees
    if spans is None:  # the factories' places in the source, found once
        spans, line, at = {}, 0, 0
        for m in _FACTORY.finditer(info.source):
            line += info.source.count("\n", at, m.start())
            at = m.start()
            spans[m.group(1)] = (at, line)
        info.trees = spans
    span = spans.get(name)
    if type(span) is not tuple:
        return None
    start, line = span
    end = _FACTORY.search(info.source, start + 1)
    return info.source[start:end.start() if end is not None else len(info.source)], line


def factory_tree(info, name: str, source: tuple[str, int] | None = None) -> ast.FunctionDef | None:
    """The syntax tree of the chunk's factory `name`, parsed from its own
    lines of the source at their own line numbers (the whole source's
    syntax tree costs more than compiling it, and a twin needs one
    function of it: `source` is factory_source's, when found already);
    the chunk's whole tree if those lines do not parse into that one
    function alone."""
    if source is None:
        source = factory_source(info, name)
    if source is not None:
        text, line = source
        try:
            body = ast.parse("\n" * line + text).body
        except SyntaxError:
            body = ()
        if len(body) == 1 and type(body[0]) is ast.FunctionDef and body[0].name == name:
            return body[0]
    spans = info.trees  # (factory_source found them)
    if type(spans.get(name)) is tuple:
        tree = ast.parse(info.source)  # (not as expected: the whole chunk)
        spans.update({d.name: d for d in tree.body if isinstance(d, ast.FunctionDef)})
    return spans.get(name)


def walk(node):
    """ast.walk, without its two generators per node (the twin compiler
    walks each function's tree more than once)."""
    out = [node]
    i = 0
    while i < len(out):
        n = out[i]
        i += 1
        for field in n._fields:
            value = getattr(n, field, None)
            if type(value) is list:
                out.extend(v for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                out.append(value)
        yield n


def locate(node, like):
    """node at like's position, and each node inside it without a position
    at its nearest parent's: ast.fix_missing_locations after
    ast.copy_location, but not looking inside a node that has a position
    (the twin compiler locates each form as it makes it, so what is inside
    a located node is located: looking there again made it quadratic)."""
    ast.copy_location(node, like)
    _fix_fresh(node, getattr(node, "lineno", 1), getattr(node, "col_offset", 0),
               getattr(node, "end_lineno", None) or 1, getattr(node, "end_col_offset", None) or 0)
    return node


def _fix_fresh(node, lineno, col, end_lineno, end_col) -> None:
    """_fix of ast.fix_missing_locations for node's children, each given
    node's position when it has none; the located ones are left as they are."""
    for name in node._fields:
        value = getattr(node, name, None)
        for child in (value if type(value) is list else (value,)):
            cls = child.__class__
            if cls in _UNPLACED or not isinstance(child, ast.AST):
                continue
            if "lineno" in cls._attributes:
                if hasattr(child, "lineno"):
                    continue
                child.lineno, child.col_offset = lineno, col
                child.end_lineno, child.end_col_offset = end_lineno, end_col
                if cls in _PLACED_LEAVES:
                    continue
            _fix_fresh(child, lineno, col, end_lineno, end_col)


#: nodes without a position and without nodes inside (contexts, operators)
_UNPLACED = frozenset({*ast.expr_context.__subclasses__(), *ast.operator.__subclasses__(),
                       *ast.cmpop.__subclasses__(), *ast.boolop.__subclasses__(), *ast.unaryop.__subclasses__()})
#: nodes with a position whose children have none to take (a name's context)
_PLACED_LEAVES = frozenset({ast.Name, ast.Constant})


def copy_tree(node):
    """A deep copy of a syntax tree (or a list of them): what copy.deepcopy
    makes of one, without its memo and reduce protocol, which cost the twin
    compiler most of its time."""
    if type(node) is list:
        return [copy_tree(n) for n in node]
    if not isinstance(node, ast.AST):
        return node
    cls = node.__class__
    new = cls.__new__(cls)
    new.__dict__.update({k: copy_tree(v) if type(v) is list or isinstance(v, ast.AST) else v
                         for k, v in node.__dict__.items()})
    return new
