"""The playground's menu of examples: each tutorial chapter's prompt and
world, as the chapter runs them (`runvil run examples/tutorial/P.md
--script examples/tutorial/W.yaml [--input TEXT]` in a `console` block).

The menu ships as site/examples.json (package data: an installed runvil
has no docs/ folder). `python -m runvil.host.playground.examples` writes
it again from the repository; a test checks that it is up to date.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

EXAMPLES_JSON = Path(__file__).parent / "site" / "examples.json"
_CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


def tutorial_examples(root: Path) -> list[dict]:
    """One entry per distinct prompt and world the tutorial runs, in the
    chapters' order: name (the world's file name without .yaml), chapter,
    prompt, world, input (empty: the world's own)."""
    found: dict[str, dict] = {}
    for chapter in sorted((root / "docs" / "tutorial").glob("0*.md")):
        text = chapter.read_text(encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip()
        for block in _CONSOLE.findall(text):
            for line in block.splitlines():
                words = shlex.split(line[2:]) if line.startswith("$ runvil run ") else []
                if "--script" not in words:
                    continue
                world = words[words.index("--script") + 1]
                name = Path(world).stem
                if name in found:
                    continue
                found[name] = {
                    "name": name,
                    "chapter": title,
                    "prompt": (root / words[2]).read_text(encoding="utf-8"),
                    "world": (root / world).read_text(encoding="utf-8"),
                    "input": words[words.index("--input") + 1] if "--input" in words else "",
                }
    return list(found.values())


def examples_json(root: Path) -> str:
    return json.dumps(tutorial_examples(root), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    EXAMPLES_JSON.write_text(examples_json(root), encoding="utf-8")
    print(EXAMPLES_JSON)
