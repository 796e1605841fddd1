"""Generated hostile inputs (hypothesis) through the real command: prompt
files, scripted worlds, provider replies from a loopback Chat Completions
server, and Lua programs. Each example is a batch of cases run in one
bounded subprocess (tests/robust/batch.py), so the CI profile stays near a
minute for the whole folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.harness.chat_server import ChatServer

from .batch import LIMITS, assert_robust
from .inputs import TOOL_PROMPT, provider_config
from .strategies import LUA_PROGRAM, PROVIDER_REPLY, WORLD, prompt_files, reply_of, world_text

#: examples per test, a batch each: a few in the quick suite, more in the
#: deep profile (.ci/tiers), any number with RUNVIL_ROBUST_EXAMPLES (a long hunt)
EXAMPLES = int(os.environ.get("RUNVIL_ROBUST_EXAMPLES") or (8 if os.environ.get("HYPOTHESIS_PROFILE") == "deep" else 2))
BATCH = 6

#: no shrinking: a failure names its case and files already, and shrinking a
#: batch costs a subprocess per step
bounded = settings(max_examples=EXAMPLES, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class Cases:
    """Files of one example in a fresh folder, and their command lines."""

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="runvil-robust-"))
        self.texts: dict[str, str] = {}
        self.n = 0
        self.config = self.write("limits.toml", LIMITS)

    def write(self, name: str, text: str) -> str:
        path = self.root / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        self.texts[str(path)] = text
        return str(path)

    def fresh(self, suffix: str, text: str) -> str:
        self.n += 1
        return self.write(f"case{self.n}{suffix}", text)

    def run(self, prompt: str, world: str | None, config: str | None = None) -> list[str]:
        self.n += 1
        argv = ["run", prompt, "--json", "--log", f"{prompt}.{self.n}.log", "--config", config or self.config]
        return argv + (["--script", world] if world else [])


@bounded
@given(st.lists(prompt_files(), min_size=BATCH, max_size=BATCH))
def test_generated_prompt_files(texts):
    c = Cases()
    world = c.write("empty.yaml", "replies:\n  - text: hi\n")
    cases = []
    for text in texts:
        p = c.fresh(".md", text)
        cases += [["check", p], c.run(p, world)]
    assert_robust(cases, c.root, c.texts)


@bounded
@given(st.lists(WORLD.map(world_text), min_size=BATCH, max_size=BATCH))
def test_generated_worlds(worlds):
    c = Cases()
    p = c.write("tool.md", TOOL_PROMPT)
    assert_robust([c.run(p, c.fresh(".yaml", w)) for w in worlds], c.root, c.texts)


@bounded
@given(st.lists(LUA_PROGRAM, min_size=BATCH, max_size=BATCH))
def test_generated_lua_programs(programs):
    assert_robust([["lua", "-e", code] for code in programs], Path.cwd())


@bounded
@given(st.lists(st.lists(PROVIDER_REPLY, min_size=1, max_size=3), min_size=BATCH, max_size=BATCH))
def test_generated_provider_replies(replies):
    c = Cases()
    p = c.write("tool.md", TOOL_PROMPT)
    servers, cases = [], []
    try:
        for run_replies in replies:  # a server of its own for each run
            server = ChatServer().start().reply(*map(reply_of, run_replies))
            servers.append(server)
            cases.append(c.run(p, None, c.fresh(".toml", provider_config(server.base_url, LIMITS))))
        assert_robust(cases, c.root, c.texts)
    finally:
        for server in servers:
            server.stop()
