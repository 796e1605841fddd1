"""Real models without a config file (docs/reference/commands.md "Configuration"): the
environment's `OPENAI_API_KEY` and `OPENAI_BASE_URL` make the provider
`openai`, a built-in catalog knows its common models' windows, a server's
model listing gives any other's (vLLM, llama.cpp), `--context N` where it
gives none; `-m echo` always works; a role no flag binds still runs on the
echo model; a config file overrides all of it. Every server here is a real
Chat Completions server on 127.0.0.1 (chat_server.py)."""

from __future__ import annotations

import json
import textwrap

import pytest

from runvil.harness.catalog import builtin_context
from runvil.host.cli import main
from runvil.host.config import ConfigError, bind_roles
from runvil.prompt.model import RoleOptions

from .chat_server import text_stream

KEY = "sk-test-Zq7Lm3pX9vR2tK8w"
TWO_ROLES = """---
name: two
description: Two roles.
runvil: 0
models:
  writer: {}
  critic: {}
---

# Two

```lua
models.use('writer')
messages:user('draft')
models.loop()
local draft = messages[#messages].content
models.use('critic')
messages:user('judge')
models.loop()
return draft .. ' | ' .. messages[#messages].content
```
"""


@pytest.fixture
def env(tmp_path, monkeypatch):
    """No config file anywhere; the test sets the variables it needs."""
    for name in ("RUNVIL_CONFIG", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


def hello(tmp_path) -> str:
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / "examples" / "hello.md"
    (tmp_path / "hello.md").write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    return str(tmp_path / "hello.md")


def test_m_gpt_4o_mini_with_only_the_key_reaches_the_server_of_openai_base_url(tmp_path, capsys, env, server):
    env.setenv("OPENAI_API_KEY", KEY)
    env.setenv("OPENAI_BASE_URL", server.base_url)
    server.reply(text_stream("hi from the server"))
    code = main(["run", hello(tmp_path), "-m", "gpt-4o-mini", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["result"] == "hi from the server"
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["body"]["model"] == "gpt-4o-mini"
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    assert server.gets == []  # the built-in catalog knew its window: no listing asked
    assert KEY not in out + err


def test_a_key_in_the_environment_never_makes_a_run_a_paid_one_unasked(tmp_path, capsys, env, server):
    env.setenv("OPENAI_API_KEY", KEY)
    env.setenv("OPENAI_BASE_URL", server.base_url)
    assert main(["run", hello(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out == "echo: hello\n"
    assert err == ("runvil: no config: every model role runs on the offline echo model "
                   "(OPENAI_API_KEY is set: -m MODEL runs every role on its provider)\n")
    assert server.requests == [] and server.gets == []


def test_without_a_key_the_note_is_the_tutorials(tmp_path, capsys, env):
    assert main(["run", hello(tmp_path)]) == 0
    assert capsys.readouterr() == ("echo: hello\n", "runvil: no config: every model role runs on the offline echo model\n")


def test_a_role_no_flag_binds_runs_on_echo_beside_a_real_one(tmp_path, capsys, env, server):
    env.setenv("OPENAI_API_KEY", KEY)
    env.setenv("OPENAI_BASE_URL", server.base_url)
    prompt = tmp_path / "two.md"
    prompt.write_text(TWO_ROLES, encoding="utf-8")
    server.reply(text_stream("real draft"))
    assert main(["run", str(prompt), "--bind", "writer=gpt-4.1-mini"]) == 0
    out, err = capsys.readouterr()
    assert out == "real draft | echo: judge\n"
    assert err == "runvil: no config: model role critic runs on the offline echo model\n"
    assert len(server.requests) == 1 and server.requests[0]["body"]["model"] == "gpt-4.1-mini"


@pytest.mark.parametrize("flags", [["-m", "echo"], ["--bind", "writer=echo"]])
def test_echo_is_always_a_model_with_or_without_a_config(tmp_path, capsys, env, server, flags):
    prompt = hello(tmp_path)
    assert main(["run", prompt, *flags]) == 0
    assert capsys.readouterr() == ("echo: hello\n", "")
    config = tmp_path / "runvil.toml"
    config.write_text(textwrap.dedent(f"""\
        default_model = "local/m"
        [providers.local]
        base_url = "{server.base_url}"
        [models."local/m"]
        provider = "local"
        context = 8192
        """), encoding="utf-8")
    assert main(["run", prompt, *flags, "--config", str(config)]) == 0
    assert capsys.readouterr() == ("echo: hello\n", "")
    assert server.requests == []


def test_a_config_file_overrides_the_environment(tmp_path, capsys, env, server):
    env.setenv("OPENAI_API_KEY", KEY)
    env.setenv("OPENAI_BASE_URL", server.base_url)
    (tmp_path / "runvil.toml").write_text(textwrap.dedent(f"""\
        default_model = "local/m"
        [providers.local]
        base_url = "{server.base_url}"
        [models."local/m"]
        provider = "local"
        name = "from-the-file"
        context = 8192
        """), encoding="utf-8")
    assert main(["run", hello(tmp_path), "-m", "gpt-4o-mini"]) == 2
    assert "is bound by -m/--model to 'gpt-4o-mini', which is not a catalog model in runvil.toml" in capsys.readouterr()[1]
    server.reply(text_stream("from the file's model"))
    assert main(["run", hello(tmp_path)]) == 0
    assert capsys.readouterr()[0] == "from the file's model\n"
    assert server.requests[0]["body"]["model"] == "from-the-file" and "Authorization" not in server.requests[0]["headers"]


# ------------------------------------------------------------------ windows


def bound_context(server, name: str, **kw) -> int:
    environ = {"OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": KEY}
    return bind_roles({"writer": RoleOptions()}, None, [], name, environ=environ, **kw)["writer"].context


def test_the_built_in_catalog_knows_the_common_models_and_their_snapshots():
    assert builtin_context("gpt-4o-mini") == 128_000 and builtin_context("gpt-4o-2024-08-06") == 128_000
    assert builtin_context("gpt-4.1") == 1_047_576 and builtin_context("o3-mini") == 200_000
    assert builtin_context("gpt-3.5-turbo") == 16_385 and builtin_context("my-model") is None


def test_vllm_reports_max_model_len(server):
    server.listing["/v1/models"] = {"object": "list", "data": [
        {"id": "other", "max_model_len": 1}, {"id": "Qwen/Qwen2.5-7B", "object": "model", "max_model_len": 32768}]}
    assert bound_context(server, "Qwen/Qwen2.5-7B") == 32768
    assert server.gets[0]["headers"]["Authorization"] == f"Bearer {KEY}"


def test_llama_cpp_reports_its_window_in_props_else_its_training_window(server):
    entry = {"id": "qwen.gguf", "object": "model", "owned_by": "llamacpp",
             "meta": {"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": 32768, "n_embd": 896}}
    server.listing["/v1/models"] = {"object": "list", "data": [entry]}
    server.listing["/props"] = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}
    assert bound_context(server, "qwen.gguf") == 4096
    del server.listing["/props"]
    assert bound_context(server, "qwen.gguf") == 32768


def test_a_listing_without_a_window_asks_for_context(server):
    """llama-cpp-python's and Ollama's listings give no window."""
    server.listing["/v1/models"] = {"object": "list", "data": [{"id": "local", "object": "model", "owned_by": "me",
                                                                  "permissions": []}]}
    with pytest.raises(ConfigError) as e:
        bound_context(server, "local")
    assert str(e.value) == (f"model role 'writer' is bound by -m/--model to 'local', which the built-in catalog "
                            f"does not know, and the model listing of {server.base_url} gives no context window for "
                            "it: pass --context N (its context window in tokens) or give it a catalog entry in a "
                            "config file")
    assert bound_context(server, "local", context=2048) == 2048
    with pytest.raises(ConfigError, match="does not list it: pass --context N"):
        bound_context(server, "missing")
    server.listing.clear()
    with pytest.raises(ConfigError, match="answered with status 404: pass --context N"):
        bound_context(server, "local")


def test_context_on_the_command_line_runs_an_unlisted_model(tmp_path, capsys, env, server):
    env.setenv("OPENAI_BASE_URL", server.base_url)  # a local server: no key at all
    server.reply(text_stream("local reply"))
    assert main(["run", hello(tmp_path), "-m", "local", "--context", "2048"]) == 0
    out, err = capsys.readouterr()
    assert out == "local reply\n" and err == ""
    assert server.requests[0]["body"]["model"] == "local" and "Authorization" not in server.requests[0]["headers"]
    assert main(["run", hello(tmp_path), "-m", "local", "--context", "0"]) == 2
    assert "--context: must be a positive number of tokens, not '0'" in capsys.readouterr()[1]


def test_models_lists_the_environments_catalog(tmp_path, capsys, env, server):
    env.setenv("OPENAI_API_KEY", KEY)
    env.setenv("OPENAI_BASE_URL", server.base_url)
    assert main(["models", hello(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr()[0])
    assert report["environment"] == {"provider": "openai", "base_url": server.base_url, "variable": "OPENAI_API_KEY"}
    assert {"id": "openai/gpt-4o-mini", "provider": "openai", "name": "gpt-4o-mini", "context": 128000,
            "max_tokens": None, "base_url": server.base_url} in report["models"]
    assert report["roles"] == [{"role": "writer", "model": "echo", "by": "no config (the offline echo model)"}]
    assert main(["models", hello(tmp_path), "-m", "gpt-4o"]) == 0
    assert "writer  openai/gpt-4o  -m/--model" in capsys.readouterr()[0]


def test_chat_and_batch_reach_the_environments_provider_too(tmp_path, capsys, env, server):
    import os
    import subprocess
    import sys

    env.setenv("OPENAI_API_KEY", KEY)
    env.setenv("OPENAI_BASE_URL", server.base_url)
    server.reply(text_stream("chat reply"), text_stream("row reply"))
    done = subprocess.run([sys.executable, "-m", "runvil.host.cli", "chat", "-m", "gpt-4o-mini"], input="hello\n",
                          capture_output=True, text=True, timeout=60, cwd=tmp_path, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert "chat reply" in done.stdout
    rows = tmp_path / "rows.txt"
    rows.write_text("hello\n", encoding="utf-8")
    assert main(["batch", hello(tmp_path), str(rows), "--bind", "writer=gpt-4o-mini", "--jsonl",
                 str(tmp_path / "out.jsonl")]) == 0
    assert json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8"))["result"] == "row reply"
    assert [r["body"]["model"] for r in server.requests] == ["gpt-4o-mini", "gpt-4o-mini"]
