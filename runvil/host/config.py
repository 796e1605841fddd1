"""The config file `runvil.toml` (docs/reference/configuration.md) and the binding
of a prompt's model roles to catalog models (docs/reference/models.md
"How prepare binds and checks roles").

Where the file is: `--config FILE`, else the `RUNVIL_CONFIG` variable, else
`./runvil.toml`, else there is none. A file named by `--config` or
`RUNVIL_CONFIG` must exist; `./runvil.toml` is optional.

Decisions:
- The file is checked strictly: an unknown key is an error (it is most often
  a typo). A literal `api_key` is refused: keys come from the environment
  variable named by `api_key_env`, and no error ever shows a key.
- A provider's `timeout` (seconds to connect and between reply bytes, any
  positive finite number; default 600) and `max_retries` (0 or more;
  default 2) are described in docs/reference/configuration.md.
- A provider's `stream` (default true), `tool_choice` (default "auto";
  any string, sent as given whenever tools are offered; "" sends none) and
  `stream_usage` (default true) shape its requests for the servers people
  run (docs/reference/commands.md has one example per server).
- `[packs.web]` (`search_url`, `fetch_max_bytes`, `fetch_timeout`) is
  described in docs/reference/configuration.md; `[packs.files] write_quota` (bytes, default
  100,000,000) bounds what `files/write` adds to the workspace in one run.
- `[limits]` sets the sandbox's limits: per block `block_steps`,
  `block_memory` (bytes), `block_seconds`, `block_cpu_seconds`, and the run's own budget
  `memory` (bytes), `run_steps`, `run_seconds`, `section_entries` (runvil.engine.limits);
  each a positive number, defaults where left out.
- `api_key_env` is optional (local servers need no key). A provider that
  names one needs it set and non-empty when a bound model uses it; the
  error names the variable.
- A model's `name` (the provider's model name) defaults to its id without a
  leading `provider/`.
- Binding order per role: `--bind role=model`, `-m/--model MODEL` (every
  role), `[bind]`, the role's `model` option, `default_model`. Explicit
  bindings (the first three) must name a catalog model. The role's `model` option is a suggestion from the prompt's
  author: when the catalog lacks it, binding falls through to the default.
- `echo` is always a model (`-m echo`, `--bind ROLE=echo`): the offline
  echo model, unless the config's catalog has a model of that id.
- With no config file, the environment makes a provider as the OpenAI
  client reads it: `OPENAI_API_KEY` (its key) and `OPENAI_BASE_URL` (any
  compatible server; default OpenAI's API) make the provider `openai`, whose
  catalog is the built-in one (harness/catalog.py) as `openai/NAME`. A flag
  may name a model by its bare name (`-m gpt-4o-mini`); a model the
  built-in catalog does not know takes its window from `--context N`, else
  from the server's model listing, else binding fails saying so. A role no
  flag binds runs on the echo model even then: a key in the environment
  never makes a run a paid one unasked (the note on stderr says `-m MODEL`
  would use it). `--context N` also overrides a known model's window.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from ..structs import Struct, field, replace

#: a config file is a page of settings; a bigger one is a mistake (or /dev/zero)
MAX_CONFIG_BYTES = 1024 * 1024
CONFIG_TOO_BIG = "the file is more than {limit} bytes; a config file is a page of settings"
CONFIG_HUGE_INTEGER = "an integer has more than 4300 digits"
API_KEY_ENV_NOT_A_NAME = ("must name an environment variable (letters, digits and _), "
                          "not hold the key itself: put the key in the variable")
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

CONFIG_ENV = "RUNVIL_CONFIG"
ECHO = "echo"  # the offline model's id: always a model
DEFAULT_FILE = "runvil.toml"
DEFAULT_TIMEOUT = 600.0  # seconds (docs/reference/configuration.md)
DEFAULT_MAX_RETRIES = 2

#: every key the file may hold, by table ("" the top level): what
#: docs/reference/configuration.md must list (a test checks it)
TOP_KEYS = ("default_model", "providers", "models", "bind", "packs", "limits")
PROVIDER_KEYS = ("base_url", "api_key_env", "timeout", "max_retries", "stream", "tool_choice", "stream_usage")
MODEL_KEYS = ("provider", "name", "context", "max_tokens")
LIMIT_COUNTS = ("block_steps", "block_memory", "memory", "run_steps", "section_entries")
LIMIT_SECONDS = ("block_seconds", "block_cpu_seconds", "run_seconds")
WEB_KEYS = ("search_url", "fetch_max_bytes", "fetch_timeout")
FILES_KEYS = ("write_quota",)
CONFIG_KEYS = {"": TOP_KEYS, "providers.NAME": PROVIDER_KEYS, 'models."ID"': MODEL_KEYS, "bind": ("ROLE",),
               "limits": LIMIT_COUNTS + LIMIT_SECONDS, "packs.web": WEB_KEYS, "packs.files": FILES_KEYS}


class ConfigError(ValueError):
    """A config file, a binding or a key that cannot be used (a usage error;
    a ValueError, so `runvil run` reports it with exit status 2)."""


class Provider(Struct, frozen=True):
    name: str
    base_url: str
    api_key_env: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    max_retries: int = DEFAULT_MAX_RETRIES
    stream: bool = True
    tool_choice: str = "auto"
    stream_usage: bool = True


class CatalogModel(Struct, frozen=True):
    id: str
    provider: str
    name: str
    context: int
    max_tokens: int | None = None


class PackSettings(Struct, frozen=True):
    """`[packs.web]` and `[packs.files]` (docs/reference/configuration.md)."""

    search_url: str | None = None
    fetch_max_bytes: int = 2_000_000
    fetch_timeout: float = 20.0
    write_quota: int = 100_000_000  # bytes files/write may add to the workspace per run


class LimitSettings(Struct, frozen=True):
    """`[limits]`: None keeps the default of runvil.lua.Limits (per block)
    or runvil.engine.limits.RunLimits (per run)."""

    block_steps: int | None = None
    block_memory: int | None = None
    block_seconds: float | None = None
    block_cpu_seconds: float | None = None
    memory: int | None = None
    run_steps: int | None = None
    run_seconds: float | None = None
    section_entries: int | None = None

    def sandbox(self):
        """(Limits, RunLimits) with these settings over the defaults."""
        from ..engine.limits import RunLimits
        from ..lua.api import Limits

        block, run = Limits(), RunLimits()
        block = replace(block, **{k: v for k, v in (("steps", self.block_steps), ("memory", self.block_memory),
                                                    ("seconds", self.block_seconds),
                                                    ("cpu_seconds", self.block_cpu_seconds)) if v is not None})
        run = replace(run, **{k: v for k, v in (("steps", self.run_steps), ("seconds", self.run_seconds),
                                                ("section_entries", self.section_entries),
                                                ("memory", self.memory)) if v is not None})
        return block, run


class Config(Struct, frozen=True):
    default_model: str | None = None
    providers: dict[str, Provider] = field(factory=dict)
    models: dict[str, CatalogModel] = field(factory=dict)
    bind: dict[str, str] = field(factory=dict)
    path: str | None = None
    packs: PackSettings = field(factory=PackSettings)
    limits: LimitSettings = field(factory=LimitSettings)


# ------------------------------------------------------------------ loading


def config_path(cli_path: str | None = None, environ=None, cwd: str | Path | None = None) -> Path | None:
    """The config file to read, or None when there is none."""
    environ = os.environ if environ is None else environ
    if cli_path:
        return Path(cli_path)
    if environ.get(CONFIG_ENV):
        return Path(environ[CONFIG_ENV])
    p = Path(cwd or ".") / DEFAULT_FILE
    return p if p.is_file() else None


def load_config(cli_path: str | None = None, environ=None, cwd: str | Path | None = None) -> Config | None:
    """Reads the config file (see `config_path`); None when there is none."""
    path = config_path(cli_path, environ, cwd)
    if path is None:
        return None
    import tomllib  # here: a run with no config file does not pay for it

    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)  # bounded: --config /dev/zero
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except OSError as e:
        raise ConfigError(f"cannot read config file {path}: {e.strerror or e}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: {CONFIG_TOO_BIG.format(limit=MAX_CONFIG_BYTES)}")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: the byte at offset {e.start} is not UTF-8") from None
    except ValueError:  # int() past CPython's digit limit, whose message names sys.set_int_max_str_digits()
        raise ConfigError(f"{path}: not valid TOML: {CONFIG_HUGE_INTEGER}") from None
    except RecursionError:  # tomllib recurses: a hostile file nests past the stack
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None
    try:
        return parse_config(data, str(path))
    except ConfigError as e:
        line = key_line(raw.decode("utf-8"), *e.key) if getattr(e, "key", None) else None
        if line is None:
            raise
        raise ConfigError(f"{path}:{line}:{str(e)[len(str(path)) + 1:]}") from None


def key_line(text: str, table: str, key: str) -> int | None:
    """The line of `key` in `[table]` (or `table` itself, a `[table]` heading
    or a dotted key), for an error that names a key the file sets."""
    quoted = rf'(?:{re.escape(key)}|"{re.escape(key)}")'
    current = ""
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        heading = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?", stripped)
        if heading:
            current = heading.group(1).replace('"', "")
            full = (f"{table}.{key}" if table else key).replace('"', "")
            if current == full or current.startswith(full + "."):
                return n
            continue
        if current.replace('"', "") == table.replace('"', "") and re.match(rf"^{quoted}\s*[.=]", stripped):
            return n
    return None


def did_you_mean(name: str, names) -> str:
    """`; did you mean 'block_steps'?` when a name is close to `name`."""
    import difflib

    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def parse_config(data: dict, source: str = DEFAULT_FILE) -> Config:
    """A Config from the decoded TOML document; ConfigError names the file
    and the key at fault."""

    def fail(msg: str):
        raise ConfigError(f"{source}: {msg}")

    _known(data, set(TOP_KEYS), "", fail)

    providers: dict[str, Provider] = {}
    for name, p in _table(data, "providers", fail).items():
        where = f"providers.{_key(name)}"
        if not isinstance(p, dict):
            fail(f"{where} must be a table")
        if "api_key" in p:
            fail(f"{where}: api_key is not read from the config file; "
                 "put the key in an environment variable and name it with api_key_env")
        _known(p, set(PROVIDER_KEYS), where, fail)
        base_url = _string(p, "base_url", where, fail, required=True)
        if not base_url.startswith(("http://", "https://")):
            fail(f"{where}.base_url must start with http:// or https://")
        timeout = _field(p, "timeout", where, fail, False, _seconds, "a positive number of seconds")
        retries = _field(p, "max_retries", where, fail, False, lambda v: _integer(v) and v >= 0, "an integer, 0 or more")
        flags = {k: _field(p, k, where, fail, False, lambda v: isinstance(v, bool), "true or false")
                 for k in ("stream", "stream_usage")}
        tool_choice = _field(p, "tool_choice", where, fail, False, lambda v: isinstance(v, str) and len(v) <= 100,
                             'a string such as "auto", "required" or "" (none sent)')
        key_env = _string(p, "api_key_env", where, fail)
        if key_env is not None and not _VARIABLE_NAME.fullmatch(key_env):
            fail(f"{where}.api_key_env {API_KEY_ENV_NOT_A_NAME}")  # never the value: it may be a pasted key
        providers[name] = Provider(name, base_url, key_env,
                                   DEFAULT_TIMEOUT if timeout is None else float(timeout),
                                   DEFAULT_MAX_RETRIES if retries is None else retries,
                                   stream=True if flags["stream"] is None else flags["stream"],
                                   tool_choice="auto" if tool_choice is None else tool_choice,
                                   stream_usage=True if flags["stream_usage"] is None else flags["stream_usage"])

    models: dict[str, CatalogModel] = {}
    for mid, m in _table(data, "models", fail).items():
        where = f"models.{_key(mid)}"
        if not isinstance(m, dict):
            fail(f"{where} must be a table")
        _known(m, set(MODEL_KEYS), where, fail)
        provider = _string(m, "provider", where, fail, required=True)
        if provider not in providers:
            fail(f"{where}: unknown provider '{provider}' (no [providers.{_key(provider)}] table)")
        name = _string(m, "name", where, fail)
        if name is None:
            name = mid[len(provider) + 1:] if mid.startswith(provider + "/") else mid
        context = _count(m, "context", where, fail, required=True)
        models[mid] = CatalogModel(mid, provider, name, context, _count(m, "max_tokens", where, fail))

    bind: dict[str, str] = {}
    for role, mid in _table(data, "bind", fail).items():
        if not isinstance(mid, str):
            fail(f"bind.{_key(role)} must be a model id string")
        if mid not in models:
            fail_at(fail, f"bind.{_key(role)}: unknown model '{mid}' (no [models.\"{mid}\"] table)"
                    + did_you_mean(mid, models), "bind", role)
        bind[role] = mid

    default = data.get("default_model")
    if default is not None:
        if not isinstance(default, str):
            fail("default_model must be a model id string")
        if default not in models:
            fail_at(fail, f"default_model: unknown model '{default}' (no [models.\"{default}\"] table)"
                    + did_you_mean(default, models), "", "default_model")
    return Config(default, providers, models, bind, source, parse_pack_settings(data, fail),
                  parse_limit_settings(data, fail))


def parse_limit_settings(data: dict, fail) -> LimitSettings:
    """`[limits]`: counts are positive integers, seconds positive numbers."""
    t = _table(data, "limits", fail)
    counts, seconds = LIMIT_COUNTS, LIMIT_SECONDS
    _known(t, set(counts + seconds), "limits", fail)
    values = {k: _count(t, k, "limits", fail) for k in counts}
    for k in seconds:
        v = _field(t, k, "limits", fail, False, _seconds, "a positive number of seconds")
        values[k] = None if v is None else float(v)
    return LimitSettings(**values)


def parse_pack_settings(data: dict, fail) -> PackSettings:
    """The built-in Packs' settings: `[packs.web] search_url` (an http(s)
    URL), `fetch_max_bytes`, `fetch_timeout` (seconds); `[packs.files]
    write_quota` (bytes). Other Packs' tables are theirs to read."""
    packs = _table(data, "packs", fail)
    web = _table(packs, "web", lambda m: fail(f"packs.{m}"))
    files = _table(packs, "files", lambda m: fail(f"packs.{m}"))
    _known(web, set(WEB_KEYS), "packs.web", fail)
    _known(files, set(FILES_KEYS), "packs.files", fail)
    url = _string(web, "search_url", "packs.web", fail)
    if url is not None and not url.startswith(("http://", "https://")):
        fail("packs.web.search_url must start with http:// or https://")
    whole = lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0  # noqa: E731
    seconds = lambda v: (whole(v) or isinstance(v, float)) and 0 < v < float("inf")  # noqa: E731
    d = PackSettings()
    max_bytes = _field(web, "fetch_max_bytes", "packs.web", fail, False, whole, "a positive integer")
    timeout = _field(web, "fetch_timeout", "packs.web", fail, False, seconds, "a positive number of seconds")
    quota = _field(files, "write_quota", "packs.files", fail, False, whole, "a positive integer")
    return PackSettings(url, max_bytes or d.fetch_max_bytes, float(timeout or d.fetch_timeout), quota or d.write_quota)


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else f'"{k}"'


