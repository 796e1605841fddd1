"""runvil.toml and the binding of model roles (docs/reference/configuration.md,
docs/reference/models.md)."""

from __future__ import annotations

import tomllib

import pytest

from runvil.engine.run import ModelBinding
from runvil.host.config import (
    CatalogModel, Config, ConfigError, Provider, bind_roles, config_path, load_config, needed_keys, parse_config,
    provider_key,
)
from runvil.prompt.model import RoleOptions

GOOD = """
default_model = "openai/gpt-4o-mini"

[providers.openai]
base_url = "https://api.openai.com/v1"
api_key_env = "OPENAI_API_KEY"

[providers.local]
base_url = "http://127.0.0.1:8080/v1"

[models."openai/gpt-4o-mini"]
provider = "openai"
name = "gpt-4o-mini"
context = 128000
max_tokens = 4096

[models."openai/gpt-4o"]
provider = "openai"
context = 128000

[models."local/qwen"]
provider = "local"
context = 32768

[bind]
writer = "local/qwen"
"""


def cfg(text: str = GOOD) -> Config:
    return parse_config(tomllib.loads(text), "runvil.toml")


def err(text: str) -> str:
    with pytest.raises(ConfigError) as e:
        cfg(text)
    return str(e.value)


# ------------------------------------------------------------------ the file


def test_good_file():
    c = cfg()
    assert c.default_model == "openai/gpt-4o-mini"
    assert c.providers == {
        "openai": Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
        "local": Provider("local", "http://127.0.0.1:8080/v1", None),
    }
    assert c.models["openai/gpt-4o-mini"] == CatalogModel("openai/gpt-4o-mini", "openai", "gpt-4o-mini", 128000, 4096)
    assert c.models["openai/gpt-4o"].name == "gpt-4o"  # the id without its provider prefix
    assert c.models["local/qwen"] == CatalogModel("local/qwen", "local", "qwen", 32768, None)
    assert c.bind == {"writer": "local/qwen"}


def test_file_location(tmp_path, monkeypatch):
    (tmp_path / "runvil.toml").write_text(GOOD)
    other = tmp_path / "other.toml"
    other.write_text('[providers.p]\nbase_url = "http://x"\n')
    assert config_path(None, {}, tmp_path) == tmp_path / "runvil.toml"
    assert config_path(None, {"RUNVIL_CONFIG": str(other)}, tmp_path) == other
    assert config_path("cli.toml", {"RUNVIL_CONFIG": str(other)}, tmp_path).name == "cli.toml"
    assert config_path(None, {}, tmp_path / "nowhere") is None
    assert load_config(None, {}, tmp_path / "nowhere") is None
    assert load_config(None, {"RUNVIL_CONFIG": str(other)}, tmp_path).providers["p"].base_url == "http://x"
    c = load_config(None, {}, tmp_path)
    assert c.default_model == "openai/gpt-4o-mini" and c.path == str(tmp_path / "runvil.toml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RUNVIL_CONFIG", raising=False)
    assert load_config().default_model == "openai/gpt-4o-mini"


def test_named_file_must_exist(tmp_path):
    missing = tmp_path / "missing.toml"
    with pytest.raises(ConfigError, match=r"config file .*missing\.toml does not exist"):
        load_config(str(missing), {})
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(None, {"RUNVIL_CONFIG": str(missing)})


def test_bad_toml(tmp_path):
    p = tmp_path / "runvil.toml"
    p.write_text("default_model = \n")
    with pytest.raises(ConfigError, match=r"runvil\.toml: not valid TOML: .*line 1"):
        load_config(str(p), {})


