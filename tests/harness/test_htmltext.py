"""web/fetch where inscriptis is not installed (it needs lxml, a C
extension, so it carries the marker `sys_platform != "emscripten"`):
htmltext.py's stdlib reader stands in, and a page reads as text all the
same, over a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import sys

import pytest

from runvil.harness.htmltext import html_to_text

from .test_packs import result, web, web_tools  # noqa: F401  (web is a fixture)


@pytest.fixture
def no_inscriptis(monkeypatch):
    """As on Pyodide: importing inscriptis fails."""
    for name in list(sys.modules):
        if name.split(".")[0] in ("inscriptis", "lxml"):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "inscriptis", None)


def test_fetch_reads_html_without_inscriptis(tmp_path, web, no_inscriptis):  # noqa: F811
    tools = web_tools(tmp_path)
    text = result(tools, "web/fetch", url=web.url("/page.html"))
    assert text == ("Paris\n\nParis is the capital of France.\n\n  * Louvre\n  * Eiffel Tower\n\n"
                    "Year  People\n2020  2.1M\n")
    assert "café" in result(tools, "web/fetch", url=web.url("/latin1.html"))
    assert result(tools, "web/fetch", url=web.url("/empty.html")) == ""
    assert "inscriptis" not in sys.modules or sys.modules["inscriptis"] is None


def test_the_stdlib_reader_keeps_pre_and_line_breaks():
    html = ("<body><p>one <i>two</i>\n   three</p><pre>a  = 1\n  b</pre>tail<br>next"
            "<script>x()</script><ol><li>first</li><li></li></ol></body>")
    assert html_to_text(html) == "one two three\n\na  = 1\n  b\n\ntail\nnext\n\n  * first"
