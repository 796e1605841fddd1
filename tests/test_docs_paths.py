"""Every path the code and the docs name is a file or folder of the
repository, and no doc names a place outside it.

A newcomer follows these names (`see runvil/lua/compiler/shapes.py`,
`docs/reference/errors.md`), so a name left behind by a move or a rename
sends them nowhere. Three kinds of name are checked:

- a path from the repository's root (`runvil/...`, `docs/...`,
  `tests/...`, `benchmarks/...`, `conformance/...`, `examples/...`,
  `grammar/...`), anywhere in code or docs;
- a relative link of a Markdown page (`[text](../tutorial/README.md)`),
  which must also stay inside the repository;
- a document cited by its file name alone (`commands.md "runvil run"`): some file of the repository must have that
  name, so that no comment cites a document only its author had; the
  specification's documents, which are not in the repository, are never
  cited (the reference in docs/reference/ says what runvil does).

Docs (Markdown pages) must not name a place outside the repository at
all (`../shared`, an absolute path of one machine): a clone has neither.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: what is read: folders (and files) of the repository, and the suffixes read in them
SCANNED = ("runvil", "tests", "docs", "conformance", "benchmarks", "examples", "README.md", "pyproject.toml")
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".lua", ".toml", ".js", ".html", ".txt"}

#: the first folder of a path from the repository's root
TOP = ("runvil", "docs", "tests", "benchmarks", "conformance", "examples", "grammar")

#: In flight on other branches while this test was written, to be emptied
#: once they have landed: a path under a prefix on the left also counts as
#: present when it exists under the prefix on the right (the conformance
#: cases move into the package) ...
MOVING: dict = {}
#: ... and the reference's pages being written, which code already cites
AWAITED: set = set()

_ROOTED = re.compile(r"(?<![\w./\-])((?:%s)/[\w.\-/]*[\w/])" % "|".join(TOP))
_LINK = re.compile(r"\]\(([^)\s]+)\)")
#: (a name in quotes is a string of code, naming a file it opens)
_BARE_DOC = re.compile(r"(?<![\w./\-\"([])([\w\-]+\.md)\b('s)?( §| \")?")
#: documents that exist only beside the repository, never in it: the
#: specification and the notes the project was started from
OUTSIDE_DOCS = {"host.md", "runvil.md", "conversations.md", "ARCHITECTURE.md", "STYLE.md"}
_SPEC = re.compile(r"\bspec/[\w\-]+\.md|\bspec §")
_OUTSIDE = re.compile(r"\.\./shared|/work/|/home/")
#: a placeholder in a path written for the reader to fill in: a glob, or a
#: name in capitals (`benchmarks/lua/NAME.lua`, `examples/tutorial/P.md`)
_PLACEHOLDER = re.compile(r"[*{}<>]|\.\.\.|NAME|(?:^|/)[A-Z]\.")
#: files a program writes as it runs, never committed
WRITTEN_AT_RUN_TIME = {"benchmarks/RESULTS.partial.md"}


def scanned_files() -> list[Path]:
    files = []
    for name in SCANNED:
        p = ROOT / name
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            files.extend(f for f in sorted(p.rglob("*")) if f.suffix in SUFFIXES and f.is_file()
                         and "__pycache__" not in f.parts and ".pytest_cache" not in f.parts)
    return [f for f in files if f != Path(__file__).resolve()]  # this file names moves and examples


def exists(rel: str) -> bool:
    rel = rel.rstrip("/")
    if (ROOT / rel).exists() or rel in WRITTEN_AT_RUN_TIME or rel in AWAITED:
        return True
    return any(rel.startswith(old) and (ROOT / (new + rel[len(old):])).exists()
               for old, new in MOVING.items())


def _names_in(path: Path):
    """(line number, name) of every rooted path in a file."""
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        for m in _ROOTED.finditer(line):
            name = m.group(1).split("::")[0].rstrip(".")
            if not _PLACEHOLDER.search(name):
                yield n, name


def test_every_rooted_path_exists():
    missing = [f"{f.relative_to(ROOT)}:{n}: {name}"
               for f in scanned_files() for n, name in _names_in(f) if not exists(name)]
    assert not missing, "paths named that the repository does not have:\n" + "\n".join(missing)


def test_every_relative_link_of_a_page_exists_inside_the_repository():
    bad = []
    for page in (f for f in scanned_files() if f.suffix == ".md"):
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for m in _LINK.finditer(line):
                target = m.group(1).split("#")[0]
                if not target or re.match(r"[a-z]+:", target):  # an anchor, or a web address
                    continue
                where = (page.parent / target).resolve()
                rel = where.relative_to(ROOT).as_posix() if where.is_relative_to(ROOT) else None
                if rel is None or not exists(rel):
                    bad.append(f"{page.relative_to(ROOT)}:{n}: {m.group(1)}")
    assert not bad, "links to nothing in the repository:\n" + "\n".join(bad)


def _cited_docs(line: str):
    """The documents a line cites by file name alone: any name of the
    specification's, or one followed by a section (`errors.md §2`,
    `commands.md "runvil run"`); a name on its own is as often an
    example's file (`prompt.md`, `PROMPT.md`) as a citation."""
    for m in _BARE_DOC.finditer(line):
        name = m.group(1)
        if name in OUTSIDE_DOCS or m.group(3):
            yield name
    yield from (m.group(0) for m in _SPEC.finditer(line))


def test_every_document_cited_by_its_file_name_is_in_the_repository():
    names = {p.name for p in ROOT.rglob("*.md") if ".git" not in p.parts} - OUTSIDE_DOCS
    unknown = [f"{f.relative_to(ROOT)}:{n}: {name}"
               for f in scanned_files()
               for n, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
               for name in _cited_docs(line) if name not in names]
    assert not unknown, "documents the repository does not have:\n" + "\n".join(unknown)


def test_no_page_names_a_place_outside_the_repository():
    outside = [f"{f.relative_to(ROOT)}:{n}: {line.strip()}"
               for f in scanned_files() if f.suffix == ".md"
               for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
               if _OUTSIDE.search(line)]
    assert not outside, "pages naming places outside the repository:\n" + "\n".join(outside)
