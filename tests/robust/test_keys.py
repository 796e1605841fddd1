"""Keys scrubbed wherever text leaves the process (issue 26, item 2): "A
provider (a debugging proxy, a broken gateway) that streams the
`Authorization` header back in its reply text puts the key in stdout,
`--json`, the run log and the viewer's page; `--record` scrubs `text` but
keeps the key split across two `fragments`. A key not shaped like `sk-…` is
masked only when whole ... A key pasted into `api_key_env` is printed on
stderr. A short key value (`hello`) replaces every such word in a recorded
world."

Every run here talks to a loopback server that sends the key back
(hostile_servers.py); every output is searched for any run of 8 characters
of the key.
"""

from __future__ import annotations

import json
import os
import sys

import pytest
from hypothesis import given, settings, strategies as st

from runvil.harness.scrubber import REDACTED, Scrubber, StreamScrubber, key_problem
from runvil.host.cli import main

from ..harness import key_echo
from ..harness.key_echo import KEY, KEY_ENV, leaks
from .hostile_servers import KeyEchoServer

# ------------------------------------------------------------------ the scrubber itself


def test_a_key_is_masked_whole_cut_or_in_part():
    s = Scrubber([KEY])
    assert s.text(f"a {KEY} b") == f"a {REDACTED} b"
    assert s.text(f"cut: {KEY[:12]}") == f"cut: {REDACTED}"  # an error body cut in the key
    assert s.text(f"tail {KEY[-8:]}.") == f"tail {REDACTED}."
    assert s.text(f"{KEY[:7]} {KEY[3:10]}") == f"{KEY[:7]} {KEY[3:10]}"  # shorter runs are no secret
    assert s.text(f"{KEY}{KEY}") == REDACTED  # touching runs are one stretch
    assert Scrubber([]).text(KEY) == KEY and Scrubber(["short"]).text("short") == "short"


@settings(max_examples=300, deadline=None)
@given(before=st.text(max_size=12), after=st.text(max_size=12), cuts=st.lists(st.integers(0, 60), max_size=12))
def test_a_streamed_key_split_anywhere_is_masked_as_the_whole_text_is(before, after, cuts):
    """What the stream gives out, joined, is the whole text scrubbed, and
    no piece given out holds a run of the key, however the pieces fall."""
    whole = before + "key=" + KEY + after
    bounds = sorted({min(c, len(whole)) for c in cuts}) + [len(whole)]
    pieces, at = [], 0
    for b in bounds:
        pieces.append(whole[at:b])
        at = b
    scrubber = Scrubber([KEY])
    stream = StreamScrubber(scrubber)
    shown = [stream.feed(p) for p in pieces] + [stream.end()]
    assert "".join(shown) == scrubber.text(whole)
    assert not leaks("".join(shown)) and REDACTED in "".join(shown)


def test_keys_that_cannot_be_keys_are_refused_with_the_reason():
    assert key_problem("hello") == ("holds 5 characters; an API key has at least 8 (a shorter value would be masked "
                                    "wherever it appears in ordinary text); a server that needs no key needs no "
                                    "api_key_env")
    assert key_problem("sk\u2013abcdefgh") == ("holds the character U+2013 at position 3, which an API key cannot hold "
                                              "(a typographic dash or quote pasted with it?)")
    assert key_problem("sk-abc\x00defgh") == "holds spaces or control characters, which an API key cannot"
    assert key_problem(KEY) is None


# ------------------------------------------------------------------ through `runvil run`

def write_files(tmp_path, server, key_env: str = KEY_ENV):
    return key_echo.write_files(tmp_path, server.base_url if server else key_echo.UNREACHABLE, key_env)


@pytest.fixture
def key_env(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)


