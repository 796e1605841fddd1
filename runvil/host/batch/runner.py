"""Running rows: the world every row shares, made once as `runvil run`
makes it (bindings, answerers, the Engine's limits, the Packs), and rows
driven `concurrency` at a time by the harness (`harness.many`). The same
runner works in the batch's own process and inside a Ray task; it knows
nothing of the database, which only the batch's driver writes.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
from typing import Iterable, Iterator

from .stored_run import RunClock, run_record


class Runner:
    """`args` carries `script`, `config`, `bind` and `workspace` as
    `runvil run` reads them. Raises ValueError for a world or a config that
    cannot be used, or a role the bindings leave unbound."""

    def __init__(self, args, prompt, concurrency: int):
        from ...engine.run import PrepareError, Run
        from ...harness.answerer import packs_perform, schemas_of_packs
        from ..runcmd import configured_limits, world_for
        from .answering import SharedWorld

        self.args, self.prompt, self.concurrency = args, prompt, concurrency
        self.shared = None
        self.bindings, models, self.echo_note = world_for(args, prompt)
        try:
            self.limits, self.run_limits = configured_limits(args)
            uses = prompt.frontmatter.uses
            self.packs = schemas_of_packs(uses)
            try:  # an unbound role is found now, not at the first row
                Run(prompt, bindings=self.bindings, packs=self.packs).cancel()
            except PrepareError as e:
                raise ValueError(str(e)) from None
            scripted = getattr(models, "world", None) if args.script else None
            make_packs = self._pack_maker() if packs_perform(uses, bool(args.script)) else None
        except BaseException:
            close = getattr(models, "close", None)
            if close is not None:
                close()
            raise
        _pool_for(models, concurrency)
        self.shared = SharedWorld(models, scripted_world=scripted,
                                  blocking_models=not args.script and getattr(models, "concurrent", False),
                                  concurrency=concurrency, make_packs=make_packs)

    def _pack_maker(self):
        """One row's Packs: its own temporary `files` folder, or the shared
        `--workspace DIR` (made now, so that a bad folder is a usage error)."""
        from ...harness.packs import PackTools
        from ...harness.workspace import Workspace
        from ..config import PackSettings, load_config

        config = load_config(self.args.config)
        settings = config.packs if config is not None else PackSettings()
        uses = self.prompt.frontmatter.uses
        if self.args.workspace:
            try:
                workspace = Workspace.at(self.args.workspace, settings.write_quota)
            except OSError as e:
                raise ValueError(f"cannot use the workspace folder {self.args.workspace}: {e.strerror or e}") from None
            shared = PackTools(workspace, settings, uses)
            shared.close = lambda: None  # the folder is the user's and outlives every row
            return lambda: shared
        return lambda: PackTools(Workspace.temporary(settings.write_quota), settings, uses)

    def run_rows(self, rows: Iterable, on_pass=None) -> Iterator[tuple]:
        """Runs the rows (anything with `input`), `concurrency` at a time;
        yields (row, its `runs` record without the row's own fields, the
        rounds that reported usage) as each ends; `on_pass()` once the rows
        that ended together were yielded (harness.many.drive_many)."""
        from ...engine.run import Run
        from ...harness.many import Job, drive_many

        def jobs():
            for row in rows:
                run = Run(self.prompt, input=row.input, bindings=self.bindings, packs=self.packs, release_lua=True,
                          limits=self.limits, run_limits=self.run_limits)
                yield Job(run, self.shared.row_answerer(run), tag=(row, RunClock()))

        with fewer_collections():
            for job in drive_many(jobs(), self.concurrency, on_pass=on_pass):
                row, clock = job.tag
                job.answer.close()
                meter = job.answer.meter
                yield row, run_record(job.run, clock, meter.as_json(), error=job.error), meter.reported

    def close(self) -> None:
        if self.shared is not None:
            self.shared.close()
            self.shared = None


#: the young generation's threshold while rows run (Python's default: 700)
YOUNG_OBJECTS = 50_000


@contextlib.contextmanager
def fewer_collections():
    """Rows allocate thousands of objects each and, once ended, free them
    by reference counting (an ended run holds no cycle: engine.run). At
    Python's default threshold the cyclic collector still ran about once a
    row, scanning every live run each time (over 10% of a batch's CPU);
    while rows run, the objects made before them are frozen out of its
    passes and it runs after 50,000 new objects. Cycles are still
    collected, so memory stays flat.

    Stopped by Ctrl-C (or SIGTERM, or the process's exit), the collector
    is left as it is: the process is on its way out, and the next
    collection would come at once, walking up to 50,000 young objects, or
    every thawed one (a thaw is soon followed by a full collection), which
    on a loaded machine held the way out for up to a second."""
    old = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_OBJECTS, *old[1:])
    try:
        yield
    except Exception:
        gc.set_threshold(*old)
        gc.unfreeze()
        raise
    gc.set_threshold(*old)
    gc.unfreeze()


SHARD_CONNECTIONS = 16  # connections an httpx provider client keeps open


def _pool_for(models, concurrency: int) -> None:
    """Real providers keep a connection open for every row running at once
    and send with the lean HTTP/1.1 client (`harness.http11`: httpx cost
    about 1.5 ms of CPU a request, more than the Engine's share of a
    row). Where httpx must send (a proxy in the environment) the
    connections are spread over httpx clients of at most SHARD_CONNECTIONS
    each, because httpcore scans its whole pool at every request: at 100
    connections that scan took a third of a batch's CPU time."""
    from ...harness.providers import ProviderSet

    if not isinstance(models, ProviderSet) or models.factory is not None:
        return
    from ...harness import http11  # noqa: F401  imported now, before workers are forked: once, not in each
    from ...harness.openai import OpenAIProvider

    def provider(*args, **kwargs):
        lean = OpenAIProvider(*args, lean=True, connections=concurrency, **kwargs)
        if lean.lean or concurrency <= SHARD_CONNECTIONS:
            return lean
        lean.close()
        shards = -(-concurrency // SHARD_CONNECTIONS)
        return ShardedProvider([OpenAIProvider(*args, connections=SHARD_CONNECTIONS, **kwargs)
                                for _ in range(shards)])

    models.factory = provider


class ShardedProvider:
    """One catalog model answered by several provider clients in turn."""

    def __init__(self, shards: list):
        self.shards = shards
        self._turn = itertools.count()  # next() on a count is atomic: the I/O threads share it

    def answer(self, effect, on_fragment=None, on_retry=None):
        shard = self.shards[next(self._turn) % len(self.shards)]
        return shard.answer(effect, on_fragment=on_fragment, on_retry=on_retry)

    def close(self) -> None:
        for shard in self.shards:
            shard.close()
