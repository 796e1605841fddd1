"""Live output on stderr while a run goes (docs/reference/commands.md): streamed model text,
tool calls, retries, the prompt's `print` lines (dimmed), a spinner while a
round waits, a mark after a reply cut short for length, and the closing
line. Only when stderr is a terminal;
otherwise nothing is written. Styles go through rich, which writes plain
text to anything that is not a terminal.

Decision: the final answer is shown once. When stdout is the very terminal
live output writes to and the result is exactly the reply text just
streamed there, `runvil run` does not print it again; on any other stdout
(a pipe, a file, another terminal) the result is printed as always.
"""

from __future__ import annotations

import itertools
import os
import threading

from rich.console import Console
from rich.text import Text

from ..threads import start_helper_thread
from .termtext import for_terminal

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
CUT_SHORT = "[cut short: the reply reached its length limit (finish reason length)]"


class Live:
    """Shows a run as it goes. `answerer(answer)` wraps the function that
    answers effects, so the spinner turns while a round waits and stops at
    its first streamed fragment; `listen(event)` shows tool calls."""

    def __init__(self, stream, interval: float = 0.1):
        self.stream = stream
        self.interval = interval
        self._lock = threading.Lock()
        self._spinning: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._mid_line = False  # streamed text left the cursor mid-line
        self._waiting = 0  # model rounds waiting (a Harness may answer several at once)
        self._count_lock = threading.Lock()
        self._console = Console(file=stream, highlight=False, markup=False, soft_wrap=True, emoji=False)
        self._streaming: dict = {}  # round id -> the fragments streamed for it
        self.last_streamed: str | None = None  # the text of the last reply that was streamed

    # --------------------------------------------------------------- output

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def fragment(self, effect, text: str) -> None:
        self.stop_spinner()
        with self._lock:
            self._write(for_terminal(text))  # a reply's control sequences are shown, not obeyed
            self._mid_line = not text.endswith("\n")
            if effect is not None:
                self._streaming.setdefault(effect.id, []).append(text)

    def listen(self, event) -> None:
        if event.type in ("tool_call_succeeded", "tool_call_failed"):
            mark = "ok" if event.type == "tool_call_succeeded" else "failed"
            self.line(f"→ {event.data.get('name')} ({event.data.get('id')}) {mark}")
        elif event.type == "print":
            self.line(event.data.get("text", ""), style="dim")
        elif event.type == "model_turn_truncated":  # after the reply's text: it ends there
            self.line(CUT_SHORT, style="yellow")
        elif event.type == "model_retry":
            self.line(retry_line(event.data), style="yellow")
            with self._count_lock:  # the round still waits: so does the spinner
                if self._waiting:
                    self.start_spinner(f"waiting for {event.data.get('role')}")
        elif event.type in ("assistant_reply", "model_turn_failed"):
            with self._lock:
                streamed = self._streaming.pop(event.data.get("round"), None)
                if event.type == "assistant_reply" and streamed is not None:
                    self.last_streamed = "".join(streamed)
                if self._mid_line:
                    self._write("\n")
                    self._mid_line = False

    def line(self, text: str, style: str | None = None) -> None:
        self.stop_spinner()
        with self._lock:
            if self._mid_line:
                self._write("\n")
            self._console.print(Text(for_terminal(text), style=style or ""))
            self.stream.flush()
            self._mid_line = False

    def closing(self, text: str) -> None:
        """The run's closing line (usage and wall time)."""
        self.line(text, style="dim")

    def already_shown(self, result: str, stdout) -> bool:
        """The result is the reply just streamed to the terminal that stdout
        also is: printing it would show the answer twice."""
        if self.last_streamed is None or self.last_streamed.rstrip("\n") != result.rstrip("\n"):
            return False
        try:
            return stdout.isatty() and os.path.samestat(os.fstat(stdout.fileno()), os.fstat(self.stream.fileno()))
        except (AttributeError, OSError, ValueError):  # a stream without a file descriptor
            return False

    # -------------------------------------------------------------- spinner

    def start_spinner(self, label: str) -> None:
        self.stop_spinner()
        stop = threading.Event()
        self._spinning = stop

        def spin():
            for frame in itertools.cycle(FRAMES):
                with self._lock:
                    if stop.is_set():
                        return
                    self._write(f"\r{frame} {label}")
                if stop.wait(self.interval):
                    return

        self._thread = start_helper_thread(spin, "runvil-spinner")

    def stop_spinner(self) -> None:
        stop, thread = self._spinning, self._thread
        if stop is None:
            return
        stop.set()
        if thread is not None:
            thread.join()
        self._spinning = self._thread = None
        with self._lock:
            self._write("\r\x1b[K")  # clear the spinner's line

    def answerer(self, answer):
        """`answer` with the spinner turning while a model round waits."""
        from ..engine.effects import ModelRound

        def wrapped(effect):
            if not isinstance(effect, ModelRound):
                return answer(effect)
            with self._count_lock:
                self._waiting += 1
                if self._waiting == 1:
                    self.start_spinner(f"waiting for {effect.role}")
            try:
                return answer(effect)
            finally:
                with self._count_lock:
                    self._waiting -= 1
                    if self._waiting == 0:
                        self.stop_spinner()

        wrapped.concurrent = getattr(answer, "concurrent", False)
        return wrapped


def retry_line(data: dict) -> str:
    """`↻ writer: status 429, retry 1 in 1.0 s`."""
    why = "the connection failed" if data.get("status") is None else f"status {data['status']}"
    return f"↻ {data.get('role')}: {why}, retry {data.get('attempt')} in {data.get('wait', 0):.1f} s"
