#!/usr/bin/env python3
"""A reference adapter: plugs an implementation whose command line differs
from `runvil run` into `runvil conformance --impl` (see ../FORMAT.md).

The conformance runner calls `COMMAND prompt.md --script world.yaml --json`.
This adapter takes, as its first argument, a template of your own command
line, fills in `{prompt}` and `{world}`, runs it, and passes on the one JSON
object it printed (the last line of stdout that is a JSON object, so your
command may print other lines before it). For example:

    runvil conformance --impl \\
      "python3 conformance/adapters/example_adapter.py 'mylang exec --world {world} --report=json {prompt}'"

Copy it and change `translate` when your command needs more than a
template (other option names, an input file, a field renamed in its output).
Only the Python standard library is used.
"""

import json
import shlex
import subprocess
import sys


def parse_case_call(args):
    """(prompt, world) from the runner's `prompt.md --script world.yaml --json`."""
    prompt = world = None
    rest = list(args)
    while rest:
        a = rest.pop(0)
        if a == "--script" and rest:
            world = rest.pop(0)
        elif a == "--json":
            pass
        else:
            prompt = a
    if prompt is None or world is None:
        sys.exit("usage: example_adapter.py TEMPLATE PROMPT.md --script WORLD.yaml --json")
    return prompt, world


def translate(template, prompt, world):
    """Your command line for one case."""
    return [w.format(prompt=prompt, world=world) for w in shlex.split(template)]


def last_json_object(text):
    for line in reversed(text.splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: example_adapter.py TEMPLATE PROMPT.md --script WORLD.yaml --json")
    prompt, world = parse_case_call(argv[2:])
    done = subprocess.run(translate(argv[1], prompt, world), capture_output=True, text=True)
    sys.stderr.write(done.stderr)
    result = last_json_object(done.stdout)
    if result is None:
        sys.stdout.write(done.stdout)
        return done.returncode or 1
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
