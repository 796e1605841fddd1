"""Users' own prompt tests (examples/tests/): a case whose `prompt` and
`world` are paths, the world recorded with `runvil run --record` against a
real loopback Chat Completions server and real Pack tools.

The checked-in world is the recording: this test records it again and
compares (set RUNVIL_UPDATE_EXAMPLES=1 to write a new one instead)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from runvil.host.cli import main

from ..harness.chat_server import chunk, stream, usage_chunk

TESTS = Path(__file__).resolve().parents[2] / "examples" / "tests"
WORLD = TESTS / "worlds" / "crash-report.yaml"
REPORT = "Since 2.3 the app crashes on start-up (Android 14): « NullPointerException »."


def test_the_example_prompt_tests_pass(capsys):
    assert main(["conformance", "-v", str(TESTS)]) == 0
    out = capsys.readouterr().out
    assert "PASS cases/triage.yaml::crash-report-is-a-bug\n" in out and out.endswith("3 passed, 0 failed\n")
    assert "PASS cases/triage.yaml::the-answer-starts-with-a-label\n" in out  # {matches: ...} and {contains: ...}


def test_an_edited_prompt_fails_its_test(tmp_path, capsys):
    """What the tests are for: a change to the prompt shows in the requests."""
    import shutil

    shutil.copytree(TESTS, tmp_path / "tests")
    prompt = tmp_path / "tests" / "prompts" / "triage.md"
    prompt.write_text(prompt.read_text(encoding="utf-8").replace("You triage", "You sort"), encoding="utf-8")
    assert main(["conformance", str(tmp_path / "tests")]) == 1
    out = capsys.readouterr().out
    assert "FAIL cases/triage.yaml::the-model-sees-the-instructions-and-the-report\n  requests[1].messages:\n" in out
    assert '-    "content": "You triage' in out and '+    "content": "You sort' in out


def test_the_recorded_world_is_a_recording(tmp_path, capsys, server):
    server.reply(
        stream(
            chunk({"role": "assistant", "content": None, "tool_calls": [{"index": 0, "id": "call_label",
                   "type": "function", "function": {"name": "files_write", "arguments": ""}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"path": "label.txt",'}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": ' "content": "bug"}'}}]}),
            chunk({}, finish="tool_calls"), usage_chunk(96, 18)),
        stream(chunk({"role": "assistant", "content": ""}), chunk({"content": "bug: the app "}),
               chunk({"content": "crashes on start-up"}), chunk({"content": " since the update"}),
               chunk({}, finish="stop"), usage_chunk(131, 12)),
    )
    config = tmp_path / "runvil.toml"
    config.write_text(textwrap.dedent(f"""\
        default_model = "local/small"
        [providers.local]
        base_url = "{server.base_url}"
        [models."local/small"]
        provider = "local"
        context = 8000
        """), encoding="utf-8")
    recorded = WORLD if os.environ.get("RUNVIL_UPDATE_EXAMPLES") else tmp_path / "world.yaml"
    code = main(["run", str(TESTS / "prompts" / "triage.md"), "--config", str(config), "--input", REPORT,
                 "--record", str(recorded)])
    assert code == 0 and capsys.readouterr().out == "bug: the app crashes on start-up since the update\n"
    assert recorded.read_text(encoding="utf-8") == WORLD.read_text(encoding="utf-8")
