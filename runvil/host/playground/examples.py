"""The playground's menu of examples: each tutorial chapter's prompt and
world, as the chapter runs them (`runvil run examples/tutorial/P.md
--script examples/tutorial/W.yaml [--input TEXT]` in a `console` block),
and its guided tour: each chapter's text as HTML, with its first example.

Both ship as package data (site/examples.json, site/tour.json: an
installed runvil has no docs/ folder). `python -m
runvil.host.playground.examples` writes them again from the repository
(the tour's HTML is made with markdown-it-py, which rich brings); a test
checks that they are up to date.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from pathlib import Path

EXAMPLES_JSON = Path(__file__).parent / "site" / "examples.json"
TOUR_JSON = Path(__file__).parent / "site" / "tour.json"
_CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
#: a link in a chapter: to another chapter (0N-name.md), or elsewhere in the repository
_LINK = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.S)
_CHAPTER_LINK = re.compile(r"^0(\d)-[a-z-]+\.md$")


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


def tour(root: Path) -> list[dict]:
    """One stop per chapter: number, title, html (the chapter's text; a
    link to another chapter opens that stop, other links become their
    text: the site holds no other page) and example (the name of the
    chapter's first example, or empty)."""
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark").enable("table")
    examples = tutorial_examples(root)
    stops = []
    for chapter in sorted((root / "docs" / "tutorial").glob("0*.md")):
        text = chapter.read_text(encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip()

        def link(m):
            target = _CHAPTER_LINK.match(m.group(1))
            return f'<a href="?tour={target.group(1)}">{m.group(2)}</a>' if target else m.group(2)

        stops.append({
            "number": int(chapter.name[:2]),
            "title": title,
            "html": _LINK.sub(link, render.render(text)),
            "example": next((e["name"] for e in examples if e["chapter"] == title), ""),
        })
    return stops


def tour_json(root: Path) -> str:
    return json.dumps(tour(root), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    EXAMPLES_JSON.write_text(examples_json(root), encoding="utf-8")
    TOUR_JSON.write_text(tour_json(root), encoding="utf-8")
    print(EXAMPLES_JSON)
    print(TOUR_JSON)