@pytest.mark.parametrize(
    "text, message",
    [
        ("colour = 1", "runvil.toml: unknown key 'colour'"),
        ("providers = 1", "runvil.toml: providers must be a table"),
        ("[providers.p]\napi_key_env = 'K'", "runvil.toml: providers.p needs base_url"),
        ("[providers.p]\nbase_url = 'ftp://x'", "runvil.toml: providers.p.base_url must start with http:// or https://"),
        ("[providers.p]\nbase_url = 'http://x'\napi_key_env = ''",
         "runvil.toml: providers.p.api_key_env must be a non-empty string"),
        ("[providers.p]\nbase_url = 'http://x'\nkey = 'K'", "runvil.toml: unknown key 'providers.p.key'"),
        ("[models.m]\nprovider = 'nope'\ncontext = 10", "runvil.toml: models.m: unknown provider 'nope' (no [providers.nope] table)"),
        ("[providers.p]\nbase_url = 'http://x'\n[models.m]\ncontext = 10", "runvil.toml: models.m needs provider"),
        ("[providers.p]\nbase_url = 'http://x'\n[models.m]\nprovider = 'p'", "runvil.toml: models.m needs context"),
        ("[providers.p]\nbase_url = 'http://x'\n[models.m]\nprovider = 'p'\ncontext = 0",
         "runvil.toml: models.m.context must be a positive integer"),
        ("[providers.p]\nbase_url = 'http://x'\n[models.\"p/m\"]\nprovider = 'p'\ncontext = 9\nmax_tokens = 1.5",
         "runvil.toml: models.\"p/m\".max_tokens must be a positive integer"),
        ("[providers.p]\nbase_url = 'http://x'\n[models.m]\nprovider = 'p'\ncontext = true",
         "runvil.toml: models.m.context must be a positive integer"),
        ("[bind]\nwriter = 'ghost'", "runvil.toml: bind.writer: unknown model 'ghost' (no [models.\"ghost\"] table)"),
        ("[bind]\nwriter = 3", "runvil.toml: bind.writer must be a model id string"),
        ("default_model = 'ghost'", "runvil.toml: default_model: unknown model 'ghost' (no [models.\"ghost\"] table)"),
        ("default_model = 1", "runvil.toml: default_model must be a model id string"),
        ("[providers.p]\nbase_url = 'http://x'\ntimeout = 0", "runvil.toml: providers.p.timeout must be a positive number of seconds"),
        ("[providers.p]\nbase_url = 'http://x'\ntimeout = -1.5", "runvil.toml: providers.p.timeout must be a positive number of seconds"),
        ("[providers.p]\nbase_url = 'http://x'\ntimeout = '30'", "runvil.toml: providers.p.timeout must be a positive number of seconds"),
        ("[providers.p]\nbase_url = 'http://x'\ntimeout = inf", "runvil.toml: providers.p.timeout must be a positive number of seconds"),
        ("[providers.p]\nbase_url = 'http://x'\ntimeout = nan", "runvil.toml: providers.p.timeout must be a positive number of seconds"),
        ("[providers.p]\nbase_url = 'http://x'\ntimeout = true", "runvil.toml: providers.p.timeout must be a positive number of seconds"),
        ("[providers.p]\nbase_url = 'http://x'\nmax_retries = -1", "runvil.toml: providers.p.max_retries must be an integer, 0 or more"),
        ("[providers.p]\nbase_url = 'http://x'\nmax_retries = 1.0", "runvil.toml: providers.p.max_retries must be an integer, 0 or more"),
        ("[providers.p]\nbase_url = 'http://x'\nmax_retries = false", "runvil.toml: providers.p.max_retries must be an integer, 0 or more"),
    ],
)
def test_file_errors(text, message):
    assert err(text) == message


def test_timeout_and_max_retries_per_provider():
    """the specification: "Per provider in the config: `timeout` (seconds to connect
    and between reply bytes; default 600), `max_retries` (default 2)." """
    c = cfg("[providers.a]\nbase_url = 'http://x'\ntimeout = 2.5\nmax_retries = 0\n"
            "[providers.b]\nbase_url = 'http://y'\ntimeout = 30\n[providers.c]\nbase_url = 'http://z'\n")
    assert (c.providers["a"].timeout, c.providers["a"].max_retries) == (2.5, 0)
    assert (c.providers["b"].timeout, c.providers["b"].max_retries) == (30.0, 2)
    assert (c.providers["c"].timeout, c.providers["c"].max_retries) == (600.0, 2)


