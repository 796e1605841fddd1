"""Start-up imports only what a run uses (issue 13, item 3): no httpx, no
entry-point scan (importlib.metadata) and no rich for echo and scripted
runs off a terminal; with warm caches no parser (lark), no compiler and
no PyYAML (the frontmatter comes from the cache), and neither attrs nor
dataclasses nor inspect (the value classes are runvil.structs);
`runvil check` and `runvil run` share the compiled chunks. Checked with
`python -X importtime`, which lists every module a process imports."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_CODE = {"httpx", "importlib.metadata", "runvil.harness.openai"}
TERMINAL_CODE = {"rich", "rich.console"}
PARSER_CODE = {"lark", "runvil.lua.syntax.parser", "runvil.lua.compiler.codegen", "runvil.lua.syntax.ast"}
#: heavy modules a run with warm caches does without (each costs milliseconds)
CLASS_CODE = {"attrs", "attr", "dataclasses", "inspect", "typing", "datetime"}
YAML_CODE = {"yaml", "runvil.prompt.frontmatter"}
#: what keeping a run in the history of runs adds (sqlite3 imports datetime)
HISTORY_CODE = {"datetime"}

WORLD = """\
input: hi
models:
  writer:
    model: local/small
replies:
- text: hello from the world
  finish_reason: stop
