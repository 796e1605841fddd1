"""`runvil lua`: the sandboxed Lua state as a command, like `lua`.

`-e` chunks run first, in order, then FILE (its name as given is the chunk
name, so errors read `FILE:line:`); with neither, an interactive REPL.
An uncaught error prints `runvil: {message}` on stderr and exits 1.
`--prompt PROMPT.md` opens the REPL inside a section VM of a prompt
instead, on the echo model or a `--script` world. The console script
`runvil-lua` is the same command under a name a shell runs as one word.
"""

from __future__ import annotations

import os
import sys

from ..lua.api import Limits, LuaError, LuaState, LuaSyntaxError, LuaTable
from ..lua.api import file_source
from ..structs import replace
from .luaoutput import ALL_GRANTS, STANDALONE_LIMITS, error_message, read_stdin_bytes, uncaught_report, write_stdout
from .repl import INTERRUPTED, Console, Interrupt, compile_chunk, incomplete, show_values, to_lua

HELP = """usage: runvil lua [options] [FILE [ARGS...]]

Runs Lua 5.4 in runvil's sandbox, like the `lua` command; with no FILE and
no -e, an interactive REPL (line editing, history, Ctrl-C stops a chunk).

options:
  -e CODE               run CODE as a chunk first (repeatable, in order)
  -i                    enter the REPL after running FILE and the -e chunks
  -v                    print the version line (the Lua it implements, then runvil's)
  --prompt PROMPT.md    open the REPL inside a section VM of this prompt, with
                        messages, models, tools, var... (its H1 runs first)
  --script WORLD.yaml   with --prompt: answer model rounds from this scripted
                        world instead of the offline echo model
  --cpu SECONDS         the CPU time each chunk may use (default 10); 'off'
                        lifts it and the step budget, for a long script
  --allow LIST          open what the sandbox leaves out (comma-separated):
                        io, os, debug, base (collectgarbage, dofile,
                        loadfile, warn), process (io.popen, os.execute), or all
                        (every one, and require resolves as lua5.4's)
  -h, --help            show this help and exit
  --                    stop reading options
  FILE                  a Lua file to run ('-' reads stdin); ARGS go to `arg`

examples:
  runvil lua -e "print(string.format('%5.2f', math.pi))"
  runvil lua script.lua one two      arg[1] is "one"; require finds modules beside script.lua
  runvil lua --allow all --cpu off test.lua   as `lua5.4 test.lua` would run it

`runvil-lua` is this command as one word (`runvil-lua script.lua`); arg's
negative indices name it and the options before FILE, so joined they run
a child Lua with the same grants.

Exit status: 0 success; 1 an error in a chunk, or a FILE that cannot be
opened (as `lua`); 2 an option it does not know."""

LUA_OPTIONS = ("--prompt", "--script", "--cpu", "--help")  # the long ones a typo is matched against
BAD_CPU = "runvil: '--cpu' needs a positive number of seconds or 'off', got '{value}'"
BAD_ALLOW = "runvil: '--allow' takes io, os, debug, base, process or all (comma-separated), got '{value}'"


