"""The frontmatter cache (runvil/prompt/frontmatter_cache.py, issue 13 item 3): a
frontmatter read without a problem is read again from the disk cache,
giving the very Frontmatter PyYAML gives; a problem, a value marshal cannot
hold, a damaged entry and RUNVIL_CACHE=0 all read the YAML."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

from runvil.prompt import check_text, parse_text
from runvil.prompt import frontmatter as yaml_reader

from .util import fm

ROOT = Path(__file__).resolve().parents[2]

RICH = fm(
    "models:",
    "  writer: {model: local/small, temperature: 0.5, max_tokens: 100, thinking: low}",
    "  critic:",
    "uses: [files, web]",
    "max_tool_iterations: 7",
    "x-list: &l [1, 2.5, true, null, 'off', .nan, -.inf, 0x1f]",
    "x-twice: [*l, *l]",
    "x-map: {a: {b: [c]}, 1: one}",
    "x-set: !!set {p, q}",
    "x-bytes: !!binary aGk=",
    "x-pairs: !!pairs [a: 1, b: 2]",
)


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("front-*.bin")) if folder.exists() else []


def uncached(text: str, monkeypatch):
    with monkeypatch.context() as m:
        m.setenv("RUNVIL_CACHE", "0")
        return parse_text(text, "p.md").frontmatter


def same(a, b) -> bool:
    """Equal, with NaN equal to itself, and of the same types throughout."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def test_a_hit_is_the_frontmatter_the_yaml_gives(cache, monkeypatch):
    first = parse_text(RICH, "p.md").frontmatter
    assert len(entries(cache)) == 1
    calls = []
    monkeypatch.setattr(yaml_reader, "read_frontmatter", lambda *a: calls.append(a))
    second = parse_text(RICH, "p.md").frontmatter
    assert calls == []  # read from the cache, not from the YAML
    monkeypatch.undo()
    expected = uncached(RICH, monkeypatch)
    for got in (first, second):
        assert got.models == expected.models and got.uses == expected.uses
        assert (got.name, got.description, got.runvil, got.max_tool_iterations) == ("t", "A test prompt.", 0, 7)
        assert same(got.extra, expected.extra)
    assert second.extra["x-twice"][0] is second.extra["x-twice"][1]  # an alias stays one object


def test_a_frontmatter_with_a_problem_is_not_stored(cache):
    text = fm("max_tool_iterations: 2.5")
    for _ in range(2):
        [e] = check_text(text, "p.md")
        assert (e.line, e.message) == (5, "invalid frontmatter: max_tool_iterations must be a whole number, got 2.5")
    assert entries(cache) == []


def test_a_value_marshal_cannot_hold_is_read_from_the_yaml_each_time(cache):
    text = fm("x-when: !!timestamp 2026-12-01")
    for _ in range(2):
        assert str(parse_text(text, "p.md").frontmatter.extra["x-when"]) == "2026-12-01"
    assert entries(cache) == []


def test_a_damaged_entry_reads_as_a_miss_and_is_rewritten(cache, monkeypatch):
    parse_text(RICH, "p.md")
    [entry] = entries(cache)
    good = entry.read_bytes()
    for damaged in (good[:-3], good[:8] + b"x" * (len(good) - 8), b""):
        entry.write_bytes(damaged)
        assert same(parse_text(RICH, "p.md").frontmatter.extra, uncached(RICH, monkeypatch).extra)
        assert entry.read_bytes() == good


def test_another_text_is_another_entry(cache):
    parse_text(fm("x-a: 1"), "p.md")
    assert parse_text(fm("x-a: 2"), "p.md").frontmatter.extra == {"x-a": 2}
    assert len(entries(cache)) == 2


def test_with_the_caches_off_nothing_is_written(cache, monkeypatch):
    monkeypatch.setenv("RUNVIL_CACHE", "0")
    parse_text(RICH, "p.md")
    assert not cache.exists()


def test_a_second_process_reads_no_yaml(cache, tmp_path):
    (tmp_path / "p.md").write_text(RICH + "\n## A\n\n```lua\nreturn 1\n```\n", encoding="utf-8")
    code = ("import sys, runvil.prompt as p; f = p.read_prompt(sys.argv[1]).frontmatter; "
            "print(f.uses, 'yaml' in sys.modules)")
    env = dict(os.environ, RUNVIL_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    outs = [subprocess.run([sys.executable, "-c", code, str(tmp_path / "p.md")], env=env, capture_output=True,
                           text=True, timeout=60).stdout for _ in range(2)]
    assert outs == ["('files', 'web') True\n", "('files', 'web') False\n"]
