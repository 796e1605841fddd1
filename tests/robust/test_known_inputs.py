"""Every hostile input the issue 10 review found, and more of each kind,
through `runvil check`, `runvil run --json --log` and `runvil lua`: each
ends with exit status 0-3, no signal and no internal error, within 30 s
and 4 GiB (tests/robust/batch.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .batch import LIMITS, assert_robust
from .inputs import FRONTMATTER, LUA, LUA_ELSEWHERE, PROSE, TOOL_PROMPT, WORLDS, prompt, provider_config, section

#: snippets `runvil lua` runs too (its budget is 200M steps: no runaways)
NOT_FOR_LUA_COMMAND = {"jump to itself", "runaway", "runaway in pcall", "messages rawset", "metatable"}


class Files:
    """The case files of one test, in its tmp folder."""

    def __init__(self, root: Path):
        self.root = root
        self.texts: dict[str, str] = {}
        self.config = self.write("limits.toml", LIMITS)
        self.empty_world = self.write("empty.yaml", "replies: []\n")

    def write(self, name: str, text: str) -> str:
        path = self.root / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        self.texts[str(path)] = text
        return str(path)

    def run(self, prompt_path: str, world: str | None = None) -> list[str]:
        log = prompt_path + ".log"
        return ["run", prompt_path, "--json", "--script", world or self.empty_world, "--log", log,
                "--config", self.config]


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name)


def test_hostile_frontmatter(tmp_path):
    files = Files(tmp_path)
    cases = []
    for name, lines in FRONTMATTER.items():
        p = files.write(f"fm-{slug(name)}.md", prompt(lines, "# T\n" + section("A", "return 'ok'")))
        cases += [["check", p], files.run(p)]
    assert_robust(cases, tmp_path, files.texts)


def test_hostile_lua_blocks(tmp_path):
    files = Files(tmp_path)
    cases = []
    for name, code in LUA.items():
        p = files.write(f"lua-{slug(name)}.md", prompt(body="# T\n" + section("A", code)))
        cases.append(files.run(p))  # the run parses as `check` does
    assert_robust(cases, tmp_path, files.texts)


@pytest.mark.parametrize("name", list(LUA_ELSEWHERE))
def test_hostile_lua_blocks_fixed_elsewhere(tmp_path, name):
    code, owner = LUA_ELSEWHERE[name]
    files = Files(tmp_path)
    p = files.write("lua.md", prompt(body="# T\n" + section("A", code)))
    try:
        assert_robust([files.run(p)], tmp_path, files.texts)
    except AssertionError:
        pytest.xfail(owner)


def test_hostile_lua_programs():
    cases = [["lua", "-e", code] for name, code in LUA.items() if name not in NOT_FOR_LUA_COMMAND]
    assert_robust(cases, Path.cwd())


def test_hostile_prose_and_structure(tmp_path):
    files = Files(tmp_path)
    cases = []
    bodies = [section("A", "x = {} return prose", prose=line) for line in PROSE]
    bodies += [
        "\n## A\n\n```lua\nreturn 1\n",  # an unclosed fence
        "".join(f"\n## S{i}\n\n```lua\nlocal x = {i}\n```\n" for i in range(1000)),  # check was quadratic
        "\n## A\n\n```lua\nlocal s = [[" + "x" * 300_000 + "]]\n```\n",  # past the block size limit
        "\n## A\n\n" + "## " * 2000 + "\n",
        "\n## \x00\n\n```lua\nreturn 1\n```\n",
    ]
    for i, body in enumerate(bodies):
        p = files.write(f"body-{i}.md", prompt(body="# T\n" + body))
        cases += [["check", p], files.run(p)]
    assert_robust(cases, tmp_path, files.texts)


@pytest.mark.parametrize("names", [list(WORLDS)])
def test_hostile_worlds(tmp_path, names):
    files = Files(tmp_path)
    p = files.write("tool.md", TOOL_PROMPT)
    cases = [files.run(p, files.write(f"world-{slug(n)}.yaml", WORLDS[n])) for n in names]
    assert_robust(cases, tmp_path, files.texts)


CONFIGS = [
    "a = " + "[" * 5000 + "]" * 5000 + "\n",  # tomllib recurses
    "[limits]\nrun_steps = 0\n",
    "[limits]\nrun_seconds = inf\n",
    "[limits]\nsection_entries = 'ten'\n",
    "[limits]\nmemory = 0\n",
    "[limits]\nmemory = '1 GB'\n",
    "[limits]\nsteps = 5\n",
    "limits = 5\n",
    'x = "\\ud800"\n',
]


def test_hostile_configs_are_usage_errors(tmp_path):
    files = Files(tmp_path)
    p = files.write("p.md", prompt(body="# T\n" + section("A", "return 1")))
    cases = []
    for i, text in enumerate(CONFIGS):
        argv = files.run(p)
        argv[argv.index("--config") + 1] = files.write(f"c{i}.toml", text)
        cases.append(argv)
    results = assert_robust(cases, tmp_path, files.texts)
    assert [r["rc"] for r in results] == [2] * len(CONFIGS)


#: (limits.toml, block code, the error the run ends with)
RUNAWAYS = [
    ("[limits]\nsection_entries = 40\n", "jump('A')", "section entry limit exceeded (40 section entries)"),
    ("[limits]\nrun_steps = 3000000\n", "local n = 0 for i = 1, 500000 do n = n + i end jump('A')",
     "run step limit exceeded (3000000 steps across the run's blocks)"),
    ("[limits]\nrun_seconds = 1\nsection_entries = 100000000\n", "jump('A')", "run time limit exceeded (1 s)"),
    ("[limits]\nblock_steps = 1000000\n", "while true do end", "step limit exceeded (1000000 steps)"),
    ("[limits]\nmemory = 67108864\n", "local t = {} for i = 1, 10000 do t[i] = string.rep('x', 2^20) .. i end",
     "memory limit exceeded (67108864 bytes)"),
    # steps raised so the time limit, not the step budget, is what stops it
    ("[limits]\nblock_seconds = 1\nblock_steps = 1000000000\n", "while true do end", "time limit exceeded (1 s)"),
]


def test_each_configured_limit_stops_its_runaway(tmp_path):
    """`[limits]` in runvil.toml: every runaway ends with the error naming
    its limit, within 2 s of the budget (plus a loaded machine's slack)."""
    files = Files(tmp_path)
    cases = []
    for i, (config, code, _) in enumerate(RUNAWAYS):
        argv = files.run(files.write(f"r{i}.md", prompt(body="# T\n" + section("A", code))))
        argv[argv.index("--config") + 1] = files.write(f"r{i}.toml", config)
        cases.append(argv)
    results = assert_robust(cases, tmp_path, files.texts)
    for (_, _, message), result in zip(RUNAWAYS, results):
        assert result["rc"] == 1
        error_line = [line for line in result["err"].splitlines() if line.startswith("error[")][-1]
        assert error_line.endswith(message)
        assert "help: a longer budget is set by [limits] " in result["err"]  # the key that raises it
        assert result["seconds"] < 1 + 2 + 3


#: provider replies the issue names (a body nested 150,000 deep, NaN in
#: tool arguments) and their kind, as PROVIDER_REPLY specs
PROVIDER_REPLIES = [
    ("raw", "<deep>", "application/json"),
    ("json", {"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": NaN, "y": Infinity}'}}]},
        "finish_reason": "tool_calls"}]}),
    ("json", {"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "<deep>"}}]},
        "finish_reason": "tool_calls"}]}),
    ("json", {"choices": [{"message": {"role": "assistant", "content": "\ud800 lone"}, "finish_reason": "stop"}]}),
    ("stream", ["data: {", {"choices": [{"delta": {"content": "hi"}}]}], False),
    ("raw", '{"choices": NaN}', None),
]


