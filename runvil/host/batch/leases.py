"""Two batches on one database share the work (docs/reference/commands.md "Batches": "Two
batches on one database claim rows in blocks, so no row runs twice").

The rows of DATA are cut into blocks of BLOCK_ROWS in file order. Before
a batch runs a block's rows it takes the block's lease, one row of the
`leases` table, in one transaction; a lease another batch holds makes it
skip the block (that batch runs those rows). A block is named by the
run key and the ids and inputs of its rows, so two batches over the same
rows name it alike whatever their data files are called. The lease is
given up once every row of the block handed out is stored, and all of a
batch's leases when it ends. A lease whose owner is gone is taken over:
on the same machine the owner is gone when its process is (its pid, with
the process's start time against a reused pid); from another machine,
when the lease has expired (each stored row renews its owner's leases).

A row costs no write of its own: a block of 32 rows costs two (its lease
taken and given up).
"""

from __future__ import annotations

import hashlib
import os
import time

BLOCK_ROWS = 32
LEASE_SECONDS = 600.0  # a lease of another machine's batch that nothing renewed for this long is taken over
RENEW_EVERY = 60.0


def process_start(pid: int) -> str:
    """When a process started (its start time in clock ticks since boot,
    from /proc), or "" where that cannot be known."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read().decode("ascii", "replace")
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[19] if ")" in stat else ""


def process_alive(pid: int, start: str) -> bool:
    if not hasattr(os, "kill"):  # no processes to ask about (a browser): only this one
        return pid == os.getpid()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # a process of another user: there all the same
    return not start or process_start(pid) in ("", start)


def host_name() -> str:
    """This machine's name, as gethostname gives it: from uname where there
    is one (the socket module, a few milliseconds of a batch's start-up, is
    not needed for it)."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return uname().nodename
    import socket

    try:
        return socket.gethostname()
    except OSError:  # no network stack (a browser): one machine
        return "localhost"


class Owner:
    """This batch as the holder of leases: host, pid and start time."""

    def __init__(self, lease_seconds: float = LEASE_SECONDS):
        self.host = host_name()
        self.pid = os.getpid()
        self.start = process_start(self.pid)
        self.id = f"{self.host}:{self.pid}:{self.start}"
        self.lease_seconds = lease_seconds

    def gone(self, owner_id: str, host: str, pid: int, expires: float, now: float) -> bool:
        """Whether the holder of a lease is gone, so the lease may be taken."""
        if host == self.host:
            start = owner_id.rsplit(":", 1)[-1]
            return not process_alive(int(pid), start)
        return expires < now


def block_name(run_key: str, rows: list) -> str:
    h = hashlib.sha256(run_key.encode())
    for row in rows:
        h.update(b"\0" + str(row.id).encode("utf-8", "surrogatepass") + b"\1"
                 + row.input.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


class Blocks:
    """The blocks this batch holds: which rows of each are still out, and
    how many rows it left to other batches."""

    def __init__(self, store, owner: Owner, run_key: str):
        self.store, self.owner, self.run_key = store, owner, run_key
        self.out: dict = {}  # block -> rows handed out and not stored yet
        self.open: set = set()  # blocks whose rows are still being handed out
        self.block_of: dict = {}  # row id (text) -> its block
        self.left_to_others = 0
        self.renewed = time.time()

    def claim(self, rows: list) -> str | None:
        """Takes the lease of a block; its name, or None when another batch
        holds it."""
        block = block_name(self.run_key, rows)
        if not self.store.claim(block, self.owner, time.time()):
            return None
        self.out.setdefault(block, 0)
        self.open.add(block)
        return block

    def hand_out(self, block: str, row) -> None:
        self.out[block] += 1
        self.block_of[str(row.id)] = block

    def handed_all(self, block: str) -> None:
        self.open.discard(block)
        if not self.out.get(block):
            self._release(block)

    def stored(self, row) -> None:
        """A row of a block is stored: the block is given up after its last."""
        block = self.block_of.pop(str(row.id), None)
        if block is not None:
            self.out[block] -= 1
            if not self.out[block] and block not in self.open:
                self._release(block)
        now = time.time()
        if now - self.renewed > RENEW_EVERY:
            self.renewed = now
            self.store.renew(self.owner, now)

    def _release(self, block: str) -> None:
        self.out.pop(block, None)
        self.store.release(block, self.owner)

    def release_all(self) -> None:
        self.out.clear()
        self.open.clear()
        self.store.release_all(self.owner)
