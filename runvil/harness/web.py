"""The `web` Pack (docs/reference/configuration.md): `web/search` asks a
SearXNG-compatible JSON endpoint (`GET search_url?q=...&format=json`, whose
`results` hold `title`, `url` and `content`), `web/fetch` gets a page and
returns its text, HTML reduced to readable text by inscriptis (or, where
it is not installed, by htmltext.py).

Settings are read by duck typing (`search_url`, `fetch_max_bytes`,
`fetch_timeout`), so the harness never imports the host's config.

Decisions:
- Only http and https, at every redirect too (at most MAX_REDIRECTS); a
  reply over `fetch_max_bytes` is refused, not cut, and so is one that takes
  longer than `fetch_timeout` seconds in all, headers included (a deadline
  under every read and connect of the client, wire.py's, not just a wait
  between bytes). The search endpoint's reply has the same limits.
- A page's content codings (`gzip`, `x-gzip`, `deflate`, the ones asked for,
  stacked up to MAX_CODINGS deep) are undone by wire.py in bounded pieces,
  `fetch_max_bytes` checked before each piece is made: a small page that
  inflates to gigabytes never holds more than about the limit. Any other
  coding is refused by name.
- A page's charset is used only when it is one of the Encoding Standard's
  (what browsers decode), whose Python codecs all decode in linear time;
  any other (`punycode`, whose decoder is quadratic, `utf-7`, ...) reads as
  UTF-8.
- Any host may be fetched, loopback included: the user runs the prompt and
  chooses its Packs.
- Text types (`text/*`, JSON, XML, JavaScript) are returned as text; other
  types are refused. The charset is the reply's, else a `<meta charset>`
  for HTML, else UTF-8; undecodable bytes become U+FFFD.
- A search shows at most MAX_RESULTS results, numbered, each as title, URL
  and snippet, after the endpoint's direct answers.
"""

from __future__ import annotations

import codecs
import json
import re
import threading
import time

from .packbase import PackError, object_schema

DEFAULT_FETCH_MAX_BYTES = 2_000_000
DEFAULT_FETCH_TIMEOUT = 20.0
MAX_REDIRECTS = 5
MAX_RESULTS = 10
MAX_JSON_DEPTH = 100
USER_AGENT = "runvil-web-pack"
MAX_CODINGS = 3  # content codings stacked on one page
ACCEPT_ENCODING = "gzip, deflate"
#: Python's names of the Encoding Standard's charsets (each decodes in linear time)
LINEAR_CHARSETS = frozenset({
    "utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-16-le", "ascii", "cp866", "koi8-r", "koi8-u", "mac-roman",
    "mac-cyrillic", "cp874", "gbk", "gb2312", "gb18030", "big5", "big5hkscs", "euc_jp", "iso2022_jp", "shift_jis",
    "cp932", "euc_kr", "cp949", *(f"iso8859-{n}" for n in range(1, 17) if n != 12),
    *(f"cp{n}" for n in range(1250, 1259))})
#: labels of the Encoding Standard that Python spells otherwise
CHARSET_LABELS = {"windows-874": "cp874", "x-mac-cyrillic": "mac-cyrillic", "windows-31j": "cp932"}
TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-javascript")
HTML_TYPES = ("text/html", "application/xhtml+xml")


