"""Errors that say what to do: under the plain `error[Kind]: message` line
(the public contract, unchanged; a message the spec fixes stays exactly as
the spec writes it), `help:` lines give the figures and the fix, and
`--json`'s error carries the same hints as its `help` list. Through the
CLI, on scripted worlds and real loopback servers."""

from __future__ import annotations

import json
import socket
import textwrap
from http.server import BaseHTTPRequestHandler

import pytest

from tests.harness.loopback import LoopbackServer

from .prompts import head




def prompt(tmp_path, body: str, extra: str = "", world: str | None = None) -> None:
    (tmp_path / "p.md").write_text(head(extra) + textwrap.dedent(body), encoding="utf-8")
    if world is not None:
        (tmp_path / "w.yaml").write_text(textwrap.dedent(world), encoding="utf-8")


def error_line(err: str) -> str:
    return next(line for line in err.splitlines() if line.startswith("error["))


def helps(err: str) -> list[str]:
    return [line[len("help: "):] for line in err.splitlines() if line.startswith("help: ")]


def test_a_prose_only_prompt_with_one_role_is_told_which_line_to_add(cli, tmp_path):
    prompt(tmp_path, "## Ask\n\nSay hello.\n", world="replies: [{text: hi}]\n")
    code, out, err = cli("run", "p.md", "--script", "w.yaml")
    assert code == 1
    assert err.splitlines()[0] == ("error[Lua]: no model selected; call models.use(role) or models.default(role) "
                                   "first")
    assert helps(err) == ["add models.default('writer') to the H1 block"]
    code, out, _ = cli("run", "p.md", "--script", "w.yaml", "--json")
    error = json.loads(out)["error"]
    assert error["message"] == "no model selected; call models.use(role) or models.default(role) first"
    assert error["help"] == ["add models.default('writer') to the H1 block"]


def test_the_round_cap_names_max_tool_iterations_and_the_section(cli, tmp_path):
    prompt(tmp_path, """\
        ## Search

        ```lua
        models.use('writer')
        tools.offer_local('t', 'a tool', {}, function() return 'r' end)
        messages:user('go')
        models.loop()
        ```
        """, extra="max_tool_iterations: 2\n", world="""\
        replies:
          - tool_calls: [{id: c1, name: t, arguments: {}}]
          - tool_calls: [{id: c2, name: t, arguments: {}}]
        """)
    code, out, err = cli("run", "p.md", "--script", "w.yaml")
    assert code == 1
    assert err.splitlines()[0] == "error[Tool]: tool-call loop did not converge"
    assert helps(err) == ["section `Search` reached the round cap, max_tool_iterations = 2: raise it in the "
                          "frontmatter (at most 1000), or ask the model to answer in fewer tool rounds"]


#: a world whose model's window, 600 tokens with 100 kept for the reply, 2000 x's overflow (504 tokens)
SMALL_WINDOW = "models: {writer: {context: 600, max_tokens: 100}}\nreplies: [{text: hi}]\n"


def sends_2000(then: str) -> str:
    """A section `Send` that puts 2000 x's in the list, then runs `then`."""
    return f"## Send\n\n```lua\nmodels.use('writer')\nmessages:user(string.rep('x', 2000))\n{then}\n```\n"


def test_the_precheck_overflow_gives_its_figures_and_keeps_the_spec_message(cli, tmp_path):
    prompt(tmp_path, sends_2000("models.loop()"), world=SMALL_WINDOW)
    code, out, err = cli("run", "p.md", "--script", "w.yaml", "--json")
    error = json.loads(out)["error"]
    assert error["message"] == "context exhausted: the request precheck overflowed the model's context window"
    assert error["help"] == ["the request was estimated at 504 tokens against the window of 600 of the model "
                             "writer, with 100 kept for the reply: give models.loop a compactor that shrinks the "
                             "list, or send less"]


