"""`runvil run` (docs/reference/commands.md): run a prompt against real providers, the
scripted world or the offline echo model; print the result, or one JSON
object with `--json`. The exit statuses are in exits.py (`runvil check`,
checkcmd.py, shares them).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
import threading
from types import SimpleNamespace

from .exits import EXIT_FAILED, EXIT_OK, EXIT_PARSE, EXIT_TERMINATED, EXIT_USAGE
from .usage import NO_USAGE, UsageMeter, report_retries
from .termtext import TerminalStream, valid_utf8


#: the run's input from --input-file, at most (a prompt file's own limit)
MAX_INPUT_BYTES = 16 * 1024 * 1024
INPUT_TOO_BIG = "{what} is more than {limit} bytes, the most a run's input may be"


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread so that every `finally`
    runs (the workspace folder is removed) before runvil exits with 143."""


@contextlib.contextmanager
def terminated_as_interrupt():
    """While a run goes, SIGTERM and SIGHUP raise Terminated (once; a second
    signal is ignored while runvil cleans up). Only the main thread can."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = []

    def handler(signum, frame):
        if not raised:
            raised.append(signum)
            raise Terminated()

    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGHUP)
           if signal.getsignal(sig) is not signal.SIG_IGN}  # nohup stays nohup
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def run_command(argv: list[str]) -> int:
    with terminated_as_interrupt():
        try:
            return _run_command(argv)
        except Terminated:
            print("runvil: terminated", file=sys.stderr)
            return EXIT_TERMINATED


def run_parser():
    """The argparse parser of `runvil run`'s arguments."""
    from .argparsing import Parser

    p = Parser(prog="runvil run", description="Run a prompt and print its result.", epilog=RUN_EXAMPLES)
    p.add_argument("prompt", metavar="PROMPT.md", help="the prompt file to run")
    p.add_argument("--input", metavar="TEXT", help="the run's input (the `input` global)")
    p.add_argument("--input-file", metavar="F",
                   help="the run's input, read from a file exactly as it is ('-' reads stdin; with neither "
                        "--input nor --input-file, piped stdin is the input)")
    from .config import add_binding_options

    add_binding_options(p)
    p.add_argument("--config", metavar="FILE",
                   help="the config file (default: RUNVIL_CONFIG, else ./runvil.toml, else the echo model)")
    p.add_argument("--script", metavar="WORLD.yaml", help="run against a scripted world instead of real providers")
    p.add_argument("--log", metavar="FILE", help="write the run log (events as JSON Lines)")
    p.add_argument("--json", action="store_true", help="print one JSON object (ok, result, error, requests, usage)")
    p.add_argument("--debug", action="store_true", help="debug capture: request and response bodies in the run log")
    p.add_argument("--view", metavar="FILE.html", help="write the run viewer's HTML page of this run at its end")
    p.add_argument("--record", metavar="WORLD.yaml",
                   help="write what the real world answered as a scripted world that --script replays")
    p.add_argument("--workspace", metavar="DIR", help="the files Pack's folder (default: a temporary one, removed)")
    p.add_argument("--db", metavar="FILE", help="also store the run in this results database (as runvil batch does)")
    p.add_argument("--no-log", action="store_true", help="keep this run out of the history of runs (runvil logs)")
    return p


RUN_EXAMPLES = """examples:
  runvil run examples/hello.md                       offline, on the echo model
  runvil run draft.md --input "a haiku" -m openai/gpt-4o-mini
  runvil run draft.md --script world.yaml --json     replay a scripted world, print JSON"""

#: `runvil run PROMPT.md` as run_parser() reads it (test_cli compares the two)
RUN_DEFAULTS = {"input": None, "input_file": None, "model": None, "config": None, "script": None, "log": None,
                "json": False, "debug": False, "view": None, "record": None, "workspace": None, "db": None,
                "no_log": False, "context": None}