def test_the_provider_set_uses_each_providers_timeout_and_retries():
    from runvil.harness.providers import ProviderSet

    made = []

    def factory(url, key, name, timeout, retry, **settings):
        made.append((url, timeout, retry.max_retries))
        return object()

    c = cfg("[providers.a]\nbase_url = 'http://x'\ntimeout = 2.5\nmax_retries = 0\n"
            "[providers.b]\nbase_url = 'http://y'\n"
            "[models.\"a/m\"]\nprovider = 'a'\ncontext = 9\n[models.\"b/m\"]\nprovider = 'b'\ncontext = 9\n")
    ps = ProviderSet(c, factory=factory)
    ps.provider_for(c.models["a/m"]), ps.provider_for(c.models["b/m"])
    assert made == [("http://x", 2.5, 0), ("http://y", 600.0, 2)]


def test_literal_api_key_is_refused_and_never_shown():
    m = err("[providers.p]\nbase_url = 'http://x'\napi_key = 'sk-LITERAL-123'")
    assert m == ("runvil.toml: providers.p: api_key is not read from the config file; "
                 "put the key in an environment variable and name it with api_key_env")
    assert "sk-LITERAL" not in m


# ------------------------------------------------------------------ keys


def test_provider_keys():
    c = cfg()
    assert provider_key(c, "openai", {"OPENAI_API_KEY": " sk-1-abcdef \n"}) == "sk-1-abcdef"
    assert provider_key(c, "local", {}) is None
    with pytest.raises(ConfigError) as e:
        provider_key(c, "openai", {})
    assert str(e.value) == "provider 'openai' needs an API key: the environment variable OPENAI_API_KEY is not set"
    with pytest.raises(ConfigError, match="the environment variable OPENAI_API_KEY is empty"):
        provider_key(c, "openai", {"OPENAI_API_KEY": "  "})
    with pytest.raises(ConfigError) as e:
        provider_key(c, "openai", {"OPENAI_API_KEY": "sk-SECRET\nx"})
    assert "OPENAI_API_KEY" in str(e.value) and "SECRET" not in str(e.value)


def test_needed_keys_reads_only_used_providers():
    c = cfg()
    local = bind_roles({"writer": RoleOptions()}, c)
    assert needed_keys(c, local, {}) == {"local": None}
    both = bind_roles({"writer": RoleOptions(), "reviewer": RoleOptions()}, c)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        needed_keys(c, both, {})
    assert needed_keys(c, both, {"OPENAI_API_KEY": "sk-2-abcdef"}) == {"local": None, "openai": "sk-2-abcdef"}


# ------------------------------------------------------------------ binding


def b(model: CatalogModel) -> ModelBinding:
    return ModelBinding(model.id, model.context, model.max_tokens, model.id)


def test_binding_order():
    c = cfg()
    m = c.models
    roles = {
        "writer": RoleOptions(model="openai/gpt-4o"),  # [bind] beats the role's model option
        "reviewer": RoleOptions(model="openai/gpt-4o"),  # the role's model option beats the default
        "critic": RoleOptions(),  # the default model
        "judge": RoleOptions(model="elsewhere/unknown"),  # a suggestion not in the catalog: the default
    }
    assert bind_roles(roles, c) == {
        "writer": b(m["local/qwen"]),
        "reviewer": b(m["openai/gpt-4o"]),
        "critic": b(m["openai/gpt-4o-mini"]),
        "judge": b(m["openai/gpt-4o-mini"]),
    }
    # --bind beats everything, a later flag for the same role wins
    got = bind_roles(roles, c, ["writer=openai/gpt-4o-mini", "critic = local/qwen", "critic=openai/gpt-4o"])
    assert got["writer"] == b(m["openai/gpt-4o-mini"]) and got["critic"] == b(m["openai/gpt-4o"])
    assert list(got) == list(roles)
    assert got["writer"] == ModelBinding("openai/gpt-4o-mini", 128000, 4096, "openai/gpt-4o-mini")


