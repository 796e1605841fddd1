"""Test prompts: a prompt file around Lua blocks, so each test states only
what it checks."""

from __future__ import annotations

import textwrap


def source(*sections: tuple[str, str], models=("writer",), uses=(), extra: str = "", name: str = "t") -> str:
    """A prompt file with one `## Name` section per (name, lua) pair."""
    head = f"---\nname: {name}\ndescription: A test prompt.\nrunvil: 0\n"
    head += "models:\n" + "".join(f"  {m}: {{}}\n" for m in models)
    if uses:
        head += f"uses: [{', '.join(uses)}]\n"
    head += extra + "---\n\n# T\n"
    return head + "".join(f"\n## {sec}\n\n```lua\n{textwrap.dedent(lua).strip()}\n```\n" for sec, lua in sections)
