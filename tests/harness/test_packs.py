"""The built-in Packs (docs/reference/configuration.md):

    `files` works in the run's workspace folder: `--workspace DIR`, default a
    fresh temporary folder. `web/search` queries a SearXNG-compatible JSON
    endpoint, `[packs.web] search_url = "http://host/search"`; `web/fetch`
    gets a URL (http and https only; `[packs.web] fetch_max_bytes`, default
    2,000,000; `fetch_timeout`, default 20 s) and returns its text with HTML
    reduced to readable text. Each refusal or failure is the tool's error
    text, never a crash.

Every web test talks to a real HTTP server on 127.0.0.1 (web_server.py).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from runvil.engine.effects import ToolCall, ToolFailure, ToolResult
from runvil.harness.packs import PackTools
from runvil.harness.workspace import DEFAULT_WRITE_QUOTA, READ_MAX_BYTES, Workspace
from runvil.host.config import PackSettings, parse_config
from runvil.structs import FrozenError

from .web_server import WebServer


def call(tools: PackTools, name: str, **arguments):
    return tools(ToolCall(1, name, arguments))


def failure(tools: PackTools, name: str, **arguments) -> str:
    answer = call(tools, name, **arguments)
    assert isinstance(answer, ToolFailure), answer
    return answer.message


def result(tools: PackTools, name: str, **arguments) -> str:
    answer = call(tools, name, **arguments)
    assert isinstance(answer, ToolResult), answer
    return answer.text


# ------------------------------------------------------------------ files


@pytest.fixture
def files(tmp_path):
    ws = Workspace.at(tmp_path / "ws")
    tools = PackTools(ws)
    yield tools
    tools.close()


def test_write_read_list(files):
    assert result(files, "files/write", path="notes/a.txt", content="héllo") == "wrote 6 bytes to notes/a.txt"
    assert result(files, "files/write", path="b.txt", content="") == "wrote 0 bytes to b.txt"
    assert result(files, "files/read", path="notes/a.txt") == "héllo"
    assert result(files, "files/read", path="./notes//a.txt") == "héllo"
    assert result(files, "files/list") == "b.txt\nnotes/a.txt"


def test_an_empty_workspace_says_so(files):
    assert result(files, "files/list") == "the workspace has no files"


REFUSALS = [
    ({"path": "../x"}, "files/read: ../x leaves the workspace ('..' is not allowed)"),
    ({"path": "a/../../x"}, "files/read: a/../../x leaves the workspace ('..' is not allowed)"),
    ({"path": "/etc/passwd"}, "files/read: absolute paths are refused; give a path inside the workspace"),
    ({"path": "C:\\Windows"}, "files/read: absolute paths are refused; give a path inside the workspace"),
    ({"path": ""}, "files/read: path must be a non-empty string"),
    ({"path": 5}, "files/read: path must be a non-empty string"),
    ({}, "files/read: path must be a non-empty string"),
    ({"path": "a\0b"}, "files/read: a path cannot hold a NUL character"),
    ({"path": "missing.txt"}, "files/read: missing.txt: no such file or directory"),
]


@pytest.mark.parametrize("arguments, message", REFUSALS)
def test_read_refusals_are_tool_failures(files, arguments, message):
    assert failure(files, "files/read", **arguments) == message


LINK = "passes through a symbolic link, which the workspace does not follow"


def test_no_symbolic_link_is_followed(files, tmp_path):
    """Links are refused wherever they lead: following none is what makes
    the walk from the workspace's descriptor safe from a swapped folder."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    root = files.workspace.root
    os.symlink(outside, root / "out")
    os.symlink(outside / "secret.txt", root / "s.txt")
    (root / "ok.txt").write_text("ok")
    os.symlink("ok.txt", root / "alias.txt")
    (root / "sub").mkdir()
    os.symlink("../sub", root / "sub" / "again")
    assert failure(files, "files/read", path="out/secret.txt") == f"files/read: out/secret.txt {LINK}"
    assert failure(files, "files/write", path="out/new.txt", content="x") == f"files/write: out/new.txt {LINK}"
    assert failure(files, "files/write", path="out/deeper/new.txt", content="x") == \
        f"files/write: out/deeper/new.txt {LINK}"
    assert failure(files, "files/read", path="s.txt") == f"files/read: s.txt {LINK}"
    assert failure(files, "files/write", path="s.txt", content="x") == f"files/write: s.txt {LINK}"
    assert failure(files, "files/read", path="alias.txt") == f"files/read: alias.txt {LINK}"
    assert failure(files, "files/read", path="sub/again/x") == f"files/read: sub/again/x {LINK}"
    assert not (outside / "new.txt").exists() and not (outside / "deeper").exists()
    assert (outside / "secret.txt").read_text() == "secret"
    assert result(files, "files/list") == "ok.txt"  # links are not listed


