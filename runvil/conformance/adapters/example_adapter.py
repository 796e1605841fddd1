#!/usr/bin/env python3
"""A reference adapter: plugs an implementation whose command line differs
from `runvil run` into `runvil conformance --impl` (see ../FORMAT.md).

The conformance runner calls `COMMAND prompt.md --script world.yaml --json`.
This adapter takes, as its first argument, a template of your own command
line, fills in `{prompt}` and `{world}`, runs it, and passes on the one JSON
object it printed (the last line of stdout that is a JSON object, so your
command may print other lines before it). With the suite written out by
`runvil conformance --export suite`, for example:

    runvil conformance --impl \\
      "python3 suite/adapters/example_adapter.py 'mylang exec --world {world} --report=json {prompt}'"

`--timeout SECONDS` (before the template; default 100, under the runner's
own 120) stops your command, and whatever it started, when a case takes
longer, and says so on stderr (exit status 124). Your command runs in a
process group of its own; when the runner stops the adapter (SIGTERM),
the adapter stops that group too, so nothing is left running.

Copy it and change `translate` when your command needs more than a
template (other option names, an input file, a field renamed in its output).
Only the Python standard library is used.
"""

import json
import os
import shlex
import signal
import subprocess
import sys

DEFAULT_TIMEOUT = 100.0
USAGE = "usage: example_adapter.py [--timeout SECONDS] TEMPLATE PROMPT.md --script WORLD.yaml --json"


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
        sys.exit(USAGE)
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


def run(command, timeout):
    """(exit status, stdout, stderr) of the command, stopped with all it
    started after `timeout` seconds or when the adapter itself is stopped."""
    posix = os.name == "posix"
    p = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         text=True, start_new_session=posix)

    def stop(*_):
        try:
            os.killpg(p.pid, signal.SIGKILL) if posix else p.kill()
        except OSError:
            pass

    if posix:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, lambda *a: (stop(), sys.exit(143)))
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop()
        out, err = p.communicate()
        return 124, out, err + f"\nexample_adapter: stopped {command[0]} after {timeout:g} seconds\n"
    finally:
        stop()  # whatever it left running
    return p.returncode, out, err


def main(argv):
    args, timeout = argv[1:], DEFAULT_TIMEOUT
    if args[:1] == ["--timeout"] and len(args) > 1:
        try:
            timeout = float(args[1])
        except ValueError:
            sys.exit(USAGE)
        args = args[2:]
    if not args:
        sys.exit(USAGE)
    prompt, world = parse_case_call(args[1:])
    code, out, err = run(translate(args[0], prompt, world), timeout)
    sys.stderr.write(err)
    result = last_json_object(out)
    if result is None:
        sys.stdout.write(out)
        return code or 1
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
