"""Step costs: how many steps one loop iteration or function entry charges,
so that every loop shape spends the step budget in about the same time
(counted as one step each, shapes took from 2 s to 52 s, and more).

A step is about one trip round an empty loop. The straight-line code a step
point runs until the next one (a loop body without its nested loops and
functions, a function body likewise) is weighed at compile time: a call
costs what the named function typically costs in steps (`s:gsub` far more
than `type`), a concatenation or a table constructor a little. So the
charge is deterministic and free at run time: it is folded into the one
decrement the step point already does.

This module holds the costs alone, so the runtime can read them without
the AST; the compiler's weighing of a block is compiler/weigh.py.
"""

from __future__ import annotations

#: a call of a function of this name (method, field or global), in steps
CALL_COSTS = {
    "find": 40, "match": 40, "gmatch": 20, "gsub": 60, "format": 20, "rep": 6, "sort": 60, "concat": 8,
    "pcall": 25, "xpcall": 25, "error": 25, "tostring": 4, "tonumber": 3, "insert": 4, "remove": 4,
    "unpack": 4, "pack": 4, "sub": 3, "byte": 3, "char": 3, "upper": 3, "lower": 3, "reverse": 3, "len": 2,
    "setmetatable": 3, "select": 2, "print": 10, "load": 100, "wrap": 30, "create": 30, "resume": 20,
    "yield": 20, "encode": 40, "decode": 40,
}  # fmt: skip
#: any other call (a Lua function's entry charges its own body as well)
CALL_COST = 3
#: what a tail call (`return f(x)`) costs besides: the pending call that the
#: caller's caller runs, more than an ordinary call (so a loop of tail
#: calls spends its steps at the pace of a `while` loop)
TAIL_CALL_COST = 3
#: `..` and a table constructor; any other operator or an indexing
CONCAT_COST = 2
TABLE_COST = 2
OP_COST = 1
#: the method lookup of `o:m()` (on a string: through its metatable)
METHOD_COST = 2
#: a metamethod's call by an operator or an indexing (cstack.meta_call): an
#: operator cannot tell at compile time that it will call one
META_CALL_COST = 6
#: one item of a native `pairs` / `ipairs` walk (runtime.make_giter)
NEXT_ITEM_COST = 4
IPAIRS_ITEM_COST = 3
