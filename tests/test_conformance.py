"""Every case of the shipped suite (runvil/conformance/, the spec as data)
runs on this implementation, in process, through the same files and
arguments `--impl` uses."""

from __future__ import annotations

import pytest

from runvil.host.cases import load_cases
from runvil.host.conformance import check
from runvil.host.suite import suite_folder

CASES = load_cases([str(suite_folder())], shipped=True)  # as `runvil conformance` reads it


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_conformance_case(case):
    problems, _ = check(case)
    assert [line for m in problems for line in m.lines()] == []


def test_the_suite_has_its_cases():
    assert len(CASES) >= 768 and len({c.id for c in CASES}) == len(CASES)
