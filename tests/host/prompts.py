"""Prompt texts the CLI tests share."""

from __future__ import annotations


def head(extra: str = "", roles: tuple[str, ...] = ("writer",)) -> str:
    """A test prompt's frontmatter (`roles` under `models:`, then the
    `extra` keys) and its H1 `# T`, after which its sections follow."""
    models = "models:\n" + "".join(f"  {role}: {{}}\n" for role in roles) if roles else ""
    return f"---\nname: t\ndescription: A test prompt.\nrunvil: 0\n{models}{extra}---\n\n# T\n\n"
