"""`runvil check` catches what the run would (docs/reference/commands.md, `runvil check`): a
static pass over literal names. A name that certainly fails is an error
(exit 3, as a parse error) with the run's own message; a likely mistake a
warning (exit 0); folders are checked recursively; a good run ends with
one summary line; `--json` is one object for editors. Every prompt of
examples/ passes; broken copies of them do not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from .prompts import head

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"



def test_every_example_passes_check(cli):
    code, out, err = cli("check", str(EXAMPLES))
    prompts = sorted(EXAMPLES.rglob("*.md"))
    assert code == 0, err
    assert out == f"ok: {len(prompts)} files, 1 warning\n"
    # the tutorial's misspelt `mesages` is a warning: the run fails there, the check does not
    assert err == (f"warning[Name]: {EXAMPLES / 'tutorial' / 'oops.md'}:14: global 'mesages' is never set\n"
                   "help: did you mean 'messages'?\n")


def test_a_good_file_gets_one_summary_line(cli):
    assert cli("check", str(EXAMPLES / "hello.md")) == (0, "ok: 1 file, 0 warnings\n", "")


def broken(tmp_path, name: str, old: str, new: str) -> str:
    path = tmp_path / name
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    return name


@pytest.mark.parametrize("name, old, new, said", [
    ("word-count.md", "jump('Report')", "jump('Reprot')",
     "word-count.md:21: jump: no section named `Reprot` (sections: Split, Never walked, Report; did you mean "
     "'Report'?)"),
    ("hello.md", "models.use('writer')", "models.use('writr')",
     "hello.md:17: models.use: unknown model role 'writr' (declared: writer; did you mean 'writer'?)"),
    ("fanout.md", "tasks.fanout('City'", "tasks.fanout('Ctiy'",
     "fanout.md:16: tasks.fanout: no section named `Ctiy` (sections: City; did you mean 'City'?)"),
    ("draft-and-review.md", "{{var.draft}}", "{{var.drfat}}",
     "draft-and-review.md:37: {{var.drfat}}: no block sets var.drfat, so the run fails with global `var.drfat` "
     "is nil"),
])
def test_a_broken_copy_of_an_example_fails_check_with_the_runs_message(cli, tmp_path, name, old, new, said):
    broken(tmp_path, name, old, new)
    code, out, err = cli("check", name)
    assert code == 3
    assert err.splitlines()[0] == f"error[Name]: {said}"
    assert out == "failed: 1 file, 1 error, 0 warnings\n"
    code, out, err = cli("run", name)  # `run` is unchanged: it fails when it gets there, or not at all
    assert code in (0, 1)


def test_the_run_says_the_same_as_check(cli, tmp_path):
    broken(tmp_path, "hello.md", "models.use('writer')", "models.use('writr')")
    code, out, err = cli("run", "hello.md")
    assert code == 1
    assert "models.use: unknown model role 'writr' (declared: writer; did you mean 'writer'?)" in err


def test_a_prose_only_prompt_with_no_model_selected_is_told_the_line_to_add(cli, tmp_path):
    (tmp_path / "p.md").write_text(head() + "## Ask\n\nSay hello.\n", encoding="utf-8")
    code, out, err = cli("check", "p.md")
    assert code == 3
    assert err.splitlines() == [
        "error[Name]: p.md:13: section `Ask` runs a model round with no model selected: no model selected; call "
        "models.use(role) or models.default(role) first",
        "help: add models.default('writer') to the H1 block"]


@pytest.mark.parametrize("uses, call, said", [
    ("uses: [web]\n", "tools.offer('web/serch')",
     "tools.offer: pack 'web' has no tool 'serch' (its tools: search, fetch; did you mean 'search'?)"),
    ("", "tools.offer('web/search')", "tools.offer: pack 'web' is not listed in the frontmatter's uses"),
    ("uses: [web]\n", "packs.offer('files')", "packs.offer: pack 'files' is not listed in the frontmatter's uses"),
])
def test_tools_and_packs(cli, tmp_path, uses, call, said):
    (tmp_path / "p.md").write_text(head(uses) + f"## A\n\n```lua\n{call}\nreturn 1\n```\n",
                                   encoding="utf-8")
    code, out, err = cli("check", "p.md")
    assert (code, err.splitlines()[0]) == (3, f"error[Name]: p.md:{14 + bool(uses)}: {said}")


def test_what_the_scan_cannot_see_through_is_no_error(cli, tmp_path):
    (tmp_path / "p.md").write_text(head() + """## A

