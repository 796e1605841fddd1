"""Builders for prompt texts in tests."""

from __future__ import annotations

FRONTMATTER = "---\nname: t\ndescription: A test prompt.\nrunvil: 0\n---\n"
#: The default frontmatter takes file lines 1-5, so a body starts on line 6.
BODY_LINE = 6


def doc(body: str, frontmatter: str = FRONTMATTER) -> str:
    """A prompt text: the frontmatter, then `body` starting on line 6."""
    return frontmatter + body


def fm(*lines: str, base: bool = True) -> str:
    """A prompt whose frontmatter holds the base keys (unless base=False)
    followed by `lines`; with the base keys the first extra line is file
    line 5, without them line 2."""
    keys = ["name: t", "description: A test prompt.", "runvil: 0"] if base else []
    return "---\n" + "".join(k + "\n" for k in [*keys, *lines]) + "---\n\n# T\n"
