"""Every case of conformance/ (the spec as data) runs through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from runvil.host.conformance import load_cases, mismatches, run_case

ROOT = Path(__file__).resolve().parents[1]
CASES = load_cases([str(ROOT / "conformance")])


@pytest.mark.parametrize("case", [c for _id, c in CASES], ids=[i for i, _c in CASES])
def test_conformance_case(case):
    assert mismatches(case, run_case(case)) == []


def test_the_command_reports_its_counts(capsys):
    from runvil.host.conformance import conformance_command

    folder = ROOT / "conformance" / "task-notices"  # one folder: the cases above ran them all
    assert conformance_command([str(folder)]) == 0
    assert capsys.readouterr().out.strip().endswith(f"{len(load_cases([str(folder)]))} passed, 0 failed")


def test_a_failing_case_is_reported(tmp_path, capsys):
    from runvil.host.conformance import conformance_command

    case = {"name": "wrong", "prompt": "---\nname: x\ndescription: d\nrunvil: 0\n---\n\n# X\n\n## A\n\n```lua\nreturn 1\n```\n",
            "expect": {"result": "2"}}
    import yaml

    (tmp_path / "c.yaml").write_text(yaml.safe_dump(case), encoding="utf-8")
    assert conformance_command([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert 'FAIL ' in out and 'result: expected "2", got "1"' in out and out.strip().endswith("0 passed, 1 failed")