def test_fifos_and_sockets_are_refused_without_blocking(files):
    import socket as sockets

    root = files.workspace.root
    os.mkfifo(root / "fifo")
    server = sockets.socket(sockets.AF_UNIX)
    server.bind(str(root / "sock"))
    said = {}

    def use_them():
        for name in ("fifo", "sock"):
            said[name] = (failure(files, "files/read", path=name),
                          failure(files, "files/write", path=name, content="x"))

    # opening a fifo with no writer blocks for ever: a thread still inside after a minute has blocked
    # (no load on the machine stretches a few file checks that far)
    try:
        worker = threading.Thread(target=use_them, daemon=True)
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), "a fifo or a socket blocked the files Pack"
        assert said == {name: (f"files/read: {name} is not a regular file",
                               f"files/write: {name} is not a regular file") for name in ("fifo", "sock")}
        assert result(files, "files/list") == "the workspace has no files"
    finally:
        server.close()


def test_names_with_newlines_are_listed_one_per_line(files):
    root = files.workspace.root
    (root / "a\nb.txt").write_text("x")
    (root / '"quoted').write_text("x")
    (root / "plain é.txt").write_text("x")
    listed = result(files, "files/list").split("\n")
    assert listed == ['"\\"quoted"', '"a\\nb.txt"', "plain é.txt"]
    import json

    assert result(files, "files/read", path=json.loads(listed[1])) == "x"  # a JSON string names the file


def test_a_deep_tree_is_listed_to_a_depth(files):
    from runvil.harness.workspace import LIST_DEPTH

    deep = "/".join(["d"] * (LIST_DEPTH + 5))
    assert result(files, "files/write", path=f"{deep}/x", content="x").startswith("wrote 1 bytes")
    assert result(files, "files/write", path="d/y", content="y").startswith("wrote 1 bytes")
    assert result(files, "files/list") == "d/y"
    assert result(files, "files/read", path=f"{deep}/x") == "x"


def test_other_file_failures(files):
    root = files.workspace.root
    (root / "dir").mkdir()
    (root / "bin").write_bytes(b"\xff\xfe")
    (root / "big").write_bytes(b"a" * (READ_MAX_BYTES + 1))
    assert failure(files, "files/read", path="dir") == "files/read: dir is a folder"
    assert failure(files, "files/write", path="dir", content="x") == "files/write: dir is a folder"
    assert failure(files, "files/read", path="bin") == "files/read: bin is not UTF-8 text"
    assert failure(files, "files/read", path="big") == \
        f"files/read: big is {READ_MAX_BYTES + 1} bytes; a read returns at most {READ_MAX_BYTES}"
    assert failure(files, "files/write", path="bin/x", content="x") == \
        "files/write: bin/x: a part of the path is a file, not a folder"
    assert failure(files, "files/write", path="a.txt", content=3) == "files/write: content must be a string"
    assert failure(files, "files/nope") == "no tool backend is configured for files/nope"


