"""The provider's own words from an error reply, and keys masked out of
every text a failure carries (the specification: "the
provider's own message, cut to 300 characters, keys masked").

Error bodies come in many shapes: `{"error": {"message": ...}}` (OpenAI and
most compatible servers), `{"error": "..."}`, a flat `{"message": ...}` or
`{"detail": ...}`, a list of such objects (Gemini), plain text, an HTML
page from a proxy, nothing at all, or JSON too broken or too deep to
decode. Each is read without raising: JSON that cannot be decoded is shown
as text, HTML by its title (else its text without tags).
"""

from __future__ import annotations

import html
import json
import re

DETAIL_LIMIT = 300  # characters of the provider's message kept in an error
REDACTED = "[REDACTED]"
MESSAGE_KEYS = ("error", "message", "detail", "error_description", "errors", "msg", "title")
MAX_DEPTH = 8  # how deep a message is looked for in decoded JSON
MAX_NESTING = 500  # deeper JSON from a provider is refused before decoding

# what an API key looks like, whoever issued it: OpenAI (sk-, sk-proj-),
# Anthropic (sk-ant-), Groq (gsk_), xAI (xai-), Hugging Face (hf_), Google (AIza)
_KEYLIKE = re.compile(r"(?<![A-Za-z0-9])(?:(?:sk|pk|rk|gsk|xai|hf)[-_][A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,})")
_BEARER = re.compile(r"(\bbearer\s+)[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HIDDEN = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_SPACE = re.compile(r"\s+")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def safe_loads(text: str, **hooks):
    """json.loads for text a provider sent, refusing (ValueError) JSON nested
    deeper than MAX_NESTING before decoding it: a run raises the recursion
    limit for Lua, and CPython's decoder would then overflow the C stack of
    a thread on a deep enough document instead of raising."""
    if text.count("[") + text.count("{") > MAX_NESTING and _nesting(text) > MAX_NESTING:
        raise ValueError(f"JSON nested deeper than {MAX_NESTING} levels")
    return json.loads(text, **hooks)


def _nesting(text: str) -> int:
    depth = deepest = 0
    for b in _BRACKET.findall(_STRING.sub("", text)):
        if b in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def mask_keys(text: str, key: str | None = None) -> str:
    """The text with `key` (in its escaped spellings too, in any case) and
    anything that looks like an API key replaced by [REDACTED]."""
    if not text:
        return text
    if key:  # in any case of its letters: a server may echo it upper-cased
        forms = {key, repr(key)[1:-1], repr(key.encode("utf-8", "replace"))[2:-1], json.dumps(key)[1:-1]}
        spelled = "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True))
        text = re.sub(spelled, REDACTED, text, flags=re.IGNORECASE)
    return _BEARER.sub(r"\1" + REDACTED, _KEYLIKE.sub(REDACTED, text))


def provider_message(body: str) -> str:
    """The message an error body carries, on one line ("" for none)."""
    text = (body or "").strip()
    if not text:
        return ""
    found = None
    if text[0] in "{[\"":
        found = _from_json(text)
    elif text[0] == "<":
        found = _from_html(text)
    return _SPACE.sub(" ", found if found else text).strip()


def detail(body: str, key: str | None = None) -> str:
    """The provider's message for an error text: keys masked, then cut to
    300 characters (an ellipsis marks the cut)."""
    msg = mask_keys(provider_message(body), key)
    return msg if len(msg) <= DETAIL_LIMIT else msg[: DETAIL_LIMIT - 1].rstrip() + "…"


def _from_json(text: str) -> str | None:
    try:
        data = safe_loads(text)
    except (ValueError, RecursionError):  # not JSON, cut, or nested too deep
        return None
    return _message_in(data, 0)


def _message_in(data, depth: int) -> str | None:
    if depth > MAX_DEPTH:
        return None
    if isinstance(data, str):
        return data.strip() or None
    if isinstance(data, list):
        for item in data[:8]:
            found = _message_in(item, depth + 1)
            if found:
                return found
        return None
    if isinstance(data, dict):
        for k in MESSAGE_KEYS:
            if k in data:
                found = _message_in(data[k], depth + 1)
                if found:
                    return found
    return None


def _from_html(text: str) -> str | None:
    title = _TITLE.search(text)
    if title is not None and title.group(1).strip():
        return html.unescape(title.group(1))
    stripped = html.unescape(_TAG.sub(" ", _HIDDEN.sub(" ", text)))
    return stripped.strip() or None
