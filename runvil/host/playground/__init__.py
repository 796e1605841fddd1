"""`runvil playground OUT [--pyodide URL_OR_DIR]` (docs/reference/commands.md
"runvil playground"): writes a static site that runs prompts in the browser.

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
    print(SERVE.format(out=args.out), file=sys.stderr)
    return 0


#: how to look at the site: a page's Web Worker is not allowed from a file:// URL
SERVE = ("runvil: serve it with `python -m http.server --directory {out} 8000`, "
         "then open http://localhost:8000/")
#: the list of what runvil wrote into OUT: a later run rewrites only those files
MANIFEST = ".runvil-playground.json"


def write_site(out: Path, pyodide: str) -> Path:
    """Writes the site; returns the path of its index.html. Refuses, before
    writing anything, an OUT holding a file runvil did not write there, and
    a Pyodide folder inside OUT (or OUT inside it)."""
    from .bundle import write_bundle
    from .wheels import BundleError, write_wheels

    if out.exists() and not out.is_dir():
        raise PlaygroundError(f"cannot write the playground into {out}: it is a file")
    source = pyodide_source(pyodide)
    if isinstance(source, Path):
        _check_apart(out, source, pyodide)
    written = _ours(out)
    try:
        _remove(out, written)
        out.mkdir(parents=True, exist_ok=True)
        made: list[str] = []
        for asset in SITE.iterdir():
            if asset.is_file():
                shutil.copyfile(asset, out / asset.name)
                made.append(asset.name)
        try:
            wheels = write_wheels(out / "wheels", PYODIDE_ENV)
        except BundleError as e:
            raise PlaygroundError(str(e)) from None
        made += [f"wheels/{w.name}" for w in wheels]
        if isinstance(source, Path):
            copied = out / "pyodide"
            shutil.copytree(source, copied, ignore=shutil.ignore_patterns("node_modules", "*.map", "*.d.ts"))
            made += [f"pyodide/{rel}" for rel in _files(copied)]
            where = "pyodide/"
        else:
            where = source
        bundle = write_bundle(out, wheels)
        made += [bundle["bundle"], bundle["table"]]
        site = {"pyodide": where, "wheels": [f"wheels/{w.name}" for w in wheels], **bundle}
        (out / "site.json").write_text(json.dumps(site, indent=1) + "\n", encoding="utf-8")
        made.append("site.json")
        if isinstance(source, Path) and write_snapshot(out):
            site["snapshot"] = SNAPSHOT
            (out / "site.json").write_text(json.dumps(site, indent=1) + "\n", encoding="utf-8")
            made.append(SNAPSHOT)
        (out / MANIFEST).write_text(json.dumps({"files": sorted(made)}, indent=1) + "\n", encoding="utf-8")
    except OSError as e:
        raise PlaygroundError(f"cannot write the playground into {out}: {e.strerror or e}") from None
    return out / "index.html"


#: Pyodide's memory with runvil imported, made where the site is written
SNAPSHOT = "snapshot.bin.gz"
#: what making it may take (Pyodide's start in Node, runvil's imports, a first parse)
SNAPSHOT_SECONDS = 120


def write_snapshot(out: Path) -> bool:
    """OUT/snapshot.bin.gz, made by snapshot.mjs in Node from the site's own
    Pyodide folder, so that a first visit starts from it (worker.js); False,
    and no file, where Node is missing or the snapshot cannot be made: the
    page then starts Python itself, as it always can."""
    import subprocess

    node = shutil.which("node")
    target = out / SNAPSHOT
    if node is None:
        return False
    try:
        done = subprocess.run([node, str(Path(__file__).parent / "snapshot.mjs"), str(out)], capture_output=True,
                              timeout=SNAPSHOT_SECONDS, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        done = None
    if done is None or done.returncode != 0 or not target.is_file():
        target.unlink(missing_ok=True)
        return False
    return True


def _check_apart(out: Path, source: Path, given: str) -> None:
    """Copying the Pyodide folder must not delete or overwrite it."""
    from ..outputs import inside

    if inside(str(source), str(out)):
        raise PlaygroundError(f"--pyodide {given} is inside {out}, which the playground rewrites: "
                              "give a Pyodide folder outside it")
    if inside(str(out), str(source)):
        raise PlaygroundError(f"cannot write the playground into {out}: it is inside the Pyodide folder {given}")


def _files(folder: Path) -> list[str]:
    """Every file under `folder` (links included, not followed), relative."""
    import os

    found = []
    for root, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            found.append(os.path.relpath(os.path.join(root, name), folder).replace(os.sep, "/"))
    return sorted(found)


def _ours(out: Path) -> list[str]:
    """The files runvil wrote into OUT earlier (its manifest); a
    PlaygroundError when OUT holds any other file."""
    if not out.is_dir():
        return []
    present = _files(out)
    listed: set = set()
    if (out / MANIFEST).is_file():
        try:
            listed = set(json.loads((out / MANIFEST).read_text(encoding="utf-8")).get("files", []))
        except (OSError, ValueError, AttributeError):
            listed = set()
    foreign = [f for f in present if f != MANIFEST and f not in listed]
    if foreign or (present and MANIFEST not in present):
        first = (foreign or present)[0]
        raise PlaygroundError(f"cannot write the playground into {out}: it holds {first}, which runvil playground "
                              "did not write; give a new or empty folder")
    return [f for f in present if f != MANIFEST]


def _remove(out: Path, written: list[str]) -> None:
    """Removes what an earlier run wrote (no wheel of an older version stays)."""
    import os

    for rel in written:
        (out / rel).unlink(missing_ok=True)
    for folder in ("wheels", "pyodide"):
        for root, dirs, _files in sorted(os.walk(out / folder), reverse=True):
            try:
                os.rmdir(root)
            except OSError:
                pass


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
