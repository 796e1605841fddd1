"""Rows stored together (`Store.together`: the records of one read from a
worker) are one transaction, and nothing written inside is lost when the
storing stops early."""

from __future__ import annotations

import sqlite3

import pytest

from runvil.host.batch.store import RUN_COLUMNS, Store


def _record(row_id: str) -> dict:
    rec = dict.fromkeys(RUN_COLUMNS)
    rec.update(row_id=row_id, batch_id=1, run_key="k", ok=1, started="s", ended="e", seconds=0.0, log="", rounds=0,
               rounds_without_usage=0)
    return rec


def _stored(path) -> list:
    con = sqlite3.connect(path)
    try:
        return [r[0] for r in con.execute("SELECT row_id FROM runs ORDER BY id")]
    finally:
        con.close()


def test_rows_stored_together_are_committed_at_the_end(tmp_path):
    path = str(tmp_path / "r.db")
    store = Store(path)
    with store.together():
        store.add_run(_record("1"))
        store.add_run(_record("2"))
        assert _stored(path) == []  # another reader sees them only once committed
    assert _stored(path) == ["1", "2"]
    assert store.has_runs("k") and not store.has_runs("other")
    store.close()


@pytest.mark.parametrize("stop", [KeyboardInterrupt, RuntimeError])
def test_rows_written_before_a_stop_are_kept(tmp_path, stop):
    path = str(tmp_path / "r.db")
    store = Store(path)
    with pytest.raises(stop):
        with store.together():
            store.add_run(_record("1"))
            raise stop()
    store.add_run(_record("2"))  # no transaction is left open
    assert _stored(path) == ["1", "2"]
    store.close()
