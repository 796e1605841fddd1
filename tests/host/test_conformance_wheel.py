"""The conformance suite from the installed wheel alone, as an implementer
meets it: in a fresh folder with no clone around, `runvil conformance`
lists and exports the shipped suite, and runs a partial implementation
with a skip list and `-j 2`, giving per-section counts, JUnit with an
error for a hang, and no process left behind.

Slow (pip builds the wheel): a tier test (RUNVIL_TIERS=1)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .test_conformance_toy import TOY, started, wait_gone

ROOT = Path(__file__).resolve().parents[2]
RUN = "import sys; from runvil.host.cli import main; sys.exit(main(sys.argv[1:]))"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """runvil's wheel, built from a copy of the repository, unpacked into a
    folder of its own (the dependencies come from this environment)."""
    src = tmp_path_factory.mktemp("src") / "runvil"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__",
                                                             ".venv*", "tests", "benchmarks"))
    wheels = tmp_path_factory.mktemp("wheels")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    [wheel] = wheels.glob("runvil-*.whl")
    target = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return target


def runvil(installed: Path, cwd: Path, *args: str, **env) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environ.update(PYTHONPATH=str(installed), **env)
    return subprocess.run([sys.executable, "-c", RUN, *args], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.tier
@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_the_installed_wheel_lists_exports_and_runs_a_partial_implementation(installed, tmp_path):
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    where = runvil(installed, fresh, "--version")
    assert where.returncode == 0
    located = subprocess.run([sys.executable, "-c", "import runvil.host.suite as s; print(s.suite_folder())"],
                             cwd=fresh, env={**os.environ, "PYTHONPATH": str(installed)}, capture_output=True,
                             text=True)
    assert located.stdout.strip().startswith(str(installed))

    listed = runvil(installed, fresh, "conformance", "--list")
    assert listed.returncode == 0 and len(listed.stdout.split()) >= 768

    exported = runvil(installed, fresh, "conformance", "--export", "suite")
    manifest = json.loads((fresh / "suite" / "manifest.json").read_text(encoding="utf-8"))
    assert exported.returncode == 0 and len(manifest["cases"]) == len(listed.stdout.split())
    assert (fresh / "suite" / "FORMAT.md").exists() and (fresh / "suite" / "adapters" / "example_adapter.py").exists()
    first = fresh / "suite" / manifest["cases"][0]["path"]
    assert {p.name for p in first.iterdir()} == {"prompt.md", "world.yaml", "world.json", "expect.json", "command.txt"}

    (fresh / "skip.txt").write_text("task-notices/cases.yaml::notice-roles\n", encoding="utf-8")
    pids = tmp_path / "pids"
    run = runvil(installed, fresh, "conformance", "--impl", TOY, "-j", "2", "--timeout", "3", "--skip", "skip.txt",
                 "--skip-features", "tools", "--junit", "report.xml", "-k", "starting-a-conversation/",
                 "-k", "task-notices/", TOY_PIDS=str(pids))
    assert run.returncode == 1, run.stderr
    out = run.stdout
    assert "ERROR starting-a-conversation/more.yaml::fan-out-arms-fresh" in out
    assert "\nsection " in out and "\nStarting a conversation " in out and "\nfolder " in out
    assert f"suite runvil-conformance {manifest['version']}\n" in out
    root = ET.parse(fresh / "report.xml").getroot()
    hang = root.find("testsuite/testcase[@name='fan-out-arms-fresh']/error")
    assert hang is not None and hang.get("message") == "stopped after 3 seconds"
    assert int(root.get("errors")) >= 1 and int(root.get("skipped")) >= 1
    assert len(started(pids)) == 2 and wait_gone(started(pids)) == []