def _run_command(argv: list[str]) -> int:
    args = read_arguments(argv)
    if isinstance(args, int):
        return args
    errors = TerminalStream(sys.stderr)  # model and prompt text in errors: no control sequence obeyed
    prompt = read_prompt(args, errors)
    if isinstance(prompt, int):
        return prompt
    from ..engine.run import PrepareError, Run
    from ..harness.answerer import packs_perform, recording, schemas_of_packs, with_packs

    try:
        input_text = run_input(args)
    except ValueError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        live = None
        if sys.stderr.isatty():  # rich is imported for a terminal only
            from .live import Live

            live = Live(sys.stderr)
        recorder = None
        on_fragment = live.fragment if live else None
        if args.record:  # the recorder keeps the streamed fragments too
            recorder, on_fragment = recording(on_fragment)
        bindings, answer, note = world_for(args, prompt, on_fragment=on_fragment)
        limits, run_limits = configured_limits(args)
    except ValueError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return EXIT_USAGE
    if note:
        print(note, file=sys.stderr)
    if input_text is None and args.script:
        input_text = answer.world_input  # before the live wrapper hides it
    workspace = None
    uses = prompt.frontmatter.uses
    if packs_perform(uses, bool(args.script)):  # bound tools: the Packs (imported for a prompt that uses one)
        try:
            tools = pack_tools(args, prompt.frontmatter.uses)
        except OSError as e:
            return usage_error(f"cannot use the workspace folder {args.workspace}: {e.strerror or e}", answer)
        answer = with_packs(answer, tools)
        workspace = tools.workspace.path
    try:
        run = Run(prompt, input=input_text, bindings=bindings, packs=schemas_of_packs(uses), debug=args.debug,
                  limits=limits, run_limits=run_limits)
    except PrepareError as e:
        return usage_error(str(e), answer)
    try:
        log = open_log(args.log, run, workspace) if args.log else None
    except OSError as e:
        return usage_error(f"cannot write the run log {args.log}: {e.strerror or e}", answer)
    try:
        made_record = args.record is not None and not os.path.lexists(args.record)
        if args.record:  # written at the end; opened now so an unwritable path fails first
            open(args.record, "a", encoding="utf-8").close()
    except OSError as e:
        if log is not None:
            log.close()
        return usage_error(f"cannot write the recorded world {args.record}: {e.strerror or e}", answer)
    answering = answer if recorder is None else recorder.wrap(answer, input_text, bindings)
    answering = meter = UsageMeter(answering)  # usage for --json and the closing line
    if not args.script:  # a real server may ignore the tools it is offered: said once
        from .hints import WarnOnce

        answering = WarnOnce(answering, sys.stderr)
    report_retries(answer, run)
    if live is not None:
        run.events.listeners.append(live.listen)
        answering = live.answerer(answering)
    requests: list = []
    try:
        outcome = drive_closing(run, answering, answer, log, requests)
    finally:  # a failed run is recorded too: its failure is part of the world
        if recorder is not None:
            write_record(args.record, recorder, made_record)
    return report_run(args, prompt, run, outcome, meter, requests, live, errors)


def read_arguments(argv: list[str]):
    """`runvil run`'s arguments, or the exit status of a usage error."""
    if len(argv) == 1 and not argv[0].startswith("-"):
        # a lone prompt path, the common case, read without argparse: building
        # the parser costs about 5 ms, a twentieth of a run on the echo model
        return SimpleNamespace(prompt=argv[0], bind=[], **RUN_DEFAULTS)
    args = run_parser().parse(argv)
    if isinstance(args, int):
        return args
    from .outputs import clash, config_input

    clashing = clash([("--log", args.log), ("--view", args.view), ("--record", args.record), ("--db", args.db)],
                     [(f"the prompt {args.prompt}", args.prompt), (f"the world {args.script}", args.script),
                      (f"the input file {args.input_file}", args.input_file), config_input(args.config)])
    if clashing:
        print(f"runvil: {clashing}", file=sys.stderr)
        return EXIT_USAGE
    return args


def read_prompt(args, errors):
    """The parsed prompt, or the exit status after saying why it is not."""
    from ..prompt import ParseError, read_prompt

    try:
        return read_prompt(args.prompt)
    except ParseError as e:
        print(f"error[Parse]: {e}", file=errors)
        from .diagnostics import show_parse_error  # for errors only: its patterns cost start-up

        show_parse_error(e, errors)
        if args.json:
            _print_json({"ok": False, "result": None,
                         "error": {"kind": "Parse", "message": str(e), "file": e.path, "line": e.line},
                         "requests": [], "usage": NO_USAGE})
        return EXIT_PARSE
    except OSError as e:
        print(f"runvil: cannot read {e.filename or args.prompt}: {e.strerror or e}", file=sys.stderr)
        return EXIT_USAGE


