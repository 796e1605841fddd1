"""`runvil check` (docs/reference/commands.md): parse and compile prompts without running
them, then check their literal names (namecheck.py); print every error and
warning with its file line, and one summary line (`ok: 3 files, 0
warnings`), or with `--json` one object for editors.

Exit status: 3 when any prompt has an error (a parse error, or a name that
certainly fails), else 2 when a path could not be read, else 0 (warnings
do not count)."""

from __future__ import annotations

import os
import sys

from .exits import EXIT_OK, EXIT_PARSE, EXIT_USAGE

USAGE = "usage: runvil check [--json] PATH..."
HELP = (USAGE + "\n\nParses and compiles each prompt (a folder: every prompt in it, recursively) without running"
        "\nit, then checks its literal names: sections in jump() and tasks.spawn(), roles in models.use(),"
        "\ntools and Packs, {{var.x}} that no block sets, a section that runs a round with no model selected."
        "\nPrints every error and warning with its file line, then one summary line; exit 3 when any prompt"
        "\nhas an error (warnings: 0)."
        "\n\noptions:\n  --json      print one JSON object: every file with its errors and warnings"
        "\n\nexamples:\n  runvil check examples/hello.md\n  runvil check examples/      every prompt of a folder")


def check_command(argv: list[str]) -> int:
    """Checks every path named, in order, even after one that fails."""
    if argv and argv[0] in ("-h", "--help"):
        print(HELP)
        return EXIT_OK
    as_json = "--json" in argv[: argv.index("--")] if "--" in argv else "--json" in argv
    paths = [a for a in argv if a not in ("--json", "--")]
    unknown = [a for a in paths if a.startswith("-") and a != "-" and "--" not in argv]
    if unknown:
        from .argparsing import did_you_mean

        print(f"runvil check: unknown option {unknown[0]}{did_you_mean(unknown[0], ['--json', '--help'])}\n{USAGE}",
              file=sys.stderr)
        return EXIT_USAGE
    if not paths:
        print(USAGE, file=sys.stderr)
        return EXIT_USAGE
    report = Report(as_json)
    for path in paths:
        if os.path.isdir(path):
            for file in prompts_in(path):
                report.check(file)
        else:
            report.check(path)
    return report.finish()


def prompts_in(folder: str) -> list[str]:
    """The prompt files under a folder, recursively, in name order: the
    `.md` files that open with a frontmatter line (`---`), so a folder's
    README is not taken for a prompt."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".md"):
                path = os.path.join(root, name)
                try:
                    with open(path, "rb") as f:
                        first = f.readline(8)
                except OSError:
                    first = b"---"  # said when it is checked
                if first.rstrip(b"\r\n") == b"---":
                    found.append(path)
    return sorted(found)


class Report:
    """The findings of every file checked, shown as they come (or gathered
    for `--json`), and the exit status."""

    def __init__(self, as_json: bool):
        self.as_json = as_json
        self.files: list[dict] = []
        self.errors = self.warnings = self.unreadable = 0

    def check(self, path: str) -> None:
        from ..prompt import check_file

        try:
            errors = check_file(path)
        except OSError as e:
            self.unreadable += 1
            self.files.append({"file": path, "ok": False, "unreadable": e.strerror or str(e)})
            if not self.as_json:
                print(f"runvil: cannot read {path}: {e.strerror or e}", file=sys.stderr)
            return
        findings = []
        if not errors:
            from .namecheck import check_names

            with open(path, "rb") as f:
                findings = check_names(f.read().decode("utf-8"), path)
        bad = len(errors) + sum(f.level == "error" for f in findings)
        self.errors += bad
        self.warnings += sum(f.level == "warning" for f in findings)
        entry = {"file": path, "ok": bad == 0,
                 "errors": [{"level": "error", "kind": "Parse", "file": e.path, "line": e.line, "message": e.message}
                            for e in errors] + [f.as_json(path) for f in findings if f.level == "error"],
                 "warnings": [f.as_json(path) for f in findings if f.level == "warning"]}
        self.files.append(entry)
        if not self.as_json:
            self._show(path, errors, findings)

    def _show(self, path: str, errors, findings) -> None:
        from .termtext import TerminalStream

        shown = TerminalStream(sys.stderr)  # a prompt's text in the error: no control sequence obeyed
        for err in errors:
            from .diagnostics import show_parse_error

            print(f"error[Parse]: {err}", file=shown)
            show_parse_error(err, shown)
        for f in findings:
            from .diagnostics import on_terminal

            print(f"{f.level}[Name]: {path}:{f.line}: {f.message}", file=shown)
            if on_terminal(sys.stderr):
                from .diagnostics import explain

                with open(path, encoding="utf-8", errors="replace") as src:
                    picture = explain(path, src.read().splitlines(), f.line, f.message, f.name)
                if picture:
                    shown.write(picture)
            if f.help:
                print(f"help: {f.help}", file=shown)

    def finish(self) -> int:
        files = len(self.files)
        counted = f"{files} file{'s' * (files != 1)}, {self.warnings} warning{'s' * (self.warnings != 1)}"
        if self.as_json:
            import json

            print(json.dumps({"ok": not self.errors and not self.unreadable, "errors": self.errors,
                              "warnings": self.warnings, "files": self.files}, ensure_ascii=False))
        elif self.errors:
            print(f"failed: {files} file{'s' * (files != 1)}, {self.errors} error{'s' * (self.errors != 1)}, "
                  f"{self.warnings} warning{'s' * (self.warnings != 1)}")
        elif not self.unreadable:
            print(f"ok: {counted}")
        if self.errors:
            return EXIT_PARSE
        return EXIT_USAGE if self.unreadable else EXIT_OK
