"""The typed Lua syntax tree: what the parser builds and the resolver annotates.

Every node carries the source `line` and `col` (1-based) of its first token.
Nodes are plain mutable slotted classes so the resolver can write what it
learns (bindings, captured locals) into declared fields.
"""

from __future__ import annotations

from attrs import define, field


@define(slots=True, eq=False)
class Node:
    line: int = field(default=0, kw_only=True)
    col: int = field(default=0, kw_only=True)


# --------------------------------------------------------------- expressions


@define(slots=True, eq=False)
class Nil(Node):
    pass


@define(slots=True, eq=False)
class TrueLit(Node):
    pass


@define(slots=True, eq=False)
class FalseLit(Node):
    pass


@define(slots=True, eq=False)
class Number(Node):
    value: int | float  # int already wrapped to 64 bits, as Lua reads it


@define(slots=True, eq=False)
class String(Node):
    value: str  # a byte string: one char per byte (0..255)


@define(slots=True, eq=False)
class Vararg(Node):
    pass


@define(slots=True, eq=False)
class Name(Node):
    name: str
    # Written by the resolver: the LocalVar this name refers to, or None
    # for a global (an access through _ENV).
    binding: object = None


@define(slots=True, eq=False)
class Index(Node):
    obj: Node
    key: Node


@define(slots=True, eq=False)
class Call(Node):
    func: Node
    args: list


@define(slots=True, eq=False)
class MethodCall(Node):
    obj: Node
    method: str
    args: list


@define(slots=True, eq=False)
class Function(Node):
    params: list  # list[str]
    is_vararg: bool
    body: "Block"
    name: str = "?"  # for messages: the name it was declared with, if any
    end_line: int = 0  # line of the closing 'end'
    # Written by the resolver.
    param_vars: list = field(factory=list)
    scope: object = None


@define(slots=True, eq=False)
class Paren(Node):
    """A parenthesized expression: truncates multiple results to one."""

    expr: Node


@define(slots=True, eq=False)
class BinOp(Node):
    op: str  # + - * / // % ^ .. == ~= < <= > >= and or & | ~ << >>
    left: Node
    right: Node


@define(slots=True, eq=False)
class UnOp(Node):
    op: str  # - not # ~
    operand: Node


@define(slots=True, eq=False)
class Table(Node):
    items: list  # list of ListItem | NamedItem | KeyedItem


@define(slots=True, eq=False)
class ListItem(Node):
    value: Node


@define(slots=True, eq=False)
class NamedItem(Node):
    name: str
    value: Node


@define(slots=True, eq=False)
class KeyedItem(Node):
    key: Node
    value: Node


# ---------------------------------------------------------------- statements


@define(slots=True, eq=False)
class Block(Node):
    stmts: list
    end_line: int = 0  # line of the token that closes the block


@define(slots=True, eq=False)
class Local(Node):
    names: list  # list[str]
    attribs: list  # list[str | None]: 'const', 'close' or None
    exprs: list
    vars: list = field(factory=list)  # resolver: LocalVar per name


@define(slots=True, eq=False)
class Assign(Node):
    targets: list  # Name | Index
    exprs: list
    end_line: int = field(default=0, kw_only=True)  # the line of its last token


@define(slots=True, eq=False)
class CallStat(Node):
    call: Node  # Call | MethodCall


@define(slots=True, eq=False)
class Do(Node):
    body: Block


@define(slots=True, eq=False)
class While(Node):
    cond: Node
    body: Block


@define(slots=True, eq=False)
class Repeat(Node):
    body: Block
    cond: Node


@define(slots=True, eq=False)
class If(Node):
    tests: list  # list[(cond, Block)]: the if and each elseif
    orelse: Block | None


@define(slots=True, eq=False)
class NumericFor(Node):
    var: str
    start: Node
    stop: Node
    step: Node | None
    body: Block
    var_local: object = None  # resolver


@define(slots=True, eq=False)
class GenericFor(Node):
    names: list  # list[str]
    exprs: list
    body: Block
    vars: list = field(factory=list)  # resolver


@define(slots=True, eq=False)
class FunctionStat(Node):
    """`function a.b.c:m() ... end`: target is a Name or Index chain."""

    target: Node
    method: str | None
    func: Function


@define(slots=True, eq=False)
class LocalFunction(Node):
    name: str
    func: Function
    var: object = None  # resolver


@define(slots=True, eq=False)
class Return(Node):
    exprs: list


@define(slots=True, eq=False)
class Break(Node):
    pass


@define(slots=True, eq=False)
class Goto(Node):
    label: str


@define(slots=True, eq=False)
class Label(Node):
    name: str


@define(slots=True, eq=False)
class Chunk(Node):
    """A compiled unit: the main function of a chunk (vararg, no params)."""

    body: Block
    name: str = "?"  # chunk name as Lua prints it in messages
    scope: object = None  # resolver: the main function's FuncScope


def children(n) -> list:
    """n's child nodes, in the order of its fields (the items of its lists
    too, and both of each (cond, block) pair of If.tests)."""
    out = []
    for a in type(n).__attrs_attrs__:
        v = getattr(n, a.name)
        if isinstance(v, Node):
            out.append(v)
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, Node):
                    out.append(x)
                elif isinstance(x, tuple):  # If.tests: (cond, block)
                    out.extend(y for y in x if isinstance(y, Node))
    return out


def own_nodes(roots):
    """Every node under `roots` (a list of nodes), the roots included, but
    none inside a nested function: what one function's own code holds."""
    stack = list(roots)
    while stack:
        n = stack.pop()
        if type(n) is Function:
            continue
        yield n
        stack.extend(children(n))


def dump(node, indent: str = "") -> str:
    """A stable text form of a tree, for golden tests."""
    lines: list[str] = []
    _dump(node, indent, lines, "")
    return "\n".join(lines)


_SKIP = {"line", "col", "binding", "param_vars", "scope", "vars", "var_local", "var", "end_line"}


def _dump(value, indent, out, label):
    prefix = f"{indent}{label}"
    if isinstance(value, Node):
        names = [a.name for a in type(value).__attrs_attrs__ if a.name not in _SKIP]
        simple = [n for n in names if not isinstance(getattr(value, n), (Node, list, tuple))]
        head = " ".join(f"{n}={getattr(value, n)!r}" for n in simple)
        out.append(f"{prefix}{type(value).__name__}@{value.line}" + (f" {head}" if head else ""))
        for n in names:
            if n in simple:
                continue
            _dump(getattr(value, n), indent + "  ", out, f"{n}: ")
    elif isinstance(value, (list, tuple)):
        out.append(f"{prefix}[" + ("]" if not value else ""))
        if value:
            for item in value:
                _dump(item, indent + "  ", out, "")
            out.append(f"{indent}]")
    else:
        out.append(f"{prefix}{value!r}")
