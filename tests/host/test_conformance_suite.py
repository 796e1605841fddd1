"""The shipped conformance suite (runvil/conformance/) as data: its version
names these cases, every heading has an anchor of the language reference,
feature tags, the manifest, `--list` and `--export`, and the package data
that carries it into the wheel."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from runvil.host.cases import CaseError, load_cases
from runvil.host.cli import main
from runvil.host.features import FEATURES, detected_features
from runvil.host.suite import (cases_digest, page_headings, resolve_anchors, slug, suite_folder, suite_info,
                               write_suite_info)

from ..engine.prompts import chat_prompt

ROOT = Path(__file__).resolve().parents[2]
SUITE = suite_folder()
CASES = load_cases([str(SUITE)], shipped=True)
INFO = suite_info()


def test_the_suite_lives_in_the_package_and_names_its_version():
    assert SUITE == ROOT / "runvil" / "conformance" and INFO["name"] == "runvil-conformance"
    assert re.fullmatch(r"\d+\.\d+\.\d+", INFO["version"])


def test_the_version_names_these_cases():
    assert cases_digest(CASES) == INFO["digest"], (
        "the cases changed: give the suite a new version with "
        "`python -m runvil.host.suite --version X.Y.Z` (it writes runvil/conformance/suite.json)")


def test_every_heading_of_the_cases_has_an_anchor_in_suite_json():
    sections = {c.section for c in CASES}
    assert "" not in sections, [c.id for c in CASES if not c.section]
    assert sections <= set(INFO["reference"])
    for heading, anchor in INFO["reference"].items():
        page, _, fragment = anchor.partition("#")
        assert page.startswith("docs/reference/") and page.endswith(".md") and fragment == slug(heading)


@pytest.mark.skipif(not (ROOT / "docs" / "reference" / "conversations.md").exists(),
                    reason="docs/reference/conversations.md, where the cases' headings are, is not written yet")
def test_every_heading_resolves_in_the_language_reference():
    anchors, problems = resolve_anchors({c.section for c in CASES}, ROOT)
    assert problems == []
    assert anchors == INFO["reference"], "run `python -m runvil.host.suite` to write suite.json again"


# ------------------------------------------------------------------ anchors on a small reference


def test_slugs_are_github_s():
    assert slug("The provider anchor") == "the-provider-anchor"
    assert slug("compactors.fail") == "compactorsfail"
    assert slug("What a compactor's error becomes") == "what-a-compactors-error-becomes"
    assert slug("The empty_model_reply error value") == "the-empty_model_reply-error-value"
    assert slug("Running on a model handle with handle:loop") == "running-on-a-model-handle-with-handleloop"
    assert slug("`models.compact` (more)") == "modelscompact-more"


def test_page_headings_leave_code_out_and_number_repeats():
    page = ("# Conversations\n\n## Tools\n\ntext\n\n```lua\n## not a heading\n```\n\n### Tools ##\n\n"
            "~~~\n# nor this\n~~~\n## `compactors.fail`\n    ## indented code\n")
    assert page_headings(page) == [("Conversations", "conversations"), ("Tools", "tools"), ("Tools", "tools-1"),
                                   ("`compactors.fail`", "compactorsfail")]


def test_headings_resolve_to_one_page_or_are_reported(tmp_path):
    ref = tmp_path / "docs" / "reference"
    ref.mkdir(parents=True)
    (ref / "conversations.md").write_text("# Conversations\n\n## Starting a conversation\n\n"
                                          "### `compactors.fail`\n\n## Twice\n", encoding="utf-8")
    (ref / "language.md").write_text("# Language\n\n## The var table\n\n## Twice\n", encoding="utf-8")
    anchors, problems = resolve_anchors(["Starting a conversation", "compactors.fail", "The var table", "Twice",
                                         "Nowhere"], tmp_path)
    assert anchors == {"Starting a conversation": "docs/reference/conversations.md#starting-a-conversation",
                       "compactors.fail": "docs/reference/conversations.md#compactorsfail",
                       "The var table": "docs/reference/language.md#the-var-table"}
    assert problems == ["no heading of docs/reference/*.md is 'Nowhere'",
                        "'Twice' is a heading in more than one place: docs/reference/conversations.md#twice, "
                        "docs/reference/language.md#twice"]


def test_suite_json_is_written_again_only_with_a_new_version_when_cases_change(tmp_path):
    ref = tmp_path / "docs" / "reference"
    ref.mkdir(parents=True)
    (ref / "conversations.md").write_text("# Conversations\n\n## Starting a conversation\n", encoding="utf-8")
    folder = tmp_path / "suite" / "chats"
    folder.mkdir(parents=True)
    case = {"name": "hello", "spec": "Starting a conversation", "prompt": chat_prompt(), "expect": {"ok": True}}
    (folder / "c.yaml").write_text(json.dumps([case]), encoding="utf-8")
    assert write_suite_info(tmp_path, "1.0.0", tmp_path / "suite") == []
    info = suite_info(tmp_path / "suite")
    assert info["version"] == "1.0.0" and info["reference"] == {
        "Starting a conversation": "docs/reference/conversations.md#starting-a-conversation"}
    (folder / "c.yaml").write_text(json.dumps([{**case, "expect": {"ok": False}}]), encoding="utf-8")
    assert write_suite_info(tmp_path, None, tmp_path / "suite") == [
        "the cases changed since version 1.0.0: give a new one with --version"]
    assert write_suite_info(tmp_path, "1.1.0", tmp_path / "suite") == []
    assert suite_info(tmp_path / "suite")["version"] == "1.1.0"
    (folder / "c.yaml").write_text(json.dumps([{**case, "spec": "Nowhere"}]), encoding="utf-8")
    assert write_suite_info(tmp_path, "1.2.0", tmp_path / "suite") == [
        "no heading of docs/reference/*.md is 'Nowhere'"]


# ------------------------------------------------------------------ features


def test_the_rules_find_features_in_the_prompt_and_the_world():
    assert detected_features(chat_prompt(), {"replies": [{"text": "hi"}]}) == set()
    assert detected_features("tools.offer('web/search')\nlocal h = models.get('r')", None) == {"tools", "handles"}
    assert detected_features("tasks.fanout('B', {})", {}) == {"tasks", "fan-out"}
    world = {"models": {"writer": {"context": 100}}, "replies": {"writer": [{"tool_calls": [{"id": "c"}]},
                                                                            {"error": {"status": 400}}]}}
    assert detected_features("", world) == {"precheck", "tools", "provider-errors"}


def test_format_md_lists_every_feature():
    text = (SUITE / "FORMAT.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z-]+)` \| ", text.split("## Features")[1].split("\n## ")[0], re.M)
    assert listed == list(FEATURES)


def test_a_case_may_name_features_and_an_unknown_one_is_refused(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    case = {"name": "c", "prompt": chat_prompt(), "expect": {"ok": True}}
    (folder / "c.yaml").write_text(json.dumps([{**case, "features": ["json"]}]), encoding="utf-8")
    assert load_cases([str(folder)])[0].features == ("json",)
    (folder / "c.yaml").write_text(json.dumps([{**case, "features": ["telepathy"]}]), encoding="utf-8")
    with pytest.raises(CaseError, match="unknown feature 'telepathy'"):
        load_cases([str(folder)])


def test_every_feature_is_used_by_some_case():
    assert {f for c in CASES for f in c.features} == set(FEATURES)


# ------------------------------------------------------------------ --list and --export


def test_list_from_any_folder_with_a_heading(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["conformance", "--list", "-k", "The provider anchor"]) == 0
    ids = capsys.readouterr().out.split()
    assert len(ids) == 11 and all(i.startswith("the-context-precheck/anchor.yaml::") for i in ids)
    assert main(["conformance", "--list", "--json", "-k", "::hello"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["suite"], data["version"]) == ("runvil-conformance", INFO["version"])
    assert data["cases"] == [{"id": "starting-a-conversation/first-chat.yaml::hello",
                              "file": "starting-a-conversation/first-chat.yaml", "name": "hello",
                              "section": "Starting a conversation", "features": [],
                              "reference": "docs/reference/conversations.md#starting-a-conversation"}]


def test_export_writes_a_folder_per_case_and_the_manifest(tmp_path, capsys):
    out = tmp_path / "suite"
    assert main(["conformance", "--export", str(out), "-k", "first-chat.yaml", "-k", "::fan-out-arms"]) == 0
    assert capsys.readouterr().out == f"5 cases written to {out} (suite {INFO['version']})\n"
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == INFO["version"] and len(manifest["cases"]) == 5
    fan = next(c for c in manifest["cases"] if c["name"] == "fan-out-arms-fresh")
    assert fan["path"] == "starting-a-conversation/more/fan-out-arms-fresh"
    assert fan["features"] == ["tasks", "fan-out"]
    assert fan["reference"].endswith("#messages-is-the-sections-conversation")
    hello = out / "starting-a-conversation" / "first-chat" / "hello"
    assert sorted(p.name for p in hello.iterdir()) == ["command.txt", "expect.json", "prompt.md", "world.json",
                                                       "world.yaml"]
    assert (hello / "command.txt").read_text() == ("RUNVIL_CASE_ID=starting-a-conversation/first-chat.yaml::hello "
                                                   "runvil run prompt.md --script world.yaml --json\n")
    assert json.loads((hello / "world.json").read_text())["replies"][0]["text"] == "bonjour"
    assert json.loads((hello / "expect.json").read_text())["result"] == "bonjour"
    assert (hello / "prompt.md").read_text().startswith("---\nname: first-chat\n")
    assert {p.name for p in out.iterdir()} >= {"FORMAT.md", "README.md", "adapters", "manifest.json"}
    assert main(["conformance", "--export", str(out), "-k", "::hello"]) == 2
    assert "is not an empty folder" in capsys.readouterr().err


def test_an_exported_folder_runs_as_the_suite_does(tmp_path, capsys):
    out = tmp_path / "suite"
    assert main(["conformance", "--export", str(out), "-k", "first-chat.yaml"]) == 0
    capsys.readouterr()
    assert main(["conformance", "-v", str(out)]) == 0
    text = capsys.readouterr().out
    assert "PASS starting-a-conversation/first-chat.yaml::hello\n" in text
    assert text.endswith(f"suite runvil-conformance {INFO['version']}\n4 passed, 0 failed\n")
    (out / "manifest.json").write_text("{}", encoding="utf-8")
    assert main(["conformance", str(out)]) == 2
    assert "is not a manifest --export wrote" in capsys.readouterr().err


def test_world_json_keeps_a_number_s_text_where_json_would_change_it(tmp_path, capsys):
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "c.yaml").write_text("- name: n\n  prompt: \"a\\nb\"\n  world:\n    models: {writer: {context: 4096}}\n"
                                   "    replies: [{text: 3.10}]\n  expect: {ok: true}\n", encoding="utf-8")
    assert main(["conformance", "--export", str(tmp_path / "out"), str(folder)]) == 0
    world = json.loads((tmp_path / "out" / "s" / "c" / "n" / "world.json").read_text())
    assert world == {"models": {"writer": {"context": 4096}}, "replies": [{"text": "3.10"}]}


# ------------------------------------------------------------------ the package data


def test_the_package_data_carries_every_file_of_the_suite():
    """pyproject's globs for runvil.conformance match every file there is
    (the wheel test in test_conformance_wheel.py builds it for real)."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = globs["runvil.conformance"]
    files = [p.relative_to(SUITE) for p in SUITE.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    missing = [f.as_posix() for f in files if f.name != "__init__.py"
               and not any(f.match(g) or (g.startswith("**/") and f.match(g[3:])) for g in patterns)]
    assert missing == []


def test_this_runvil_runs_cases_in_worker_processes_with_j(tmp_path, capsys):
    """-j 2 on 16 cases (the fewest that start workers): the results come
    back from the workers, a field the output lacks shown as absent, and
    the reports keep the suite's order."""
    import xml.etree.ElementTree as ET

    folder = tmp_path / "many"
    folder.mkdir()
    cases = [{"name": f"c{i:02}", "prompt": chat_prompt(), "world": {"replies": [{"text": "hi"}]},
              "expect": {"result": "hi"} if i else {"nope": 1}} for i in range(16)]
    (folder / "c.yaml").write_text(json.dumps(cases), encoding="utf-8")
    junit = tmp_path / "r.xml"
    assert main(["conformance", "-j", "2", "--junit", str(junit), str(folder)]) == 1
    out = capsys.readouterr().out
    assert "FAIL many/c.yaml::c00\n  nope:\n    want: 1\n    got:  (absent)\n" in out
    assert out.endswith("15 passed, 1 failed\n")
    names = [tc.get("name") for tc in ET.parse(junit).getroot().iter("testcase")]
    assert names == [f"c{i:02}" for i in range(16)]


def test_the_shipped_suite_reads_the_same_on_libyaml_as_on_the_bounded_loader():
    # the suite is read on libyaml's parser (seven times as fast), which has no
    # bounds for hostile YAML: only runvil's own files get it
    import yaml

    from runvil.harness.worldcheck import shipped_world_loader, world_loader

    if shipped_world_loader() is world_loader():
        pytest.skip("PyYAML without libyaml here: the bounded loader reads the suite")

    def marks(x):  # what the loaders keep beside the data: lines and number texts
        kept = (getattr(x, "line", None), getattr(x, "lines", None), getattr(x, "source", None))
        if isinstance(x, dict):
            return (kept, [(k, marks(v)) for k, v in x.items()])
        if isinstance(x, list):
            return (kept, [marks(v) for v in x])
        return (kept, x, type(x).__name__)

    files = sorted(suite_folder().rglob("*.yaml"))
    assert len(files) > 20
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert marks(yaml.load(text, Loader=shipped_world_loader())) == marks(yaml.load(text, Loader=world_loader()))
    shipped = load_cases([str(suite_folder())], shipped=True)
    assert [vars(c) for c in shipped] == [vars(c) for c in load_cases([str(suite_folder())])]
