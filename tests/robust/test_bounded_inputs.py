"""Inputs read within bounds, with their own error texts (issue 26):

    Parse errors are not capped: a 16 MB prompt of `#` lines produces
    8 million parse errors and runs out of memory after ~40 s. ...
    `require` reads a whole file before its 256 KB check (a 3 GB sparse
    file -> 3.1 GB resident); ... Python-isms in messages
    (`sys.set_int_max_str_digits()`, ...); control characters make the
    JUnit report invalid XML; ... `--input-file /dev/zero`

Each runs through the real command in a bounded subprocess (batch.py:
4 GiB of address space, 30 s).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from runvil.host.cli import main
from runvil.prompt.structure import MAX_COUNTED, MAX_ERRORS

from .batch import assert_robust
from .inputs import prompt, section

HEAD = "---\nname: t\ndescription: d\nrunvil: 0\n---\n"


def test_a_16_mb_prompt_of_hash_lines_fails_fast_with_the_first_100_errors(tmp_path):
    path = tmp_path / "hashes.md"
    path.write_text(HEAD + "#\n" * 8_000_000, encoding="utf-8")
    (result,) = assert_robust([["check", str(path)]], tmp_path)
    assert result["rc"] == 3 and result["seconds"] < 10, result["seconds"]
    lines = result["err"].splitlines()
    assert lines[-1] == (f"error[Parse]: {path}:{7 + MAX_ERRORS}: ... and more than {MAX_COUNTED} more errors "
                         f"(reading stopped at line {6 + MAX_ERRORS + MAX_COUNTED})")
    assert lines[-2] == f"error[Parse]: {path}:{6 + MAX_ERRORS}: a second H1 heading (the first is on line 6)"


def test_past_100_errors_the_rest_are_counted(tmp_path, capsys):
    path = tmp_path / "dups.md"
    path.write_text(HEAD + "\n# T\n" + "## S\n" * 151, encoding="utf-8")
    assert main(["check", str(path)]) == 3
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == MAX_ERRORS + 1
    assert lines[0] == f"error[Parse]: {path}:9: duplicate section name `S` (first on line 8)"
    assert lines[-1] == f"error[Parse]: {path}:{9 + MAX_ERRORS}: ... and 50 more errors (only the first 100 are listed)"


def test_compile_errors_are_capped_too(tmp_path, capsys):
    path = tmp_path / "blocks.md"
    path.write_text(prompt(body="# T\n" + "".join(section(f"S{i}", "x = = 1") for i in range(130))), encoding="utf-8")
    assert main(["check", str(path)]) == 3
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == MAX_ERRORS + 1 and lines[-1].endswith("... and 30 more errors (only the first 100 are listed)")


def test_require_of_a_3_gb_file_checks_its_size_before_reading(tmp_path):
    with open(tmp_path / "big.lua", "wb") as f:
        f.truncate(3 * 1024**3)  # sparse: no disk, but a read would take 3 GB
    p = tmp_path / "req.md"
    p.write_text(prompt(body="# T\n" + section("A", "return require('big')")), encoding="utf-8")
    (result,) = assert_robust([["run", str(p)]], tmp_path)
    assert result["rc"] == 1 and result["seconds"] < 10
    assert f"module 'big' is {3 * 1024**3} bytes of Lua; the limit is 262144 bytes" in result["err"]


def test_unbounded_input_files_configs_and_logs_are_usage_errors(tmp_path):
    p = tmp_path / "p.md"
    p.write_text(prompt(body="# T\n" + section("A", "return #input")), encoding="utf-8")
    huge = tmp_path / "huge.toml"
    huge.write_text("[limits]\nblock_steps = " + "9" * 5000 + "\n", encoding="utf-8")
    results = assert_robust([["run", str(p), "--input-file", "/dev/zero"], ["run", str(p), "--config", "/dev/zero"],
                             ["run", str(p), "--config", str(huge)],
                             ["view", "/dev/zero", "-o", str(tmp_path / "z.html")]], tmp_path)
    assert [r["rc"] for r in results] == [2, 2, 2, 2]
    assert [r["err"] for r in results] == [
        "runvil: --input-file /dev/zero is more than 16777216 bytes, the most a run's input may be\n",
        "runvil: /dev/zero: the file is more than 1048576 bytes; a config file is a page of settings\n",
        f"runvil: {huge}: not valid TOML: an integer has more than 4300 digits\n",
        "runvil: /dev/zero is more than 268435456 bytes; the viewer draws run logs up to that size\n",
    ]
    assert "sys.set_int_max_str_digits" not in results[2]["err"]


def test_the_junit_report_is_valid_xml_whatever_a_case_is_named(tmp_path, capsys):
    suite = tmp_path / "suite"
    suite.mkdir()
    case = {"name": "bad\x01name\x1b\ufffe", "expect": {"result": "ok"}, "world": {"replies": []},
            "prompt": prompt(body="# T\n" + section("A", "return 'ok'"))}
    (suite / "c\x02.yaml").write_text(json.dumps([case]), encoding="utf-8")  # JSON is YAML
    report = tmp_path / "r.xml"
    assert main(["conformance", "--junit", str(report), str(suite)]) == 0
    capsys.readouterr()
    case_element = ET.parse(report).getroot().find("testsuite/testcase")
    assert case_element.get("name") == "bad\\x01name\\x1b\\ufffe"
    assert case_element.get("classname") == "suite/c\\x02.yaml"
