"""`runvil view` on mutated real run logs (issue 26: "91,400 mutated run
logs for the viewer ... a run log whose `model_turn_completed.origin` is
not text crashes `runvil view`"): logs of the tutorial's runs, each
mutated by putting a value of another JSON type at a random place (a
field, a message's field, a tool call's arguments, ...) or removing it.
Every mutated log draws a page; none ends in an internal error."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from runvil.host.cli import main
from runvil.host.view import read_log, render

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "tutorial"
RUNS = ["compactor", "first-prompt", "oops", "precheck", "prose", "tasks", "tools"]
MUTATIONS_PER_LOG = 2000

HOSTILE = [None, True, False, 0, -1, 2**70, -(2**70), 1.5, float("nan"), float("inf"), "", "x", "<b>&", "\x1b]52;c;aGk=\x07",
           [], [None], [1, "a"], {}, {"a": 1}, {"type": 5}, [[[[]]]], {"role": 5, "content": [1]}, "9" * 50]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, list[dict]]:
    folder = tmp_path_factory.mktemp("logs")
    out = {}
    for name in RUNS:
        log = folder / f"{name}.jsonl"
        main(["run", str(TUTORIAL / f"{name}.md"), "--script", str(TUTORIAL / f"{name}.yaml"), "--debug",
              "--log", str(log)])
        out[name] = read_log(str(log))
        assert out[name][-1]["type"] == "run_ended"
    return out


def places(value, path=()):
    """Every (path, value) inside a JSON value, the value itself first."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from places(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from places(v, path + (i,))


def mutated(events: list[dict], rng: random.Random) -> tuple[list[dict], list[str]]:
    """A copy of the events with one to three places changed; what changed."""
    events = copy.deepcopy(events)
    done = []
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(events))
        path, _ = rng.choice([p for p in places(events[i]) if p[0]])
        parent = events[i]
        for part in path[:-1]:
            parent = parent[part]
        if isinstance(parent, dict) and rng.random() < 0.15:
            del parent[path[-1]]
            done.append(f"event {i}: removed {list(path)}")
        else:
            value = rng.choice(HOSTILE)
            parent[path[-1]] = copy.deepcopy(value)
            done.append(f"event {i}: {list(path)} = {value!r}")
    return events, done


@pytest.mark.parametrize("name", RUNS)
def test_a_mutated_run_log_always_draws(logs, name):
    rng = random.Random(f"view-{name}")
    failures = []
    for _ in range(MUTATIONS_PER_LOG):
        events, done = mutated(logs[name], rng)
        try:
            html = render(events, name)
        except Exception as e:  # noqa: BLE001 - reported with its reproducer
            failures.append(f"{type(e).__name__}: {e} after {done}")
            continue
        assert html.startswith("<!DOCTYPE html>") and "<script" not in html
    assert not failures, f"{len(failures)} of {MUTATIONS_PER_LOG} mutations failed:\n" + "\n".join(failures[:15])


def test_a_mutated_log_through_the_command_is_a_page_or_a_usage_error(logs, tmp_path, capsys):
    """Through `runvil view` itself: lines that are not events, events
    whose type is not text, and a field of every kind changed."""
    rng = random.Random("view-command")
    for n in range(40):
        events, _ = mutated(logs["tools"], rng)
        lines = [json.dumps(ev) for ev in events]
        if n % 4 == 0:
            lines.insert(rng.randrange(len(lines)), rng.choice(["[1]", "5", "{\"type\": 5}", "null", "{"]))
        log = tmp_path / f"m{n}.jsonl"
        log.write_text("\n".join(lines) + "\n", encoding="utf-8")
        code = main(["view", str(log), "-o", str(tmp_path / f"m{n}.html")])
        err = capsys.readouterr().err
        assert code in (0, 2) and "internal error" not in err and "Traceback" not in err, err
        assert (code == 0) == (tmp_path / f"m{n}.html").exists()