def test_no_message_shows_the_workspace_path(files):
    root = str(files.workspace.root)
    for arguments, _ in REFUSALS:
        assert root not in failure(files, "files/read", **arguments)
    (files.workspace.root / "loop").symlink_to("loop")
    assert failure(files, "files/read", path="loop") == f"files/read: loop {LINK}"
    assert root not in failure(files, "files/read", path="loop")
    assert root not in failure(files, "files/write", path="x" * 300, content="x")


def test_write_quota(tmp_path):
    """files/write may grow the workspace by at most the run's quota; a
    file written over counts its new size less its old one."""
    tools = PackTools(Workspace.at(tmp_path, write_quota=10))
    assert result(tools, "files/write", path="a", content="123456") == "wrote 6 bytes to a"
    assert failure(tools, "files/write", path="b", content="12345") == \
        "files/write: writing 5 bytes to b would pass the run's write quota of 10 bytes (4 left)"
    assert not (tmp_path / "b").exists()
    assert result(tools, "files/write", path="a", content="1") == "wrote 1 bytes to a"  # frees 5
    assert result(tools, "files/write", path="b", content="123456789") == "wrote 9 bytes to b"
    assert DEFAULT_WRITE_QUOTA == PackSettings().write_quota == 100_000_000


def test_bytes_a_lua_string_carried_are_written_as_they_were(files):
    assert result(files, "files/write", path="raw", content="\udcff\udcfeok") == "wrote 4 bytes to raw"
    assert (files.workspace.root / "raw").read_bytes() == b"\xff\xfeok"
    assert result(files, "files/write", path="lone", content="\ud800") == "wrote 3 bytes to lone"


def test_a_temporary_workspace_is_removed_a_given_one_kept(tmp_path):
    temp = PackTools()
    root = temp.workspace.root
    assert root.is_dir() and root.name.startswith("runvil-workspace-")
    result(temp, "files/write", path="x/y.txt", content="data")
    temp.close()
    assert not root.exists()
    assert failure(temp, "files/write", path="z", content="late") == "files/write: the run's workspace is closed"
    assert not root.exists()
    kept = PackTools(Workspace.at(tmp_path / "mine"))
    result(kept, "files/write", path="k.txt", content="keep")
    kept.close()
    assert (tmp_path / "mine" / "k.txt").read_text() == "keep"


# ------------------------------------------------------------------ web


@pytest.fixture(scope="module")
def web():
    s = WebServer(sleep=0.3).start()
    yield s
    s.stop()


def web_tools(tmp_path, web=None, **settings) -> PackTools:
    search = {"search_url": web.url("/search")} if web is not None else {}
    return PackTools(Workspace.at(tmp_path), PackSettings(**{**search, **settings}))


def test_search_reads_searxng_results(tmp_path, web):
    tools = web_tools(tmp_path, web)
    assert result(tools, "web/search", query="paris") == (
        "Answer: Paris is the capital of France.\n\n"
        "1. Paris - Wikipedia\n   https://en.wikipedia.org/wiki/Paris\n"
        "   Paris is the capital and largest city of France.\n\n"
        "2. Visit Paris\n   https://visit.example/paris\n"
    )
    assert "q=paris&format=json" in web.hits[-1]["path"]
    assert result(tools, "web/search", query="nothing") == 'No results for "nothing".\n'
    tools.close()


def test_search_failures(tmp_path, web):
    assert failure(web_tools(tmp_path), "web/search", query="x") == "web/search needs a configured endpoint"
    tools = web_tools(tmp_path, web)
    assert failure(tools, "web/search", query=" ") == "web/search: query must be a non-empty string"
    for path, message in [
        ("/search-html", "web/search: the search endpoint did not answer with JSON"),
        ("/search-deep", "web/search: the search endpoint did not answer with JSON"),
        ("/search-shape", "web/search: the search endpoint's JSON has no results list"),
        ("/nowhere", "web/search: the search endpoint answered with status 404"),
    ]:
        t = web_tools(tmp_path, search_url=web.url(path))
        assert failure(t, "web/search", query="q") == message
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    down = web_tools(tmp_path, search_url=f"http://127.0.0.1:{port}/search")
    assert failure(down, "web/search", query="q") == "web/search: cannot reach the search endpoint: connection refused"


