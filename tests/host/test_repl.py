"""The REPLs of `runvil lua` and `runvil chat`, driven in a real terminal
(tmux): a banner, readline history with Up (kept in the user's data
folder), `>>` continuation of an unfinished chunk, Ctrl-C that stops a
running chunk (`interrupted!`) and comes back to the prompt, and a REPL
inside a section VM of a prompt."""

from __future__ import annotations

import itertools
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.harness.chat_server import wait_until

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "tutorial"

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


_SOCKETS = itertools.count()


class Terminal:
    """One command in a detached tmux session of its own (its own socket)."""

    def __init__(self, tmp_path: Path, *args: str, env: dict | None = None):
        self.socket = str(tmp_path / f"tmux-{next(_SOCKETS)}.sock")  # never one a closing server still holds
        self.data = tmp_path / "data"
        extra = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        command = (f"cd {shlex.quote(str(ROOT))} && env XDG_DATA_HOME={shlex.quote(str(self.data))} {extra} "
                   f"{shlex.quote(sys.executable)} -m runvil.host.cli {shlex.join(args)}; sleep 30")
        self._tmux("new-session", "-d", "-s", "t", "-x", "150", "-y", "50", command)
        self._tmux("set-option", "-t", "t", "remain-on-exit", "on")  # a command that dies leaves its screen to read

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-S", self.socket, *args], capture_output=True, text=True,
                              timeout=30, check=True).stdout

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "t", *keys)

    def line(self, text: str) -> None:
        self._tmux("send-keys", "-t", "t", "-l", text)
        self.keys("Enter")

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, count: int = 1, timeout: float = 60) -> str:
        end = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if screen.count(text) >= count:
                return screen
            if time.monotonic() > end:
                raise AssertionError(f"{text!r} x{count} never appeared; the screen:\n{screen}")
            time.sleep(0.1)

    def prompt(self, mark: str = ">", timeout: float = 60) -> str:
        """Waits until the last line is an empty prompt (tmux drops the
        space after it)."""
        end = time.monotonic() + timeout
        while True:
            screen = self.screen()
            lines = [line for line in screen.splitlines() if line.strip()]
            if lines and lines[-1].rstrip() == mark:
                return screen
            if time.monotonic() > end:
                raise AssertionError(f"no {mark!r} prompt; the screen:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def terminal(tmp_path):
    opened = []

    def open_(*args, env=None):
        t = Terminal(tmp_path, *args, env=env)
        opened.append(t)
        return t

    yield open_
    for t in opened:
        t.close()


def test_lua_repl_banner_values_and_history_with_up(terminal):
    t = terminal("lua")
    t.wait_for("runvil lua ")
    t.prompt()
    t.line("20 + 22")
    t.wait_for("42")
    t.prompt()
    t.keys("Up")
    t.wait_for("> 20 + 22", count=2)  # Up brought the line back
    t.keys("Enter")
    t.wait_for("42", count=2)
    history = (t.data / "runvil" / "lua_history").read_text(encoding="utf-8")
    assert "20 + 22" in history


def test_history_is_kept_across_sessions(terminal, tmp_path):
    first = terminal("lua")
    first.prompt()
    first.line("'kept' .. 'line'")
    first.wait_for("keptline")
    first.keys("C-d")
    history = first.data / "runvil" / "lua_history"
    assert wait_until(lambda: history.exists() and "'kept' .. 'line'" in history.read_text(encoding="utf-8"),
                      timeout=60)
    first.close()
    second = Terminal(tmp_path, "lua")
    try:
        second.prompt()
        second.keys("Up")
        second.wait_for("> 'kept' .. 'line'")
    finally:
        second.close()


def test_an_unfinished_chunk_continues_on_a_continuation_prompt(terminal):
    t = terminal("lua")
    t.prompt()
    t.line("for i = 1, 3 do")
    t.prompt(">>")
    t.line("  print(i * 10)")
    t.prompt(">>")
    t.line("end")
    screen = t.wait_for("30")
    assert "10\n20\n30" in screen


def test_ctrl_c_while_the_first_chunk_compiles_returns_to_the_prompt(terminal, tmp_path):
    # a cold cache: the first chunk builds the parser's table before it runs
    t = terminal("lua", env={"RUNVIL_CACHE_DIR": str(tmp_path / "cold")})
    t.prompt()
    t.line("n = 0 while true do n = n + 1 end")
    t.keys("C-c")
    t.wait_for("interrupted!")
    t.prompt()
    t.line("20 + 22")
    t.wait_for("42")
    t.prompt()


def test_ctrl_c_stops_a_running_chunk_and_returns_to_the_prompt(terminal):
    # --cpu off: the loop outlasts any delay of the Ctrl-C on a loaded machine
    # (its 200,000,000 steps are a few seconds of CPU)
    t = terminal("lua", "--cpu", "off")
    t.prompt()
    t.line("n = 0")  # the parser is ready (its table built) before the loop is typed
    t.prompt()
    t.line("print('run' .. 'ning') while true do n = n + 1 end")
    t.wait_for("\nrunning")  # the loop has started: Ctrl-C comes inside it, however loaded the machine
    t.keys("C-c")
    t.wait_for("interrupted!")
    t.prompt()
    t.line("n > 0")
    t.wait_for("true")
    t.prompt()
    t.keys("C-c")  # at the prompt: a fresh prompt, the REPL stays
    t.prompt()
    t.line("1 + 1")
    t.wait_for("\n2\n")
    assert "Traceback" not in t.screen() and "internal error" not in t.screen()


def test_a_repl_inside_a_section_vm_of_a_prompt(terminal):
    t = terminal("lua", "--prompt", str(TUTORIAL / "first-prompt.md"))
    t.wait_for("on the echo model; models.use('writer') is done")
    for chunk in ("messages:user('hi')", "models.loop()", "#messages"):
        t.prompt()
        t.line(chunk)
    t.wait_for("\n2\n")
    t.prompt()
    t.line("messages[#messages].content")
    t.wait_for("echo: hi")
    t.line("for i = 1, 2 do")
    t.prompt(">>")
    t.line("print(messages[i].role)")
    t.line("end")
    t.wait_for("user\nassistant")


def test_the_prompt_repl_on_a_world_ctrl_c_and_engine_errors(terminal):
    t = terminal("lua", "--prompt", str(TUTORIAL / "first-prompt.md"), "--script", str(TUTORIAL / "first-prompt.yaml"),
                 "--cpu", "off")  # (the run's step budget too: the loop outlasts any delay of the Ctrl-C)
    t.wait_for("world ")
    t.prompt()
    t.line("print('run' .. 'ning') while true do end")
    t.wait_for("\nrunning")
    t.keys("C-c")
    t.wait_for("interrupted!")
    t.prompt()
    t.line("models.loop()")  # an empty list: the Engine's error value, shown by its message
    t.wait_for("messages must not be empty")
    for chunk in ("messages:user('hello?')", "models.loop()", "messages[#messages].content"):
        t.prompt()
        t.line(chunk)
    t.wait_for("Hello, and welcome! Glad to have you here.")


def test_chat_has_history_and_a_banner(terminal, tmp_path):
    world = tmp_path / "chat.yaml"
    world.write_text("replies:\n  - text: 'first answer'\n  - text: 'second answer'\n", encoding="utf-8")
    t = terminal("chat", "--script", str(world))
    t.wait_for("runvil chat ")
    t.prompt()
    t.line("hello there")
    t.wait_for("first answer")
    t.prompt()
    t.keys("Up")
    t.wait_for("> hello there", count=2)
    t.keys("Enter")
    t.wait_for("second answer")
    assert "hello there" in (t.data / "runvil" / "chat_history").read_text(encoding="utf-8")


def test_ctrl_c_during_a_chat_reply_takes_the_turn_back(terminal, tmp_path):
    """A real provider on 127.0.0.1 that takes its time: Ctrl-C stops the
    wait, the turn is taken back, and the next turn is answered."""
    from tests.harness.chat_server import ChatServer, Reply, text_stream

    server = ChatServer().reply(Reply(json={}, delay=60), text_stream("the second ", "answer")).start()
    try:
        config = tmp_path / "runvil.toml"
        config.write_text(f"""default_model = "local/small"

[providers.local]
base_url = "{server.base_url}"
api_key_env = "RUNVIL_REPL_TEST_KEY"

[models."local/small"]
provider = "local"
name = "small"
context = 16000
""", encoding="utf-8")
        t = terminal("chat", "--config", str(config), env={"RUNVIL_REPL_TEST_KEY": "k-123456"})
        t.prompt()
        t.line("a slow question")
        assert wait_until(lambda: server.requests, timeout=60)  # the turn waits on the provider now
        t.keys("C-c")
        t.wait_for("interrupted!")
        t.prompt()
        t.line("a quick one")
        t.wait_for("the second answer")
        assert "internal error" not in t.screen()
        assert [r["body"]["messages"][-1]["content"] for r in server.requests] == ["a slow question", "a quick one"]
    finally:
        server.stop()


def _piped(*args: str, stdin: str):
    return subprocess.run([sys.executable, "-m", "runvil.host.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_the_prompt_repl_reads_piped_chunks_and_can_spawn_the_prompts_sections():
    p = _piped("lua", "--prompt", str(TUTORIAL / "tools.md"), "--script", str(TUTORIAL / "tools.yaml"),
               stdin="tasks.await({ tasks.spawn('Ask') })[1]\n#messages\nprint(var.x == nil)\n")
    assert (p.returncode, p.stdout) == (0, "The capital of Japan is Tokyo, and the capital of Peru is Lima.\n0\ntrue\n")
    assert p.stderr == ""


def test_the_prompt_repl_when_the_h1_body_ends_the_run():
    p = _piped("lua", "--prompt", str(TUTORIAL / "tasks.md"), "--script", str(TUTORIAL / "tasks.yaml"), stdin="1\n")
    assert p.returncode == 1
    assert "ended the run with a result, so no section VM was opened" in p.stderr


def test_cpu_off_lifts_the_run_step_budget_of_the_prompt_repl():
    """`--cpu off` lifts "the step budget": in a prompt's REPL, the run's
    budget across its chunks as well as each chunk's."""
    from runvil.host.promptrepl import _run_limits
    from runvil.lua.api import Limits

    lifted = _run_limits(Limits(steps=None, cpu_seconds=None))
    assert lifted.steps is None and lifted.seconds is None
    assert _run_limits(Limits(steps=5)) is None and _run_limits(None) is None  # a chat run's own
