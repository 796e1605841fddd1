"""The context windows runvil knows without a config file: a small
built-in catalog of the OpenAI API's common models, and the window an
OpenAI-compatible server reports in its model listing (`GET .../models`)
for any other model.

Decisions:
- The built-in windows are the ones OpenAI publishes on its model pages
  (the "context window" of each model, in tokens), as of the models listed
  here. A dated snapshot (`gpt-4o-2024-08-06`) has its family's window.
- A server's listing is read for the model's own entry (its `id`, exactly)
  and, in this order, the fields servers put the window in: vLLM's
  `max_model_len`; `context_length` (OpenRouter, Together), `context_window`
  (Groq), `max_context_length` (Mistral, LM Studio); llama.cpp's server
  has none in the entry but a `meta` object, so its `/props`
  (`default_generation_settings.n_ctx`, the window the server was started
  with) is asked, else `meta.n_ctx`, else `meta.n_ctx_train` (the model's
  training window, which a server started with a smaller one overflows).
  llama-cpp-python and Ollama report none: the caller asks for `--context`.
- The listing is read with the provider's key, bounded in size and time as
  any reply (wire.py), and what it says reaches no message unscrubbed: the
  reason it gave no window is runvil's words, with the key masked.
"""

from __future__ import annotations

import re

from .errortext import mask_keys, safe_loads

#: the OpenAI API's common chat models and their context windows, in tokens
#: (OpenAI's published model pages)
OPENAI_CONTEXT = {
    "gpt-5": 400_000,
    "gpt-5-mini": 400_000,
    "gpt-5-nano": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4.1-nano": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "chatgpt-4o-latest": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "o1": 200_000,
    "o1-mini": 128_000,
    "o1-pro": 200_000,
    "o3": 200_000,
    "o3-mini": 200_000,
    "o3-pro": 200_000,
    "o4-mini": 200_000,
}
_SNAPSHOT = re.compile(r"(.+?)-\d{4}-\d{2}-\d{2}")
#: the fields of a listing's entry that give its window, in the order they are read
WINDOW_FIELDS = ("max_model_len", "context_length", "context_window", "max_context_length")
MAX_LISTING = 4 * 1024 * 1024  # bytes of a model listing read
LISTING_TIMEOUT = 10.0  # seconds
MAX_WINDOW = 100_000_000  # a larger window is no window

LISTING_UNREACHABLE = "cannot be read ({reason})"
LISTING_STATUS = "answered with status {status}"
LISTING_NOT_JSON = "is not a JSON model list"
NOT_LISTED = "does not list it"
NO_WINDOW = "gives no context window for it"


def builtin_context(name: str) -> int | None:
    """The built-in window of an OpenAI model name (or a dated snapshot of one)."""
    if name in OPENAI_CONTEXT:
        return OPENAI_CONTEXT[name]
    m = _SNAPSHOT.fullmatch(name)
    return OPENAI_CONTEXT.get(m.group(1)) if m else None


class Listing:
    """What a server's model listing says of one model: `context` (None
    when it gives none) and `why` (runvil's words for what was missing)."""

    def __init__(self, context: int | None, why: str = ""):
        self.context, self.why = context, why


def listed_context(base_url: str, key: str | None, name: str, timeout: float = LISTING_TIMEOUT) -> Listing:
    """The window the server at `base_url` reports for the model `name`
    (asked within `timeout` seconds in all)."""
    import time

    import httpx

    from .openai import unreachable_detail
    from .wire import Deadline, WireError, install_deadline

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    deadline = Deadline()
    try:
        with httpx.Client(headers=headers, timeout=timeout) as client:
            install_deadline(client, deadline)
            deadline.at = time.monotonic() + timeout
            return _read_listing(client, base_url, name)
    except (ValueError, RecursionError):  # not JSON, or nested too deeply (httpx's errors are no ValueErrors)
        return Listing(None, LISTING_NOT_JSON)
    except WireError as e:
        return Listing(None, LISTING_UNREACHABLE.format(reason=str(e)))
    except (httpx.HTTPError, httpx.InvalidURL) as e:
        return Listing(None, LISTING_UNREACHABLE.format(reason=mask_keys(unreachable_detail(e, timeout), key)))
    finally:
        deadline.at = None


def _read_listing(client, base_url: str, name: str) -> Listing:
    status, data = _get_json(client, base_url.rstrip("/") + "/models")
    if status is not None:
        return Listing(None, LISTING_STATUS.format(status=status))
    entry = _entry(data, name)
    if entry is None:
        return Listing(None, NOT_LISTED if isinstance(data, dict) else LISTING_NOT_JSON)
    for field in WINDOW_FIELDS:
        if _window(entry.get(field)):
            return Listing(entry[field])
    meta = entry.get("meta")
    if isinstance(meta, dict):  # llama.cpp's server: its /props says the window it was started with
        for found in (_props_window(client, base_url), meta.get("n_ctx"), meta.get("n_ctx_train")):
            if _window(found):
                return Listing(found)
    return Listing(None, NO_WINDOW)


def _get_json(client, url: str):
    """(status when >= 400 else None, the decoded JSON body)."""
    from .wire import read_text

    with client.stream("GET", url, headers={"Accept": "application/json", "Accept-Encoding": "gzip,deflate"}) as r:
        if r.status_code >= 400:
            return r.status_code, None
        return None, safe_loads(read_text(r, MAX_LISTING))


def _entry(data, name: str) -> dict | None:
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        entries = data.get("models") if isinstance(data, dict) else None
    for e in entries if isinstance(entries, list) else ():
        if isinstance(e, dict) and (e.get("id") == name or e.get("model") == name):
            return e
    return None


def _props_window(client, base_url: str):
    root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
    try:
        status, props = _get_json(client, root + "/props")
    except Exception:  # noqa: BLE001  the listing's own figures still serve
        return None
    settings = props.get("default_generation_settings") if isinstance(props, dict) and status is None else None
    return settings.get("n_ctx") if isinstance(settings, dict) else None


def _window(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_WINDOW
