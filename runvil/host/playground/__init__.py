"""`runvil playground OUT [--pyodide URL_OR_DIR]` (host.md "The
playground"): writes a static site that runs prompts in the browser.

OUT gets the page (site/: index.html, its script and style, worker.js,
the examples menu), `wheels/` (runvil's wheel and its pure-Python
dependencies, wheels.py) and `site.json` (where Pyodide is, which wheels
to load). Pyodide comes from the official distribution of the pinned
version (pins.py) unless `--pyodide` names another URL, or a folder that
is copied into OUT/pyodide/ so the site works with no network.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from .pins import PYODIDE_ENV, PYODIDE_URL

SITE = Path(__file__).parent / "site"
#: what a Pyodide distribution folder must hold
PYODIDE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


class PlaygroundError(Exception):
    """A usage error of `runvil playground`, said in one line."""


def playground_parser():
    import argparse

    p = argparse.ArgumentParser(prog="runvil playground",
                                description="Write a static site that runs prompts in the browser, on Pyodide.")
    p.add_argument("out", metavar="OUT", help="the folder to write the site into (made if missing)")
    p.add_argument("--pyodide", metavar="URL_OR_DIR", default=PYODIDE_URL,
                   help=f"where the page loads Pyodide from: a URL, or a folder copied into OUT "
                        f"(default: {PYODIDE_URL})")
    return p


def playground_command(argv: list[str]) -> int:
    try:
        args = playground_parser().parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        index = write_site(Path(args.out), args.pyodide)
    except PlaygroundError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return 2
    print(index)
    return 0


def write_site(out: Path, pyodide: str) -> Path:
    """Writes the site; returns the path of its index.html."""
    from .bundle import write_bundle
    from .wheels import BundleError, write_wheels

    if out.exists() and not out.is_dir():
        raise PlaygroundError(f"cannot write the playground into {out}: it is a file")
    source = pyodide_source(pyodide)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for asset in SITE.iterdir():
            if asset.is_file():
                shutil.copyfile(asset, out / asset.name)
        wheels_dir = out / "wheels"
        if wheels_dir.exists():
            shutil.rmtree(wheels_dir)  # no wheel of an earlier version stays
        try:
            wheels = write_wheels(wheels_dir, PYODIDE_ENV)
        except BundleError as e:
            raise PlaygroundError(str(e)) from None
        if isinstance(source, Path):
            copied = out / "pyodide"
            if copied.exists():
                shutil.rmtree(copied)
            shutil.copytree(source, copied, ignore=shutil.ignore_patterns("node_modules", "*.map", "*.d.ts"))
            where = "pyodide/"
        else:
            where = source
        site = {"pyodide": where, "wheels": [f"wheels/{w.name}" for w in wheels], **write_bundle(out, wheels)}
        (out / "site.json").write_text(json.dumps(site, indent=1) + "\n", encoding="utf-8")
    except OSError as e:
        raise PlaygroundError(f"cannot write the playground into {out}: {e.strerror or e}") from None
    return out / "index.html"


def pyodide_source(given: str):
    """An http(s) URL (ending in `/`), or the Path of a Pyodide folder."""
    if given.startswith(("http://", "https://")):
        return given if given.endswith("/") else given + "/"
    folder = Path(given)
    if not folder.is_dir():
        raise PlaygroundError(f"--pyodide: {given} is neither an http(s) URL nor a folder")
    missing = [name for name in PYODIDE_FILES if not (folder / name).is_file()]
    if missing:
        raise PlaygroundError(f"--pyodide: {given} is not a Pyodide distribution folder (no {missing[0]})")
    return folder
