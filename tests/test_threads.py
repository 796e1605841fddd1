"""Every thread runvil starts leaves the host's signals (Ctrl-C, `kill`, a
closing terminal) to the main thread: one that took a Ctrl-C would leave
the REPL's readline asleep until the next Enter (a CI run saw the line
typed after a Ctrl-C at the prompt dropped). Checked by each thread's own
signal mask: the Lua thread, a helper thread, and the creator's mask
unchanged after the start."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from runvil.lua import stack
from runvil.threads import HOST_SIGNALS, start_helper_thread

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no per-thread signal masks here")


def blocked_here() -> set[int]:
    return set(signal.pthread_sigmask(signal.SIG_BLOCK, []))


def test_a_helper_thread_blocks_the_host_signals_and_its_creator_keeps_its_mask():
    before = blocked_here()
    seen: list[set[int]] = []
    done = threading.Event()

    def target():
        seen.append(blocked_here())
        done.set()

    start_helper_thread(target, "runvil-test").join(10)
    assert done.is_set()
    assert {signal.SIGINT, signal.SIGTERM} <= seen[0]
    assert HOST_SIGNALS <= seen[0]
    assert blocked_here() == before
    assert signal.SIGINT not in before  # the main thread still takes Ctrl-C


@pytest.mark.skipif(stack.INLINE, reason="the inline backend runs Lua on the calling thread")
def test_the_lua_thread_blocks_the_host_signals():
    mask = stack.run_lua(blocked_here)
    assert threading.current_thread() is threading.main_thread()
    assert HOST_SIGNALS <= mask


def blocked_in(status: str) -> set[int]:
    """The signals a /proc status text says are blocked."""
    mask = int(next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16)
    return {s for s in range(1, 65) if mask >> (s - 1) & 1}


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc here")
def test_a_child_started_on_a_helper_thread_takes_ctrl_c_and_kill():
    """A child inherits its creator's mask through fork and exec (Debian's
    sh happens to clear it, other shells and a direct exec do not): one
    started on a helper thread, as `io.popen` and `os.execute` start theirs
    on the Lua thread, must still see a Ctrl-C or a `kill`."""
    import subprocess

    from runvil.threads import start_child

    seen: list = []

    def target():
        child = start_child(["cat", "/proc/self/status"], stdout=subprocess.PIPE, text=True)
        seen.append(child.communicate()[0])
        seen.append(blocked_here())

    start_helper_thread(target, "runvil-test").join(30)
    assert not blocked_in(seen[0]) & HOST_SIGNALS
    assert HOST_SIGNALS <= seen[1]  # the helper blocks them again after the start


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="no /proc here")
@pytest.mark.skipif(stack.INLINE, reason="the inline backend runs Lua on the calling thread")
def test_commands_run_from_lua_take_ctrl_c_and_kill(tmp_path):
    from runvil.lua.api import LuaState, open_grants

    st = LuaState()
    open_grants(st, {"process", "io"})
    out = tmp_path / "status"
    popen, = stack.run_lua(lambda: st.execute(
        "local f = io.popen('exec cat /proc/self/status') local s = f:read('a') f:close() return s"))
    stack.run_lua(lambda: st.execute(f"os.execute('exec cat /proc/self/status > {out}')"))
    for status in (popen, out.read_text()):
        assert not blocked_in(status) & HOST_SIGNALS


def test_a_pool_initialised_by_block_host_signals_leaves_them_to_the_main_thread():
    from concurrent.futures import ThreadPoolExecutor

    from runvil.threads import block_host_signals

    with ThreadPoolExecutor(2, initializer=block_host_signals) as pool:
        assert HOST_SIGNALS <= pool.submit(blocked_here).result(30)
    block_host_signals()  # on the main thread: nothing
    assert signal.SIGINT not in blocked_here()
