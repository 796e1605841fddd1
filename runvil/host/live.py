"""Live output on stderr while a run goes (host.md): streamed model text,
tool calls, and a spinner while a round waits. Only when stderr is a
terminal; otherwise nothing is written."""

from __future__ import annotations

import itertools
import threading

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


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

    # --------------------------------------------------------------- output

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def fragment(self, effect, text: str) -> None:
        self.stop_spinner()
        with self._lock:
            self._write(text)
            self._mid_line = not text.endswith("\n")

    def listen(self, event) -> None:
        if event.type in ("tool_call_succeeded", "tool_call_failed"):
            mark = "ok" if event.type == "tool_call_succeeded" else "failed"
            self.line(f"→ {event.data.get('name')} ({event.data.get('id')}) {mark}")
        elif event.type in ("assistant_reply", "model_turn_failed"):
            with self._lock:
                if self._mid_line:
                    self._write("\n")
                    self._mid_line = False

    def line(self, text: str) -> None:
        self.stop_spinner()
        with self._lock:
            self._write(("\n" if self._mid_line else "") + text + "\n")
            self._mid_line = False

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

        self._thread = threading.Thread(target=spin, name="runvil-spinner", daemon=True)
        self._thread.start()

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