def run_everywhere(tmp_path, capsys, modes: list[str]) -> tuple[int, dict, dict[str, str]]:
    """Runs the prompt against a KeyEchoServer with every output on; returns
    (exit status, the --json object, every output's text by name)."""
    server = KeyEchoServer(modes).start()
    try:
        prompt, config = write_files(tmp_path, server)
        outputs = {name: tmp_path / name for name in ("log.jsonl", "page.html", "world.yaml")}
        code = main(["run", prompt, "--config", config, "--json", "--debug", "--log", str(outputs["log.jsonl"]),
                     "--view", str(outputs["page.html"]), "--record", str(outputs["world.yaml"])])
    finally:
        server.stop()
    assert server.seen_keys and set(server.seen_keys) == {KEY}  # the key did go out, and came back
    out, err = capsys.readouterr()
    texts = {"stdout": out, "stderr": err, **{n: p.read_text(encoding="utf-8") for n, p in outputs.items()}}
    return code, json.loads(out), texts


def test_a_key_streamed_back_in_pieces_leaves_in_no_output(tmp_path, capsys, key_env):
    code, data, texts = run_everywhere(tmp_path, capsys, ["tool", "stream"])
    assert code == 0
    assert data["result"] == f"echo Bearer {REDACTED}"
    for name, text in texts.items():
        assert not leaks(text), (name, leaks(text))
    assert "it is 12:00 in [REDACTED]" in texts["log.jsonl"]  # the tool's argument was scrubbed before Lua saw it
    assert "zone: '[REDACTED]'" in texts["world.yaml"]
    assert "fragments:" in texts["world.yaml"]  # streamed in pieces, each kept, none holding a run of the key


def test_a_key_in_a_plain_reply_and_a_cut_error_body_leaves_in_no_output(tmp_path, capsys, key_env):
    code, data, texts = run_everywhere(tmp_path, capsys, ["json"])
    assert code == 0 and data["result"] == f"the key: {REDACTED}"
    for name, text in texts.items():
        assert not leaks(text), (name, leaks(text))
    code, data, texts = run_everywhere(tmp_path, capsys, ["cut"])
    assert code == 1 and "your credentials were [REDACTED]" in data["error"]["message"]
    for name, text in texts.items():
        assert not leaks(text), (name, leaks(text))


def test_live_output_on_a_terminal_shows_no_run_of_the_key(tmp_path):
    from tests.host.terminal import on_a_terminal

    server = KeyEchoServer(["stream"], size=2).start()
    try:
        prompt, config = write_files(tmp_path, server)
        env = {**os.environ, KEY_ENV: KEY, "RUNVIL_CONFIG": ""}
        code, out, seen = on_a_terminal([sys.executable, "-m", "runvil.host.cli", "run", prompt, "--config", config],
                                        env=env, timeout=60)
    finally:
        server.stop()
    assert code == 0 and server.seen_keys == [KEY]
    shown = seen.decode("utf-8", "replace")
    assert "echo Bearer" in shown and REDACTED in shown
    assert not leaks(shown) and not leaks(out.decode())


@pytest.mark.parametrize("value, reason", [
    ("hello", "holds 5 characters; an API key has at least 8"),
    ("sk\u2013proj-abcdef123", "holds the character U+2013 at position 3"),
])
def test_a_key_that_cannot_be_one_is_a_usage_error(tmp_path, capsys, monkeypatch, value, reason):
    monkeypatch.setenv("RUNVIL_ECHO_KEY", value)
    prompt, config = write_files(tmp_path, None)
    assert main(["run", prompt, "--config", config]) == 2
    err = capsys.readouterr().err
    assert err == f"runvil: provider 'local': the environment variable RUNVIL_ECHO_KEY {reason}" + err.split(reason)[1]
    assert value not in err


@pytest.mark.parametrize("pasted", ["sk-proj-Zq7Lm3pX9vR2tK8wN4yB6hJ", "Zq7Lm3pX9vR2tK8wN4yB6hJ", "AKIAIOSFODNN7EXAMPLE"])
def test_a_key_pasted_into_api_key_env_is_never_printed(tmp_path, capsys, monkeypatch, pasted):
    monkeypatch.delenv(pasted, raising=False)
    prompt, config = write_files(tmp_path, None, key_env=pasted)
    assert main(["run", prompt, "--config", config]) == 2
    err = capsys.readouterr().err
    assert not leaks(err, pasted) and pasted not in err
    assert "providers.local.api_key_env" in err