def test_an_infer_overflow_is_told_to_send_less(cli, tmp_path):
    prompt(tmp_path, "## Ask\n\n```lua\nmodels.use('writer')\nreturn models.infer(string.rep('x', 2000))\n```\n",
           world=SMALL_WINDOW)
    code, out, err = cli("run", "p.md", "--script", "w.yaml")
    assert code == 1
    assert helps(err) == ["the request was estimated at 504 tokens against the window of 600 of the model writer, "
                          "with 100 kept for the reply: models.infer has no compactor: send it a shorter prompt"]


def test_lua_sees_none_of_the_hosts_facts(cli, tmp_path):
    prompt(tmp_path, sends_2000(
        "local ok, err = pcall(models.loop, function() messages:user('more') end)\n"
        "return tostring(err) .. '|' .. tostring(err.estimate) .. '|' .. tostring(err.compactor) .. '|' .. err.reason"),
        world=SMALL_WINDOW)
    code, out, err = cli("run", "p.md", "--script", "w.yaml")
    assert (code, out) == (0, "context exhausted: the request precheck overflowed the model's context window"
                              "|nil|nil|precheck\n")


def test_a_block_step_limit_names_the_config_key(cli, tmp_path):
    prompt(tmp_path, "## Spin\n\n```lua\nwhile true do end\n```\n")
    (tmp_path / "p.md").write_text((tmp_path / "p.md").read_text().replace("models:\n  writer: {}\n", ""))
    (tmp_path / "runvil.toml").write_text("[limits]\nblock_steps = 10000\n", encoding="utf-8")
    code, out, err = cli("run", "p.md")
    assert code == 1
    assert "step limit exceeded (10000 steps)" in error_line(err)
    assert helps(err) == ["a longer budget is set by [limits] block_steps in runvil.toml"]


def test_a_nil_input_in_prose_says_how_to_give_one(cli, tmp_path):
    prompt(tmp_path, "```lua\nmodels.default('writer')\n```\n\n## Ask\n\nAnswer {{input}}.\n")
    code, out, err = cli("run", "p.md")
    assert code == 1
    assert error_line(err) == "error[Lua]: global `input` is nil"
    assert helps(err) == ["the run has no input: pass --input TEXT or --input-file F, or pipe the input on stdin"]


def test_indexing_a_nil_input_says_how_to_give_one(cli, tmp_path):
    prompt(tmp_path, "## Ask\n\n```lua\nreturn input:upper()\n```\n")
    code, out, err = cli("run", "p.md")
    assert code == 1
    assert error_line(err).endswith("attempt to index a nil value (global 'input')")
    assert helps(err) == ["the run has no input: pass --input TEXT or --input-file F, or pipe the input on stdin"]
    assert cli("run", "p.md", "--input", "hi")[:2] == (0, "HI\n")


