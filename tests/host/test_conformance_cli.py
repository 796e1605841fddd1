"""`runvil conformance` (docs/reference/commands.md "runvil conformance"):
`--impl CMD` runs `CMD prompt.md --script world.yaml --json` in a fresh
folder per case, failing fields are shown with want and got, `-k` selects by
id, `--junit` writes one test case per case, a progress bar on a terminal
and plain lines in a pipe; exit 0 all passed, 1 any failed, 2 no case found
or a usage error. Subprocess runs stay on a handful of cases."""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from runvil.host.cli import main
from runvil.host.suite import suite_folder, suite_info

from ..engine.prompts import chat_prompt
from .terminal import on_a_terminal

ROOT = Path(__file__).resolve().parents[2]
SUITE = suite_folder()
FIRST_CHAT = SUITE / "starting-a-conversation" / "first-chat.yaml"
PY = shlex.quote(sys.executable)
RUNVIL_RUN = f"{PY} -m runvil.host.cli run"  # `runvil run` without relying on PATH

PROMPT = chat_prompt()

BROKEN = """\
import json, subprocess, sys
done = subprocess.run([sys.executable, "-m", "runvil.host.cli", "run", *sys.argv[1:]], capture_output=True, text=True)
data = json.loads(done.stdout)
data["result"] = "altered: " + str(data["result"])
print(json.dumps(data))
"""


def case_file(tmp_path, *cases, name="cases.yaml") -> Path:
    import yaml

    folder = tmp_path / "suite"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(yaml.safe_dump(list(cases), allow_unicode=True, sort_keys=False), encoding="utf-8")
    return folder


