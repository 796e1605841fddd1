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

    assert conformance_command([str(ROOT / "conformance")]) == 0
    assert capsys.readouterr().out.strip().endswith(f"{len(CASES)} passed, 0 failed")
