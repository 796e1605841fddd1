"""`runvil conformance [DIR...]`: runs conformance cases through the public
CLI (`runvil run PROMPT --script WORLD --json`) and compares the fields a
case expects.

A case is a YAML file:

    spec: Starting a conversation        # the heading of the spec it checks
    prompt: |                            # the prompt file
      ---
      name: first-chat ...
    world: {replies: [{text: bonjour}]}  # the scripted world (optional)
    input: "..."                         # --input (optional)
    expect:                              # any of these fields
      ok: true
      result: bonjour
      error: {kind: Lua, message: "..."}
      requests: [...]                    # exactly, when given
      request_count: 1

A file may hold several cases as a YAML list.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

import yaml


class CaseError(Exception):
    """A case file or folder that cannot be used (a usage error)."""


def load_cases(paths: list[str]) -> list[tuple[str, dict]]:
    """(case id, case) for every case under the given files or folders.
    Case files are read with the YAML 1.2 rules of prompts and worlds."""
    from ..prompt.frontmatter import _Loader

    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(p.rglob("*.yaml")))
        elif p.is_file():
            files.append(p)
        else:
            raise CaseError(f"no conformance cases at {p}: no such file or folder")
    cases = []
    for f in files:
        try:
            data = yaml.load(f.read_text(encoding="utf-8"), Loader=_Loader)
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
            raise CaseError(f"cannot read the case file {f}: {e}") from None
        items = data if isinstance(data, list) else [data]
        for i, case in enumerate(items):
            if not isinstance(case, dict) or not isinstance(case.get("prompt"), str):
                raise CaseError(f"{f}: case {i + 1} must be a mapping with a `prompt` text")
            name = case.get("name") or (f"{f.stem}[{i}]" if len(items) > 1 else f.stem)
            cases.append((f"{f.parent.name}/{name}", case))
    return cases


def run_case(case: dict) -> dict:
    """Runs one case through the CLI; returns the parsed --json output."""
    from .cli import main

    # run from the case's own folder, so file names in messages read
    # `prompt.md:5: ...` whatever the temporary folder is
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        Path("prompt.md").write_text(case["prompt"], encoding="utf-8")
        Path("world.yaml").write_text(yaml.safe_dump(case.get("world") or {}), encoding="utf-8")
        args = ["run", "prompt.md", "--json", "--script", "world.yaml"]
        if case.get("input") is not None:
            args += ["--input", str(case["input"])]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    text = out.getvalue()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = {"ok": False, "result": None, "error": {"kind": "NoJSON", "message": err.getvalue().strip()}}
    data["exit"] = code
    return data


def mismatches(case: dict, got: dict) -> list[str]:
    """What differs between a case's expectations and the run's output."""
    expect = case.get("expect") or {}
    problems = []
    for key in ("ok", "result", "error", "requests"):
        if key in expect and expect[key] != got.get(key):
            problems.append(f"{key}: expected {json.dumps(expect[key], ensure_ascii=False)},"
                            f" got {json.dumps(got.get(key), ensure_ascii=False)}")
    if "request_count" in expect and expect["request_count"] != len(got.get("requests") or []):
        problems.append(f"request_count: expected {expect['request_count']}, got {len(got.get('requests') or [])}")
    return problems


def conformance_command(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help"):
        print("usage: runvil conformance [DIR...]")
        return 0
    dirs = argv or ["conformance"]
    try:
        cases = load_cases(dirs)
    except CaseError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return 2
    passed = failed = 0
    width = 30
    for i, (cid, case) in enumerate(cases, 1):
        problems = mismatches(case, run_case(case))
        if problems:
            failed += 1
            sys.stdout.write("\r" + " " * (width + 20) + "\r")
            print(f"FAIL {cid}: " + "; ".join(problems))
        else:
            passed += 1
        if sys.stdout.isatty():
            done = int(width * i / len(cases))
            sys.stdout.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{len(cases)}")
            sys.stdout.flush()
    if sys.stdout.isatty():
        sys.stdout.write("\n")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0