"""


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the runvil package: the caches' keys hold its files' times,
    which other work in a shared checkout may change between two runs."""
    folder = tmp_path_factory.mktemp("src")
    shutil.copytree(ROOT / "runvil", folder / "runvil", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


@pytest.fixture
def env(tmp_path, source):
    """A process environment with a cache of the test's own and no config."""
    e = {k: v for k, v in os.environ.items() if not k.startswith("RUNVIL_")}
    e["RUNVIL_CACHE_DIR"] = str(tmp_path / "cache")
    e["PYTHONPATH"] = str(source)
    return e


def imports(args: list[str], env: dict, cwd: Path, flags=()) -> tuple[set[str], subprocess.CompletedProcess]:
    """The modules `runvil ARGS` imports, and how the process ended."""
    p = subprocess.run([sys.executable, *flags, "-X", "importtime", "-m", "runvil.host.cli", *args], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    names = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", p.stderr, re.M))
    assert "runvil.host.cli" in names or "runvil.host" in names, p.stderr[-2000:]
    return names, p


@pytest.fixture
def hello(tmp_path) -> Path:
    shutil.copy(ROOT / "examples" / "hello.md", tmp_path / "hello.md")
    (tmp_path / "hello.yaml").write_text(WORLD, encoding="utf-8")
    return tmp_path


def test_an_echo_run_imports_no_provider_code(hello, env):
    names, p = imports(["run", "hello.md"], env, hello)
    assert p.returncode == 0 and p.stdout == "echo: hello\n"
    assert not names & (PROVIDER_CODE | TERMINAL_CODE)


def test_a_scripted_run_imports_no_provider_code(hello, env):
    names, p = imports(["run", "hello.md", "--script", "hello.yaml"], env, hello)
    assert p.returncode == 0 and p.stdout == "hello from the world\n", p.stderr[-2000:]
    assert not names & (PROVIDER_CODE | TERMINAL_CODE)


def test_an_echo_fan_out_answered_at_once_imports_no_provider_code(tmp_path, env):
    names, p = imports(["run", str(ROOT / "examples" / "fanout.md")], env, tmp_path)
    assert p.returncode == 0 and p.stdout.count("echo: ") == 3
    assert not names & PROVIDER_CODE


def test_a_prompt_that_uses_a_plugin_pack_still_scans_the_entry_points(tmp_path, env):
    text = (ROOT / "examples" / "hello.md").read_text(encoding="utf-8")
    (tmp_path / "p.md").write_text(text.replace("models:\n", "uses: [notbuiltin]\nmodels:\n", 1), encoding="utf-8")
    names, p = imports(["run", "p.md"], env, tmp_path)
    assert p.returncode == 0 and "importlib.metadata" in names


def test_check_then_run_share_the_compiled_chunks(hello, env):
    names, p = imports(["check", "hello.md"], env, hello)
    assert p.returncode == 0 and "lark" in names  # a cold cache: parsed once
    chunks = sorted((Path(env["RUNVIL_CACHE_DIR"])).glob("chunk-*.bin"))
    assert chunks
    names, p = imports(["run", "hello.md"], env, hello)
    assert p.returncode == 0 and p.stdout == "echo: hello\n"
    assert not names & (PARSER_CODE | YAML_CODE)  # the blocks and the frontmatter came from the cache `check` filled
    assert not names & (CLASS_CODE - HISTORY_CODE)
    assert sorted(Path(env["RUNVIL_CACHE_DIR"]).glob("chunk-*.bin")) == chunks


def test_runvil_lua_with_warm_caches_imports_no_parser(tmp_path, env):
    for _ in range(2):
        names, p = imports(["lua", "-e", "print(('%d'):format(6 * 7))"], env, tmp_path)
        assert p.returncode == 0 and p.stdout == "42\n"
    assert not names & (PARSER_CODE | PROVIDER_CODE | TERMINAL_CODE | CLASS_CODE | YAML_CODE)


def test_with_the_caches_off_a_run_parses_and_writes_nothing(hello, env):
    env["RUNVIL_CACHE"] = "0"
    for _ in range(2):
        names, p = imports(["run", "hello.md"], env, hello)
        assert p.returncode == 0 and p.stdout == "echo: hello\n"
        assert "lark" in names
    assert not Path(env["RUNVIL_CACHE_DIR"]).exists()


def test_the_commands_run_the_copy(tmp_path, env, source):
    p = subprocess.run([sys.executable, "-c", "import runvil; print(runvil.__file__)"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert Path(p.stdout.strip()).parent == source / "runvil"


def test_version_imports_neither_the_lua_layer_nor_yaml(tmp_path, env):
    names, p = imports(["--version"], env, tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("runvil ")
    assert not {n for n in names if n.startswith(("runvil.lua", "yaml", "attr", "lark"))}


def test_a_second_echo_run_imports_neither_yaml_nor_attrs(hello, env):
    names, p = imports(["run", "hello.md"], env, hello)
    assert p.returncode == 0 and "yaml" in names  # a cold cache: the frontmatter is read once
    names, p = imports(["run", "hello.md", "--no-log"], env, hello)
    assert p.returncode == 0 and p.stdout == "echo: hello\n"
    assert not names & (PARSER_CODE | YAML_CODE | CLASS_CODE | PROVIDER_CODE | TERMINAL_CODE)
    more, p = imports(["run", "hello.md"], env, hello)  # kept in the history of runs: SQLite, which imports datetime
    assert p.returncode == 0 and more - names <= {"sqlite3", "sqlite3.dbapi2", "_sqlite3", "datetime", "_datetime",
                                                  "runvil.host.history", "runvil.host.batch", "runvil.host.batch.store",
                                                  "runvil.host.batch.stored_run", "runvil.host.batch.key", "runvil.host.batch.command", "hashlib",
                                                  "_hashlib", "_blake2"}


def test_a_run_with_a_bad_frontmatter_reads_the_yaml_every_time(hello, env):
    (hello / "bad.md").write_text((hello / "hello.md").read_text().replace("runvil: 0", "runvil: 1"))
    for _ in range(2):
        names, p = imports(["run", "bad.md"], env, hello)
        assert p.returncode == 3 and "yaml" in names
        assert "error[Parse]: bad.md:7: invalid frontmatter: runvil must be 0, got 1" in p.stderr


def test_a_warm_check_imports_neither_the_engine_nor_the_run_command_nor_the_lua_runtime(hello, env):
    for _ in range(2):
        names, p = imports(["check", "hello.md"], env, hello)
        assert p.returncode == 0
    assert not {n for n in names if n.startswith(("runvil.engine", "runvil.harness", "yaml", "attr", "lark"))}
    assert not names & ({"argparse", "runvil.host.runcmd", "runvil.lua.state", "runvil.lua.runtime.values"} | CLASS_CODE)


def test_an_installed_check_or_lua_imports_no_pathlib(hello, env):
    # -S: no site hooks, as an installed runvil starts (this venv's editable
    # install imports pathlib at start-up for every Python program)
    import greenlet

    env["PYTHONPATH"] += os.pathsep + str(Path(greenlet.__file__).parents[1])
    for args in (["check", "hello.md"], ["lua", "-e", "print(1)"]):
        for _ in range(2):
            names, p = imports(args, env, hello, flags=["-S"])
            assert p.returncode == 0, p.stderr[-2000:]
        assert not names & ({"pathlib", "tempfile", "shutil"} | CLASS_CODE | YAML_CODE), args
