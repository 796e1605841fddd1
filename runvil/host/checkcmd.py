"""`runvil check` (docs/reference/commands.md): parse and compile prompts without running
them, printing every parse error with its file line."""

from __future__ import annotations

import sys

from .exits import EXIT_OK, EXIT_PARSE, EXIT_USAGE


def check_command(argv: list[str]) -> int:
    """Checks every file named, in order, even after one that fails: exit 3
    when any has a parse error, else 2 when one could not be read, else 0."""
    if argv and argv[0] in ("-h", "--help"):
        print("usage: runvil check PROMPT.md...\n\nParses and compiles each prompt without running it and prints every"
              "\nparse error with its file line; exit 3 when any prompt has one."
              "\n\nexamples:\n  runvil check examples/hello.md\n  runvil check prompts/*.md   every prompt of a folder")
        return EXIT_OK
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("usage: runvil check PROMPT.md...", file=sys.stderr)
        return EXIT_USAGE
    from ..prompt import check_file

    bad = unreadable = 0
    for path in argv:
        try:
            errors = check_file(path)
        except OSError as e:
            print(f"runvil: cannot read {path}: {e.strerror or e}", file=sys.stderr)
            unreadable += 1
            continue
        for err in errors:
            from .diagnostics import show_parse_error
            from .termtext import TerminalStream

            shown = TerminalStream(sys.stderr)  # a prompt's text in the error: no control sequence obeyed
            print(f"error[Parse]: {err}", file=shown)
            show_parse_error(err, shown)
        bad += len(errors)
    if bad:
        return EXIT_PARSE
    return EXIT_USAGE if unreadable else EXIT_OK
