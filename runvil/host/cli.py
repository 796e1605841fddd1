"""The `runvil` command: parses arguments and dispatches to a command."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Runs a command; an Engine bug is reported in one line, not as a
    traceback (set RUNVIL_TRACEBACK=1 to see it)."""
    import os

    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("runvil: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # a bug in runvil, not in the prompt
        if os.environ.get("RUNVIL_TRACEBACK"):
            raise
        print(f"runvil: internal error: {type(e).__name__}: {e} (set RUNVIL_TRACEBACK=1 for details)", file=sys.stderr)
        return 1


def _main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "lua":
        return _lua(rest)
    if cmd == "run":
        from .runcmd import run_command

        return run_command(rest)
    if cmd == "check":
        from .runcmd import check_command

        return check_command(rest)
    if cmd == "chat":
        from .chatcmd import chat_command

        return chat_command(rest)
    if cmd == "conformance":
        from .conformance import conformance_command

        return conformance_command(rest)
    print(f"runvil: unknown command '{cmd}'\n{USAGE}", file=sys.stderr)
    return 2


USAGE = """usage: runvil COMMAND ...
  runvil run PROMPT.md [--input TEXT] [--script WORLD.yaml] [--json] [--log FILE]
                                             run a prompt; print its result
  runvil check PROMPT.md...                  parse and compile prompts; list every error
  runvil lua [-e CODE]... [FILE [ARGS...]]   run Lua in the sandbox, like `lua`
  runvil chat [--system TEXT] [--script WORLD.yaml]
                                             chat with a model, one turn per line
  runvil conformance [DIR...]                run conformance cases (default: conformance/)"""


def _lua(args: list[str]) -> int:
    from .luacmd import run_lua_command

    chunks: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-e":
            if i + 1 >= len(args):
                print("runvil: '-e' needs argument", file=sys.stderr)
                return 2
            chunks.append(args[i + 1].encode("utf-8", "surrogateescape").decode("latin-1"))
            i += 2
        elif a.startswith("-e") and len(a) > 2:
            chunks.append(a[2:].encode("utf-8", "surrogateescape").decode("latin-1"))
            i += 1
        elif a == "--":
            i += 1
            break
        elif a.startswith("-") and a != "-":
            print(f"runvil: unrecognized option '{a}'", file=sys.stderr)
            return 2
        else:
            break
    file = args[i] if i < len(args) else None
    return run_lua_command(chunks, file, args[i + 1 :])


if __name__ == "__main__":
    sys.exit(main())
