"""`runvil batch --ray [ADDRESS]`: the rows run on a Ray cluster (Ray is
the scheduler: no scheduler of our own).

The driver reads the rows not done, cuts them into chunks and sends each
chunk as a Ray task; a task runs its rows `-j` at a time exactly as a local
batch does (`runner.Runner`) and returns their records. The driver takes
each chunk's records as its task ends and alone writes the database. A
worker that dies mid-chunk costs time only: Ray runs the task again
(`max_retries`), and since a chunk's records reach the driver once, each
row is stored once. A chunk that still fails stores its rows as failed
(kind `internal`), so the batch goes on.

What a task needs travels with it: the prompt's text, the scripted world's
and the config's texts, `--bind`, and the API keys the bindings need (as
the job's environment), so a worker needs no file of the driver's machine.

Decisions: a chunk holds 4 × `-j` rows; at most 2 tasks per CPU of the
cluster are in flight, so the data set is streamed, not sent at once; with
no ADDRESS a local cluster is started (or the one RAY_ADDRESS names).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from types import SimpleNamespace

NEEDS_RAY = "--ray needs Ray: pip install 'runvil[ray]'"
CANNOT_CONNECT = "cannot start or join the Ray cluster {where}: {reason}"
TASK_FAILED = "the Ray task running this row failed: {reason}"
CHUNK_ROWS = 4  # rows a chunk holds, per row running at once
TASKS_PER_CPU = 2
TASK_RETRIES = 3


def bundle_for(plan) -> dict:
    """What every task needs to run rows as this batch's process would."""
    from ..config import config_path

    args = plan.args
    cfg = config_path(args.config)
    return {
        "prompt_name": os.path.basename(args.prompt),
        "prompt_text": _read_text(args.prompt),
        "script_text": _read_text(args.script) if args.script else None,
        "config_text": _read_text(str(cfg)) if cfg is not None else None,
        "bind": list(args.bind),
        "workspace": os.path.abspath(args.workspace) if args.workspace else None,
        "concurrency": plan.concurrency,
    }


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def key_environment(plan) -> dict:
    """The API keys the bindings need, by their variables' names: the
    workers' environment (never written anywhere by runvil)."""
    config = getattr(plan.runner.shared.models, "config", None)
    if config is None:
        return {}
    names = {getattr(p, "api_key_env", None) for p in config.providers.values()}
    return {n: os.environ[n] for n in names if n and n in os.environ}


@contextlib.contextmanager
def _isolated(folder: str):
    """A task's process reads no config but the one shipped with it: not a
    RUNVIL_CONFIG of the worker's environment, not a runvil.toml where the
    worker happens to be."""
    old_cwd, old_env = os.getcwd(), os.environ.pop("RUNVIL_CONFIG", None)
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old_cwd)
        if old_env is not None:
            os.environ["RUNVIL_CONFIG"] = old_env


def run_chunk(bundle: dict, rows: list) -> list:
    """A Ray task: runs rows given as (id, input, metadata, line) tuples;
    returns (row id, record, rounds with usage) for each, as they ended."""
    from ...prompt import read_prompt
    from .data import Row
    from .runner import Runner

    with tempfile.TemporaryDirectory(prefix="runvil-ray-") as folder:
        prompt_path = os.path.join(folder, bundle["prompt_name"])
        with open(prompt_path, "w", encoding="utf-8") as f:
            f.write(bundle["prompt_text"])
        args = SimpleNamespace(script=None, config=None, bind=bundle["bind"], workspace=bundle["workspace"])
        for key, name in (("script_text", "world.yaml"), ("config_text", "runvil.toml")):
            if bundle[key] is not None:
                path = os.path.join(folder, name)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(bundle[key])
                setattr(args, "script" if key == "script_text" else "config", path)
        with _isolated(folder):
            prompt = read_prompt(prompt_path)
            runner = Runner(args, prompt, bundle["concurrency"])
            try:
                chunk = (Row(id=i, input=text, metadata=meta, line=line) for i, text, meta, line in rows)
                return [(row.id, rec, reported) for row, rec, reported in runner.run_rows(chunk)]
            finally:
                runner.close()


def _chunks(rows, size: int):
    chunk = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def run_on_ray(plan, address: str) -> None:
    """Runs the plan's rows on Ray; each chunk's rows are stored as its
    task ends. Raises ValueError when Ray is missing or unreachable."""
    try:
        import ray
    except ImportError:
        raise ValueError(NEEDS_RAY) from None
    import sys

    # what Ray itself prints (a worker that died, a task retried) is news
    # for stderr: stdout holds the summary line alone
    with contextlib.redirect_stdout(sys.stderr):
        _run_on_ray(plan, address, ray)


def _run_on_ray(plan, address: str, ray) -> None:
    import logging

    where = address or "(a new local one)"
    problem = _unreachable(address)
    if problem is not None:  # said at once: Ray itself would retry for minutes
        raise ValueError(CANNOT_CONNECT.format(where=where, reason=problem))
    try:
        ray.init(address=address or None, runtime_env={"env_vars": key_environment(plan)},
                 logging_level=logging.ERROR, log_to_driver=False, configure_logging=True,
                 **({} if address else {"include_dashboard": False}))
    except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
        raise ValueError(CANNOT_CONNECT.format(where=where, reason=e)) from None
    try:
        _drive(plan, ray)
    finally:
        ray.shutdown()


def _unreachable(address: str) -> str | None:
    """Why a `HOST:PORT` (or `ray://HOST:PORT`) address cannot be reached,
    or None (also for `auto`, or no address: Ray finds or starts one)."""
    import socket

    rest = address.split("://", 1)[-1]
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit():
        return None
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as e:
        return e.strerror or str(e)
    return None


def _drive(plan, ray) -> None:
    task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(run_chunk)
    bundle = ray.put(bundle_for(plan))
    cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
    most = max(2, TASKS_PER_CPU * cpus)
    chunks = _chunks(plan.rows_to_run(), CHUNK_ROWS * plan.concurrency)
    pending: dict = {}  # task ref -> its rows
    plan.begin()
    try:
        while True:
            while len(pending) < most:
                chunk = next(chunks, None)
                if chunk is None:
                    break
                rows = [(r.id, r.input, r.metadata, r.line) for r in chunk]
                pending[task.remote(bundle, rows)] = chunk
            if not pending:
                return
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                _store_chunk(plan, ray, ref, pending.pop(ref))
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise


def _store_chunk(plan, ray, ref, chunk) -> None:
    """Stores a finished chunk's rows; a chunk whose task failed for good
    stores its rows as failed."""
    from .stored_run import RunClock

    by_id = {str(r.id): r for r in chunk}
    try:
        results = ray.get(ref)
    except Exception as e:  # the task's own exception, or its worker died past every retry
        reason = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        for row in chunk:
            rec = _failed_record(RunClock(), TASK_FAILED.format(reason=reason))
            rec.update(plan.row_fields(row))
            plan.store_row(row, rec, 0)
        return
    for row_id, rec, reported in results:
        row = by_id.pop(str(row_id))
        rec.update(plan.row_fields(row))
        plan.store_row(row, rec, reported)


def _failed_record(clock, message: str) -> dict:
    from ...engine.events import utc_now

    return {"ok": 0, "result": None, "error_kind": "internal", "error_message": message, "rounds": 0,
            "prompt_tokens": None, "completion_tokens": None, "reasoning_tokens": None,
            "rounds_without_usage": 0, "modules": "{}", "started": clock.started,
            "ended": utc_now(), "seconds": 0.0, "log": ""}
