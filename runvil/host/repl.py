"""The interactive side of `runvil lua` and `runvil chat`: line editing and
history (GNU readline from the standard library where present, history in
the user's data folder), chunks that continue over lines as in `lua -i`,
and Ctrl-C that stops the running chunk and comes back to the prompt.

Nothing here runs Lua by itself: the commands hand in what compiles a
chunk and what runs it.
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager

PROMPT, CONTINUATION = "> ", ">> "
INTERRUPTED = "interrupted!"


def data_folder():
    """The user's data folder for runvil, a pathlib.Path: `$XDG_DATA_HOME/runvil`,
    else `~/.local/share/runvil`. (pathlib is imported here: `runvil lua -e`
    has no use for it.)"""
    from pathlib import Path

    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "runvil"


class Console:
    """Reads lines from the user. On a terminal: readline editing and a
    history kept in `{data folder}/{history}`; otherwise plain lines from
    stdin with no prompt shown (so piped input prints only results)."""

    def __init__(self, history: str):
        self.interactive = sys.stdin.isatty()
        self.readline = None
        self.history_path = data_folder() / history
        if not self.interactive:
            return
        try:
            import readline
        except ImportError:  # a Python built without readline: plain input()
            return
        self.readline = readline
        try:
            readline.read_history_file(self.history_path)
        except OSError:
            pass  # no history yet
        readline.set_history_length(1000)

    def read(self, prompt: str) -> str | None:
        """One line without its newline; None at the end of input. Ctrl-C
        at the prompt raises KeyboardInterrupt for the caller to handle."""
        if not self.interactive:
            line = sys.stdin.readline()
            return line[:-1] if line.endswith("\n") else (line or None)
        try:
            line = input(prompt)
        except EOFError:
            sys.stdout.write("\n")
            return None
        if self.readline is not None and line.strip():
            self._remember()
        return line

    def _remember(self) -> None:
        """Appends to the history file after every line, so a session that
        ends abruptly keeps what was typed."""
        try:
            self.history_path.parent.mkdir(parents=True, exist_ok=True)
            self.readline.write_history_file(self.history_path)
        except OSError:
            pass  # a read-only home: history for this session only

    def read_chunk(self, is_incomplete) -> str | None:
        """A whole chunk: lines are read (`> `, then `>> `) until
        `is_incomplete(text)` says the text no longer ends too early. Ctrl-C
        drops what was typed and starts over; None at the end of input."""
        buffer: list[str] = []
        while True:
            try:
                line = self.read(CONTINUATION if buffer else PROMPT)
            except KeyboardInterrupt:
                sys.stdout.write("\n")
                buffer = []
                continue
            if line is None:
                return None if not buffer else "\n".join(buffer)
            buffer.append(line)
            text = "\n".join(buffer)
            if not text.strip():
                buffer = []
                continue
            if not is_incomplete(text):
                return text


def incomplete(state, text: str) -> bool:
    """True when the chunk (or `return` of it) stops at end of input, as
    `lua -i` decides to show its continuation prompt."""
    from ..lua.api import LuaSyntaxError

    source = to_lua(text)
    for candidate in ("return " + source, source):
        try:
            state.load(candidate, "=stdin")
            return False
        except LuaSyntaxError as e:
            last = str(e.value)
    return last.endswith("<eof>")


def to_lua(text: str) -> str:
    """Terminal text -> a Lua byte string (one char per UTF-8 byte)."""
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


def compile_chunk(state, source: str):
    """The chunk as an expression whose values are shown, else as
    statements; raises LuaSyntaxError for the statement form's error."""
    from ..lua.api import LuaSyntaxError

    try:
        return state.load("return " + source, "=stdin")
    except LuaSyntaxError:
        return state.load(source, "=stdin")


class Interrupt:
    """Ctrl-C while a chunk runs: the running state's step limit drops to
    zero, so the chunk stops at its next step check with a Lua error that
    the REPL reports as `interrupted!`. Ctrl-C at any other time, or a
    second one before the chunk stops, raises KeyboardInterrupt as usual.

    `installed()` sets the handler (from the main thread, the only one
    that may); `running(state)` marks a chunk running, from any thread."""

    def __init__(self):
        import threading

        self.state = None
        self.requested = False
        self._limits = None
        self._lock = threading.Lock()  # a chunk's start and end against the handler

    def _handler(self, signum, frame):
        if not self._lock.acquire(blocking=False):
            return  # the chunk is starting or ending right now
        try:
            if self.state is None or self.requested:
                raise KeyboardInterrupt
            from ..structs import replace

            self.requested = True
            self.state.limits = replace(self._limits, steps=0)
        finally:
            self._lock.release()

    @contextmanager
    def installed(self):
        previous = signal.signal(signal.SIGINT, self._handler)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, previous)

    @contextmanager
    def running(self, state):
        with self._lock:
            self.requested = False
            self._limits = state.limits
            self.state = state
        try:
            yield self
        finally:
            with self._lock:
                self.state = None
                state.limits = self._limits


def show_values(values, write) -> None:
    """Prints a chunk's results tab-separated, as `lua -i` does."""
    from ..lua.api import tostring

    if values:
        write("\t".join(tostring(v) for v in values) + "\n")
