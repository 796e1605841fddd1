"""The results database of batches and stored runs (docs/reference/commands.md "runvil batch"):
SQLite in WAL mode through the standard library, readable by the `sqlite3`
shell, sqlite-utils and Datasette.

Besides the columns the specification names, each run carries `prompt_path`,
`prompt_sha256` and `bindings`, so that a run stored by `runvil run --db`
(no batch) says what ran, and the question "is this row done?" is one
indexed lookup. Every write is its own transaction, committed at once: a
crash or a Ctrl-C loses no finished row.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY,
    prompt_path TEXT NOT NULL,
    prompt_sha256 TEXT NOT NULL,
    data_path TEXT NOT NULL,
    bindings TEXT NOT NULL,
    started TEXT NOT NULL,
    ended TEXT,
    rows INTEGER NOT NULL DEFAULT 0,
    ok INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    batch_id INTEGER REFERENCES batches(id),
    row_id TEXT,
    input TEXT,
    metadata TEXT,
    ok INTEGER NOT NULL,
    result TEXT,
    error_kind TEXT,
    error_message TEXT,
    rounds INTEGER NOT NULL DEFAULT 0,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    started TEXT NOT NULL,
    ended TEXT NOT NULL,
    seconds REAL NOT NULL,
    log TEXT NOT NULL,
    prompt_path TEXT,
    prompt_sha256 TEXT,
    bindings TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_row ON runs (prompt_sha256, bindings, row_id);
CREATE INDEX IF NOT EXISTS runs_by_batch ON runs (batch_id);
"""

BUSY_SECONDS = 5.0  # how long a write waits for another process's lock
DB_LOCKED = "the database {path} is locked by another process"
DB_CANNOT_WRITE = "cannot write the results database {path}: {reason}"
DB_CANNOT_READ = "cannot read the database {path}: {reason}"
DB_NOT_RUNVIL = "{path} is not a results database of runvil (it has no `runs` table)"
NO_SUCH_RUN = "{path} has no run {id}"

RUN_COLUMNS = ("batch_id", "row_id", "input", "metadata", "ok", "result", "error_kind", "error_message", "rounds",
               "prompt_tokens", "completion_tokens", "reasoning_tokens", "started", "ended", "seconds", "log",
               "prompt_path", "prompt_sha256", "bindings")


class StoreError(Exception):
    """The database cannot be opened, read or written: a usage error."""


