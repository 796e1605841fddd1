"""Driving many runs at once in one process (docs/reference/commands.md "runvil batch": `-j N` rows
at a time).

The Engine is sans-IO, so one driver (the calling thread) steps every run
(the runs ready at the time together, in one hand-over to the Engine's
thread) and answers their effects; a run waiting on the outside world is
only a Run object and its pending effects. The effects that block (a provider round, a Pack's tool) are
performed on a set of I/O threads shared by every run, started as they are
needed and never more than `io_threads`; the others (the echo model, a
scripted world) are answered inline, with no thread switch. A run is
resumed when every effect of its step has its answer.

The runs are pulled from `jobs` one at a time as slots free up, so a data
set of any size is never held in memory, and each run is handed back as it
ends, in the order they end.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from typing import Callable, Iterable, Iterator

from ..threads import start_helper_thread


MAX_IO_THREADS = 512  # past this, blocking effects wait their turn (a thread's stack is not free)


class Job:
    """One run to drive, the function answering its effects, and what the
    caller keeps with it (`tag`). After it is handed back: `error` is the
    Python exception that stopped it (an Engine bug or an answerer that
    raised), else None and `run.outcome` holds the outcome."""

    __slots__ = ("run", "answer", "tag", "error", "_pending", "_answers", "_over")

    def __init__(self, run, answer: Callable, tag=None):
        self.run = run
        self.answer = answer
        self.tag = tag
        self.error: BaseException | None = None
        self._pending = 0
        self._answers: dict = {}
        self._over = False


def blocks(answer: Callable, effect) -> bool:
    """Whether answering `effect` may wait on the outside world: the
    answerer's own `blocks(effect)` when it has one, else whether it says
    it is `concurrent` (real providers, the Packs)."""
    says = getattr(answer, "blocks", None)
    if says is not None:
        return bool(says(effect))
    return bool(getattr(answer, "concurrent", False))


class _IOThreads:
    """Daemon threads performing blocking effects; a Ctrl-C never waits for
    them (their answers are dropped once the driver has stopped)."""

    def __init__(self, limit: int, done: queue.SimpleQueue):
        self.limit = max(1, limit)
        self.done = done
        self.work: queue.SimpleQueue = queue.SimpleQueue()
        self.threads = 0
        self.idle = 0
        self.stopped = threading.Event()
        self._lock = threading.Lock()

    def submit(self, job: Job, effect) -> None:
        with self._lock:
            if self.idle == 0 and self.threads < self.limit:
                self.threads += 1
                start_helper_thread(self._serve, "runvil-io")
            else:
                self.idle -= 1  # a waiting thread takes this one
        self.work.put((job, effect))

    def _serve(self) -> None:
        while not self.stopped.is_set():
            job, effect = self.work.get()
            if job is None:
                return
            try:
                got, err = job.answer(effect), None
            except BaseException as e:  # handed to the driver, which fails this run only
                got, err = None, e
            if self.stopped.is_set():
                return
            with self._lock:
                self.idle += 1
            self.done.put((job, effect.id, got, err))

    def stop(self) -> None:
        self.stopped.set()
        for _ in range(self.threads):
            self.work.put((None, None))


def drive_many(jobs: Iterable[Job], concurrency: int, io_threads: int | None = None,
               on_pass: Callable | None = None) -> Iterator[Job]:
    """Drives at most `concurrency` runs at once to their ends; yields each
    job as its run ends. A run whose step or answerer raised ends there
    (`job.error`) and the others go on. Closing the generator (or an
    exception in the caller, such as KeyboardInterrupt) stops at once:
    runs still going are dropped as they are. `on_pass()` is called once
    the runs that ended in one hand-over were all yielded (before any wait),
    so that a caller may pass them on together."""
    from ..engine.run import step_many

    concurrency = max(1, concurrency)
    done: queue.SimpleQueue = queue.SimpleQueue()
    io = _IOThreads(io_threads or min(2 * concurrency, MAX_IO_THREADS), done)
    source = iter(jobs)
    ready: deque[Job] = deque()
    live = 0
    exhausted = False
    try:
        while True:
            while not exhausted and live < concurrency:
                job = next(source, None)
                if job is None:
                    exhausted = True
                else:
                    live += 1
                    ready.append(job)
            _take_answers(done, ready, block=not ready and live > 0)
            if not ready:
                if live == 0:
                    return
                continue
            # (emptied as it is read: the Lua thread keeps its last job, and
            # with it this list, until its next one)
            stepped: deque = deque()
            step_many(lambda: _step_ready(ready, stepped, io))
            while stepped:
                job, effects = stepped.popleft()
                if _settle(job, effects, io, ready):
                    live -= 1
                    yield job
            if on_pass is not None:
                on_pass()
    finally:
        io.stop()


def _step_ready(ready: deque, stepped: deque, io: "_IOThreads") -> None:
    """Steps once each run ready now, on the Engine's thread. A run whose
    effects all block is sent off to the I/O threads at once (its request
    need not wait for the other runs' steps); the others are added to
    `stepped` as (job, its effects), effects None for a run whose step
    raised, for the driver to settle."""
    for _ in range(len(ready)):
        job = ready.popleft()
        try:
            effects = job.run.step()
        except Exception as e:  # an Engine bug: this run only
            _stopped(job, e)
            effects = None
        else:
            if _send_off(job, effects, io):
                continue
        stepped.append((job, effects))


def _send_off(job: Job, effects, io: "_IOThreads") -> bool:
    """Hands every effect of a step to the I/O threads when each of them
    blocks; False (nothing done) otherwise."""
    if not effects or job.run.done:
        return False
    try:
        if not all(blocks(job.answer, e) for e in effects):
            return False
    except Exception:  # settled by the driver, which fails this run only
        return False
    job._answers, job._pending = {}, len(effects)
    for effect in effects:
        io.submit(job, effect)
    return True


def _settle(job: Job, effects, io: _IOThreads, ready: deque) -> bool:
    """Answers or sends off the effects of a run's step; True when the run
    has ended (or was stopped by an exception). A run whose effects are all
    answered at once is resumed and ready again."""
    run = job.run
    if job._over:
        return True
    try:
        if run.done:
            job._over = True
            return True
        answers: dict = {}
        waiting = []
        for effect in effects:
            if blocks(job.answer, effect):
                waiting.append(effect)
            else:
                answers[effect.id] = job.answer(effect)
    except Exception as e:  # an answerer's: this run only
        return _stopped(job, e)
    if not waiting:
        try:
            run.resume(answers)
        except Exception as e:
            return _stopped(job, e)
        ready.append(job)
        return False
    job._answers, job._pending = answers, len(waiting)
    for effect in waiting:
        io.submit(job, effect)
    return False


def _stopped(job: Job, error: BaseException) -> bool:
    job.error = error
    job._over = True
    try:
        job.run.cancel()
    except Exception:  # the run is broken already; its error is what counts
        pass
    return True


def _take_answers(done: queue.SimpleQueue, ready: deque, block: bool) -> None:
    """Hands the I/O threads' answers to their runs; a run whose step is
    fully answered is resumed and queued to step again. Waits for one
    answer when `block`."""
    while True:
        try:
            job, effect_id, got, err = done.get() if block else done.get_nowait()
        except queue.Empty:
            return
        block = False
        if job._over:
            continue
        if err is not None:
            if isinstance(err, Exception):
                _stopped(job, err)
                ready.appendleft(job)  # handed back by its next _advance
                continue
            raise err  # KeyboardInterrupt and the like belong to the driver
        job._answers[effect_id] = got
        job._pending -= 1
        if job._pending == 0:
            answers, job._answers = job._answers, {}
            try:
                job.run.resume(answers)
            except Exception as e:
                _stopped(job, e)
            ready.append(job)