def test_search_403_hints_at_the_json_format(tmp_path, web):
    tools = web_tools(tmp_path, search_url=web.url("/search-403"))
    assert failure(tools, "web/search", query="q") == ("web/search: the search endpoint answered with status 403 "
                                                       "(a SearXNG instance does so when its json format is not enabled)")


def test_fetch_reduces_html_to_readable_text(tmp_path, web):
    tools = web_tools(tmp_path)
    text = result(tools, "web/fetch", url=web.url("/page.html"))
    assert "Paris is the capital of France." in text
    assert "  * Louvre" in text and "Eiffel Tower" in text
    assert "2020" in text and "2.1M" in text
    assert "<" not in text and "script text" not in text and "color" not in text
    assert result(tools, "web/fetch", url=web.url("/to-page")) == text  # a redirect to http is followed
    assert result(tools, "web/fetch", url=web.url("/plain.txt")) == "just text\n"
    assert "café" in result(tools, "web/fetch", url=web.url("/latin1.html"))
    assert result(tools, "web/fetch", url=web.url("/empty.html")) == ""


def test_fetch_refusals(tmp_path, web):
    # the refusals that are no timeout get a deadline no load on the machine reaches; the two slow
    # pages one of 0.5 s, which a wide margin still tells from their 30 s
    patient = web_tools(tmp_path, fetch_max_bytes=1_000_000, fetch_timeout=60.0)
    quick = web_tools(tmp_path, fetch_max_bytes=1_000_000, fetch_timeout=0.5)
    huge = web.url("/huge")
    cases = [
        ("file:///etc/passwd", "web/fetch: only http and https URLs can be fetched (got file:)"),
        ("ftp://example.org/x", "web/fetch: only http and https URLs can be fetched (got ftp:)"),
        ("javascript:alert(1)", "web/fetch: only http and https URLs can be fetched (got javascript:)"),
        ("example.org/page", "web/fetch: only http and https URLs can be fetched (got no scheme)"),
        ("http://", "web/fetch: the URL has no host"),
        ("", "web/fetch: url must be a non-empty string"),
        (web.url("/to-file"), "web/fetch: only http and https URLs can be fetched (redirects to file:)"),
        (web.url("/loop"), f"web/fetch: {web.url('/loop')} redirects more than 5 times"),
        (huge, f"web/fetch: {huge} is 3000007 bytes, more than the 1000000 a fetch may read"),
        (web.url("/huge-chunked"),
         f"web/fetch: {web.url('/huge-chunked')} is more than the 1000000 bytes a fetch may read"),
        (web.url("/image.png"), f"web/fetch: {web.url('/image.png')} is not text (its type is image/png)"),
        (web.url("/missing"), f"web/fetch: {web.url('/missing')} answered with status 404"),
    ]
    for url, message in cases:
        assert failure(patient, "web/fetch", url=url) == message
    for path in ("/hang", "/trickle"):
        t0 = time.monotonic()
        assert failure(quick, "web/fetch", url=web.url(path)) == f"web/fetch: {web.url(path)} took longer than 0.5 s"
        assert time.monotonic() - t0 < 15.0, path
    assert failure(patient, "web/fetch", url=None) == "web/fetch: url must be a non-empty string"
    patient.close()
    quick.close()


def test_fetch_limits_have_the_host_md_defaults():
    s = PackSettings()
    assert (s.search_url, s.fetch_max_bytes, s.fetch_timeout) == (None, 2_000_000, 20.0)


# ------------------------------------------------------------------ config


def test_pack_settings_in_the_config():
    c = parse_config({"packs": {"web": {"search_url": "http://127.0.0.1:8888/search", "fetch_max_bytes": 1000,
                                        "fetch_timeout": 2.5}, "files": {"write_quota": 5000}}})
    assert c.packs == PackSettings("http://127.0.0.1:8888/search", 1000, 2.5, 5000)
    assert parse_config({}).packs == PackSettings()
    assert parse_config({"packs": {"web": {"fetch_timeout": 3}}}).packs.fetch_timeout == 3.0


