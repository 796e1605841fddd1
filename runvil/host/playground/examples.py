"""The playground's menu of examples: each tutorial chapter's prompt and
world, as the chapter runs them (`runvil run examples/tutorial/P.md
--script examples/tutorial/W.yaml [--input TEXT]` in a `console` block),
its guided tour: each chapter's text as HTML, with its first example, and
the reference (docs/reference), which the tour's links open in its panel.

All ship as package data (site/examples.json, site/tour.json,
site/reference.json: an installed runvil has no docs/ folder). `python -m
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
REFERENCE_JSON = Path(__file__).parent / "site" / "reference.json"
_CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)
#: a link in a page: to a chapter (0N-name.md), a reference page, or elsewhere in the repository
_LINK = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.S)
_CHAPTER_LINK = re.compile(r"^(?:\.\./tutorial/)?0(\d)-[a-z-]+\.md$")
_REFERENCE_LINK = re.compile(r"^(?:\.\./reference/)?([a-z-]+)\.md(?:#[a-z0-9-]*)?$")


def _markdown():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def site_links(html: str, pages: set[str]) -> str:
    """A page's links as the site has them: a chapter opens its tour stop
    (`?tour=N`), a reference page opens in the tour's panel (`?ref=NAME`);
    any other link becomes its text (the site holds no other page)."""

    def link(m):
        chapter = _CHAPTER_LINK.match(m.group(1))
        if chapter:
            return f'<a href="?tour={chapter.group(1)}">{m.group(2)}</a>'
        page = _REFERENCE_LINK.match(m.group(1))
        if page and page.group(1) in pages:
            return f'<a href="?ref={page.group(1)}">{m.group(2)}</a>'
        return m.group(2)

    return _LINK.sub(link, html)


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
    """One stop per chapter: number, title, html (the chapter's text, its
    links as `site_links` makes them) and example (the name of the
    chapter's first example, or empty)."""
    render = _markdown()
    examples = tutorial_examples(root)
    pages = {p.stem for p in (root / "docs" / "reference").glob("*.md")}
    stops = []
    for chapter in sorted((root / "docs" / "tutorial").glob("0*.md")):
        text = chapter.read_text(encoding="utf-8")
        title = text.splitlines()[0].lstrip("# ").strip()
        stops.append({
            "number": int(chapter.name[:2]),
            "title": title,
            "html": site_links(render.render(text), pages),
            "example": next((e["name"] for e in examples if e["chapter"] == title), ""),
        })
    return stops


def reference(root: Path) -> dict[str, dict]:
    """Each page of docs/reference by name: its title and html."""
    render = _markdown()
    files = sorted((root / "docs" / "reference").glob("*.md"))
    pages = {p.stem for p in files}
    return {p.stem: {"title": p.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip(),
                     "html": site_links(render.render(p.read_text(encoding="utf-8")), pages)} for p in files}


def reference_json(root: Path) -> str:
    return json.dumps(reference(root), indent=1, ensure_ascii=False) + "\n"


def tour_json(root: Path) -> str:
    return json.dumps(tour(root), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    EXAMPLES_JSON.write_text(examples_json(root), encoding="utf-8")
    TOUR_JSON.write_text(tour_json(root), encoding="utf-8")
    REFERENCE_JSON.write_text(reference_json(root), encoding="utf-8")
    print(EXAMPLES_JSON)
    print(TOUR_JSON)
    print(REFERENCE_JSON)