def conformance(capsys, *args) -> tuple[int, str, str]:
    code = main(["conformance", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_runvil_run_as_the_implementation_passes_and_writes_junit(tmp_path, capsys):
    junit = tmp_path / "report.xml"
    code, out, err = conformance(capsys, "--impl", RUNVIL_RUN, "--junit", str(junit), "-v", str(FIRST_CHAT))
    n = out.count("PASS starting-a-conversation/first-chat.yaml::")
    assert code == 0 and n == 4 and out.endswith("4 passed, 0 failed\n"), out + err
    suite = ET.parse(junit).getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert suite.get("tests") == "4" and suite.get("failures") == "0" and len(cases) == 4
    assert {c.get("classname") for c in cases} == {"starting-a-conversation/first-chat.yaml"}
    assert cases[0].get("name") == "hello" and suite.find("testcase/failure") is None


def test_a_broken_implementation_fails_with_the_result_field_shown(tmp_path, capsys):
    (tmp_path / "broken.py").write_text(BROKEN, encoding="utf-8")
    junit = tmp_path / "report.xml"
    code, out, _ = conformance(capsys, "--impl", f"{PY} {tmp_path / 'broken.py'}", "-k", "::hello",
                               "--junit", str(junit), str(FIRST_CHAT))
    assert code == 1
    assert "FAIL starting-a-conversation/first-chat.yaml::hello\n  result:\n" in out
    assert '    want: "bonjour"\n    got:  "altered: bonjour"\n' in out
    assert out.endswith("0 passed, 1 failed\n")
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
    assert failure.get("message") == "differs: result" and "altered: bonjour" in failure.text


def test_an_empty_folder_a_filter_matching_nothing_and_a_missing_command_exit_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, _, err = conformance(capsys, str(tmp_path / "empty"))
    assert code == 2 and "runvil: no conformance cases found in" in err
    code, _, err = conformance(capsys, "-k", "no-such-case", str(FIRST_CHAT))
    assert code == 2 and "no conformance case matches 'no-such-case'" in err
    code, _, err = conformance(capsys, "--impl", "runvil-no-such-command run", str(FIRST_CHAT))
    assert code == 2 and "cannot run runvil-no-such-command: no such command" in err
    code, _, err = conformance(capsys, "--impl", "", str(FIRST_CHAT))
    assert code == 2 and "--impl needs a command" in err
    assert conformance(capsys, "--no-such-option")[0] == 2


def test_every_failing_field_is_shown_and_long_texts_are_diffed(tmp_path, capsys):
    world = {"replies": [{"text": "line one\nline two\nline three\n"}]}
    folder = case_file(
        tmp_path,
        {"name": "long", "prompt": PROMPT, "world": world,
         "expect": {"ok": True, "result": "line one\nline 2\nline three\n", "request_count": 2}},
        {"name": "error-fields", "prompt": PROMPT.replace("models.loop()", "error({kind = 'x'})"),
         "expect": {"ok": False, "error": {"kind": "Lua", "message": "boom"}}},
        {"name": "requests", "prompt": PROMPT, "world": world,
         "expect": {"requests": [{"role": "writer", "messages": [{"role": "user", "content": "hi"}]}]}},
    )
    code, out, _ = conformance(capsys, str(folder))
    assert code == 1 and out.endswith("0 passed, 3 failed\n")
    long = out.split("FAIL suite/cases.yaml::long\n")[1].split("FAIL")[0]
    assert "  result:\n    --- want\n    +++ got\n" in long
    assert "    -line 2\n    +line two\n" in long and "     line one\n" in long
    assert "  request_count:\n    want: 2\n    got:  1\n" in long
    fields = out.split("FAIL suite/cases.yaml::error-fields\n")[1].split("FAIL")[0]
    assert "  error.message:\n" in fields and "  error.kind:\n" not in fields
    req = out.split("FAIL suite/cases.yaml::requests\n")[1]
    assert "  requests[1].messages:\n" in req and '    got:  [{"role": "user", "content": "hello"}]\n' in req
    assert "requests[1].role" not in req  # the keys a case gives are compared, and only those


def test_a_pipe_gets_plain_lines_and_a_terminal_a_progress_bar(tmp_path):
    args = [sys.executable, "-m", "runvil.host.cli", "conformance", "-k", "hello", "-k", "fresh", str(FIRST_CHAT)]
    piped = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    assert piped.returncode == 0 and "\r" not in piped.stdout
    lines = piped.stdout.splitlines()
    assert lines[-2:] == [f"suite runvil-conformance {suite_info()['version']}", "2 passed, 0 failed"]
    assert not any(line.startswith(("PASS", "FAIL")) for line in lines)  # a passing case says nothing in a pipe
    verbose = subprocess.run(args + ["-v"], capture_output=True, text=True, cwd=ROOT)
    assert verbose.stdout.splitlines()[:2] == ["PASS starting-a-conversation/first-chat.yaml::hello",
                                               "PASS starting-a-conversation/first-chat.yaml::fresh-lists"]
    assert verbose.stdout.endswith("\n2 passed, 0 failed\n")
    code, _, seen = on_a_terminal(args, streams=("stdout",), timeout=60)
    assert code == 0
    text = seen.decode()
    assert "\r\x1b[K[" in text and "] 1/2" in text and "] 2/2" in text and "PASS" not in text
    assert text.replace("\r\n", "\n").endswith("2 passed, 0 failed\n")


def test_an_implementation_that_prints_no_json_fails_with_its_output(tmp_path, capsys):
    (tmp_path / "mute.py").write_text("import sys\nprint('no json here')\nsys.exit(3)\n", encoding="utf-8")
    code, out, _ = conformance(capsys, "--impl", f"{PY} {tmp_path / 'mute.py'}", "-k", "::hello", str(FIRST_CHAT))
    assert code == 1 and "  output:\n" in out and "no json here" in out and "exit status 3" in out


def test_the_case_folder_holds_the_case_files(tmp_path, capsys):
    """The command runs in a fresh folder holding prompt.md and world.yaml,
    the case's input in the world (the command gets no other argument)."""
    spy = tmp_path / "spy.py"
    spy.write_text(textwrap.dedent("""\
        import json, os, sys
        world = open("world.yaml", encoding="utf-8").read()
        print(json.dumps({"ok": True, "result": json.dumps([sys.argv[1:], sorted(os.listdir(".")), world])}))
        """), encoding="utf-8")
    folder = case_file(tmp_path, {"name": "spy", "prompt": PROMPT, "input": "bonjour", "expect": {"ok": True}})
    from runvil.host.cases import load_cases
    from runvil.host.conformance import check, command_runner

    (case,) = load_cases([str(folder)])
    problems, got = check(case, command_runner(f"{PY} {spy}"))
    args, files, world = __import__("json").loads(got["result"])
    assert problems == [] and args == ["prompt.md", "--script", "world.yaml", "--json"]
    assert files == ["prompt.md", "world.yaml"] and world == "input: bonjour\n"


def test_the_reference_adapter_plugs_another_command_line_in(tmp_path, capsys):
    adapter = SUITE / "adapters" / "example_adapter.py"
    template = f"{sys.executable} -m runvil.host.cli run --json --script {{world}} {{prompt}}"
    impl = f"{PY} {shlex.quote(str(adapter))} {shlex.quote(template)}"
    code, out, err = conformance(capsys, "--impl", impl, "-k", "hello", "-k", "shared", str(FIRST_CHAT))
    assert code == 0 and out.endswith("2 passed, 0 failed\n"), out + err


@pytest.mark.parametrize("text, message", [
    ("- 5\n", "case 1 must be a mapping with a `prompt`"),
    ("- {prompt: p.md}\n", "needs an `expect` mapping"),
    ("- {prompt: missing.md, expect: {ok: true}}\n", "cannot read the prompt"),
    ("- {prompt: \"a\\nb\", world: missing.yaml, expect: {ok: true}}\n", "cannot read the world"),
])
def test_a_broken_case_is_a_usage_error(tmp_path, capsys, text, message):
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    code, _, err = conformance(capsys, str(tmp_path))
    assert code == 2 and message in err and "internal error" not in err


def test_the_worked_example_of_format_md_is_true(tmp_path, capsys, monkeypatch):
    """FORMAT.md's example case, its world.yaml and its output are what runvil does."""
    import json
    import re

    text = (SUITE / "FORMAT.md").read_text(encoding="utf-8")
    example = text.split("## A worked example")[1]
    case_yaml = re.search(r"````yaml\n(.*?)````", example, re.S).group(1)
    world_yaml, printed = re.findall(r"```(?:yaml|json)\n(.*?)```", example.split("````", 2)[2], re.S)[:2]
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "cases.yaml").write_text(case_yaml, encoding="utf-8")
    from runvil.host.cases import load_cases

    (case,) = load_cases([str(tmp_path / "suite")])
    assert case.world == world_yaml
    case.lay_out(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["run", "prompt.md", "--script", "world.yaml", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(printed)
    code, out, _ = conformance(capsys, "-v", str(tmp_path / "suite"))
    assert code == 0 and out == "PASS suite/cases.yaml::hello\n1 passed, 0 failed\n"


def test_a_relative_command_is_found_from_where_the_runner_started(tmp_path, capsys, monkeypatch):
    impl = tmp_path / "impl"
    impl.write_text(f"#!{sys.executable}\n" + BROKEN, encoding="utf-8")
    impl.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    code, out, err = conformance(capsys, "--impl", "./impl", "-k", "::hello", str(FIRST_CHAT))
    assert code == 1 and 'got:  "altered: bonjour"' in out, out + err


def test_a_case_that_hangs_is_stopped_and_fails(tmp_path, capsys):
    (tmp_path / "hang.py").write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    code, out, _ = conformance(capsys, "--impl", f"{PY} {tmp_path / 'hang.py'}", "--timeout", "1",
                               "-k", "::hello", str(FIRST_CHAT))
    assert code == 1 and "(stopped after 1 seconds)" in out and "no exit status (stopped)" in out


def test_the_junit_report_holds_any_text_a_run_gives(tmp_path, capsys):
    """A result with control characters and bytes that are not UTF-8 is
    shown with escapes, and still makes well-formed XML."""
    folder = case_file(tmp_path, {"name": "ctl", "prompt": PROMPT.replace(
        "return messages[#messages].content", "return 'a\\0b\\n\\27[1m\\200'"), "world": {"replies": [{"text": "x"}]},
        "expect": {"result": "ab"}})
    junit = tmp_path / "r.xml"
    code, out, _ = conformance(capsys, "--junit", str(junit), str(folder))
    # the byte 200 reaches the JSON as a lone surrogate or as U+FFFD: both print
    assert code == 1 and "    +a\\x00b\n    +\\x1b[1m" in out and "\x1b" not in out
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
    assert "+\\x1b[1m" in failure.text


def test_a_run_that_fails_unexpectedly_shows_its_error(tmp_path, capsys):
    """Not `ok: expected true, got false` with no reason."""
    folder = case_file(tmp_path, {"name": "boom", "prompt": PROMPT.replace("models.loop()", "error('boom')"),
                                  "expect": {"ok": True, "result": "hello"}})
    code, out, _ = conformance(capsys, str(folder))
    assert code == 1
    assert "  ok:\n    want: true\n    got:  false\n    (the run failed: error[Lua]: section `A` prologue:16: boom)\n" in out
    assert out.count("the run failed") == 1


def test_values_compare_as_json_and_print_safely():
    from runvil.host.expect import Mismatch, same

    assert same(1, 1.0) and not same(True, 1) and not same({"a": 1}, {"a": 1, "b": None}) and not same(None, "")
    lines = Mismatch("result", "a", "\udc80\nb\x07").lines()
    assert lines[0] == "  result:" and "    +\\udc80" in lines and "    +b\\x07" in lines


# ------------------------------------------- {contains: ...}, {matches: ...} and the quiet mode (issue 27)


def test_expected_values_may_be_contains_or_matches_at_any_depth(tmp_path, capsys):
    world = {"replies": [{"text": "Bonjour, monde !"}]}
    good = {"name": "good", "prompt": PROMPT, "world": world,
            "expect": {"result": {"matches": r"^Bonjour, \w+ !$"}, "error": None,
                       "requests": [{"messages": [{"role": "user", "content": {"contains": "ell"}}],
                                     "tools": []}]}}
    bad = {"name": "bad", "prompt": PROMPT, "world": world,
           "expect": {"result": {"contains": "Hello"}, "requests": [{"role": {"matches": "^writ$"}}]}}
    folder = case_file(tmp_path, good, bad)
    code, out, _ = conformance(capsys, str(folder))
    assert code == 1 and "FAIL suite/cases.yaml::good" not in out
    assert ('FAIL suite/cases.yaml::bad\n  result:\n    want: {"contains": "Hello"}\n    got:  "Bonjour, monde !"\n'
            in out)
    assert '  requests[1].role:\n    want: {"matches": "^writ$"}\n' in out and out.endswith("1 passed, 1 failed\n")


def test_the_quiet_mode_is_a_line_per_failing_case_then_the_summary(tmp_path, capsys):
    world = {"replies": [{"text": "hi"}]}
    cases = [{"name": f"c{i}", "prompt": PROMPT, "world": world, "expect": {"result": "hi" if i % 2 else "no"}}
             for i in range(4)]
    code, out, _ = conformance(capsys, "-q", str(case_file(tmp_path, *cases)))
    assert code == 1
    assert out == "FAIL suite/cases.yaml::c0: result\nFAIL suite/cases.yaml::c2: result\n2 passed, 2 failed\n"


@pytest.mark.parametrize("expect, message", [
    ({"result": {"matches": "(unclosed"}}, "expect.result: {matches: (unclosed} is not a regular expression"),
    ({"error": {"message": {"contains": 5}}}, "expect.error.message: {contains: ...} needs a text, got 5"),
])
def test_a_matcher_that_cannot_work_is_a_usage_error(tmp_path, capsys, expect, message):
    folder = case_file(tmp_path, {"name": "m", "prompt": PROMPT, "expect": expect})
    code, out, err = conformance(capsys, str(folder))
    assert code == 2 and message in err
