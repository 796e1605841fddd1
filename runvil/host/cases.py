"""Conformance cases (runvil/conformance/FORMAT.md): reading case files and laying
out a case's files (`prompt.md`, `world.yaml`) in a folder for a run.

A case file holds one case or a list of cases. Its id is
`folder/file.yaml::name`, unique in a run. `prompt` is the prompt file's
text, or, when it is one line, a path relative to the case file; `world` is
a scripted world, or a path to one (a recorded world). A case's `input`
becomes the world's `input`, since the command a case runs is given no
other arguments. A case's features are the ones it names in `features`
plus the ones its prompt and world show (features.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .features import FEATURES, detected_features


CASE_KEYS = ("name", "spec", "prompt", "world", "input", "expect", "features")


class CaseError(Exception):
    """A case file or folder that cannot be used (a usage error)."""


class DuplicateCaseError(CaseError):
    """Two cases with one id: their ids, `-k` and the reports would collide."""


@dataclass
class Case:
    id: str  # folder/file.yaml::name
    name: str
    file: Path
    prompt: str  # the prompt file's text
    world: str  # the scripted world's YAML text
    expect: dict = field(default_factory=dict)
    section: str = ""  # the reference heading the case checks (`spec`), "" when it names none
    features: tuple[str, ...] = ()
    reference: str | None = None  # the section's anchor in the language reference, when known

    @property
    def group(self) -> str:
        """`folder/file.yaml`, the case's file as its id shows it."""
        return self.id.rsplit("::", 1)[0]

    @property
    def folder(self) -> str:
        return self.id.split("/", 1)[0]

    def lay_out(self, folder: Path) -> None:
        """Writes the case's files into `folder`, as the command expects them."""
        (folder / "prompt.md").write_bytes(self.prompt.encode("utf-8", "surrogateescape"))
        (folder / "world.yaml").write_bytes(self.world.encode("utf-8", "surrogateescape"))


def _loader(shipped: bool = False):
    """YAML 1.2, numbers keeping their source text; on libyaml for the
    suite runvil ships (its composer has no bounds for hostile input)."""
    from ..harness.worldcheck import shipped_world_loader, world_loader

    return shipped_world_loader() if shipped else world_loader()


def load_cases(paths: list[str], shipped: bool = False) -> list[Case]:
    """Every case under the given files or folders, in order. In a folder,
    `*.yaml` files are read recursively in name order, and a YAML mapping
    with neither `prompt` nor `expect` (a world a case points at) is not a
    case; a file named on the command line must hold cases. Two cases with
    one id are a DuplicateCaseError. A folder holding manifest.json is one
    `--export` wrote: its cases are read back through the manifest.
    `shipped`: the paths are runvil's own suite (suite.is_the_suite)."""
    cases: list[Case] = []
    loader = _loader(shipped)  # (made once: the shipped one is a class made on call)
    for p in map(Path, paths):
        if p.is_dir() and (p / "manifest.json").is_file():
            cases.extend(read_export(p))
        elif p.is_dir():
            for f in sorted(p.rglob("*.yaml")):
                cases.extend(read_case_file(f, walked=True, loader=loader))
        elif p.is_file():
            cases.extend(read_case_file(p, walked=False, loader=loader))
        else:
            raise CaseError(f"no conformance cases at {p}: no such file or folder")
    seen: dict[str, Case] = {}
    for c in cases:
        if c.id in seen:
            first = seen[c.id]
            raise DuplicateCaseError(f"duplicate case id {c.id}: in {first.file} and {c.file} "
                                     "(a case's name must be unique in its file)")
        seen[c.id] = c
    return cases