@pytest.mark.parametrize("packs, message", [
    ({"web": {"search_url": "ftp://x"}}, "packs.web.search_url must start with http:// or https://"),
    ({"web": {"fetch_max_bytes": 0}}, "packs.web.fetch_max_bytes must be a positive integer"),
    ({"web": {"fetch_timeout": -1}}, "packs.web.fetch_timeout must be a positive number of seconds"),
    ({"web": {"fetch_timeout": float("nan")}}, "packs.web.fetch_timeout must be a positive number of seconds"),
    ({"web": {"endpoint": "x"}}, "unknown key 'packs.web.endpoint'"),
    ({"files": {"write_quota": True}}, "packs.files.write_quota must be a positive integer"),
    ({"web": 3}, "packs.web must be a table"),
])
def test_bad_pack_settings(packs, message):
    from runvil.host.config import ConfigError

    with pytest.raises(ConfigError) as e:
        parse_config({"packs": packs})
    assert str(e.value) == f"runvil.toml: {message}"


def test_settings_are_frozen():
    with pytest.raises(FrozenError):
        PackSettings().search_url = "x"  # type: ignore[misc]


def test_web_pack_opens_nothing_until_called(tmp_path):
    tools = web_tools(tmp_path)
    assert tools.packs["web"]._client is None
    tools.close()
    assert Path(tmp_path).is_dir()  # a given workspace is kept


# ------------------------------------------------------------------ hostile arguments

from hypothesis import given, strategies as st  # noqa: E402

PIECES = st.sampled_from(["http://", "https://", "file:", "/", "..", ".", "\\", "\0", "é", "\ud800", "\udcff", "[",
                          "]", ":", "@", "%00", ":99999", "#", "?", " ", "\n", "a", "xn--", "C:", "//", "~"])
HOSTILE = st.lists(PIECES, max_size=8).map("".join) | st.text(max_size=20)


@given(text=HOSTILE)
def test_hostile_paths_and_urls_get_the_tools_own_error_text(tmp_path_factory, text):
    """Whatever a model sends, the answer is the Pack's own text (never a
    Python exception's name) and names no host path."""
    tools = PackTools(Workspace.at(tmp_path_factory.mktemp("ws")))
    root = str(tools.workspace.root)
    try:
        for name, arguments in (("files/read", {"path": text}), ("files/write", {"path": text, "content": "x"}),
                                # no lookup leaves the machine: a host is loopback or none
                                ("web/fetch", {"url": "x" + text}), ("web/fetch", {"url": f"http://127.0.0.1:9/{text}"})):
            answer = call(tools, name, **arguments)
            if isinstance(answer, ToolFailure):
                assert answer.message.startswith(f"{name}: "), answer.message
                assert root not in answer.message
    finally:
        tools.close()


@pytest.mark.parametrize("url", ["http://xn--/", "http://xn--a/", "https://xn--zz-.example/x"])
def test_a_host_that_is_not_idna_is_the_tools_own_error(tmp_path, url):
    """Not `web/fetch failed: IDNAError: ...` (a Python class name)."""
    tools = PackTools(Workspace.at(tmp_path))
    try:
        assert failure(tools, "web/fetch", url=url) == "web/fetch: not a valid URL (its host name is not valid)"
    finally:
        tools.close()


def test_a_file_hard_linked_from_outside_is_neither_read_nor_written(files, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.link(outside, files.workspace.root / "in.txt")
    why = "has other names (hard links), which may lie outside the workspace: it is not read or written"
    assert failure(files, "files/read", path="in.txt") == f"files/read: in.txt {why}"
    assert failure(files, "files/write", path="in.txt", content="x") == f"files/write: in.txt {why}"
    assert outside.read_text() == "secret"
