"""The results database of batches and stored runs (docs/reference/commands.md "runvil batch"):
SQLite in WAL mode through the standard library, readable by the `sqlite3`
shell, sqlite-utils and Datasette.

Besides the columns the specification names, each run carries `prompt_path`,
`prompt_sha256` and `bindings`, so that a run stored by `runvil run --db`
(no batch) says what ran, and `run_key` and `modules` (key.py), so that
the question "is this row done?" is one indexed lookup and a hash of each
module it required. The `leases` table holds the blocks of rows batches
are running (leases.py). Every write is committed at once, on its own or
with the rows that reached the batch's process with it (`together`): a
crash or a Ctrl-C loses no row the batch has received. A database of an earlier
version is brought up to date as it is opened (`_migrate_runs`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import sys

BATCHES = """
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
)"""
#: token counts are NULL when no round of the run reported usage (unknown, not 0)
RUNS = """
CREATE TABLE IF NOT EXISTS {name} (
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
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    reasoning_tokens INTEGER,
    started TEXT NOT NULL,
    ended TEXT NOT NULL,
    seconds REAL NOT NULL,
    log TEXT NOT NULL,
    prompt_path TEXT,
    prompt_sha256 TEXT,
    bindings TEXT,
    rounds_without_usage INTEGER NOT NULL DEFAULT 0,
    run_key TEXT,
    modules TEXT
)"""
#: a block of rows a batch is running: taken in one transaction, given up
#: when its rows are stored, taken over when its owner is gone
LEASES = """
CREATE TABLE IF NOT EXISTS leases (
    block TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    expires REAL NOT NULL
)"""
INDEXES = (
    "CREATE INDEX IF NOT EXISTS runs_by_row ON runs (prompt_sha256, bindings, row_id)",
    "CREATE INDEX IF NOT EXISTS runs_by_key ON runs (run_key, row_id)",
    "CREATE INDEX IF NOT EXISTS runs_by_batch ON runs (batch_id)",
)
#: the columns of `runs` before usage could be unknown: copied as they are
OLD_RUN_COLUMNS = ("id", "batch_id", "row_id", "input", "metadata", "ok", "result", "error_kind", "error_message",
                   "rounds", "started", "ended", "seconds", "log", "prompt_path", "prompt_sha256", "bindings")

BUSY_SECONDS = 5.0  # how long a write waits for another process's lock
DB_LOCKED = "the database {path} is locked by another process"
DB_CANNOT_WRITE = "cannot write the results database {path}: {reason}"
DB_CANNOT_READ = "cannot read the database {path}: {reason}"
DB_NOT_RUNVIL = "{path} is not a results database of runvil (it has no `runs` table)"
NO_SUCH_RUN = "{path} has no run {id}"

RUN_COLUMNS = ("batch_id", "row_id", "input", "metadata", "ok", "result", "error_kind", "error_message", "rounds",
               "prompt_tokens", "completion_tokens", "reasoning_tokens", "started", "ended", "seconds", "log",
               "prompt_path", "prompt_sha256", "bindings", "rounds_without_usage", "run_key", "modules")


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
            self._make_tables()
        except sqlite3.Error as e:
            self.close()
            raise _problem(path, e) from None
        self.wal = bool(mode) and str(mode[0]).lower() == "wal"

    def _make_tables(self) -> None:
        """The tables, made or brought up to date in one transaction."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(BATCHES)
            db.execute(LEASES)
            columns = {r[1]: r[3] for r in db.execute("PRAGMA table_info(runs)")}
            if "prompt_tokens" in columns and ("rounds_without_usage" not in columns or columns.get("prompt_tokens")):
                _migrate_runs(db, columns)
            db.execute(RUNS.format(name="runs"))
            for sql in INDEXES:
                db.execute(sql)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        try:
            self.db.close()
        except sqlite3.Error:
            pass

    @contextlib.contextmanager
    def together(self):
        """The writes inside are one transaction, committed at its end (a
        commit per row cost a batch's process more than the rest of storing
        the row). Whatever stops it (a write that fails, Ctrl-C, SIGTERM),
        the rows written so far are committed, as a commit per row would
        have kept them. Nothing inside may begin a transaction of its own
        (`claim`)."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise _problem(self.path, e) from None
        try:
            yield
        finally:
            try:
                self.db.execute("COMMIT")
            except sqlite3.Error as e:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                if sys.exc_info()[0] is None:
                    raise _problem(self.path, e) from None

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

    def _read(self, sql: str, params) -> list:
        try:
            return self.db.execute(sql, params).fetchall()
        except sqlite3.Error as e:
            raise _problem(self.path, e) from None

    def has_runs(self, run_key: str) -> bool:
        """Whether a batch stored any run under this key (else no row's
        `row_state` need be asked)."""
        return bool(self._read("SELECT 1 FROM runs WHERE run_key = ? AND batch_id IS NOT NULL LIMIT 1", (run_key,)))

    def row_state(self, run_key: str, row_id, input_text: str, modules_hold) -> str | None:
        """`ok` when a batch stored a successful run of this row under this
        key whose required modules still hold (`modules_hold(modules)`);
        `failed` when it stored only failed ones; None when none."""
        got = self._read("SELECT ok, modules FROM runs WHERE run_key = ? AND row_id = ? AND input = ?"
                         " AND batch_id IS NOT NULL", (run_key, str(row_id), input_text))
        states = [ok for ok, modules in got if modules_hold(modules)]
        if not states:
            return None
        return "ok" if max(states) else "failed"

    def row_result(self, run_key: str, row_id, input_text: str, modules_hold, batch_id: int | None = None):
        """The stored run that answers for a row (for `--jsonl`): its latest
        successful run, else its latest failed one; only the runs of batch
        `batch_id` when it is given."""
        where = "run_key = ? AND row_id = ? AND input = ? AND batch_id IS NOT NULL"
        params: tuple = (run_key, str(row_id), input_text)
        if batch_id is not None:
            where, params = where + " AND batch_id = ?", params + (batch_id,)
        keys = ("run", "ok", "result", "error_kind", "error_message", "rounds", "prompt_tokens",
                "completion_tokens", "reasoning_tokens", "rounds_without_usage", "seconds", "modules")
        for got in self._read(f"SELECT {', '.join(('id',) + keys[1:])} FROM runs WHERE {where}"
                              " ORDER BY ok DESC, id DESC", params):
            if modules_hold(got[-1]):
                return dict(zip(keys, got))
        return None

    # ------------------------------------------------------------- leases

    def claim(self, block: str, owner, now: float) -> bool:
        """Takes the lease of a block of rows, in one transaction, unless
        another owner holds it and is still there."""
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                got = db.execute("SELECT owner, host, pid, expires FROM leases WHERE block = ?", (block,)).fetchone()
                if got is not None and got[0] != owner.id and not owner.gone(got[0], got[1], got[2], got[3], now):
                    db.execute("ROLLBACK")
                    return False
                db.execute("INSERT OR REPLACE INTO leases (block, owner, host, pid, expires) VALUES (?, ?, ?, ?, ?)",
                           (block, owner.id, owner.host, owner.pid, now + owner.lease_seconds))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        except sqlite3.Error as e:
            raise _problem(self.path, e) from None
        return True

    def renew(self, owner, now: float) -> None:
        self._write("UPDATE leases SET expires = ? WHERE owner = ?", (now + owner.lease_seconds, owner.id))

    def release(self, block: str, owner) -> None:
        self._write("DELETE FROM leases WHERE block = ? AND owner = ?", (block, owner.id))

    def release_all(self, owner) -> None:
        self._write("DELETE FROM leases WHERE owner = ?", (owner.id,))


def _migrate_runs(db, columns: dict) -> None:
    """A `runs` table of an earlier runvil, which stored unknown usage as 0,
    rebuilt with the columns of today: a run whose counts are all 0 had no
    round that reported usage (a reporting round has a prompt or a
    completion count), so its counts become NULL and each of its rounds a
    round without usage. Its runs have no `run_key`: a batch runs their rows
    again (the old key left out the world and the modules)."""
    db.execute(RUNS.format(name="runs_migrated"))
    kept = ", ".join(c for c in OLD_RUN_COLUMNS if c in columns)
    unknown = "(prompt_tokens = 0 AND completion_tokens = 0)"
    db.execute(
        f"INSERT INTO runs_migrated ({kept}, prompt_tokens, completion_tokens, reasoning_tokens, rounds_without_usage)"
        f" SELECT {kept}, CASE WHEN {unknown} THEN NULL ELSE prompt_tokens END,"
        f" CASE WHEN {unknown} THEN NULL ELSE completion_tokens END,"
        f" CASE WHEN {unknown} THEN NULL ELSE reasoning_tokens END,"
        f" CASE WHEN {unknown} THEN rounds ELSE 0 END FROM runs")
    db.execute("DROP TABLE runs")
    db.execute("ALTER TABLE runs_migrated RENAME TO runs")


def read_run_log(path: str, run_id: int) -> list[dict]:
    """The events of one stored run (`runvil view FILE --run ID`)."""
    import os

    if not os.path.isfile(path):
        raise StoreError(DB_CANNOT_READ.format(path=path, reason="no such file"))
    with opened(path) as db:
        got = db.execute("SELECT log FROM runs WHERE id = ?", (run_id,)).fetchone()
    if got is None:
        raise StoreError(NO_SUCH_RUN.format(path=path, id=run_id))
    return [json.loads(line) for line in (got[0] or "").splitlines() if line.strip()]


@contextlib.contextmanager
def opened(path: str, mode: str = "ro", cannot_read: str = DB_CANNOT_READ):
    """A results database opened as it is (read-only; `rw`: never made,
    never migrated), for the commands that list, show and remove runs;
    sqlite3's errors, opening it or inside the block, become a StoreError
    that names the file (`cannot_read`, or DB_NOT_RUNVIL where it has no
    `runs` table)."""
    import os
    from urllib.parse import quote

    try:
        db = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode={mode}", uri=True)
    except sqlite3.Error as e:
        raise StoreError(cannot_read.format(path=path, reason=e)) from None
    try:
        yield db
    except sqlite3.Error as e:
        if "no such table: runs" in str(e):
            raise StoreError(DB_NOT_RUNVIL.format(path=path)) from None
        raise StoreError(cannot_read.format(path=path, reason=e)) from None
    finally:
        db.close()