def lua_command(args: list[str], interpreter: list[str] | None = None) -> int:
    """Reads `lua`-style arguments: options stop at the first operand.
    `interpreter`: the words that ran the command, for `arg` (arg_table)."""
    chunks: list[str] = []
    interactive = False
    prompt = script = None
    grants: set[str] = set()
    limits = STANDALONE_LIMITS
    version_shown = False
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            print(HELP)
            return 0
        if a in ("-e", "--prompt", "--script", "--cpu", "--allow"):
            if i + 1 >= len(args):
                print(f"runvil: '{a}' needs argument", file=sys.stderr)
                return 2
            value = args[i + 1]
            if a == "-e":
                chunks.append(to_lua(value))
            elif a == "--prompt":
                prompt = value
            elif a == "--cpu":
                seconds = cpu_seconds(value)
                if seconds is False:
                    print(BAD_CPU.format(value=value), file=sys.stderr)
                    return 2
                # off: no CPU limit and no step budget either
                limits = replace(limits, cpu_seconds=seconds) if seconds else replace(limits, cpu_seconds=None, steps=None)
            elif a == "--allow":
                from ..lua.api import parse_grants

                granted = parse_grants(value)
                if type(granted) is str:
                    print(BAD_ALLOW.format(value=granted), file=sys.stderr)
                    return 2
                grants |= granted
            else:
                script = value
            i += 2
        elif a.startswith("-e") and len(a) > 2:
            chunks.append(to_lua(a[2:]))
            i += 1
        elif a == "-i":
            interactive = True
            i += 1
        elif a == "-v":
            version_shown = True
            i += 1
        elif a == "--":
            i += 1
            break
        elif a.startswith("-") and a != "-":
            import difflib

            close = difflib.get_close_matches(a, LUA_OPTIONS, n=1, cutoff=0.6)
            meant = f"did you mean '{close[0]}'? " if close else ""
            print(f"runvil: unrecognized option '{a}' ({meant}runvil lua --help lists the options)", file=sys.stderr)
            return 2
        else:
            break
    file = args[i] if i < len(args) else None
    if prompt is not None:
        if chunks or file is not None:
            print("runvil: --prompt opens a REPL; it takes no -e or FILE", file=sys.stderr)
            return 2
        if grants:
            print("runvil: --prompt takes no --allow: prompts never get grants", file=sys.stderr)
            return 2
        from .promptrepl import prompt_repl

        return prompt_repl(prompt, script, limits)
    if script is not None:
        print("runvil: --script needs --prompt", file=sys.stderr)
        return 2
    if version_shown:  # as lua.c's -v: the line first, and no REPL unless -i asks
        print(version_line(), flush=True)
        if file is None and not chunks and not interactive:
            return 0
    return run_lua_command(chunks, file, args[i + 1 :], interactive, command_line=args,
                           script_at=i if file is not None else None, limits=limits, grants=grants,
                           interpreter=interpreter)


def version_line() -> str:
    """`-v`'s line: the Lua it implements first, as tools that read
    `lua -v` look for, then whose implementation it is (not PUC-Rio's)."""
    from ..version import __version__

    return f"Lua 5.4.4  runvil {__version__}, Lua in pure Python"


def cpu_seconds(value: str):
    """`--cpu`'s value: seconds, None for `off`, False when it is neither."""
    if value == "off":
        return None
    try:
        seconds = float(value)
    except ValueError:
        return False
    return seconds if 0 < seconds < float("inf") else False


def arg_table(command_line: list[str], script_at: int | None, interpreter: list[str] | None = None) -> LuaTable:
    """`arg` as lua.c builds it: the script (`command_line[script_at]`) at
    0, its arguments at 1, 2..., the interpreter and the options before it
    at negative indices; with no script, the interpreter at 0 and every
    option after it. The interpreter is the command that runs `runvil-lua`
    (interpreter_words), so the words below 0, joined, run a child with the
    same grants and limits: `runvil lua --allow all s.lua` has
    `runvil-lua`'s path at -3, `--allow` at -2, `all` at -1. (Where that
    command is several words, the ones before its last go below it.)"""
    interpreter = interpreter_words() if interpreter is None else interpreter
    words = [*interpreter, *command_line]
    zero = len(interpreter) - 1 if script_at is None else len(interpreter) + script_at
    arg = LuaTable()
    for i, word in enumerate(words):
        arg.set(i - zero, to_lua(word))
    return arg


def interpreter_words() -> list[str]:
    """The command that runs this installation's `runvil-lua`: its console
    script, one word a shell runs quoted or not, where it sits beside this
    Python (as installers put it); else this Python running this module."""
    python = sys.executable or "python3"
    script = os.path.join(os.path.dirname(python), "runvil-lua.exe" if os.name == "nt" else "runvil-lua")
    if os.path.isfile(script):
        return [script]
    return [python, "-m", "runvil.host.luacmd"]


def console_main() -> int:
    """`runvil-lua`, the console script: `runvil lua` as one command word,
    a drop-in `lua` whose `arg` names it (its path as run, as lua.c's
    argv[0])."""
    from .exits import guarded

    run_as = sys.argv[0] if os.path.basename(sys.argv[0]).startswith("runvil-lua") else None
    interpreter = [run_as] if run_as else interpreter_words()
    return guarded(lambda argv: lua_command(argv, interpreter), sys.argv[1:])


