"""HTML reduced to readable text with the standard library only: what
web/fetch uses where inscriptis (which needs lxml, a C extension) is not
installed, as on Pyodide. Plainer than inscriptis: block elements start
new lines, list items get a `  * `, table cells are separated by two
spaces, `pre` keeps its spacing; scripts, styles and the head are
dropped. Tables are not laid out in columns."""

from __future__ import annotations

import re
from html.parser import HTMLParser

BLOCKS = {"address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset", "figcaption", "figure",
          "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
          "pre", "section", "table", "tr", "ul", "body"}
SKIPPED = {"script", "style", "head", "noscript", "template", "svg"}
CELLS = {"td", "th"}
#: blocks that are one line each, not paragraphs
LINES = {"li", "tr", "dt", "dd"}


class _Reader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line = ""
        self.skipping = 0
        self.pre = 0

    def _break(self) -> None:
        """Ends the line being written, if it holds text."""
        text = self.line.rstrip()
        if text.strip() not in ("", "*"):
            self.lines.append(text)
        self.line = ""

    def _block(self, tag: str) -> None:
        """Ends the line; a paragraph-like block is set off by a blank line."""
        self._break()
        if tag not in LINES and self.lines and self.lines[-1]:
            self.lines.append("")

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self.skipping += 1
        elif tag == "br":
            self._break()
        elif tag in BLOCKS:
            self._block(tag)
            if tag == "pre":
                self.pre += 1
            if tag == "li":
                self.line = "  * "
        elif tag in CELLS and self.line.strip():
            self.line += "  "

    def handle_endtag(self, tag):
        if tag in SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in BLOCKS:
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
            self._block(tag)

    def handle_data(self, data):
        if self.skipping:
            return
        if self.pre:
            first, *rest = data.split("\n")
            self.line += first
            for part in rest:
                self._break()
                self.line = part
            return
        text = re.sub(r"\s+", " ", data)
        if not self.line.strip() or self.line.endswith(" "):
            text = text.lstrip()
        self.line += text


def html_to_text(html: str) -> str:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    reader._break()
    return "\n".join(reader.lines).strip()
