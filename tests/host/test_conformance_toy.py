"""`runvil conformance --impl` tried as an implementer would, with an
implementation that is deliberately incomplete (toy_runvil.py: right on the
simplest prompt, wrong on others, a crash on tasks, a hang on a fan-out
that leaves a grandchild behind): the per-section and per-folder tables,
JUnit errors for a crash and a hang, no process left behind, feature tags,
--expect-fail, --skip, -j 2, --keep and RUNVIL_CASE_ID. A handful of cases
in a folder of the test's own; the hang costs its timeout (2 s) and a
grace second."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from runvil.host.cli import main

from ..engine.prompts import source

HERE = Path(__file__).resolve().parent
TOY = f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'toy_runvil.py'))}"
ADAPTER = Path(__file__).resolve().parents[2] / "runvil" / "conformance" / "adapters" / "example_adapter.py"

SIMPLE = source(("A", "models.use('writer')\nmessages:user('hi')\nmodels.loop()\nreturn messages[#messages].content"))
READS = source(("A", "models.use('writer')\nmessages:user('hi')\nmodels.loop()\nreturn #messages .. ''"))
TOOLS = source(("A", "models.use('writer')\ntools.offer_local('t', function() return 'x' end)\nreturn 'offered'"))
TASK = source(("A", "local t = tasks.spawn('B')\nreturn 'spawned'"), ("B", "return 'b'"))
FAN_OUT = source(("A", "return table.concat(tasks.fanout('B', {'x'}), ',')"), ("B", "return input"))
REPLY = {"replies": [{"text": "hello"}]}

CHATS = [
    {"name": "hello", "spec": "Starting a conversation", "prompt": SIMPLE, "world": REPLY,
     "expect": {"ok": True, "result": "hello",
                "requests": [{"role": "writer", "messages": [{"role": "user", "content": "hi"}]}]}},
    {"name": "hello-again", "spec": "Starting a conversation", "prompt": SIMPLE, "world": REPLY,
     "expect": {"ok": True, "result": "hello"}},
    {"name": "length", "spec": "The length of a list", "prompt": READS, "world": REPLY,
     "expect": {"ok": True, "result": "2"}},
]
EXTRAS = [
    {"name": "local-tool", "spec": "Tool rounds", "prompt": TOOLS, "expect": {"ok": True, "result": "offered"}},
    {"name": "a-task", "spec": "Tasks", "prompt": TASK, "expect": {"ok": True, "result": "spawned"}},
    {"name": "fan-out", "spec": "Tasks", "prompt": FAN_OUT, "expect": {"ok": True, "result": "x"}},
]


@pytest.fixture
def suite(tmp_path) -> Path:
    for folder, cases in (("chats", CHATS), ("extras", EXTRAS)):
        (tmp_path / "suite" / folder).mkdir(parents=True)
        (tmp_path / "suite" / folder / "cases.yaml").write_text(yaml.safe_dump(cases, sort_keys=False),
                                                                encoding="utf-8")
    return tmp_path / "suite"


def conformance(capsys, *args) -> tuple[int, str, str]:
    code = main(["conformance", *args])
    out, err = capsys.readouterr()
    return code, out, err


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its parent does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_gone(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + 30  # returns as soon as they are gone; load may slow their end
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def started(pids_file: Path) -> list[int]:
    return [int(p) for line in pids_file.read_text().splitlines() for p in line.split()]


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_a_partial_implementation_gets_tables_errors_and_leaves_nothing_behind(suite, tmp_path, capsys,
                                                                               monkeypatch):
    pids = tmp_path / "pids"
    monkeypatch.setenv("TOY_PIDS", str(pids))
    junit, report, keep = tmp_path / "r.xml", tmp_path / "r.json", tmp_path / "kept"
    code, out, err = conformance(capsys, "--impl", TOY, "-j", "2", "--timeout", "2", "--junit", str(junit),
                                 "--json-report", str(report), "--keep", str(keep), str(suite))
    assert code == 1, out + err
    assert "FAIL chats/cases.yaml::length\n  result:\n" in out
    assert "ERROR extras/cases.yaml::a-task\n" in out and "NotImplementedError: tasks are not implemented" in out
    assert "ERROR extras/cases.yaml::fan-out\n" in out and "(stopped after 2 seconds)" in out
    table = out[out.index("\nsection"):]
    assert table.split("\n")[1].split() == ["section", "passed", "failed", "errors", "total"]
    rows = {cells[0]: cells[1:] for cells in (re.split(r"\s{2,}", line.strip()) for line in table.splitlines()[2:])}
    assert rows["Starting a conversation"] == ["2", "0", "0", "2"]
    assert rows["Tasks"] == ["0", "0", "2", "2"] and rows["chats"] == ["2", "1", "0", "3"]
    assert rows["extras"] == ["0", "1", "2", "3"]
    assert out.endswith("2 passed, 2 failed, 2 errors\n")

    # the hang's grandchild went with its process group
    assert len(started(pids)) == 2 and wait_gone(started(pids)) == []

    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "2", "2")
    chats, extras = root.findall("testsuite")
    assert (chats.get("name"), extras.get("name"), extras.get("errors"), chats.get("errors")) == (
        "chats", "extras", "2", "0")
    fan_out = extras.find("testcase[@name='fan-out']")
    assert fan_out.find("failure") is None and fan_out.find("error").get("message") == "stopped after 2 seconds"
    assert fan_out.find("properties/property[@name='section']").get("value") == "Tasks"
    assert fan_out.find("properties/property[@name='features']").get("value") == "tasks,fan-out"
    assert extras.find("testcase[@name='a-task']/error").get("message") == "no JSON object on stdout (exit status 1)"
    assert chats.find("testcase[@name='length']/failure").get("message") == "differs: result"

    data = json.loads(report.read_text())
    assert data["totals"]["errors"] == 2 and data["jobs"] == 2 and data["implementation"] == TOY
    assert [c["outcome"] for c in data["cases"]] == ["pass", "pass", "fail", "fail", "error", "error"]
    assert data["cases"][2]["differs"] == [{"field": "result", "want": "2", "got": "I only know one kind of prompt",
                                            "note": None}]

    kept = sorted(p.relative_to(keep).as_posix() for p in keep.glob("*/*/*"))
    assert kept == ["chats/cases/length", "extras/cases/a-task", "extras/cases/fan-out", "extras/cases/local-tool"]
    length = keep / "chats" / "cases" / "length"
    assert sorted(p.name for p in length.iterdir()) == ["command.txt", "expect.json", "prompt.md", "stderr.txt",
                                                        "stdout.txt", "world.json", "world.yaml"]
    command = (length / "command.txt").read_text()
    assert command == f"RUNVIL_CASE_ID=chats/cases.yaml::length {TOY} prompt.md --script world.yaml --json\n"
    assert json.loads((length / "stdout.txt").read_text())["case"] == "chats/cases.yaml::length"


def test_building_in_steps_with_skipped_features_and_expected_failures(suite, tmp_path, capsys):
    known = tmp_path / "known.txt"
    known.write_text("# what the toy cannot do yet\nchats/cases.yaml::length\n"
                     "extras/cases.yaml::local-tool  # no tools\nchats/cases.yaml::hello\n", encoding="utf-8")
    code, out, err = conformance(capsys, "--impl", TOY, "-j", "2", "--skip-features", "tasks",
                                 "--expect-fail", str(known), "-v", str(suite))
    assert code == 0, out + err
    assert "XPASS chats/cases.yaml::hello (listed as expected to fail, and passed)\n" in out
    assert "XFAIL chats/cases.yaml::length\n" in out and "SKIP extras/cases.yaml::fan-out (feature tasks)\n" in out
    assert out.endswith("2 passed, 0 failed, 2 expected failures, 1 unexpected passes, 2 skipped\n")


def test_a_skip_list_and_feature_selection(suite, tmp_path, capsys):
    hangs = tmp_path / "hangs.txt"
    hangs.write_text("extras/cases.yaml::fan-out\n", encoding="utf-8")
    code, out, _ = conformance(capsys, "--impl", TOY, "--skip", str(hangs), "--features", "tasks,tools", "-q",
                               str(suite))
    assert code == 1 and "ERROR extras/cases.yaml::a-task: output\n" in out
    assert out.endswith("0 passed, 1 failed, 1 errors, 1 skipped\n")
    code, _, err = conformance(capsys, "--features", "telepathy", str(suite))
    assert code == 2 and "unknown feature 'telepathy' (the features: tools, tasks, fan-out" in err


def test_k_matches_ids_and_headings_and_exclude_leaves_out(suite, capsys):
    code, out, _ = conformance(capsys, "--list", "-k", "starting A CONVERSATION", "--exclude", "again", str(suite))
    assert (code, out) == (0, "chats/cases.yaml::hello\n")
    code, out, _ = conformance(capsys, "--list", "--exclude", "extras/", str(suite))
    assert out.split() == ["chats/cases.yaml::hello", "chats/cases.yaml::hello-again", "chats/cases.yaml::length"]


def test_duplicate_ids_are_an_error_of_the_suite(tmp_path, capsys):
    folder = tmp_path / "dup"
    folder.mkdir()
    (folder / "cases.yaml").write_text(yaml.safe_dump([CHATS[0], CHATS[0]]), encoding="utf-8")
    code, out, err = conformance(capsys, str(folder))
    assert code == 2 and out == ""
    assert "runvil: duplicate case id dup/cases.yaml::hello: in " in err


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_the_example_adapter_stops_what_it_runs(suite, tmp_path, capsys, monkeypatch):
    """Its own timeout stops the command and its grandchild; stopped by the
    runner's timeout, it stops them too."""
    pids = tmp_path / "pids"
    monkeypatch.setenv("TOY_PIDS", str(pids))
    template = f"{TOY} {{prompt}} --script {{world}} --json"
    own = f"{shlex.quote(sys.executable)} {ADAPTER} --timeout 1 {shlex.quote(template)}"
    code, out, _ = conformance(capsys, "--impl", own, "-k", "fan-out", "--timeout", "20", str(suite))
    assert code == 1 and "example_adapter: stopped" in out and "after 1 seconds" in out
    assert "exit status 124" in out
    assert wait_gone(started(pids)) == []
    pids.unlink()
    late = f"{shlex.quote(sys.executable)} {ADAPTER} --timeout 60 {shlex.quote(template)}"
    code, out, _ = conformance(capsys, "--impl", late, "-k", "fan-out", "--timeout", "2", str(suite))
    assert code == 1 and "(stopped after 2 seconds)" in out
    assert len(started(pids)) == 2 and wait_gone(started(pids)) == []


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_interrupted_run_leaves_nothing_behind(suite, tmp_path, jobs):
    import signal
    import subprocess

    pids = tmp_path / "pids"
    args = [sys.executable, "-m", "runvil.host.cli", "conformance", "--impl", TOY, "-j", jobs, "--timeout", "60",
            "-k", "fan-out", "-k", "::hello", str(suite)]
    runner = subprocess.Popen(args, env={**os.environ, "TOY_PIDS": str(pids)}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (pids.exists() and len(started(pids)) == 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    runner.send_signal(signal.SIGINT)
    _, err = runner.communicate(timeout=30)
    assert runner.returncode == 130, err
    assert wait_gone(started(pids)) == []