def sha256_text(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bindings_json(bindings: dict) -> str:
    """Role to model id, as stored and compared: sorted, compact, no key."""
    return json.dumps({role: b.id for role, b in sorted(bindings.items())}, separators=(",", ":"),
                      ensure_ascii=False)


def _problem(path: str, e: sqlite3.Error) -> StoreError:
    text = str(e)
    if "locked" in text or "busy" in text:
        return StoreError(DB_LOCKED.format(path=path))
    return StoreError(DB_CANNOT_WRITE.format(path=path, reason=text))


class Store:
    """One open results database. Only the thread that opened it writes."""

    def __init__(self, path: str, busy_seconds: float | None = None):
        self.path = path
        try:
            self.db = sqlite3.connect(path, timeout=BUSY_SECONDS if busy_seconds is None else busy_seconds,
                                      isolation_level=None)
        except sqlite3.Error as e:
            raise _problem(path, e) from None
        try:
            mode = self.db.execute("PRAGMA journal_mode=WAL").fetchone()
            self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives a crash of runvil
            self.db.executescript("BEGIN IMMEDIATE;" + SCHEMA + "COMMIT;")
        except sqlite3.Error as e:
            self.close()
            raise _problem(path, e) from None
        self.wal = bool(mode) and str(mode[0]).lower() == "wal"

    def close(self) -> None:
        try:
            self.db.close()
        except sqlite3.Error:
            pass

    def _write(self, sql: str, params) -> int:
        try:
            cur = self.db.execute(sql, params)
        except sqlite3.Error as e:
            raise _problem(self.path, e) from None
        return cur.lastrowid

    # ------------------------------------------------------------ batches

    def start_batch(self, prompt_path: str, prompt_sha256: str, data_path: str, bindings: str, started: str) -> int:
        return self._write(
            "INSERT INTO batches (prompt_path, prompt_sha256, data_path, bindings, started) VALUES (?, ?, ?, ?, ?)",
            (prompt_path, prompt_sha256, data_path, bindings, started))

    def end_batch(self, batch_id: int, ended: str, rows: int, ok: int, failed: int) -> None:
        self._write("UPDATE batches SET ended = ?, rows = ?, ok = ?, failed = ? WHERE id = ?",
                    (ended, rows, ok, failed, batch_id))

    # --------------------------------------------------------------- runs

    def add_run(self, run: dict) -> int:
        """Stores one ended run (a dict of RUN_COLUMNS) and commits."""
        params = [run.get(c) for c in RUN_COLUMNS]
        marks = ", ".join("?" * len(RUN_COLUMNS))
        return self._write(f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) VALUES ({marks})", params)

    def row_state(self, prompt_sha256: str, bindings: str, row_id, input_text: str) -> str | None:
        """`ok` when a batch stored a successful run of this row for this
        prompt text, bindings and input; `failed` when it stored only failed
        ones; None when none."""
        try:
            got = self.db.execute(
                "SELECT max(ok) FROM runs WHERE prompt_sha256 = ? AND bindings = ? AND row_id = ? AND input = ?"
                " AND batch_id IS NOT NULL", (prompt_sha256, bindings, str(row_id), input_text)).fetchone()
        except sqlite3.Error as e:
            raise _problem(self.path, e) from None
        if got is None or got[0] is None:
            return None
        return "ok" if got[0] else "failed"

    def row_result(self, prompt_sha256: str, bindings: str, row_id, input_text: str) -> dict | None:
        """The stored run that answers for a row: its latest successful run,
        else its latest failed one (for `--jsonl`)."""
        try:
            cur = self.db.execute(
                "SELECT id, ok, result, error_kind, error_message, rounds, prompt_tokens, completion_tokens,"
                " reasoning_tokens, seconds FROM runs WHERE prompt_sha256 = ? AND bindings = ? AND row_id = ?"
                " AND input = ? AND batch_id IS NOT NULL ORDER BY ok DESC, id DESC LIMIT 1",
                (prompt_sha256, bindings, str(row_id), input_text))
            got = cur.fetchone()
        except sqlite3.Error as e:
            raise _problem(self.path, e) from None
        if got is None:
            return None
        keys = ("run", "ok", "result", "error_kind", "error_message", "rounds", "prompt_tokens",
                "completion_tokens", "reasoning_tokens", "seconds")
        return dict(zip(keys, got))


def read_run_log(path: str, run_id: int) -> list[dict]:
    """The events of one stored run (`runvil view FILE --run ID`)."""
    import os

    if not os.path.isfile(path):
        raise StoreError(DB_CANNOT_READ.format(path=path, reason="no such file"))
    try:
        db = sqlite3.connect(f"file:{_uri_path(path)}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise StoreError(DB_CANNOT_READ.format(path=path, reason=e)) from None
    try:
        got = db.execute("SELECT log FROM runs WHERE id = ?", (run_id,)).fetchone()
    except sqlite3.Error as e:
        if "no such table" in str(e):
            raise StoreError(DB_NOT_RUNVIL.format(path=path)) from None
        raise StoreError(DB_CANNOT_READ.format(path=path, reason=e)) from None
    finally:
        db.close()
    if got is None:
        raise StoreError(NO_SUCH_RUN.format(path=path, id=run_id))
    return [json.loads(line) for line in (got[0] or "").splitlines() if line.strip()]


def _uri_path(path: str) -> str:
    from urllib.parse import quote

    return quote(path)