```lua
local jump = function(name) return name end
jump('Nowhere')  -- a local of the prompt's own, not the Engine's
-- jump('Nowhere') in a comment
local s = "jump('Nowhere')"
var[s] = 1
models.use('writer')
```

Say {{var.unset}}.
""", encoding="utf-8")
    code, out, err = cli("check", "p.md")
    assert code == 0
    # var written by a computed key: an unset {{var.x}} is only likely, a warning
    assert err.splitlines()[0] == ("warning[Name]: p.md:22: {{var.unset}}: no block sets var.unset, so the run "
                                   "fails with global `var.unset` is nil")
    assert out == "ok: 1 file, 1 warning\n"


def test_a_bare_name_for_a_var_is_a_warning(cli, tmp_path):
    body = "```lua\nmodels.default('writer')\nvar.topic = 'x'\n```\n\n## A\n\nWrite about {{topic}}.\n"
    (tmp_path / "p.md").write_text(head() + body, encoding="utf-8")
    code, out, err = cli("check", "p.md")
    assert (code, out) == (0, "ok: 1 file, 1 warning\n")
    assert err.splitlines() == ["warning[Name]: p.md:18: {{topic}} reads a global that no block sets, so the run "
                                "fails with global `topic` is nil", "help: var.topic is set: write {{var.topic}}"]


def test_a_folder_is_checked_recursively_and_its_readme_is_no_prompt(cli, tmp_path):
    shutil.copytree(EXAMPLES, tmp_path / "ex")
    (tmp_path / "ex" / "README.md").write_text("# Examples\n", encoding="utf-8")
    hello = tmp_path / "ex" / "tutorial" / "deeper" / "hello.md"
    hello.parent.mkdir()
    hello.write_text((EXAMPLES / "hello.md").read_text().replace("models.use('writer')", "models.use('writr')"))
    code, out, err = cli("check", "ex")
    assert code == 3
    assert out == f"failed: {len(list(EXAMPLES.rglob('*.md'))) + 1} files, 1 error, 1 warning\n"
    assert "error[Name]: ex/tutorial/deeper/hello.md:17: models.use: unknown model role 'writr'" in err


def test_json_for_editors(cli, tmp_path):
    broken(tmp_path, "hello.md", "models.use('writer')", "models.use('writr')")
    code, out, err = cli("check", "--json", "hello.md", str(EXAMPLES / "tutorial" / "oops.md"))
    assert code == 3 and err == ""
    data = json.loads(out)
    assert (data["ok"], data["errors"], data["warnings"]) == (False, 1, 1)
    first, second = data["files"]
    assert first == {"file": "hello.md", "ok": False, "warnings": [], "errors": [
        {"level": "error", "file": "hello.md", "line": 17,
         "message": "models.use: unknown model role 'writr' (declared: writer; did you mean 'writer'?)"}]}
    assert second["ok"] is True and second["warnings"][0]["help"] == ["did you mean 'messages'?"]


def test_a_parse_error_is_still_an_error_of_check(cli, tmp_path):
    (tmp_path / "p.md").write_text("---\nname: x\n---\n\n# A\n", encoding="utf-8")
    code, out, err = cli("check", "--json", "p.md")
    error = json.loads(out)["files"][0]["errors"][0]
    assert code == 3 and (error["kind"], error["line"]) == ("Parse", 1)


def test_a_misspelt_option(cli):
    code, out, err = cli("check", "--jsn", "x.md")
    assert code == 2 and err.splitlines()[0] == "runvil check: unknown option --jsn (did you mean '--json'?)"
