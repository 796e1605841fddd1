"""What the CLI tests share: `cli`, runvil's `main` run in the test's own
folder without a user's config."""

from __future__ import annotations

import pytest

from runvil.host.cli import main


@pytest.fixture
def cli(tmp_path, capsys, monkeypatch):
    """runvil in tmp_path, with no RUNVIL_CONFIG: each call gives (exit
    status, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)

    def run(*argv):
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run