def test_hostile_provider_replies(tmp_path):
    from tests.harness.chat_server import ChatServer

    from .strategies import reply_of

    files = Files(tmp_path)
    p = files.write("tool.md", TOOL_PROMPT)
    servers, cases = [], []
    try:
        for i, spec in enumerate(PROVIDER_REPLIES):  # a server of its own for each run
            # the reply, then plain text for the round after a tool call
            server = ChatServer().start().reply(reply_of(spec), reply_of(("json", {"choices": [{"message": {
                "content": "ok"}}]})))
            servers.append(server)
            config = files.write(f"provider{i}.toml", provider_config(server.base_url, LIMITS))
            cases.append(["run", p, "--json", "--log", f"{p}.{i}.log", "--config", config])
        assert_robust(cases, tmp_path, files.texts)
    finally:
        for server in servers:
            server.stop()


def test_results_print_as_valid_utf8(tmp_path):
    """A result holding bytes that are not UTF-8, or a world's lone
    surrogates, prints with U+FFFD (the driver's stdout is strict UTF-8)."""
    files = Files(tmp_path)
    p = files.write("bytes.md", prompt(body="# T\n" + section("A", LUA["bad bytes"])))
    world = files.write("s.yaml", WORLDS["surrogates"])
    hello = files.write("hello.md", prompt(body="# T\n" + section("A", "models.use('writer')\nmessages:user('hi')\n"
                                                                    "models.loop()\nreturn messages[#messages].content")))
    results = assert_robust([["run", p], ["run", hello, "--script", world]], tmp_path, files.texts)
    assert [r["out"] for r in results] == ["\ufffd\ufffd\ufffd\ufffd\ufffd\n", "\ufffd\n"]


@pytest.mark.parametrize("name, message", [
    ("control characters", "line 2: the control character U+0001 is not allowed in YAML"),
    ("alias bomb", "line 6: the YAML holds more than 100000 nodes (an alias counts as the nodes it names)"),
    ("deep world", "line 1: the YAML nests deeper than 100 levels"),
    ("huge integers", "line 2: an integer of 5000 digits is too long (the limit is 4300 digits)"),
    ("nan arguments", "line 2: replies[1].tool_calls[1].arguments.x is .nan, which has no JSON form"),
    ("non-string keys", "replies[1].tool_calls[1].arguments has the key 1, which is not text"),
])
def test_a_hostile_world_is_a_one_line_usage_error(tmp_path, name, message):
    from runvil.harness.scripted import ScriptedWorld, WorldError

    path = tmp_path / "w.yaml"
    path.write_text(WORLDS[name], encoding="utf-8")
    with pytest.raises(WorldError) as e:
        ScriptedWorld.load(path)
    assert str(e.value).endswith(message) and "\n" not in str(e.value)
