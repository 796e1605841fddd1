"""The tutorial's outputs are what the runs print: every `console` block in
docs/tutorial/ is a list of `$ runvil ...` commands, each followed by the
output it must give (stdout and stderr together, as a terminal shows a
non-interactive run). Each command runs offline, from a folder where
`examples/` is the repository's, so files it writes stay out of the tree.
Every example the tutorial names is a file, and every prompt in
examples/tutorial/ has a world file."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial"
EXAMPLES = ROOT / "examples" / "tutorial"

_CONSOLE = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


def sessions():
    """(chapter, command, expected output) for every command shown."""
    found = []
    for chapter in sorted(TUTORIAL.glob("*.md")):
        for block in _CONSOLE.findall(chapter.read_text(encoding="utf-8")):
            command, out = None, []
            for line in block.splitlines():
                if line.startswith("$ "):
                    if command is not None:
                        found.append((chapter.name, command, "\n".join(out)))
                    command, out = line[2:], []
                else:
                    out.append(line)
            if command is not None:
                found.append((chapter.name, command, "\n".join(out)))
    return found


SESSIONS = sessions()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tutorial")
    (folder / "examples").symlink_to(ROOT / "examples")
    return folder


def test_every_chapter_shows_checked_output():
    chapters = {c for c, _, _ in SESSIONS}
    assert chapters == {p.name for p in TUTORIAL.glob("0*.md")}


@pytest.mark.parametrize("chapter,command,expected", SESSIONS,
                         ids=[f"{c}:{cmd.split()[2] if len(cmd.split()) > 2 else cmd}" for c, cmd, _ in SESSIONS])
def test_the_tutorial_shows_what_the_run_prints(workdir, chapter, command, expected):
    words = shlex.split(command)
    assert words[0] == "runvil", command
    env = {k: v for k, v in os.environ.items()
           if k not in ("RUNVIL_CONFIG", "RUNVIL_TRACEBACK", "OPENAI_API_KEY", "OPENAI_BASE_URL")}
    done = subprocess.run([sys.executable, "-m", "runvil.host.cli", *words[1:]], cwd=workdir, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    assert done.stdout.decode("utf-8").rstrip("\n") == expected, f"{chapter}: {command}"


def test_every_linked_file_exists():
    """In the tutorial, the references and the README: no link leaves the
    repository, and each names a file that is there."""
    pages = [*TUTORIAL.glob("*.md"), *(ROOT / "docs" / "reference").glob("*.md"), ROOT / "README.md"]
    for chapter in pages:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", chapter.read_text(encoding="utf-8")):
            assert "://" not in target, f"{chapter.name} links outside the repository: {target}"
            assert (chapter.parent / target).resolve().exists(), f"{chapter.name}: {target}"


def test_every_tutorial_prompt_has_its_world_and_passes_check():
    from runvil.prompt import check_file

    prompts = sorted(EXAMPLES.glob("*.md"))
    assert prompts
    for prompt in prompts:
        assert prompt.with_suffix(".yaml").exists(), prompt.name
        assert check_file(prompt) == [], prompt.name


# ------------------------------------------------------------ the reference

REFERENCE = ROOT / "docs" / "reference"
MESSAGE_PACKAGES = ("runvil.prompt", "runvil.engine")
#: the Harness's modules that talk to providers: their texts reach the user too (issue 25)
PROVIDER_MODULES = ("runvil.harness.openai", "runvil.harness.replies", "runvil.harness.wire",
                    "runvil.harness.providers", "runvil.harness.errortext", "runvil.harness.http11")


def message_table() -> list[tuple[str, list[tuple[str, str]]]]:
    """Every message text of the parser, the Engine and the provider code: each module's
    upper-case string constants holding words, in the module's order, each
    text once (at the first module that defines it)."""
    import importlib
    import pkgutil

    seen: set[str] = set()
    table = []
    for package in MESSAGE_PACKAGES + PROVIDER_MODULES:
        pkg = importlib.import_module(package)
        inside = pkgutil.walk_packages(pkg.__path__, package + ".") if hasattr(pkg, "__path__") else ()
        names = [package] + [m.name for m in inside]
        for name in names:
            mod = importlib.import_module(name)
            rows = []
            for key, value in vars(mod).items():
                if key.isupper() and isinstance(value, str) and " " in value.strip() and value not in seen:
                    seen.add(value)
                    rows.append((key, value))
            if rows:
                table.append((name, rows))
    return table


def errors_page() -> str:
    lines = ["# Every message text", "",
             "Generated from the code by `python tests/test_tutorial.py` (a test fails when it is out of",
             "date). `{name}` marks a part filled in when the message is given. The error kinds are in the",
             "[language reference](error-values.md#error-values-and-their-kinds).", ""]
    for module, rows in message_table():
        lines += [f"## `{module}`", "", "| name | text |", "|---|---|"]
        for key, value in rows:
            shown = value.replace("|", "\\|").replace("\n", "\\n")
            lines.append(f"| `{key}` | {shown} |")
        lines.append("")
    return "\n".join(lines)


def test_the_message_list_is_generated_from_the_code():
    assert (REFERENCE / "errors.md").read_text(encoding="utf-8") == errors_page(), \
        "docs/reference/errors.md is out of date: run python tests/test_tutorial.py"


# the error kinds and the globals the reference lists: tests/test_reference.py


def test_every_option_of_every_command_is_in_the_command_reference(capsys):
    from runvil.host.cli import main

    text = (REFERENCE / "commands.md").read_text(encoding="utf-8")
    for command in ("run", "lua", "chat", "view", "conformance", "models"):
        assert main([command, "--help"]) == 0
        help_text = capsys.readouterr().out
        options = set(re.findall(r"^\s+(-{1,2}[a-z][a-z-]*)", help_text, re.M)) - {"-h", "--help", "--"}
        assert options, command
        for option in options:
            assert f"`{option}" in text, f"runvil {command} {option}"


def test_the_readme_links_the_docs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("docs/tutorial/README.md", "docs/reference/language.md", "docs/reference/commands.md"):
        assert f"]({target})" in readme, target
    assert "../shared" not in readme  # a clone has no such folder


if __name__ == "__main__":
    (REFERENCE / "errors.md").write_text(errors_page(), encoding="utf-8")
    print(REFERENCE / "errors.md")
