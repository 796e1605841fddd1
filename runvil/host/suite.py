"""The conformance suite shipped in the package (runvil/conformance/): where
it is, its version, the reference anchor of each heading, its manifest, and
writing it out as one folder per case (`runvil conformance --export`).

suite.json beside the cases holds what the package cannot compute at run
time: the suite's `version`, the `digest` of the cases that version names
(a case that changes without a new version fails a test), and `reference`,
each `spec` heading's anchor in the project's language reference (whose
pages are not in the package). `python -m runvil.host.suite [--version V]
[ROOT]` writes it again from a clone, ROOT holding docs/reference/.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
from pathlib import Path

from .cases import Case, CaseError

SUITE_NAME = "runvil-conformance"
REFERENCE_PAGES = "docs/reference"
ARGS = ["prompt.md", "--script", "world.yaml", "--json"]
ENV_CASE_ID = "RUNVIL_CASE_ID"


def suite_folder() -> Path:
    """The shipped cases: runvil/conformance/, in a clone or an installed package."""
    return Path(__file__).resolve().parent.parent / "conformance"


def suite_info(folder: Path | None = None) -> dict:
    """suite.json of the shipped suite ({} when a folder has none)."""
    path = (folder or suite_folder()) / "suite.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def is_the_suite(paths: list[str]) -> bool:
    """Whether a run's folders are the shipped suite (or parts of it)."""
    home = suite_folder().resolve()
    return bool(paths) and all(Path(p).resolve() == home or home in Path(p).resolve().parents for p in paths)


def cases_digest(cases: list[Case]) -> str:
    """What a version of the suite names: every case's id, heading,
    features, prompt, world and expectation."""
    data = [{"id": c.id, "section": c.section, "features": list(c.features), "prompt": c.prompt,
             "world": c.world, "expect": c.expect} for c in sorted(cases, key=lambda c: c.id)]
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


# ------------------------------------------------------------------ reference anchors


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation
    dropped (letters, digits, `_`, `-` and spaces kept), spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def page_headings(text: str) -> list[tuple[str, str]]:
    """(heading text, anchor) of each heading of a Markdown page, in order,
    fenced code left out; a repeated anchor gets `-1`, `-2`, ... as on GitHub."""
    out, seen, fence = [], {}, None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence):
                fence = None
            continue
        h = None if fence else _HEADING.match(line)
        if h:
            anchor = slug(h.group(2))
            n = seen.get(anchor, 0)
            seen[anchor] = n + 1
            out.append((h.group(2).strip(), anchor if n == 0 else f"{anchor}-{n}"))
    return out


def resolve_anchors(headings, root: Path) -> tuple[dict[str, str], list[str]]:
    """Each heading's anchor, `docs/reference/NAME.md#slug`, found as a
    heading of exactly one page under ROOT/docs/reference (inline code
    marks aside); and the problems: a heading on no page or on several."""
    found: dict[str, list[str]] = {}
    for page in sorted((root / REFERENCE_PAGES).glob("*.md")):
        rel = page.relative_to(root).as_posix()
        for text, anchor in page_headings(page.read_text(encoding="utf-8")):
            found.setdefault(text.replace("`", ""), []).append(f"{rel}#{anchor}")
    anchors, problems = {}, []
    for h in sorted(set(headings)):
        places = found.get(h.replace("`", ""), [])
        pages = {p.split("#")[0] for p in places}
        if len(pages) == 1 and len(places) == 1:
            anchors[h] = places[0]
        elif not places:
            problems.append(f"no heading of {REFERENCE_PAGES}/*.md is {h!r}")
        else:
            problems.append(f"{h!r} is a heading in more than one place: {', '.join(places)}")
    return anchors, problems


# ------------------------------------------------------------------ the manifest and the export


def manifest(cases: list[Case], info: dict, paths: dict[str, str] | None = None) -> dict:
    """The suite as data, like CommonMark's spec.json: its version and,
    per case, its id, file, name, section, features and reference anchor."""
    reference = info.get("reference", {})
    entries = []
    for c in cases:
        entry = {"id": c.id, "file": c.group, "name": c.name, "section": c.section or None,
                 "features": list(c.features), "reference": reference.get(c.section)}
        if paths is not None:
            entry["path"] = paths[c.id]
        entries.append(entry)
    return {"suite": info.get("name", SUITE_NAME if info else None), "version": info.get("version"),
            "command": "COMMAND " + " ".join(ARGS), "cases": entries}