def test_binding_errors():
    c = cfg()
    roles = {"writer": RoleOptions()}
    with pytest.raises(ConfigError) as e:
        bind_roles(roles, c, ["writer=ghost"])
    assert str(e.value) == ("model role 'writer' is bound by --bind to 'ghost', which is not a catalog model in "
                            "runvil.toml (catalog: openai/gpt-4o-mini, openai/gpt-4o, local/qwen)")
    with pytest.raises(ConfigError) as e:
        bind_roles(roles, c, ["writer"])
    assert str(e.value) == "--bind needs ROLE=MODEL, got 'writer'"
    with pytest.raises(ConfigError, match="--bind needs ROLE=MODEL, got '=x'"):
        bind_roles(roles, c, ["=x"])
    with pytest.raises(ConfigError) as e:
        bind_roles(roles, c, ["editor=local/qwen"])
    assert str(e.value) == "--bind editor=...: the prompt declares no model role 'editor' (declared: writer)"


def test_unbound_roles():
    no_default = cfg(GOOD.replace('default_model = "openai/gpt-4o-mini"', ""))
    with pytest.raises(ConfigError) as e:
        bind_roles({"reviewer": RoleOptions()}, no_default)
    assert str(e.value) == ("model role 'reviewer' is not bound to a model: pass --bind reviewer=MODEL, "
                            "add it to [bind] or set default_model in runvil.toml")
    with pytest.raises(ConfigError) as e:
        bind_roles({"reviewer": RoleOptions(model="x/y")}, no_default)
    assert str(e.value).startswith(
        "model role 'reviewer' is not bound to a model: its suggested model 'x/y' is not in the catalog; ")
    # with no config file, a role nothing binds runs on the echo model, whatever the environment holds
    for environ in ({}, {"OPENAI_API_KEY": "sk-test-abcdefghijkl"}):
        assert bind_roles({"reviewer": RoleOptions(model="openai/gpt-4o")}, None, environ=environ) == {
            "reviewer": ModelBinding("echo", 128_000, name="echo")}
    with pytest.raises(ConfigError) as e:
        bind_roles({"reviewer": RoleOptions()}, None, ["reviewer=openai/gpt-4o"], environ={})
    assert str(e.value) == ("model role 'reviewer' is bound by --bind to 'openai/gpt-4o', which is not a catalog "
                            "model (there is no config file, and neither OPENAI_API_KEY nor OPENAI_BASE_URL is set)")
    assert bind_roles({"reviewer": RoleOptions()}, None, ["reviewer=openai/gpt-4o"],
                      environ={"OPENAI_API_KEY": "sk-test-abcdefghijkl"}) == {
        "reviewer": ModelBinding("openai/gpt-4o", 128_000, name="openai/gpt-4o")}


def test_no_roles_binds_nothing():
    assert bind_roles({}, None, environ={}) == {}


def test_real_providers_end_to_end():
    """Config -> bindings -> a round through the provider set to a real server."""
    from runvil.engine.effects import ModelRound
    from runvil.host.config import real_providers

    from .chat_server import ChatServer, text_stream

    server = ChatServer().start()
    try:
        c = cfg(GOOD.replace("http://127.0.0.1:8080/v1", server.base_url))
        server.reply(text_stream("hi"))
        bindings, ps = real_providers({"writer": RoleOptions()}, c, [], environ={}, timeout=2.0)
        with ps:
            b = bindings["writer"]
            r = ps.answer(ModelRound(1, "writer", b.name or b.id, "chat", ({"role": "user", "content": "x"},)))
        assert r.text == "hi" and server.requests[0]["body"]["model"] == "qwen"
        with pytest.raises(ValueError, match="OPENAI_API_KEY is not set"):  # a ConfigError is a ValueError
            real_providers({"writer": RoleOptions()}, c, ["writer=openai/gpt-4o"], environ={})
    finally:
        server.stop()
