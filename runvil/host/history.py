"""The history of runs (docs/reference/commands.md): every `runvil run` and `runvil chat` is
kept in `runs.db`, a results database of the batch's schema (so `runvil
view DB --run ID`, sqlite3 and Datasette read it too), plus the text of
each prompt once, by its hash.

The database is `RUNVIL_LOGS` when set, else `runs.db` in the user's data
folder. `runvil logs off` leaves a file beside it (`runs.db.off`) that
turns storing off until `runvil logs on`. A run that cannot be stored is
said in one line on stderr and changes nothing else: the history never
fails a run.
"""

from __future__ import annotations

import os
import sys

try:
    import sqlite3
except ImportError:  # (Pyodide without its sqlite3 package: no history, as after `runvil logs off`)
    sqlite3 = None

#: the size above which the oldest runs are dropped
DEFAULT_CAP_BYTES = 100 * 1024 * 1024
#: the most of a run's log the history keeps (a run that printed a great
#: deal would otherwise hold its log twice in memory as it is stored)
MAX_LOG_CHARS = 4 * 1024 * 1024

PROMPTS_SCHEMA = "CREATE TABLE IF NOT EXISTS prompts (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL)"


def history_path() -> str:
    """Where the history is: RUNVIL_LOGS, else runs.db in the user's data
    folder. On Linux that is the XDG rule platformdirs follows there, read
    without importing it (its import would cost a run's start-up about 5
    ms); elsewhere platformdirs says."""
    path = os.environ.get("RUNVIL_LOGS")
    if path:
        return path
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_DATA_HOME", "").strip()
        if not os.path.isabs(base):
            base = os.path.join(os.path.expanduser("~"), ".local", "share")
        return os.path.join(base, "runvil", "runs.db")
    try:
        from platformdirs import user_data_dir
    except ImportError:  # (a platform without it: the XDG default)
        return os.path.join(os.path.expanduser("~"), ".local", "share", "runvil", "runs.db")
    return os.path.join(user_data_dir("runvil", appauthor=False), "runs.db")


def off_marker(path: str) -> str:
    return path + ".off"


def storing(path: str | None = None) -> bool:
    """Whether runs are stored (not after `runvil logs off`, nor where
    Python has no sqlite3)."""
    return sqlite3 is not None and not os.path.exists(off_marker(path or history_path()))


def open_store(path: str):
    """The history's results database, made (with its folder) when missing;
    a new one reclaims the pages of dropped runs as it goes."""
    from .batch.store import Store

    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    if not os.path.exists(path):
        db = sqlite3.connect(path)
        try:  # auto_vacuum is fixed when the first table is made, by the connection that makes it
            db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            db.execute(PROMPTS_SCHEMA)
            db.commit()
        finally:
            db.close()
    store = Store(path)
    # a lost run of the history is no loss: no fsync at each run (a WAL
    # checkpoint at each close costs milliseconds)
    store.db.execute("PRAGMA synchronous=OFF")
    store.db.execute(PROMPTS_SCHEMA)
    return store


def keep_run(prompt_path: str, prompt_text: bytes, run, meter, cap: int = DEFAULT_CAP_BYTES) -> int | None:
    """Stores an ended run (its prompt's text once); returns its id, or
    None when storing is off or failed (said on stderr)."""
    path = history_path()
    if not storing(path):
        return None
    from .batch.store import StoreError, sha256_text
    from .batch.stored_run import run_log_text, single_run_record

    sha = sha256_text(prompt_text)
    try:
        store = open_store(path)
    except (OSError, StoreError) as e:
        print(f"runvil: the run was not kept in the history ({e})", file=sys.stderr)
        return None
    try:
        store.db.execute("INSERT OR IGNORE INTO prompts (sha256, text) VALUES (?, ?)",
                         (sha, prompt_text.decode("utf-8", "replace")))
        shown_path = prompt_path if prompt_path.startswith("<") else os.path.abspath(prompt_path)
        run_id = store.add_run(single_run_record(run, meter, shown_path, sha, log=run_log_text(run, MAX_LOG_CHARS)))
        drop_oldest(store.db, cap)
        return run_id
    except (sqlite3.Error, StoreError, OverflowError) as e:  # (a number SQLite cannot hold, from a world)
        print(f"runvil: the run was not kept in the history ({e})", file=sys.stderr)
        return None
    finally:
        store.close()


def used_bytes(db) -> int:
    """The bytes the database's live pages take."""
    pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
    return pages * db.execute("PRAGMA page_size").fetchone()[0]


def drop_oldest(db, cap: int) -> int:
    """Deletes the oldest runs (and prompts no run uses) while the live
    pages take more than `cap` bytes; the newest run always stays."""
    dropped = 0
    while used_bytes(db) > cap:
        (count,) = db.execute("SELECT count(*) FROM runs").fetchone()
        if count <= 1:
            break
        n = max(1, count // 10)
        db.execute("DELETE FROM runs WHERE id IN (SELECT id FROM runs ORDER BY id LIMIT ?)", (n,))
        dropped += n
    if dropped:
        db.execute("DELETE FROM prompts WHERE sha256 NOT IN (SELECT DISTINCT prompt_sha256 FROM runs "
                   "WHERE prompt_sha256 IS NOT NULL)")
        db.execute("PRAGMA incremental_vacuum")
    return dropped
