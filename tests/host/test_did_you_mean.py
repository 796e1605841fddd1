"""A misspelt name is answered with the name meant: frontmatter keys and
role options, config keys (with their line), `default_model` and `[bind]`
models, command-line options and commands, conformance case keys; a file
that is not there is said in runvil's words, not Python's."""

from __future__ import annotations

import pytest

from runvil.host.cases import CaseError, read_case_file

from .prompts import head




def test_a_misspelt_frontmatter_key_and_role_option(cli, tmp_path):
    (tmp_path / "a.md").write_text(head("modles:\n  writer: {}\n", roles=()), encoding="utf-8")
    (tmp_path / "b.md").write_text(head("models:\n  writer: {temprature: 0.2}\n", roles=()), encoding="utf-8")
    code, out, err = cli("run", "a.md")
    assert code == 3
    assert err == ("error[Parse]: a.md:5: invalid frontmatter: unknown key 'modles' (only keys starting with 'x-' "
                   "may be added); did you mean 'models'?\n")
    code, out, err = cli("run", "b.md")
    assert err == ("error[Parse]: b.md:6: invalid frontmatter: models.writer: unknown option 'temprature'; "
                   "did you mean 'temperature'?\n")


CONFIG = """\
default_model = "local/small"

[providers.local]
base_url = "http://127.0.0.1:9/v1"
{provider}
[models."local/small"]
provider = "local"
context = 8192
{model}
[limits]
{limits}
"""


@pytest.mark.parametrize("fill, said", [
    ({"limits": "block_step = 5"}, "c.toml:11: unknown key 'limits.block_step'; did you mean 'block_steps'?"),
    ({"provider": "timout = 3"}, "c.toml:5: unknown key 'providers.local.timout'; did you mean 'timeout'?"),
    ({"model": "contxt = 3"}, "c.toml:9: unknown key 'models.\"local/small\".contxt'; did you mean 'context'?"),
])
def test_a_misspelt_config_key_names_its_line_and_the_key_meant(cli, tmp_path, fill, said):
    (tmp_path / "c.toml").write_text(CONFIG.format(**{"provider": "", "model": "", "limits": "", **fill}),
                                     encoding="utf-8")
    (tmp_path / "p.md").write_text(head(roles=()), encoding="utf-8")
    code, out, err = cli("run", "p.md", "--config", "c.toml")
    assert (code, err) == (2, f"runvil: {said}\n")


def test_a_misspelt_default_model(cli, tmp_path):
    (tmp_path / "c.toml").write_text(CONFIG.format(provider="", model="", limits="").replace(
        'default_model = "local/small"', 'default_model = "local/smal"'), encoding="utf-8")
    (tmp_path / "p.md").write_text(head(roles=()), encoding="utf-8")
    code, out, err = cli("run", "p.md", "--config", "c.toml")
    assert (code, err) == (2, "runvil: c.toml:1: default_model: unknown model 'local/smal' (no "
                              "[models.\"local/smal\"] table); did you mean 'local/small'?\n")


def test_misspelt_options_and_commands(cli, tmp_path):
    (tmp_path / "p.md").write_text(head(roles=()), encoding="utf-8")
    code, out, err = cli("run", "p.md", "--jsn", "--scirpt=w.yaml")
    assert code == 2
    assert err.splitlines()[-1] == ("runvil run: error: unrecognized arguments: --jsn --scirpt=w.yaml "
                                    "(did you mean '--json', '--script'?)")
    code, out, err = cli("rnu", "p.md")
    assert code == 2 and err.splitlines()[0] == "runvil: unknown command 'rnu' (did you mean 'run'?)"
    code, out, err = cli("models", "--jsno")
    assert code == 2 and err.splitlines()[-1].endswith("(did you mean '--json'?)")
    code, out, err = cli("lua", "--cpuu", "3", "-e", "print(1)")
    assert (code, err) == (2, "runvil: unrecognized option '--cpuu' (did you mean '--cpu'? runvil lua --help lists "
                              "the options)\n")
    code, out, err = cli("chek", "p.md")
    assert code == 2 and err.splitlines()[0] == "runvil: unknown command 'chek' (did you mean 'check'?)"


@pytest.mark.parametrize("argv, said", [
    (("view", "x.db", "--rnu", "3"), "runvil view: error: unrecognized arguments: --rnu 3 (did you mean '--run'?)"),
    (("batch", "p.md", "d.txt", "--retry-faild"),
     "runvil batch: error: unrecognized arguments: --retry-faild (did you mean '--retry-failed'?)"),
    (("batch", "p.md", "d.txt", "--format", "jsnol"),
     "runvil batch: error: argument --format: invalid choice: 'jsnol' (choose from 'jsonl', 'csv', 'text') "
     "(did you mean 'jsonl'?)"),
    (("conformance", "--lsit"), "runvil conformance: error: unrecognized arguments: --lsit (did you mean '--list'?)"),
    (("logs", "--jsno"), "runvil logs: error: unrecognized arguments: --jsno (did you mean '--json'?)"),
    (("logs", "shwo", "1"), "runvil logs: error: argument action: invalid choice: 'shwo' (choose from 'list', "
                            "'show', 'view', 'rm', 'path', 'on', 'off') (did you mean 'show'?)"),
])
def test_misspelt_options_of_view_batch_conformance_and_logs(cli, argv, said):
    """Every command's options answer a misspelling alike; nothing runs."""
    code, out, err = cli(*argv)
    assert (code, out, err.splitlines()[-1]) == (2, "", said)


def test_a_choice_nothing_is_close_to_gets_no_guess(cli):
    code, out, err = cli("batch", "p.md", "d.txt", "--format", "zzz")
    assert code == 2 and err.splitlines()[-1].endswith("(choose from 'jsonl', 'csv', 'text')")


def test_a_misspelt_case_key(tmp_path):
    case = tmp_path / "c.yaml"
    case.write_text("- name: x\n  prompt: |\n    a\n    b\n  expct: {ok: true}\n", encoding="utf-8")
    with pytest.raises(CaseError) as e:
        read_case_file(case)
    assert str(e.value) == (f"{case}: case 1: unknown key 'expct' (did you mean 'expect'?); a case has name, spec, "
                            "prompt, world, input, expect, features")


def test_a_missing_world_file_is_said_in_words(cli, tmp_path):
    (tmp_path / "p.md").write_text(head(roles=()), encoding="utf-8")
    code, out, err = cli("run", "p.md", "--script", "nope.yaml")
    assert (code, err) == (2, "runvil: the scripted world nope.yaml does not exist\n")
