"""The provider the environment makes when there is no config file
(docs/reference/commands.md "Configuration"), as OpenAI's own client reads it:
`OPENAI_API_KEY` (its key) and `OPENAI_BASE_URL` (any compatible server;
default OpenAI's API) make the provider `openai`, whose catalog is the
built-in one (harness/catalog.py) as `openai/NAME`; a model it does not
know takes its window from `--context N`, else from the server's model
listing. config.py builds the Config from what this module reads (this
module imports nothing of the host); the note on stderr says which roles
stay on the echo model.
"""

from __future__ import annotations

import os

KEY_ENV = "OPENAI_API_KEY"
URL_ENV = "OPENAI_BASE_URL"
ENV_PROVIDER = "openai"
OPENAI_URL = "https://api.openai.com/v1"
NOTHING_SET = f"(there is no config file, and neither {KEY_ENV} nor {URL_ENV} is set)"
KEY_NOTE = " ({variable} is set: -m MODEL runs every role on its provider)"
SOME_ECHO_NOTE = "runvil: no config: model role{s} {roles} run{verb} on the offline echo model"
NO_WINDOW = ("model role '{role}' is bound by {how} to '{mid}', which the built-in catalog does not know, and the "
             "model listing of {url} {why}: pass --context N (its context window in tokens) or give it a catalog "
             "entry in a config file")


def environment_provider(environ=None) -> tuple[str, str | None] | None:
    """(base URL, the variable holding its key or None) of the provider the
    environment makes; None when neither variable is set. A ValueError for
    a base URL that is not http(s)."""
    environ = os.environ if environ is None else environ
    key, url = (environ.get(KEY_ENV) or "").strip(), (environ.get(URL_ENV) or "").strip()
    if not key and not url:
        return None
    if url and not url.startswith(("http://", "https://")):
        raise ValueError(f"{URL_ENV} must start with http:// or https://")
    return url or OPENAI_URL, KEY_ENV if key else None


def no_config_note(prompt_roles, cli_binds: list[str], model: str | None, environ=None) -> str | None:
    """The line on stderr for a run with no config file: which roles run on
    the echo model because nothing binds them (None: every role is bound),
    and that `-m MODEL` would use the environment's provider."""
    bound = {b.partition("=")[0].strip() for b in cli_binds} if model is None else set(prompt_roles)
    defaulted = [r for r in prompt_roles if r not in bound]
    if not defaulted:
        return None
    if len(defaulted) < len(prompt_roles):
        many = len(defaulted) > 1
        return SOME_ECHO_NOTE.format(s="s" if many else "", roles=", ".join(defaulted), verb="" if many else "s")
    from ..harness.answerer import NO_CONFIG_NOTE

    environ = os.environ if environ is None else environ
    variable = next((v for v in (KEY_ENV, URL_ENV) if (environ.get(v) or "").strip()), None)
    return NO_CONFIG_NOTE + (KEY_NOTE.format(variable=variable) if variable else "")