def case_path(case: Case, taken: set[str]) -> str:
    """A folder name for the case, `folder/file/name` with only safe
    characters, unique among `taken`."""
    parts = [case.folder, case.group.split("/", 1)[1].removesuffix(".yaml"), case.name]
    safe = "/".join(re.sub(r"[^A-Za-z0-9._-]", "_", p).lstrip(".") or "_" for p in parts)
    path, n = safe, 1
    while path in taken:
        n += 1
        path = f"{safe}-{n}"
    taken.add(path)
    return path


def command_line(words: list[str], case_id: str) -> str:
    """The exact command a case runs, as a shell line."""
    return f"{ENV_CASE_ID}={shlex.quote(case_id)} " + " ".join(map(shlex.quote, words + ARGS))


def write_case_files(case: Case, folder: Path, words: list[str]) -> None:
    """prompt.md, world.yaml, world.json, expect.json and command.txt."""
    folder.mkdir(parents=True, exist_ok=True)
    case.lay_out(folder)
    (folder / "world.json").write_text(json.dumps(world_json(case), ensure_ascii=False, indent=2) + "\n",
                                       encoding="utf-8", errors="surrogateescape")
    (folder / "expect.json").write_text(json.dumps(case.expect, ensure_ascii=False, indent=2) + "\n",
                                        encoding="utf-8", errors="surrogateescape")
    (folder / "command.txt").write_text(command_line(words, case.id) + "\n", encoding="utf-8",
                                        errors="surrogateescape")


def world_json(case: Case):
    """The world as JSON data; a number YAML read from a text JSON would
    write otherwise (`3.10`, `1_000`) stays that text."""
    import yaml

    from .cases import _loader

    def plain(v):
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        source = getattr(v, "source", None)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and source is not None:
            return v if json.dumps(v) == source else source
        return v

    return plain(yaml.load(case.world, Loader=_loader()) if case.world else {})


def export(cases: list[Case], out: Path, info: dict, words: list[str], with_readme: bool) -> int:
    """Writes each case as a folder of its own under `out`, manifest.json,
    FORMAT.md and the adapter; returns how many cases were written."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CaseError(f"--export: {out} is not an empty folder")
    home = suite_folder()
    out.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    paths = {c.id: case_path(c, taken) for c in cases}
    for c in cases:
        write_case_files(c, out / paths[c.id], words)
    (out / "manifest.json").write_text(json.dumps(manifest(cases, info, paths), ensure_ascii=False, indent=2)
                                       + "\n", encoding="utf-8", errors="surrogateescape")
    for name in ["FORMAT.md"] + (["README.md"] if with_readme else []):
        shutil.copyfile(home / name, out / name)
    (out / "adapters").mkdir()
    shutil.copyfile(home / "adapters" / "example_adapter.py", out / "adapters" / "example_adapter.py")
    return len(cases)


# ------------------------------------------------------------------ writing suite.json again


def write_suite_info(root: Path, version: str | None = None, folder: Path | None = None) -> list[str]:
    """suite.json of the suite (default: the shipped one) from its cases and
    ROOT/docs/reference; the problems instead when a heading has no anchor
    or the cases changed while the version did not."""
    from .cases import load_cases

    folder = folder or suite_folder()
    cases = load_cases([str(folder)], shipped=is_the_suite([str(folder)]))
    old = suite_info(folder)
    digest = cases_digest(cases)
    version = version or old.get("version")
    if digest != old.get("digest") and version == old.get("version"):
        return [f"the cases changed since version {old.get('version')}: give a new one with --version"]
    anchors, problems = resolve_anchors({c.section for c in cases if c.section}, root)
    if problems:
        return problems
    info = {"name": SUITE_NAME, "version": version, "digest": digest, "reference": anchors}
    (folder / "suite.json").write_text(json.dumps(info, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return []


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m runvil.host.suite",
                                description="Write runvil/conformance/suite.json again.")
    p.add_argument("root", nargs="?", default=".", help="the clone's root, holding docs/reference/")
    p.add_argument("--version", help="the suite's new version (needed when cases changed)")
    args = p.parse_args(argv)
    problems = write_suite_info(Path(args.root), args.version)
    for line in problems:
        print(f"suite.json: {line}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
