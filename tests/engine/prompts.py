"""Test prompts: a prompt file around Lua blocks, so each test states only
what it checks."""

from __future__ import annotations

import textwrap


def head(models=("writer",), uses=(), extra: str = "", name: str = "t") -> str:
    """Frontmatter and the H1 `# T`."""
    text = f"---\nname: {name}\ndescription: A test prompt.\nrunvil: 0\n"
    text += "models:\n" + "".join(f"  {m}: {{}}\n" for m in models)
    if uses:
        text += f"uses: [{', '.join(uses)}]\n"
    return text + extra + "---\n\n# T\n"


def source(*sections: tuple[str, str], models=("writer",), uses=(), extra: str = "", name: str = "t") -> str:
    """A prompt file with one `## Name` section per (name, lua) pair."""
    return head(models, uses, extra, name) + "".join(f"\n## {sec}\n\n```lua\n{textwrap.dedent(lua).strip()}\n```\n" for sec, lua in sections)


#: a one-round chat on the writer: the input (else 'hello') as the user's turn
CHAT = """
models.use('writer')
messages:user(input or 'hello')
models.loop()
return messages[#messages].content
"""


def chat_prompt(uses=()) -> str:
    """A prompt whose one section `## A` runs CHAT."""
    return source(("A", CHAT), uses=uses)