def read_export(folder: Path) -> list[Case]:
    """The cases of a folder `runvil conformance --export` wrote: each
    entry of manifest.json, its files in the folder the entry's `path` names."""
    import json

    from .expect import check_matchers

    cases = []
    try:
        entries = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["cases"]
        for e in entries:
            d = folder / e["path"]
            expect = json.loads((d / "expect.json").read_text(encoding="utf-8"))
            check_matchers(expect, f"{d / 'expect.json'}")
            cases.append(Case(id=e["id"], name=e["name"], file=d / "expect.json",
                              prompt=(d / "prompt.md").read_bytes().decode("utf-8", "surrogateescape"),
                              world=(d / "world.yaml").read_bytes().decode("utf-8", "surrogateescape"),
                              expect=expect, section=e.get("section") or "",
                              features=tuple(e.get("features") or ()), reference=e.get("reference")))
    except OSError as e:
        raise CaseError(f"cannot read the exported case {e.filename}: {e.strerror or e}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise CaseError(f"{folder / 'manifest.json'} is not a manifest --export wrote: {e}") from None
    return cases


def read_case_file(f: Path, walked: bool = False, loader=None) -> list[Case]:
    """The cases of one file, read by `loader` (_loader's: by default the
    bounded one)."""
    try:
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=loader or _loader())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise CaseError(f"cannot read the case file {f}: {e}") from None
    if walked and (data is None or isinstance(data, dict) and "prompt" not in data and "expect" not in data):
        return []
    items = data if isinstance(data, list) else [data]
    group = f"{f.parent.resolve().name}/{f.name}"
    return [_case(item, f, i, group) for i, item in enumerate(items, 1)]


def _case(item, f: Path, i: int, group: str) -> Case:
    where = f"{f}: case {i}"
    if not isinstance(item, dict) or not isinstance(item.get("prompt"), str):
        raise CaseError(f"{where} must be a mapping with a `prompt` (the prompt's text or a path)")
    for key in item:
        if key not in CASE_KEYS:  # a misspelt `expect` would pass unchecked
            from .argparsing import did_you_mean

            raise CaseError(f"{where}: unknown key '{key}'{did_you_mean(str(key), CASE_KEYS)}; a case has "
                            + ", ".join(CASE_KEYS))
    name = item.get("name")
    if name is None:
        name = str(i)
    elif not isinstance(name, str) or not name:
        raise CaseError(f"{where}: `name` must be a text")
    expect = item.get("expect")
    if not isinstance(expect, dict):
        raise CaseError(f"{where} ({name}) needs an `expect` mapping (the --json fields to compare)")
    from .expect import check_matchers

    try:
        check_matchers(dict(expect), f"{where} ({name}): expect")
    except ValueError as e:
        raise CaseError(str(e)) from None
    section = item.get("spec")
    if section is not None and not isinstance(section, str):
        raise CaseError(f"{where} ({name}): `spec` must be a text (a heading of the reference)")
    prompt, (world, world_data) = _prompt(item["prompt"], f, where), _world(item, f, where)
    features = set(_named_features(item.get("features"), f"{where} ({name})"))
    features |= detected_features(prompt, world_data)
    return Case(id=f"{group}::{name}", name=name, file=f, prompt=prompt, world=world, expect=dict(expect),
                section=section or "", features=tuple(n for n in FEATURES if n in features))


def _named_features(names, where: str) -> list[str]:
    if names is None:
        return []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise CaseError(f"{where}: `features` must be a list of feature names")
    unknown = [n for n in names if n not in FEATURES]
    if unknown:
        raise CaseError(f"{where}: unknown feature {unknown[0]!r} (known: {', '.join(FEATURES)})")
    return names


def _prompt(text: str, f: Path, where: str) -> str:
    if "\n" in text:
        return text
    path = f.parent / text
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError as e:
        raise CaseError(f"{where}: cannot read the prompt {path}: {e.strerror or e}") from None


def _world(item: dict, f: Path, where: str) -> tuple[str, dict]:
    """The world's YAML text (a world file's own bytes when it is used as it
    is, else the data written back, with the case's `input` set) and data."""
    from ..harness.scripted import dump_world

    world = item.get("world")
    if isinstance(world, str):
        path = f.parent / world
        try:
            text = path.read_bytes().decode("utf-8", "surrogateescape")
        except OSError as e:
            raise CaseError(f"{where}: cannot read the world {path}: {e.strerror or e}") from None
        try:
            data = yaml.load(text, Loader=_loader())
        except yaml.YAMLError as e:
            raise CaseError(f"{where}: cannot read the world {path}: {e}") from None
        if item.get("input") is None:
            return text, data if isinstance(data, dict) else {}
        world = data
    if world is None:
        world = {}
    if not isinstance(world, dict):
        raise CaseError(f"{where}: `world` must be a scripted world (a mapping) or the path of one")
    if item.get("input") is not None:
        world = {**world, "input": item["input"]}
    return (dump_world(world) if world else ""), world
