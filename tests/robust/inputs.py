"""Hostile inputs as text: prompt files, scripted worlds and Lua snippets,
each from a piece the issue 10 review found or one of its kind. Shared by
the fixed regression batch and the hypothesis strategies."""

from __future__ import annotations

HEAD = "---\nname: t\ndescription: A hostile prompt.\nrunvil: 0\nmodels:\n  writer: {}\n"


def prompt(frontmatter_lines: list[str] = (), body: str = "# T\n") -> str:
    return HEAD + "".join(line + "\n" for line in frontmatter_lines) + "---\n\n" + body


def section(name: str, lua: str, prose: str = "") -> str:
    return f"\n## {name}\n\n{prose}\n\n```lua\n{lua}\n```\n"


def alias_bomb(levels: int = 9, width: int = 9) -> list[str]:
    lines = ["x-a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    for i in range(1, levels + 1):
        lines.append(f"x-a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return lines


#: frontmatter lines a hostile file may carry
FRONTMATTER = {
    "control character": ['x-a: "\x01"', "x-b: \x07bell"],
    "escape control": ['x-a: "\\x00\\x1b"'],
    "huge integer": ["max_tool_iterations: " + "9" * 5000],
    "integer at the digit limit": ["max_tool_iterations: " + "9" * 4300],
    "huge float": ["models:", "  w2:", "    temperature: 1" + "0" * 5000 + ".5"],
    "deep list": ["x-a: " + "[" * 50_000 + "]" * 50_000],
    "deep map": ["x-a: " + "{a: " * 20_000 + "1" + "}" * 20_000],
    "deep block map": ["x-a:"] + ["  " * (i + 1) + "a:" for i in range(300)],
    "alias bomb": alias_bomb(),
    "recursive alias": ["x-a: &a [1, *a]"],
    "undefined alias": ["x-a: *nope"],
    "non-string keys": ["~: 1", "[a, b]: 2", "1.5: x", "? {a: 1}\n: 2"],
    "surrogate": ['x-s: "\\uD800"', 'description2: "\\uDFFF"'],
    "python tag": ["x-t: !!python/object/apply:os.system [ls]"],
    "binary and timestamp": ["x-b: !!binary aGk=", "x-d: 2001-12-14t21:59:43.10-05:00"],
    "nan and inf": ["models:", "  w2: {temperature: .nan, top_p: .inf, max_tokens: -.inf}"],
    "tabs and garbage": ["\tname: x", "{ [ ] } : :"],
}

#: Lua blocks aimed at the compiler, the runtime and the run's limits
LUA = {
    "tonumber": "return tonumber('" + "9" * 5000 + "'), tonumber('0x1p99999')",
    "numeral": "return " + "9" * 5000,
    "field chain": "local t = {} return t" + ".a" * 10_000,
    "sum": "return " + " + ".join(["1"] * 1000),
    "nested ifs": "if true then " * 100 + "x = 1" + " end" * 100,
    "nested loops": "for i = 1, 1 do " * 21 + "x = 1" + " end" * 21,
    "nested functions": "return " + "function() return " * 90 + "1" + " end" * 90,
    "nested parens": "return " + "(" * 5000 + "1" + ")" * 5000,
    "jump to itself": "jump('A')",
    "deep recursion": "local function f(n) return 1 + f(n + 1) end return f(1)",
    "tostring recursion": "error(setmetatable({}, {__tostring = function(e) return tostring(e) end}))",
    "big rep": "local s = string.rep('a', 2^29) return #s",
    "runaway": "while true do end",
    "runaway in pcall": "local n = 0 while true do pcall(function() while true do n = n + 1 end end) end",
    "require hostile": "return pcall(require, 'a\\0b'), pcall(require, string.rep('m', 5000))",
    "messages rawset": "rawset(_G, 'messages', 5) return type(messages)",
    "metatable": "setmetatable(_G, nil) return 1",
    "bad bytes": "return '\\255\\254' .. string.char(0xed, 0xa0, 0x80)",
    "error table": "error({})",
    "error nil": "error()",
    "goto": "goto done ::done:: return 1",
    "many coroutines": "local t = {} for i = 1, 30000 do t[i] = coroutine.create(function() coroutine.yield() end)"
                       " coroutine.resume(t[i]) end return #t",
    "close yields": "local co = coroutine.create(function() local x <close> = setmetatable({}, {__close = function()"
                    " coroutine.yield() end}) coroutine.yield() end) coroutine.resume(co) return coroutine.close(co)",
}

#: Lua blocks that still fail in other helpers' areas (issue 10): name ->
#: (code, who owns the fix)
LUA_ELSEWHERE = {
    "next mutation": ("local t = {a = 1, b = 2} for k in next, t do t[k] = nil t[k .. 'x'] = 1 end",
                      "stdlib: next after a walk deletes and adds keys raises KeyError"),
}

#: prose lines with hostile `{{ }}` references
PROSE = [
    "{{x." + "1" * 5000 + "}}",
    "{{messages.1.content}} {{ _G }} {{input}} \\{{x}}",
    "<!-- {{x}} unclosed comment",
    "{{" + "a." * 3000 + "b}}",
    "text with \x00 and \x1b[31m escapes",
]

#: scripted worlds (YAML text)
WORLDS = {
    "surrogates": 'replies:\n  - text: "\\uD800"\n  - text: "\\uDFFF x"\n',
    "surrogate input": 'input: "ab\\uDB04"\nreplies:\n  - text: "\\uDB04"\n',
    "nan arguments": "replies:\n  - tool_calls: [{id: c1, name: f, arguments: {x: .nan}}]\n  - text: done\n",
    "nan json arguments": 'replies:\n  - tool_calls: [{id: c1, name: f, arguments: "{\\"x\\": NaN}"}]\n',
    "non-string keys": "replies:\n  - tool_calls: [{id: c1, name: f, arguments: {1: a, ~: b}}]\n",
    "deep arguments": 'replies:\n  - tool_calls: [{id: c1, name: f, arguments: "' + "[" * 150_000 + "]" * 150_000 + '"}]\n',
    "alias bomb": "\n".join(line.replace("x-", "") for line in alias_bomb()) + "\nreplies: []\n",
    "deep world": "replies: " + "[" * 50_000 + "]" * 50_000 + "\n",
    "control characters": 'replies:\n  - text: "\x01"\n',
    "huge integers": "models:\n  writer: {context: " + "9" * 5000 + "}\n",
    "nan usage": "replies:\n  - text: hi\n    usage: {prompt_tokens: .nan, completion_tokens: 1e999}\n",
    "wrong shapes": "replies: {writer: 5}\ntools: [1, 2]\n",
    "huge status": "replies:\n  - error: {status: " + "9" * 30 + ", body: {a: .nan}}\n",
    "not a mapping": "- 1\n- 2\n",
    "empty": "",
}

#: a prompt whose section runs a model loop with a local tool
TOOL_PROMPT = prompt(body="# T\n" + section("A", "\n".join([
    "models.use('writer')",
    "tools.offer_local('f', 'a tool', {}, function(args) return json.encode(args) end)",
    "messages:user('hi')",
    "models.loop()",
    "return messages[#messages].content",
])))


def provider_config(base_url: str, limits: str) -> str:
    """A runvil.toml whose default model is served at `base_url`, with no
    retries (each reply is answered once) and the given `[limits]`."""
    return ('default_model = "p/m"\n' + limits +
            f'[providers.p]\nbase_url = "{base_url}"\ntimeout = 5\nmax_retries = 0\n'
            '[models."p/m"]\nprovider = "p"\ncontext = 8192\n')

