"""What the tests of a key sent back by a provider share: a key no pattern
knows (only the scrubber can catch it), a prompt that offers a tool and
loops with the model, the config of one provider on a loopback server
reached with a key from the environment, and a finder of any run of the
key in a text."""

from __future__ import annotations

import textwrap

from runvil.harness.scrubber import KEY_RUN

KEY = "Zq7Lm3pX9vR2tK8wN4yBhJ"
KEY_ENV = "RUNVIL_ECHO_KEY"
UNREACHABLE = "http://127.0.0.1:9/v1"  # nothing listens: for runs refused before they send

PROMPT = """---
name: echo-key
description: Talks to a provider that sends the key back.
runvil: 0
models:
  writer: {}
---

# Ask

```lua
models.use('writer')
tools.offer_local('clock', 'the time', {type = 'object'}, function(args) return 'it is 12:00 in ' .. tostring(args.zone) end)
messages:user('hello')
models.loop()
print('last: ' .. messages[#messages].content)
return messages[#messages].content
```
"""

_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def provider_toml(base_url: str, key_env: str = KEY_ENV, max_retries: int | None = 0) -> str:
    """A config whose default model `local/m` (sent as `m-1`) is served at
    `base_url` with the key in `key_env`; no retries unless `max_retries`
    says (None: the default)."""
    retries = "" if max_retries is None else f"max_retries = {max_retries}\n"
    return textwrap.dedent(f"""\
        default_model = "local/m"
        [providers.local]
        base_url = "{base_url}"
        api_key_env = "{key_env}"
        timeout = 5
        """) + retries + textwrap.dedent("""\
        [models."local/m"]
        provider = "local"
        name = "m-1"
        context = 8192
        """)


def write_files(tmp_path, base_url: str = UNREACHABLE, key_env: str = KEY_ENV) -> tuple[str, str]:
    """PROMPT and provider_toml as p.md and runvil.toml in tmp_path: their paths."""
    prompt, config = tmp_path / "p.md", tmp_path / "runvil.toml"
    prompt.write_text(PROMPT, encoding="utf-8")
    config.write_text(provider_toml(base_url, key_env), encoding="utf-8")
    return str(prompt), str(config)


def folded(text: str) -> str:
    return text.translate(_LOWER)


def leaks(text: str, key: str = KEY) -> list[str]:
    """The runs of KEY_RUN characters of the key in `text`, in any case."""
    text, key = folded(text), folded(key)
    return sorted({key[i:i + KEY_RUN] for i in range(len(key) - KEY_RUN + 1)} & {
        text[i:i + KEY_RUN] for i in range(len(text) - KEY_RUN + 1)})