def _known(table: dict, allowed: set, where: str, fail) -> None:
    for k in table:
        if k not in allowed:
            fail_at(fail, f"unknown key '{where + '.' if where else ''}{k}'" + did_you_mean(k, allowed), where, k)


def fail_at(fail, message: str, table: str, key: str):
    """fail(message) for a key the file sets: load_config names its line."""
    try:
        fail(message)
    except ConfigError as e:
        e.key = (table, key)
        raise


def _table(data: dict, key: str, fail) -> dict:
    t = data.get(key, {})
    if not isinstance(t, dict):
        fail(f"{key} must be a table")
    return t


def _string(t: dict, key: str, where: str, fail, required: bool = False) -> str | None:
    return _field(t, key, where, fail, required, lambda v: isinstance(v, str) and v != "", "a non-empty string")


def _count(t: dict, key: str, where: str, fail, required: bool = False) -> int | None:
    return _field(t, key, where, fail, required, lambda v: _integer(v) and v > 0, "a positive integer")


def _integer(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _seconds(v) -> bool:
    return (_integer(v) or isinstance(v, float)) and math.isfinite(v) and v > 0


def _field(t: dict, key: str, where: str, fail, required: bool, valid, kind: str):
    """`t[key]` when it is `valid`; missing is None unless `required`."""
    v = t.get(key)
    if v is None:
        if required:
            fail(f"{where} needs {key}")
        return None
    if not valid(v):
        fail(f"{where}.{key} must be {kind}")
    return v


# ------------------------------------------------------------------ keys


def provider_key(config: Config, provider: str, environ=None) -> str | None:
    """The API key of a provider, read from its variable (None when the
    provider names no variable). Errors name the variable, never a value."""
    environ = os.environ if environ is None else environ
    p = config.providers[provider]
    if p.api_key_env is None:
        return None
    from ..harness.scrubber import key_problem, shown_variable

    variable = shown_variable(p.api_key_env, f"providers.{_key(provider)}.api_key_env")
    key = environ.get(p.api_key_env)
    if key is None:
        raise ConfigError(f"provider '{provider}' needs an API key: {variable} is not set")
    if not key.strip():
        raise ConfigError(f"provider '{provider}' needs an API key: {variable} is empty")
    key = key.strip()
    problem = key_problem(key)
    if problem is not None:
        raise ConfigError(f"provider '{provider}': {variable} {problem}")
    return key


# ------------------------------------------------------------------ binding


def parse_binds(cli_binds: list[str]) -> dict[str, str]:
    """`--bind role=model` flags; a later flag for the same role wins."""
    out: dict[str, str] = {}
    for b in cli_binds or ():
        role, eq, mid = b.partition("=")
        role, mid = role.strip(), mid.strip()
        if not eq or not role or not mid:
            raise ConfigError(f"--bind needs ROLE=MODEL, got '{b}'")
        out[role] = mid
    return out


def add_binding_options(parser) -> None:
    """`--bind ROLE=MODEL` and `-m/--model MODEL`, as `run`, `chat` and
    `batch` take them; pass `args.bind` and `args.model` to `bind_roles`
    (or `real_providers`, or runcmd's `world_for`)."""
    parser.add_argument("--bind", action="append", default=[], metavar="ROLE=MODEL",
                        help="bind a model role to a catalog model (repeatable; wins over -m)")
    parser.add_argument("-m", "--model", metavar="MODEL",
                        help="bind every model role to this catalog model (see `runvil models`); echo: the offline one")
    add_context_option(parser)


def add_context_option(parser) -> None:
    """`--context N`: the window of a model the catalog does not know."""
    parser.add_argument("--context", metavar="N", type=_context_flag,
                        help="the context window, in tokens, of the -m/--bind model (for a model the catalog "
                             "does not know)")


def _context_flag(text: str) -> int:
    import argparse

    if not text.strip().isdigit() or not 0 < int(text) <= 100_000_000:
        raise argparse.ArgumentTypeError(f"must be a positive number of tokens, not '{text}'")
    return int(text)


def check_bind_roles(prompt_roles, cli_binds: list[str]) -> dict[str, str]:
    """The `--bind` flags, each naming a role the prompt declares."""
    flags = parse_binds(list(cli_binds))
    for role in flags:
        if role not in prompt_roles:
            from ..engine.errors import names_hint

            raise ConfigError(f"--bind {role}=...: the prompt declares no model role '{role}' "
                              f"({names_hint(role, prompt_roles, 'declared')})")
    return flags


def bind_roles(prompt_roles: dict, config: Config | None, cli_binds: list[str] = (), model: str | None = None,
               context: int | None = None, environ=None) -> dict:
    """A ModelBinding for every declared role (prompt.frontmatter.models:
    role -> RoleOptions), in the order of docs/reference/prompt-file.md; `model` (`-m`)
    binds every role that no `--bind` flag names. With no config file
    (None), the environment's provider and the echo model (see above)."""
    from ..engine.run import ModelBinding
    from ..harness.echo import ECHO_CONTEXT
    from .envconfig import ENV_PROVIDER

    model_flag = model
    has_file = config is not None
    config = config if has_file else environment_config(environ)
    flags = check_bind_roles(prompt_roles, cli_binds)
    found: dict[str, CatalogModel] = {}  # a model the listing was asked about, asked once

    def catalog(mid: str, how: str):
        if mid in config.models:
            chosen = config.models[mid]
        elif mid == ECHO:
            return None
        elif not has_file and ENV_PROVIDER in config.providers:
            chosen = config.models.get(f"{ENV_PROVIDER}/{mid}") or found.get(mid)
            if chosen is None:
                chosen = found[mid] = _unknown_model(role, mid, how, context, config, environ)
        else:
            raise ConfigError(f"model role '{role}' is bound by {how} to '{mid}', which is not a catalog model "
                              f"{_where(mid, config, has_file)}")
        return chosen if context is None else replace(chosen, context=context)

    out = {}
    for role, opts in prompt_roles.items():
        if role in flags:
            chosen = catalog(flags[role], "--bind")
        elif model_flag is not None:
            chosen = catalog(model_flag, "-m/--model")
        elif not has_file:  # no flag binds it: offline, whatever the environment holds
            chosen = None
        elif role in config.bind:
            chosen = catalog(config.bind[role], "[bind]")
        else:
            suggested = getattr(opts, "model", None)
            if suggested is not None and suggested in config.models:
                chosen = config.models[suggested]
            elif config.default_model is not None:
                chosen = config.models[config.default_model]
            else:
                raise ConfigError(f"model role '{role}' is not bound to a model: {_unbound_hint(role, suggested, config)}")
        out[role] = (ModelBinding(ECHO, ECHO_CONTEXT, name=ECHO) if chosen is None else
                     ModelBinding(id=chosen.id, context=chosen.context, max_tokens=chosen.max_tokens, name=chosen.id))
    return out


def _where(mid: str, config: Config, has_file: bool) -> str:
    from ..engine.errors import names_hint
    from .envconfig import NOTHING_SET

    return f"in {config.path} ({names_hint(mid, config.models, 'catalog')})" if has_file else NOTHING_SET


def environment_config(environ=None) -> Config:
    """The config the environment makes when there is no file (envconfig.py):
    the provider `openai` and the built-in catalog; no provider when neither
    variable is set."""
    from ..harness.catalog import OPENAI_CONTEXT
    from .envconfig import ENV_PROVIDER, environment_provider

    try:
        made = environment_provider(environ)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    if made is None:
        return Config()
    provider = Provider(ENV_PROVIDER, *made)
    models = {f"{ENV_PROVIDER}/{n}": CatalogModel(f"{ENV_PROVIDER}/{n}", ENV_PROVIDER, n, c)
              for n, c in OPENAI_CONTEXT.items()}
    return Config(providers={ENV_PROVIDER: provider}, models=models)


def _unknown_model(role: str, mid: str, how: str, context: int | None, config: Config, environ) -> CatalogModel:
    """A model of the environment's provider that the built-in catalog does
    not know: its window from `--context`, else from the server's listing."""
    from .envconfig import ENV_PROVIDER, NO_WINDOW

    name = mid.removeprefix(f"{ENV_PROVIDER}/")
    if context is None:
        from ..harness.catalog import listed_context

        provider = config.providers[ENV_PROVIDER]
        listing = listed_context(provider.base_url, provider_key(config, ENV_PROVIDER, environ), name)
        if listing.context is None:
            raise ConfigError(NO_WINDOW.format(role=role, how=how, mid=mid, url=provider.base_url, why=listing.why))
        context = listing.context
    return CatalogModel(f"{ENV_PROVIDER}/{name}", ENV_PROVIDER, name, context)


def _unbound_hint(role: str, suggested: str | None, config: Config) -> str:
    parts = []
    if suggested is not None:
        parts.append(f"its suggested model '{suggested}' is not in the catalog")
    if config.path is None:
        parts.append("no config file was found (--config, RUNVIL_CONFIG or ./runvil.toml)")
    else:
        parts.append(f"pass --bind {role}=MODEL, add it to [bind] or set default_model in {config.path}")
    return "; ".join(parts)


def needed_keys(config: Config, bindings: dict, environ=None) -> dict[str, str | None]:
    """Reads, up front, the key of every provider a binding uses (so a
    missing key fails before the run starts): provider name -> key."""
    keys = {}
    for b in bindings.values():
        model = config.models.get(b.id)
        if model is not None and model.provider not in keys:
            keys[model.provider] = provider_key(config, model.provider, environ)
    return keys


def real_providers(prompt_roles: dict, config: Config | None, cli_binds: list[str] = (), environ=None,
                   on_fragment=None, timeout: float | None = None, model: str | None = None,
                   context: int | None = None):
    """Everything `runvil run` needs for real providers: the bindings of every
    declared role and a `ProviderSet` answering their rounds (every key the
    bindings need is read now, so a missing one fails before the run); with
    no config file (None), the environment's provider."""
    from ..harness.providers import ProviderSet

    bindings = bind_roles(prompt_roles, config, cli_binds, model, context, environ)
    if config is None:  # the environment's provider, its catalog grown by the models bound outside it
        from .envconfig import ENV_PROVIDER

        config = environment_config(environ)
        grown = {b.id: CatalogModel(b.id, ENV_PROVIDER, b.id.removeprefix(f"{ENV_PROVIDER}/"), b.context)
                 for b in bindings.values() if b.id != ECHO and b.id not in config.models}
        config = replace(config, models={**config.models, **grown})
    keys = needed_keys(config, bindings, environ)
    return bindings, ProviderSet(config, bindings, keys, environ=environ, on_fragment=on_fragment, timeout=timeout)