def test_a_nil_var_suggests_the_var_that_is_set(cli, tmp_path):
    prompt(tmp_path, "```lua\nmodels.default('writer')\nvar.n = 'x'\n```\n\n## Ask\n\nAnswer {{var.m}}.\n")
    code, out, err = cli("run", "p.md")
    assert code == 1
    assert error_line(err) == "error[Lua]: global `var.m` is nil"
    assert helps(err) == ["did you mean `var.n`? (set: n)"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONFIG = """\
[providers.local]
base_url = "{url}"
max_retries = 0

[models."local/small"]
provider = "local"
name = "small"
context = {context}
"""
CHAT = "## Ask\n\n```lua\nmodels.use('writer')\nmessages:user('hi')\nmodels.loop()\n```\n"


def test_an_unreachable_backend_names_the_provider_and_its_url(cli, tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    prompt(tmp_path, CHAT)
    (tmp_path / "runvil.toml").write_text(CONFIG.format(url=url, context=8192), encoding="utf-8")
    code, out, err = cli("run", "p.md", "--bind", "writer=local/small")
    assert code == 1
    assert err.splitlines()[0] == "error[Completion]: the model backend could not be reached: connection refused"
    assert helps(err) == [f"provider 'local' is at {url}: is its server running there? (its base_url in the config)"]


def test_the_environments_unreachable_provider_names_openai_base_url(cli, tmp_path, monkeypatch):
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    prompt(tmp_path, CHAT)
    code, out, err = cli("run", "p.md", "-m", "gpt-4o-mini")
    assert code == 1
    assert helps(err) == [f"provider 'openai' is at {url}: is its server running there? (OPENAI_BASE_URL without "
                          "a config file, else its base_url in the config)"]


class _Llama(BaseHTTPRequestHandler):
    """llama.cpp's server as started without the README's options: a reply
    stream it ends without a finish reason, or its own overflow 400."""

    mode = "interrupted"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.mode == "overflow":
            body = json.dumps({"error": {"message": "This model's maximum context length is 512 tokens. However, "
                                                    "you requested 1026 tokens (1026 in the messages, 0 in the "
                                                    "completion).", "type": "invalid_request_error"}}).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        chunk = {"choices": [{"index": 0, "delta": {"content": "par"}, "finish_reason": None}]}
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.parametrize("mode", ["interrupted", "overflow"])
def test_llama_cpp_without_the_readme_options_gets_the_fix(cli, tmp_path, mode):
    handler = type("Handler", (_Llama,), {"mode": mode})
    server = LoopbackServer(handler).start()
    try:
        prompt(tmp_path, CHAT)
        url = f"http://127.0.0.1:{server.port}/v1"
        (tmp_path / "runvil.toml").write_text(CONFIG.format(url=url, context=4096), encoding="utf-8")
        code, out, err = cli("run", "p.md", "--bind", "writer=local/small", "--json")
    finally:
        server.stop()
    assert code == 1
    error = json.loads(out)["error"]
    if mode == "interrupted":
        assert error["kind"] == "Completion"
        assert error["help"] == ["start llama.cpp's server with --interrupt_requests False, so that it serves "
                                 "concurrent requests one after the other"]
    else:
        assert error["message"] == ("context exhausted: the provider rejected the request as exceeding the "
                                    "model's context window")
        assert error["help"] == [
            "the server said: This model's maximum context length is 512 tokens. However, you requested 1026 "
            "tokens (1026 in the messages, 0 in the completion).",
            "if the server's window is smaller than 4096 tokens, set the `context` key of [models.\"local/small\"] "
            "in the config to the server's"]


class _ToolBlind(BaseHTTPRequestHandler):
    """llama-cpp-python's server started without a tool-aware chat format:
    it lists its models as `owned_by: me` and streams plain text to a
    request that offers tools."""

    owner = "me"

    def log_message(self, *args):
        pass

    def do_GET(self):
        body = json.dumps({"object": "list", "data": [{"id": "small", "object": "model", "owned_by": self.owner,
                                                       "permissions": []}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        chunk = {"choices": [{"index": 0, "delta": {"content": "no tool"}, "finish_reason": "stop"}]}
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


TOOLS = """## Ask

```lua
models.use('writer')
tools.offer_local('clock', 'the time', {}, function() return 'noon' end)
messages:user('what time is it?')
models.loop()
messages:user('and now?')
models.loop()
return messages[#messages].content
```
"""


@pytest.mark.parametrize("owner, warned", [("me", True), ("vllm", False)])
def test_a_server_that_ignores_tools_is_named_once(cli, tmp_path, owner, warned):
    server = LoopbackServer(type("Handler", (_ToolBlind,), {"owner": owner})).start()
    try:
        prompt(tmp_path, TOOLS)
        url = f"http://127.0.0.1:{server.port}/v1"
        (tmp_path / "runvil.toml").write_text(CONFIG.format(url=url, context=4096), encoding="utf-8")
        code, out, err = cli("run", "p.md", "--bind", "writer=local/small")
    finally:
        server.stop()
    assert (code, out) == (0, "no tool\n")
    warning = ("runvil: warning: the model was offered tools, but its server ignores them: llama.cpp's server "
               "(llama-cpp-python) calls no tool unless it is started with --chat_format chatml-function-calling")
    assert err.count(warning) == (1 if warned else 0)  # once, though two rounds offered tools
