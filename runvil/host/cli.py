"""The `runvil` command: parses arguments and dispatches to a command."""

from __future__ import annotations

import sys

from .exits import guarded


def main(argv: list[str] | None = None) -> int:
    """Runs a command (docs/reference/commands.md); its exceptions become exit statuses
    (exits.guarded)."""
    return guarded(_main, argv)


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] in ("--version", "-V"):
        from ..version import __version__

        print(f"runvil {__version__}")
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "lua":
        from .luacmd import lua_command

        return lua_command(rest)
    if cmd == "run":
        from .runcmd import run_command

        return run_command(rest)
    if cmd == "check":
        from .checkcmd import check_command

        return check_command(rest)
    if cmd == "chat":
        from .chatcmd import chat_command

        return chat_command(rest)
    if cmd == "conformance":
        from .conformance import conformance_command

        return conformance_command(rest)
    if cmd == "models":
        from .modelscmd import models_command

        return models_command(rest)
    if cmd == "batch":
        from .batch import batch_command

        return batch_command(rest)
    if cmd == "view":
        from .view import view_command

        return view_command(rest)
    if cmd == "logs":
        from .logscmd import logs_command

        return logs_command(rest)
    if cmd == "playground":
        from .playground import playground_command

        return playground_command(rest)
    from .argparsing import did_you_mean

    print(f"runvil: unknown command '{cmd}'{did_you_mean(cmd, COMMANDS)}\n{USAGE}", file=sys.stderr)
    return 2


COMMANDS = ("run", "check", "models", "lua", "chat", "conformance", "view", "batch", "playground", "logs")
USAGE = """usage: runvil COMMAND ...   (runvil COMMAND --help for its options)
  runvil run PROMPT.md [--input TEXT] [-m MODEL] [--script WORLD.yaml] [--json] [--log FILE] [--view FILE.html]
                                             run a prompt; print its result
  runvil check PROMPT.md...                  parse and compile prompts; list every error
  runvil lua [-e CODE]... [FILE [ARGS...]]   run Lua in the sandbox, like `lua`
  runvil lua --prompt PROMPT.md [--script WORLD.yaml]
                                             a Lua REPL inside a section of a prompt
  runvil chat [--system TEXT] [-m MODEL] [--script WORLD.yaml]
                                             chat with a model, one turn per line
  runvil conformance [--impl CMD] [-k PATTERN] [-j N] [-q|-v] [--junit FILE] [--list] [--export DIR] [DIR...]
                                             run conformance cases (default: the shipped suite)
  runvil batch PROMPT.md DATA [-j N] [--db FILE] [--retry-failed] [--limit N] [--jsonl FILE]
                                             run a prompt once per row of a data set, into SQLite
  runvil view LOG.jsonl [-o FILE.html]       render a run log as one HTML page
  runvil playground OUT [--pyodide URL_OR_DIR]
                                             write a static site that runs prompts in the browser
  runvil models [PROMPT.md] [-m MODEL]       list the catalog models and how roles are bound
  runvil view FILE.db [--run ID] [-o FILE.html]
                                             list the runs stored by batch or run --db, or draw one
  runvil logs [list|show ID|view ID|rm ID|path|on|off] [-n N] [--q TEXT] [--json]
                                             the history of runs (run and chat)
  runvil --version                           print the version"""


if __name__ == "__main__":
    sys.exit(main())