def open_require(state: LuaState, folder: str | None) -> None:
    """`package` and `require` as Lua 5.4's: with a folder (the script's,
    or the current one for -e and the REPL), the sandbox's templates
    `./?.lua;./?/init.lua` inside it and nowhere else; with None (`--allow
    all`), lua5.4's own paths, relative to the current directory."""
    from ..lua.api import ModuleFiles, open_package, package_defaults

    if folder is None:
        path, cpath = package_defaults()
        open_package(state, ModuleFiles(None), path, cpath, load_cache=True)
    else:
        open_package(state, ModuleFiles(folder), load_cache=True)


def run_lua_command(chunks: list[str], file: str | None, script_args: list[str], interactive: bool = False,
                    command_line: list[str] | None = None, script_at: int | None = None,
                    limits: Limits = STANDALONE_LIMITS, grants=frozenset(), interpreter: list[str] | None = None) -> int:
    from ..lua.api import LuaExit, open_grants

    state = LuaState(stdout=write_stdout, allow_load=True, limits=limits)
    if command_line is None:
        command_line = [w for c in chunks for w in ("-e", c)] + ([file, *script_args] if file else [])
        script_at = 2 * len(chunks) if file is not None else None
    state.set_global("arg", arg_table(command_line, script_at, interpreter))
    open_grants(state, grants)
    folder = os.path.dirname(file) if file not in (None, "-") else "."
    open_require(state, None if ALL_GRANTS <= set(grants) else folder or ".")
    try:
        for code in chunks:  # the disk cache of compiled chunks serves -e and FILE
            state.call(state.load(code, "=(command line)", cache=True))
        if file is not None:
            if file == "-":
                source = file_source(read_stdin_bytes())
                name = "=stdin"
            else:
                try:
                    with open(file, "rb") as f:
                        source = file_source(f.read())  # a BOM and a '#' line skipped, as Lua does
                except OSError as e:  # worded as lua.c's: what failed, and why
                    sys.stdout.flush()
                    what = "read" if isinstance(e, IsADirectoryError) else "open"
                    print(f"runvil: cannot {what} {file}: {e.strerror}", file=sys.stderr)
                    return 1
                name = "@" + file
            fn = state.load(source, name, cache=True)
            state.call(fn, *script_args)
        if interactive or (file is None and not chunks):
            return repl(state)
    except LuaExit as e:
        return e.code
    except LuaSyntaxError as e:
        sys.stdout.flush()
        print(f"runvil: {e.value}", file=sys.stderr)
        return 1
    except LuaError as e:
        sys.stdout.flush()
        print(f"runvil: {uncaught_report(state, e, grants)}", file=sys.stderr)
        return 1
    finally:
        _flush_all()
        state.close()
    return 0


def _flush_all() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def repl(state: LuaState) -> int:
    """A `lua -i`-like loop: expressions print their values; an incomplete
    chunk continues on the next line (`>>`); Ctrl-C stops a running chunk."""
    from ..version import __version__

    console = Console("lua_history")
    if console.interactive:
        print(f"runvil lua {__version__} (Lua 5.4, sandboxed) · Ctrl-D exits, Ctrl-C stops a chunk", file=sys.stderr)
    interrupt = Interrupt()
    with interrupt.installed():
        while True:
            try:
                source = console.read_chunk(lambda text: incomplete(state, text))
                if source is None:
                    return 0
                fn = compile_chunk(state, to_lua(source))
            except LuaSyntaxError as e:
                print(e.value, file=sys.stderr)
                continue
            except KeyboardInterrupt:  # while the chunk compiled (the first may build the parser's table)
                print(INTERRUPTED, file=sys.stderr)
                continue
            try:
                with interrupt.running(state):
                    results = state.call(fn)
            except LuaError as e:
                sys.stdout.flush()
                print(INTERRUPTED if interrupt.requested else error_message(e.value), file=sys.stderr)
                continue
            show_values(results, write_stdout)
            sys.stdout.flush()


if __name__ == "__main__":  # `python -m runvil.host.luacmd`: where no console script is installed
    sys.exit(console_main())