class WebPack:
    name = "web"
    tools = {
        "search": {"description": "Search the web; returns the top results (title, URL, snippet) as text.",
                   "parameters": object_schema({"query": {"type": "string"}}, ["query"])},
        "fetch": {"description": "Fetch a web page (http or https) and return its text.",
                  "parameters": object_schema({"url": {"type": "string"}}, ["url"])},
    }

    def __init__(self, settings=None):
        self.search_url = getattr(settings, "search_url", None)
        self.max_bytes = getattr(settings, "fetch_max_bytes", None) or DEFAULT_FETCH_MAX_BYTES
        self.timeout = getattr(settings, "fetch_timeout", None) or DEFAULT_FETCH_TIMEOUT
        self._client = None  # an httpx.Client, made at the first call (httpx is imported only then)
        self._lock = threading.Lock()
        self._deadline = None  # wire.Deadline under the client's reads: the whole response's

    def perform(self, tool: str, arguments: dict) -> str:
        if tool == "search":
            return self.search(arguments.get("query"))
        if tool == "fetch":
            return self.fetch(arguments.get("url"))
        raise PackError(f"web has no tool {tool}")

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    # ----------------------------------------------------------- tools

    def search(self, query) -> str:
        if not self.search_url:
            raise PackError("web/search needs a configured endpoint")
        if not isinstance(query, str) or not query.strip():
            raise PackError("web/search: query must be a non-empty string")
        url = _http_url(self.search_url, "web/search").copy_merge_params({"q": query, "format": "json"})
        status, _, body, _ = self._get(url, "web/search", "the search endpoint")
        if status == 403:
            raise PackError("web/search: the search endpoint answered with status 403 "
                            "(a SearXNG instance does so when its json format is not enabled)")
        if status >= 400:
            raise PackError(f"web/search: the search endpoint answered with status {status}")
        text = body.decode("utf-8", "replace")
        try:
            if too_deep(text, MAX_JSON_DEPTH):
                raise ValueError("nested too deeply")
            data = json.loads(text)
        except ValueError:
            raise PackError("web/search: the search endpoint did not answer with JSON") from None
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise PackError("web/search: the search endpoint's JSON has no results list")
        return search_text(query, data)

    def fetch(self, url) -> str:
        if not isinstance(url, str) or not url.strip():
            raise PackError("web/fetch: url must be a non-empty string")
        target = _http_url(url.strip(), "web/fetch")
        status, header, body, final = self._get(target, "web/fetch", str(target))
        if status >= 400:
            raise PackError(f"web/fetch: {final} answered with status {status}")
        ctype = header.split(";")[0].strip().lower()
        html = ctype in HTML_TYPES or (not ctype and body.lstrip()[:1] == b"<")
        if html:
            return html_text(body.decode(_charset(header, body, html), "replace"))
        if not ctype or ctype.startswith("text/") or ctype in TEXT_TYPES or ctype.endswith(("+json", "+xml")):
            return body.decode(_charset(header, body, html), "replace")
        raise PackError(f"web/fetch: {final} is not text (its type is {ctype})")

    # ----------------------------------------------------------- HTTP

    def client(self):
        import httpx

        with self._lock:
            if self._client is None:
                from .wire import Deadline, install_deadline

                self._client = httpx.Client(follow_redirects=False,
                                            headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING})
                self._deadline = Deadline()
                install_deadline(self._client, self._deadline)
            return self._client

    def _get(self, url, tool: str, what: str):
        """GETs `url` (an httpx.URL), following redirects to http(s) only,
        within the size and time limits: (status, Content-Type header, body
        bytes, final URL)."""
        import httpx

        from .wire import WireError, drop_if_leftover

        client = self.client()
        deadline = time.monotonic() + self.timeout
        self._deadline.at = deadline  # (thread-local: calls on other threads have their own)
        try:
            for _ in range(MAX_REDIRECTS + 1):
                with client.stream("GET", url, timeout=max(0.01, deadline - time.monotonic())) as r:
                    if r.is_redirect and "location" in r.headers:
                        url = _http_url(str(r.url.join(r.headers["location"])), tool, redirect=True)
                        continue
                    body = self._body(r, tool, what)
                    drop_if_leftover(r)
                    return r.status_code, r.headers.get("content-type", ""), body, r.url
        except httpx.TimeoutException:
            raise PackError(f"{tool}: {what} took longer than {self.timeout:g} s") from None
        except WireError:  # (the one a page's codings raise)
            raise PackError(f"{tool}: {what} sent a corrupt compressed body") from None
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as e:
            raise PackError(f"{tool}: cannot reach {what}: {_reason(e)}") from None
        except UnicodeError:  # IDNA refuses the host name
            raise PackError(f"{tool}: cannot reach {what}: its host name is not valid") from None
        finally:
            self._deadline.at = None
        raise PackError(f"{tool}: {what} redirects more than {MAX_REDIRECTS} times")

    def _body(self, r, tool: str, what: str) -> bytes:
        """The body of `r` with its codings undone, at most max_bytes."""
        from .wire import codings_of, decoded

        size = r.headers.get("content-length", "")
        if size.isdigit() and int(size) > self.max_bytes:
            raise PackError(f"{tool}: {what} is {int(size)} bytes, more than the {self.max_bytes} a fetch may read")
        codings = codings_of(r.headers)
        unknown = [c for c in codings if c not in ("gzip", "x-gzip", "deflate")]
        if unknown or len(codings) > MAX_CODINGS:
            said = unknown[0][:40] if unknown else ", ".join(codings)
            raise PackError(f"{tool}: {what} came in the encoding '{said}', which a fetch does not unpack")
        too_big = f"{tool}: {what} is more than the {self.max_bytes} bytes a fetch may read"
        body = bytearray()
        wire = 0

        def raw():
            nonlocal wire
            for piece in r.iter_raw():
                wire += len(piece)
                if wire > self.max_bytes:
                    raise PackError(too_big)
                yield piece

        for piece in decoded(raw(), codings, lambda: self.max_bytes - len(body) + 1):
            body += piece
            if len(body) > self.max_bytes:
                raise PackError(too_big)
        return bytes(body)


