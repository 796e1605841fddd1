"""Helper threads that leave the host's signals to the main thread.

Python runs signal handlers on the main thread only, but the kernel hands
a process's signal to any thread that does not block it. One that lands
on a helper thread (the Lua thread, a provider's request, the spinner)
leaves the main thread asleep in its system call: at the REPL's prompt,
readline's wait for a key, so a Ctrl-C there was seen only after the next
Enter, and took the typed line with it. Every thread runvil starts blocks
these signals; a new thread inherits its creator's mask, so the mask is
set around the start and restored. Every layer may use this module; it
imports nothing of runvil.
"""

from __future__ import annotations

import signal
import threading

#: the signals the host handles: Ctrl-C, `kill`, a terminal closing
HOST_SIGNALS = frozenset(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


def block_host_signals() -> None:
    """Blocks HOST_SIGNALS on the calling thread: the initializer of a
    thread pool's workers."""
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is not None and threading.current_thread() is not threading.main_thread():
        mask(signal.SIG_BLOCK, HOST_SIGNALS)


def start_helper_thread(target, name: str) -> threading.Thread:
    """Starts a daemon thread that never receives HOST_SIGNALS (raises
    RuntimeError where no thread can start, as Thread.start does)."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:  # Windows, WebAssembly
        thread.start()
        return thread
    before = mask(signal.SIG_BLOCK, HOST_SIGNALS)
    try:
        thread.start()
    finally:
        mask(signal.SIG_SETMASK, before)
    return thread


def start_child(*args, **kwargs):
    """subprocess.Popen(*args, **kwargs) with the host's signals unblocked
    while it starts: a child inherits its creator's signal mask through
    fork and exec, and one started on a helper thread (`io.popen` and
    `os.execute` run on the Lua thread) would never see a Ctrl-C or a
    `kill`. (Blocked again at once: the wait is not a start.)"""
    import subprocess

    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        return subprocess.Popen(*args, **kwargs)
    before = mask(signal.SIG_UNBLOCK, HOST_SIGNALS)
    try:
        return subprocess.Popen(*args, **kwargs)
    finally:
        mask(signal.SIG_SETMASK, before)


def start_shell(command, **kwargs):
    """start_child of a shell command as C's system() and popen() run it:
    /bin/sh named `sh` (Python's shell=True names it `/bin/sh`), so the
    shell's own messages read `sh: 1: ...` as under lua5.4."""
    return start_child(["sh", "-c", command], executable="/bin/sh", **kwargs)
