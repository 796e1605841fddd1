"""Every thread runvil starts leaves the host's signals (Ctrl-C, `kill`, a
closing terminal) to the main thread: one that took a Ctrl-C would leave
the REPL's readline asleep until the next Enter (a CI run saw the line
typed after a Ctrl-C at the prompt dropped). Checked by each thread's own
signal mask: the Lua thread, a helper thread, and the creator's mask
unchanged after the start."""

from __future__ import annotations

import signal
import threading

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