def run_input(args, stdin=None) -> str | None:
    """The run's input (docs/reference/commands.md): `--input`, else `--input-file` (`-` is
    stdin), else stdin when it is a pipe or a regular file (a terminal,
    /dev/null or a socket is not read; an empty one is no input); None
    leaves the world's `input`. ValueError for a usage error."""
    if args.input is not None and args.input_file is not None:
        raise ValueError("--input and --input-file both give the run's input: pass one of them")
    if args.input is not None:
        return args.input
    stdin = sys.stdin if stdin is None else stdin
    if args.input_file == "-":
        data = _read_bounded(_binary(stdin), "--input-file -")
    elif args.input_file is not None:
        try:
            with open(args.input_file, "rb") as f:
                data = _read_bounded(f, f"--input-file {args.input_file}")
        except OSError as e:
            raise ValueError(f"cannot read {args.input_file}: {e.strerror or e}") from None
    elif piped(stdin):
        data = _read_bounded(_binary(stdin), "stdin")
        if not data:
            return None  # `runvil run p.md < /dev/null`-like: an empty pipe gives no input
    else:
        return None
    # the bytes exactly: no newline translation; bytes that are not UTF-8
    # reach Lua as they are, as with --input
    return data.decode("utf-8", "surrogateescape")


def piped(stdin) -> bool:
    """Whether stdin is a pipe or a regular file (not a terminal, not
    /dev/null, not a socket): what `echo text | runvil run p.md` gives."""
    import stat

    if sys.platform in ("emscripten", "wasi"):  # the browser's stdin is no pipe a user set up
        return False
    try:
        mode = os.fstat(stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # no real stdin (closed, or a test's stand-in)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def _binary(stream):
    return getattr(stream, "buffer", stream)


def _read_bounded(f, what: str) -> bytes:
    """At most MAX_INPUT_BYTES from f (bounded: --input-file /dev/zero)."""
    data = f.read(MAX_INPUT_BYTES + 1)
    if len(data) > MAX_INPUT_BYTES:
        raise ValueError(INPUT_TOO_BIG.format(what=what, limit=MAX_INPUT_BYTES))
    return data


def report_run(args, prompt, run, outcome, meter, requests: list, live, errors) -> int:
    """Prints the run's end (docs/reference/commands.md): the result or `--json`'s object on
    stdout; the error line, its picture and its `help:` lines on stderr;
    then writes the viewer page and the database row asked for."""
    if args.json:
        _print_json(
            {
                "ok": outcome.ok,
                "result": outcome.result,
                "error": None if outcome.error is None else error_json(prompt, outcome.error, run.events.events, run),
                "requests": requests,
                "usage": meter.as_json(),
            }
        )
    elif outcome.ok:
        if outcome.result is not None and not (live is not None and live.already_shown(outcome.result, sys.stdout)):
            result = valid_utf8(outcome.result)
            TerminalStream(sys.stdout).write(result + ("" if result.endswith("\n") else "\n"))
    if args.view:
        from .view import write_run_view

        write_run_view(args.view, run)  # a page that cannot be written is said on stderr
    stored = True
    source = prompt_bytes(args.prompt, prompt) if args.db or not args.no_log else b""
    if args.db:
        from .batch.stored_run import store_single_run

        stored = store_single_run(args.db, args.prompt, source, run, meter) is not None
    if not args.no_log:
        from .history import keep_run

        keep_run(args.prompt, source, run, meter)
    if not outcome.ok:
        print(f"error[{outcome.error.kind}]: {outcome.error.message}", file=errors)
        from .diagnostics import show_run_error
        from .hints import help_lines, write_help

        show_run_error(prompt, outcome.error, run.events.events, errors)
        write_help(errors, help_lines(prompt, outcome.error, run))
    if live is not None:
        live.closing(meter.closing_line())
    if not stored:
        return EXIT_USAGE
    return EXIT_OK if outcome.ok else EXIT_FAILED


def prompt_bytes(path: str, prompt) -> bytes:
    """The prompt file's bytes, as its hash is taken (the parsed lines when
    the file is gone)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return "\n".join(prompt.source_lines).encode("utf-8", "surrogateescape")


def error_json(prompt, error, events, run=None) -> dict:
    """`--json`'s error: the run error's fields, where it happened (`file`,
    `line`, `section`) when that is known, and `help`, the hints the
    `help:` lines give, when there are any."""
    from .diagnostics import error_place
    from .hints import help_lines

    hints = help_lines(prompt, error, run)
    return {**error.as_json(), **error_place(prompt, error, events), **({"help": hints} if hints else {})}


def write_record(path: str, recorder, made: bool) -> None:
    """Writes the recorded world; one that cannot be (RecordError) is said
    on stderr, and a file made empty for it removed."""
    from ..harness.recorder import RecordError

    try:
        text = recorder.text()
    except RecordError as e:
        print(f"runvil: cannot record the world in {path}: {e}", file=sys.stderr)
        if made:
            with contextlib.suppress(OSError):
                os.remove(path)
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print(f"runvil: cannot write the recorded world {path}: {e.strerror or e}", file=sys.stderr)


def usage_error(message: str, answerer) -> int:
    """Reports a usage error after the answerer's connections are closed."""
    close_answerer(answerer)
    print(f"runvil: {message}", file=sys.stderr)
    return EXIT_USAGE


def close_answerer(answerer) -> None:
    close = getattr(answerer, "close", None)
    if close is not None:
        close()


def drive_closing(run, answering, answerer, log, requests: list | None = None):
    """Drives the run to its end, then closes the run log and the answerer
    (its HTTP clients), whatever happened."""
    from ..harness.drive import drive

    try:
        return drive(run, answering, requests)
    finally:
        if log is not None:
            log.close()
        close_answerer(answerer)


def world_for(args, prompt, on_fragment=None):
    """Bindings for every declared role, the answerer, and a note for stderr:
    the flags and the config read here, the choice made by the harness."""
    from ..harness.answerer import choose_answerer
    from .config import check_bind_roles, load_config, real_providers
    from .envconfig import no_config_note

    roles = list(prompt.frontmatter.models)
    binds, model = getattr(args, "bind", None) or [], getattr(args, "model", None)
    providers = config = None
    if args.script:
        check_bind_roles(roles, binds)  # a typo in a role is said first
        if binds or model is not None:
            flag = "--bind" if binds else "-m/--model"
            raise ValueError(f"{flag} does not apply with --script: the scripted world plays every role "
                             "(a role's `model` in the world's models names it)")
    else:
        config = load_config(args.config)
        if config is not None or binds or model is not None:
            def providers(on_fragment):
                return real_providers(prompt.frontmatter.models, config, binds, on_fragment=on_fragment, model=model,
                                      context=getattr(args, "context", None))
    # WorldError: a ValueError
    bindings, answer, note = choose_answerer(roles, script=args.script or None, providers=providers,
                                             on_fragment=on_fragment)
    if config is None and not args.script:
        note = no_config_note(roles, binds, model)
    return bindings, answer, note


def configured_limits(args):
    """The sandbox's per-block and per-run limits: the config's `[limits]`
    (read with or without `--script`) over the defaults."""
    from .config import LimitSettings, load_config

    config = load_config(args.config)
    return (config.limits if config is not None else LimitSettings()).sandbox()


def pack_tools(args, wanted=None):
    """The Packs' tools for a run off the script: `files` in `--workspace
    DIR` (made when missing, kept) or in a fresh temporary folder (removed
    when the run ends); `[packs]` settings from the config."""
    from ..harness.packs import PackTools
    from ..harness.workspace import Workspace
    from .config import PackSettings, load_config

    config = load_config(args.config)
    settings = config.packs if config is not None else PackSettings()
    if args.workspace:
        workspace = Workspace.at(args.workspace, settings.write_quota)
    else:
        workspace = Workspace.temporary(settings.write_quota)
    return PackTools(workspace, settings, wanted)


def open_log(path: str, run, workspace: str | None = None):
    """The run log; its `run_started` event names the workspace folder."""
    f = open(path, "w", encoding="utf-8")

    def write(ev):
        data = ev.as_json()
        if workspace is not None and ev.type == "run_started":
            data["workspace"] = workspace
        f.write(valid_utf8(json.dumps(data, ensure_ascii=False)) + "\n")
        f.flush()

    run.events.listeners.append(write)
    return f


def _print_json(obj) -> None:
    """One JSON object on stdout, as json.dumps writes it, piece by piece:
    `requests` holds each message once per round that sent it, so its text
    grows as rounds × messages, while no piece made at once is larger than
    one message (whose string the run holds already)."""
    tty = sys.stdout.isatty()
    for piece in json_pieces(obj, JSON_SPLIT_DEPTH):
        text = valid_utf8(piece)
        if tty:  # JSON escapes C0 controls itself; a terminal would obey C1 ones (U+009B is CSI)
            text = _C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
        sys.stdout.write(text)
    sys.stdout.write("\n")


#: the levels split into pieces: the object, `requests`, a request, its `messages`
JSON_SPLIT_DEPTH = 4


def json_pieces(value, depth: int):
    """json.dumps(value, ensure_ascii=False) in pieces: dicts and lists
    down to `depth` levels item by item, anything deeper whole."""
    if depth and type(value) is dict:
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield (", " if i else "") + json.dumps(str(key), ensure_ascii=False) + ": "
            yield from json_pieces(item, depth - 1)
        yield "}"
    elif depth and type(value) is list:
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ", "
            yield from json_pieces(item, depth - 1)
        yield "]"
    else:
        yield json.dumps(value, ensure_ascii=False)


_C1 = re.compile("[\x7f-\x9f]")
