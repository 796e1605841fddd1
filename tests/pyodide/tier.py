"""What the Pyodide tier (this folder) and the playground's browser tests
share: the opt-in switch, the skip reasons, and the npm packages they
install, pinned, into a cache folder (the npm registry only).

The tier is opt-in for the README's test command: `RUNVIL_PYODIDE=1`
runs it (CI does); without `node` and `npm` it skips, saying so. The cache
is `RUNVIL_PYODIDE_CACHE`, else `~/.cache/runvil-tests`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from runvil.host.playground.pins import PYODIDE_VERSION

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: drives Debian's chromium for the playground's tests
PLAYWRIGHT_VERSION = "1.65.2"
OPT_IN = "the Pyodide tier is opt-in: set RUNVIL_PYODIDE=1 to run it (it needs node and npm)"


def skip_unless_enabled() -> None:
    """Skips the calling test unless the tier is on and node is there."""
    if os.environ.get("RUNVIL_PYODIDE") != "1":
        pytest.skip(OPT_IN)
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.skip(f"`{tool}` is not installed: the Pyodide tier needs Node.js and npm")


def cache_folder() -> Path:
    folder = os.environ.get("RUNVIL_PYODIDE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "runvil-tests")
    return Path(folder)


def npm_package(name: str, version: str) -> Path:
    """The folder of npm package `name@version`, installed on first use
    into its own prefix in the cache folder."""
    prefix = cache_folder() / f"{name}-{version}"
    folder = prefix / "node_modules" / name
    if not (folder / "package.json").exists():
        prefix.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                               "--no-package-lock", "--loglevel=error", f"{name}@{version}"],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            pytest.fail(f"npm install {name}@{version} failed:\n{done.stderr[-3000:]}")
    return folder


def pyodide_folder() -> Path:
    """The pinned Pyodide, as the npm registry ships it."""
    return npm_package("pyodide", PYODIDE_VERSION)
