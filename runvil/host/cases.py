"""Conformance cases (conformance/FORMAT.md): reading case files and laying
out a case's files (`prompt.md`, `world.yaml`) in a folder for a run.

A case file holds one case or a list of cases. Its id is
`folder/file.yaml::name`. `prompt` is the prompt file's text, or, when it
is one line, a path relative to the case file; `world` is a scripted world,
or a path to one (a recorded world). A case's `input` becomes the world's
`input`, since the command a case runs is given no other arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml


CASE_KEYS = ("name", "spec", "prompt", "world", "input", "expect")


class CaseError(Exception):
    """A case file or folder that cannot be used (a usage error)."""


@dataclass
class Case:
    id: str  # folder/file.yaml::name
    name: str
    file: Path
    prompt: str  # the prompt file's text
    world: str  # the scripted world's YAML text
    expect: dict = field(default_factory=dict)

    @property
    def group(self) -> str:
        """`folder/file.yaml`, the case's file as its id shows it."""
        return self.id.rsplit("::", 1)[0]

    def lay_out(self, folder: Path) -> None:
        """Writes the case's files into `folder`, as the command expects them."""
        (folder / "prompt.md").write_bytes(self.prompt.encode("utf-8", "surrogateescape"))
        (folder / "world.yaml").write_bytes(self.world.encode("utf-8", "surrogateescape"))


def _loader():
    from ..harness.worldcheck import world_loader

    return world_loader()  # YAML 1.2, numbers keeping their source text


def load_cases(paths: list[str]) -> list[Case]:
    """Every case under the given files or folders, in order. In a folder,
    `*.yaml` files are read recursively in name order, and a YAML mapping
    with neither `prompt` nor `expect` (a world a case points at) is not a
    case; a file named on the command line must hold cases."""
    cases: list[Case] = []
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(p.rglob("*.yaml")):
                cases.extend(read_case_file(f, walked=True))
        elif p.is_file():
            cases.extend(read_case_file(p, walked=False))
        else:
            raise CaseError(f"no conformance cases at {p}: no such file or folder")
    return cases


def read_case_file(f: Path, walked: bool = False) -> list[Case]:
    try:
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=_loader())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise CaseError(f"cannot read the case file {f}: {e}") from None
    if walked and (data is None or isinstance(data, dict) and "prompt" not in data and "expect" not in data):
        return []
    items = data if isinstance(data, list) else [data]
    group = f"{f.parent.resolve().name}/{f.name}"
    cases = []
    for i, item in enumerate(items, 1):
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
        cases.append(Case(id=f"{group}::{name}", name=name, file=f, prompt=_prompt(item["prompt"], f, where),
                          world=_world(item, f, where), expect=dict(expect)))
    return cases


def _prompt(text: str, f: Path, where: str) -> str:
    if "\n" in text:
        return text
    path = f.parent / text
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError as e:
        raise CaseError(f"{where}: cannot read the prompt {path}: {e.strerror or e}") from None


def _world(item: dict, f: Path, where: str) -> str:
    """The world's YAML text: a world file's own bytes when it is used as it
    is, else the data written back (with the case's `input` set)."""
    from ..harness.scripted import dump_world

    world = item.get("world")
    if isinstance(world, str):
        path = f.parent / world
        try:
            text = path.read_bytes().decode("utf-8", "surrogateescape")
        except OSError as e:
            raise CaseError(f"{where}: cannot read the world {path}: {e.strerror or e}") from None
        if item.get("input") is None:
            return text
        try:
            world = yaml.load(text, Loader=_loader())
        except yaml.YAMLError as e:
            raise CaseError(f"{where}: cannot read the world {path}: {e}") from None
    if world is None:
        world = {}
    if not isinstance(world, dict):
        raise CaseError(f"{where}: `world` must be a scripted world (a mapping) or the path of one")
    if item.get("input") is not None:
        world = {**world, "input": item["input"]}
    return dump_world(world) if world else ""
