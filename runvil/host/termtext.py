"""Text from models, tools and prompts made harmless for a terminal, since
whoever wrote that text may mean harm: a reply holding OSC 52
(`ESC ] 52 ; c ; ... BEL`) would write the user's clipboard, OSC 0
retitle the window, `CSI 2J` clear the screen, a carriage return
overwrite a line already shown. Every control character
but newline and tab, C1 controls included, is shown as a `\\xNN` escape, so
the sequence is seen, not obeyed. Our own colours (rich's styles, the
spinner) are added after this and stay.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def for_terminal(text: str) -> str:
    """The text with its control characters escaped (a CR LF line end is
    kept as a newline)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_escaped, text.replace("\r\n", "\n"))


def _escaped(m: re.Match) -> str:
    return f"\\x{ord(m.group()):02x}"


class TerminalStream:
    """A text stream that escapes what is written to it when it is a
    terminal (a pipe or a file gets the text as it is)."""

    def __init__(self, stream):
        self.stream = stream
        try:
            self.terminal = stream.isatty()
        except (AttributeError, ValueError):
            self.terminal = False

    def write(self, text: str) -> int:
        return self.stream.write(for_terminal(text) if self.terminal else text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.terminal

    def fileno(self) -> int:
        return self.stream.fileno()


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_utf8(text: str) -> str:
    """Text stdout can write as UTF-8: a Lua string's bytes that are not
    UTF-8 (carried as lone surrogates) and lone surrogates from a world or a
    provider each become U+FFFD, the replacement character."""
    return _LONE_SURROGATE.sub("\ufffd", text)