def _http_url(text: str, tool: str, redirect: bool = False):
    import httpx

    how = "redirects to" if redirect else "got"
    try:
        url = httpx.URL(text)
    except (httpx.InvalidURL, ValueError, TypeError):
        raise PackError(f"{tool}: not a valid URL") from None
    if url.scheme not in ("http", "https"):
        scheme = f"{url.scheme}:" if url.scheme else "no scheme"
        raise PackError(f"{tool}: only http and https URLs can be fetched ({how} {scheme})")
    try:
        host = url.host  # decoded from IDNA here: `xn--` alone is not a host
    except UnicodeError:
        raise PackError(f"{tool}: not a valid URL (its host name is not valid)") from None
    if not host:
        raise PackError(f"{tool}: the URL has no host")
    return url


def _reason(e: Exception) -> str:
    """An httpx failure in a few words: the OS's reason without its number."""
    text = str(e) or type(e).__name__
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", text)[:200]
    return text[:1].lower() + text[1:]


# patterns compiled at their first use (re's cache), not by every run that imports the Pack
_HEADER_CHARSET = r"""(?i)charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)"""
_META_CHARSET = rb"""(?i)<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)"""


def _charset(header: str, body: bytes, html: bool) -> str:
    """The Content-Type header's charset, else an HTML page's own, else UTF-8."""
    m = re.search(_HEADER_CHARSET, header)
    if m:
        name = m.group(1)
    else:
        meta = re.search(_META_CHARSET, body[:2048]) if html else None
        name = meta.group(1).decode("ascii") if meta else "utf-8"
    name = CHARSET_LABELS.get(name.lower(), name)
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        return "utf-8"
    return codec if codec in LINEAR_CHARSETS else "utf-8"


def html_text(html: str) -> str:
    """Readable text of an HTML page: inscriptis lays out headings, lists
    and tables as text; where it is not installed (it needs lxml, a C
    extension: Pyodide), htmltext.py's plainer stdlib reader does. Runs of
    blank lines are folded to one."""
    if not html.strip():
        return ""
    try:
        from inscriptis import get_text
    except ImportError:
        from .htmltext import html_to_text as get_text
    try:
        text = get_text(html)
    except Exception:  # lxml refuses a page it cannot parse at all  # noqa: BLE001
        raise PackError("web/fetch: the page's HTML could not be read") from None
    lines = [line.rstrip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def search_text(query: str, data: dict) -> str:
    """A SearXNG reply as numbered results a model reads easily."""
    out = []
    answers = data.get("answers")
    for a in answers if isinstance(answers, list) else []:
        answer = a.get("answer") if isinstance(a, dict) else a
        if isinstance(answer, str) and answer.strip():
            out.append(f"Answer: {answer.strip()}")
    n = 0
    for r in data["results"]:
        if not isinstance(r, dict) or n == MAX_RESULTS:
            continue
        n += 1
        title, url, content = (_field(r, k) for k in ("title", "url", "content"))
        out.append("\n".join(x for x in (f"{n}. {title or url or '(untitled)'}", f"   {url}" if url else "",
                                          f"   {content}" if content else "") if x))
    if n == 0:
        out.append(f"No results for \"{query}\".")
    return "\n\n".join(out) + "\n"


def _field(r: dict, key: str) -> str:
    v = r.get(key)
    return " ".join(v.split()) if isinstance(v, str) else ""


_JSON_TOKENS = r'[\[\]{}"\\]'


def too_deep(text: str, limit: int) -> bool:
    """Whether JSON text nests arrays and objects past `limit` levels,
    checked before decoding so a hostile reply cannot exhaust the stack."""
    depth, in_string, skip = 0, False, -1
    for m in re.finditer(_JSON_TOKENS, text):
        i = m.start()
        if i < skip:
            continue
        c = text[i]
        if in_string:
            if c == "\\":
                skip = i + 2
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > limit:
                return True
        elif c in "]}":
            depth -= 1
    return False
