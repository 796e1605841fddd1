"""`runvil models [PROMPT.md] [--config FILE] [--bind ROLE=MODEL] [-m MODEL]
[--json]`: the config's catalog (each model's provider, the provider's name
for it, its context window and default max_tokens), `default_model` and
`[bind]`; with a prompt, the model each of its roles is bound to and why
(binding order of config.py).
"""

from __future__ import annotations

import json
import sys

from .exits import EXIT_OK, EXIT_PARSE, EXIT_USAGE

EXAMPLES = """examples:
  runvil models                               the catalog and [bind] of ./runvil.toml
  runvil models examples/hello.md -m local/small
                                              what each role of hello.md would run on"""


def models_parser():
    from .argparsing import Parser
    from .config import add_binding_options

    p = Parser(prog="runvil models", description="List the catalog models and the role bindings.", epilog=EXAMPLES)
    p.add_argument("prompt", nargs="?", metavar="PROMPT.md", help="also show how this prompt's roles are bound")
    p.add_argument("--config", metavar="FILE",
                   help="the config file (default: RUNVIL_CONFIG, else ./runvil.toml)")
    add_binding_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    return p


def models_command(argv: list[str]) -> int:
    args = models_parser().parse(argv)
    if isinstance(args, int):
        return args
    from .config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return EXIT_USAGE
    roles = None
    if args.prompt is not None:
        from ..prompt import ParseError, read_prompt

        try:
            prompt = read_prompt(args.prompt)
        except ParseError as e:
            print(f"error[Parse]: {e}", file=sys.stderr)
            return EXIT_PARSE
        except OSError as e:
            print(f"runvil: cannot read {e.filename or args.prompt}: {e.strerror or e}", file=sys.stderr)
            return EXIT_USAGE
        try:
            roles = role_bindings(prompt.frontmatter.models, config, args.bind, args.model, args.context)
        except ConfigError as e:
            print(f"runvil: {e}", file=sys.stderr)
            return EXIT_USAGE
    try:
        report = models_report(config, roles)
    except ConfigError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        sys.stdout.write(models_text(report))
    return EXIT_OK


def role_bindings(prompt_roles: dict, config, binds: list[str], model: str | None,
                  context: int | None = None) -> list[dict]:
    """Each declared role: the catalog model it is bound to and by what
    (`--bind`, `-m/--model`, `[bind]`, `the prompt's model option`,
    `default_model`), or the echo model when there is no config and no
    flag binds it."""
    from .config import ConfigError, bind_roles, check_bind_roles

    flags = check_bind_roles(prompt_roles, binds)
    out = []
    for role, opts in prompt_roles.items():
        if config is None and role not in flags and model is None:
            out.append({"role": role, "model": "echo", "by": "no config (the offline echo model)"})
            continue
        mine = [b for b in binds if b.partition("=")[0].strip() == role]
        try:
            bound = bind_roles({role: opts}, config, mine, model, context)[role].id
        except ConfigError as e:  # shown in its row: the listing is for finding such a role
            out.append({"role": role, "model": None, "by": str(e)})
            continue
        if role in flags:
            by = "--bind"
        elif model is not None:
            by = "-m/--model"
        elif config is not None and role in config.bind:
            by = "[bind]"
        elif getattr(opts, "model", None) == bound:
            by = "the prompt's model option"
        else:
            by = "default_model"
        out.append({"role": role, "model": bound, "by": by})
    return out


def models_report(config, roles: list[dict] | None, environ=None) -> dict:
    """The catalog: the config file's, else the one the environment's
    provider brings (`environment` then names its variable)."""
    from .config import environment_config
    from .envconfig import KEY_ENV, URL_ENV

    report: dict = {"config": None if config is None else config.path, "models": [], "default_model": None,
                    "bind": {}}
    catalog = config if config is not None else environment_config(environ)
    report["models"] = [{"id": m.id, "provider": m.provider, "name": m.name, "context": m.context,
                         "max_tokens": m.max_tokens,
                         "base_url": catalog.providers[m.provider].base_url} for m in catalog.models.values()]
    if config is not None:
        report["default_model"] = config.default_model
        report["bind"] = dict(config.bind)
    elif catalog.providers:
        provider = catalog.providers["openai"]
        report["environment"] = {"provider": "openai", "base_url": provider.base_url,
                                 "variable": KEY_ENV if provider.api_key_env else URL_ENV}
    if roles is not None:
        report["roles"] = roles
    return report


def models_text(report: dict) -> str:
    lines = []
    env = report.get("environment")
    if report["config"] is None and env is None:
        lines.append("no config file (--config, RUNVIL_CONFIG or ./runvil.toml): every model role runs on the "
                     "offline echo model")
    elif report["config"] is None:
        lines.append(f"no config file: {env['variable']} makes the provider {env['provider']} ({env['base_url']}); "
                     "-m MODEL runs on it, a role no flag binds on the offline echo model")
        lines.append("")
        lines.extend(_table([("model", "context")] + [(m["id"], f"{m['context']:,}") for m in report["models"]]))
    else:
        lines.append(f"config: {report['config']}")
        rows = [("model", "provider", "name", "context", "max_tokens")] + [
            (m["id"], m["provider"], m["name"], f"{m['context']:,}",
             "-" if m["max_tokens"] is None else f"{m['max_tokens']:,}") for m in report["models"]]
        lines.append("")
        lines.extend(_table(rows) if report["models"] else ["no catalog models ([models.\"ID\"] tables)"])
        lines.append("")
        lines.append(f"default_model: {report['default_model'] or '(none)'}")
        if report["bind"]:
            lines.append("[bind]: " + ", ".join(f"{r} = {m}" for r, m in report["bind"].items()))
    if "roles" in report:
        lines.append("")
        lines.extend(_table([("role", "bound to", "by")] + [(r["role"], r["model"] or "(not bound)", r["by"])
                                                               for r in report["roles"]]))
    return "\n".join(lines) + "\n"


def _table(rows: list[tuple]) -> list[str]:
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
