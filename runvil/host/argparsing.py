"""The commands' argument parser: argparse's, with a did-you-mean for a
misspelt option (`--jsn` -> `--json`), a misspelt choice (`logs shwo` ->
`show`) and a misspelt command."""

from __future__ import annotations

import argparse
import difflib
import re


def did_you_mean(word: str, words) -> str:
    """` (did you mean '--json'?)` when one of `words` is close to `word`."""
    close = difflib.get_close_matches(word, list(words), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors name the option meant."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def parse(self, argv: list[str]):
        """The arguments, or the exit status argparse ended on: 0 after
        `--help` printed the page, 2 (a usage error) after its message."""
        from .exits import EXIT_OK, EXIT_USAGE

        try:
            return self.parse_args(argv)
        except SystemExit as e:
            return EXIT_USAGE if e.code else EXIT_OK

    def error(self, message: str):
        unknown = re.match(r"unrecognized arguments: (.*)", message)
        if unknown is not None:
            options = [o for action in self._actions for o in action.option_strings]
            meant = [close for w in unknown.group(1).split() if w.startswith("-")
                     for close in difflib.get_close_matches(w.split("=", 1)[0], options, n=1, cutoff=0.6)]
            if meant:
                message += f" (did you mean {', '.join(repr(m) for m in meant)}?)"
        choice = re.match(r"argument .*: invalid choice: '(.*)' \(choose from (.*)\)$", message)
        if choice is not None:
            message += did_you_mean(choice.group(1), re.findall(r"'([^']*)'", choice.group(2)))
        super().error(message)
