"""A runaway recursion inside each kind of callback a builtin or an operator
makes (issue 22, item 2: "Deep recursion ends in Lua's `stack overflow`
error at whatever depth the platform's stack allows, never in a crash of the
interpreter"): a `gsub` function, a `sort` comparator, metamethods, `__close`,
`__tostring`, `__pairs`, xpcall's handler, load's reader. Shared by
test_deep_callbacks.py (this process's backend, and real Lua 5.4),
tests/engine/test_inline.py (a platform without threads, played by CPython)
and the Pyodide tier (tests/pyodide).

Each chunk prints the results of the protected call, then `depth N`: how
deep the recursion went before it was stopped (Lua 5.4 goes about 500,000
deep, runvil as deep as its stack allows), and `alive`.
"""

from __future__ import annotations

#: the chunk's first lines: `deep` recurses until something stops it
HEAD = "local depth = 0\nlocal function deep(n) depth = n; return 1 + deep(n + 1) end\n"

#: kind -> the statement whose callback runs away
KINDS = {
    "gsub": 'print(pcall(string.gsub, "x", "x", function() return deep(1) end))',
    "sort": "print(pcall(table.sort, {3, 1, 2}, function(a, b) return deep(1) end))",
    "__index": "print(pcall(function() return setmetatable({}, {__index = function() return deep(1) end}).x end))",
    "__newindex": "print(pcall(function() setmetatable({}, {__newindex = function() deep(1) end}).x = 1 end))",
    "__add": ("print(pcall(function() local v = setmetatable({}, {__add = function() return deep(1) end}) + 1; "
              "return v end))"),
    "__lt": ("print(pcall(function() local o = setmetatable({}, {__lt = function() return deep(1) end}); "
             "return not (o < o) end))"),
    "__le": ("print(pcall(function() local o = setmetatable({}, {__le = function() return deep(1) end}); "
             "return o <= o, 1 end))"),
    "__eq": ("print(pcall(function() local mt = {__eq = function() return deep(1) end}; "
             "return setmetatable({}, mt) == setmetatable({}, mt), 1 end))"),
    "__concat": ("print(pcall(function() local o = setmetatable({}, {__concat = function() return deep(1) end}); "
                 'return "a" .. o .. "b" end))'),
    "__unm": "print(pcall(function() return -setmetatable({}, {__unm = function() return deep(1) end}), 1 end))",
    "__len": "print(pcall(function() return #setmetatable({}, {__len = function() return deep(1) end}), 1 end))",
    "__call": "print(pcall(function() return setmetatable({}, {__call = function() return deep(1) end})(), 1 end))",
    "__close": "print(pcall(function() local x <close> = setmetatable({}, {__close = function() deep(1) end}) end))",
    "tostring": "print(pcall(tostring, setmetatable({}, {__tostring = function() return deep(1) end})))",
    "string.format": ('print(pcall(string.format, "%s", '
                      "setmetatable({}, {__tostring = function() return deep(1) end})))"),
    "__pairs": ("print(pcall(function() for k in pairs(setmetatable({}, {__pairs = function() return deep(1) end})) "
                "do end end))"),
    "xpcall handler": 'print(xpcall(error, function() return deep(1) end, "x"))',
    "load reader": "print(pcall(load, function() return deep(1) end))",
    "gsub in a load reader": ('print(pcall(load, function() return (string.gsub("x", "x", '
                              "function() return deep(1) end)) end))"),
    "in a coroutine": ('print(coroutine.wrap(function() return pcall(string.gsub, "x", "x", '
                       "function() return deep(1) end) end)())"),
}  # fmt: skip

OVERFLOW = "false\t(command line):2: stack overflow"
#: what Lua 5.4 prints first for each kind, run as `lua5.4 -e CHUNK`
LUA_SAYS = {
    **dict.fromkeys(KINDS, OVERFLOW),
    # lua_load catches the reader's errors: load returns nil and the message
    "load reader": "true\tnil\t(command line):2: stack overflow",
    "gsub in a load reader": "true\tnil\t(command line):2: stack overflow",
    # an error inside the message handler
    "xpcall handler": "false\terror in error handling",
}


def chunk(kind: str) -> str:
    return HEAD + KINDS[kind] + '\nprint("depth " .. depth)\nprint("alive")\n'


def outcome(printed: str) -> tuple[str, int, str]:
    """A chunk's output as (its first line, the depth reached, its last line)."""
    first, depth, last = printed.rstrip("\n").split("\n")
    return first, int(depth.removeprefix("depth ")), last
