"""`runvil chat` (docs/reference/commands.md): an interactive chat in the Workshop chat shape.
Each turn is `messages:user(text)`, then `models.loop` under the chapter's
summarizing compactor ("Writing your own compactor"), so a long chat is
summarized instead of failing when it outgrows the model's window.

The chat is an ordinary prompt run by the Engine; the only thing the Host
adds is `chat.read()`, which asks for the user's next message (the
`UserTurn` effect). A failed turn is reported on stderr and taken back, so
the next turn starts from the last good reply.
"""

from __future__ import annotations

import sys

CHAT_PROMPT = """---
name: chat
description: An interactive chat; each turn runs the loop under a summarizing compactor.
runvil: 0
models:
  chat: {}
---

# Chat

## Turns

```lua
local function compact(reason)
  local first = 1
  while messages[first] and messages[first].role == "system" do
    first = first + 1
  end
  local cut, turns = #messages + 1, 0
  for i = #messages, first, -1 do
    if messages[i].role == "user" then
      turns = turns + 1
      if turns == 2 then cut = i break end
    end
  end
  if cut == first then return compactors.fail(reason) end
  local lines = {}
  for i = first, cut - 1 do
    lines[#lines + 1] = messages[i].role .. ": " .. json.encode(messages[i].content)
  end
  local summary = models.infer("Summarize this conversation:\\n" .. table.concat(lines, "\\n"))
  messages:replace(first, cut - 1, {
    role = "user",
    content = "Summary of the earlier conversation: " .. summary,
    meta = { summary = true },
  })
end

models.use('chat')
if input and input ~= '' then messages:system(input) end
while true do
  local text = chat.read()
  if text == nil then break end
  local before = #messages
  messages:user(text)
  local ok, err = pcall(models.loop, compact)
  if not ok then
    print('error: ' .. tostring(err))
    models.compact(function() messages:replace(before + 1, #messages) end, 'the turn failed')
  end
end
```
"""


def chat_parser():
    from .argparsing import Parser

    p = Parser(
        prog="runvil chat",
        description="Chat with a model: each line is a turn, run by models.loop under a summarizing compactor."
                    "\nLines the chat answers itself: " + ", ".join(c for c, _ in COMMANDS) + ".",
        epilog="examples:\n  runvil chat                                   offline, on the echo model"
               "\n  runvil chat -m openai/gpt-4o-mini --system \"Answer in French.\"",
    )
    p.add_argument("--system", metavar="TEXT", help="a system message that leads the chat")
    p.add_argument("--bind", action="append", default=[], metavar="ROLE=MODEL",
                   help="chat=MODEL picks the catalog model (repeatable)")
    p.add_argument("-m", "--model", metavar="MODEL", help="the catalog model to chat with (as --bind chat=MODEL)")
    from .config import add_context_option

    add_context_option(p)
    p.add_argument("--config", metavar="FILE",
                   help="the config file (default: RUNVIL_CONFIG, else ./runvil.toml, else the echo model)")
    p.add_argument("--script", metavar="WORLD.yaml", help="answer from a scripted world instead of real providers")
    p.add_argument("--log", metavar="FILE", help="write the run log (events as JSON Lines)")
    p.add_argument("--no-log", action="store_true", help="keep this chat out of the history of runs (runvil logs)")
    return p


#: lines the chat answers itself, never sent to the model
COMMANDS = (("/help", "this list"), ("/model", "which model the chat talks to"), ("/exit", "end the chat (as Ctrl-D)"))


def chat_command(argv: list[str]) -> int:
    """Runs the chat; exit 1 when the chat failed, or when a turn read from
    a pipe failed (a script learns that a turn got no reply)."""
    from .runcmd import EXIT_FAILED, EXIT_OK, EXIT_USAGE, drive_closing, open_log, usage_error, world_for
    from .usage import UsageMeter, report_retries

    args = chat_parser().parse(argv)
    if isinstance(args, int):
        return args
    from .outputs import clash, config_input

    clashing = clash([("--log", args.log)], [(f"the world {args.script}", args.script), config_input(args.config)])
    if clashing:
        print(f"runvil: {clashing}", file=sys.stderr)
        return EXIT_USAGE
    from ..engine.run import Run
    from ..prompt import parse_text
    from .repl import Console
    from .termtext import TerminalStream

    prompt = parse_text(CHAT_PROMPT, path="<chat>")
    out, err = TerminalStream(sys.stdout), TerminalStream(sys.stderr)  # model text: no control sequence obeyed
    screen = Screen(out, err, live=sys.stdout.isatty())
    try:
        bindings, answer, note = world_for(args, prompt, on_fragment=screen.fragment if screen.live else None)
    except ValueError as e:
        print(f"runvil: {e}", file=sys.stderr)
        return EXIT_USAGE
    if note:
        print(note, file=sys.stderr)
    system = args.system
    if system is None and args.script:
        system = answer.world_input  # the world's `input` leads the chat, as `runvil run` reads it
    run = Run(prompt, input=system, bindings=bindings, chat=True)
    report_retries(answer, run)  # each provider retry is a model_retry event, as for `runvil run`
    run.events.listeners.append(screen.show)
    try:
        log = open_log(args.log, run) if args.log else None
    except OSError as e:
        return usage_error(f"cannot write the run log {args.log}: {e.strerror or e}", answer)
    console = Console("chat_history")
    model = model_line(bindings["chat"], args)
    if console.interactive:
        from ..version import __version__

        print(f"runvil chat {__version__} · {model} · type a message, /help for help; Ctrl-D ends the chat, "
              "Ctrl-C stops a reply", file=sys.stderr)
    else:
        print(f"runvil chat: {model}", file=sys.stderr)
    if not args.script:  # a real server may ignore the tools it is offered: said once
        from .hints import WarnOnce

        meter = UsageMeter(Turns(console, WarnOnce(answer, sys.stderr), screen, model))
    else:
        meter = UsageMeter(Turns(console, answer, screen, model))
    outcome = drive_closing(run, meter, answer, log)
    if not args.no_log:
        from .history import keep_run

        keep_run("<chat>", CHAT_PROMPT.encode(), run, meter)
    if console.interactive:
        print(meter.closing_line(), file=sys.stderr)
    if not outcome.ok:
        print(f"error[{outcome.error.kind}]: {outcome.error.message}", file=err)
        return EXIT_FAILED
    if screen.failed_turns and not console.interactive:
        return EXIT_FAILED
    return EXIT_OK


def model_line(binding, args) -> str:
    """`talking to openai/gpt-4o-mini (context 128000)`: the model the
    chat talks to, as the banner and /model say it."""
    how = " (the scripted world)" if args.script else " (offline: its reply is your message)" if (
        binding.id == "echo") else ""
    return f"talking to {binding.name or binding.id}{how}, context {binding.context}"


class Screen:
    """What the chat shows: streamed text and replies on stdout, a failed
    turn's error on stderr (counted: a piped chat's exit status says it)."""

    def __init__(self, out, err, live: bool):
        self.out, self.err, self.live = out, err, live
        self.streamed: list[str] = []
        self.interrupted: list[bool] = []
        self.failed_turns = 0
        self.failure_facts: dict = {}  # the facts of the provider's failure the turn ended on, for help lines

    def fragment(self, effect, text: str) -> None:
        self.streamed.append(text)
        self.out.write(text)
        sys.stdout.flush()

    def show(self, ev) -> None:
        from .repl import INTERRUPTED

        if ev.type == "reply" and ev.execution_id == "0":
            self.out.write("\n" if self.streamed else ev.data["text"] + "\n")
            sys.stdout.flush()
            self.streamed.clear()
        elif ev.type == "print":  # the chat prompt prints only a failed turn's error
            self.streamed.clear()
            self.failed_turns += 1
            if self.interrupted:  # the failed turn's error: Ctrl-C says it shorter
                self.interrupted.clear()
                print(("\n" if self.live else "") + INTERRUPTED, file=sys.stderr)
            else:
                from .hints import provider_lines, write_help

                print(ev.data["text"], file=self.err)
                write_help(self.err, provider_lines(self.failure_facts, ev.data["text"].removeprefix("error: ")))
            self.failure_facts = {}


class Turns:
    """Answers the chat's effects: a user turn from the console (the lines
    the chat answers itself are answered here), anything else from the
    answerer; Ctrl-C during a reply fails that turn, which is taken back."""

    def __init__(self, console, answer, screen: Screen, model: str):
        self.console, self.answer, self.screen, self.model = console, answer, screen, model

    def __call__(self, effect):
        from ..engine.effects import ModelFailure, UserTurn
        from .repl import INTERRUPTED

        if isinstance(effect, UserTurn):
            self.screen.failure_facts = {}  # a new turn: no failure of an earlier one is told again
            return self.read()
        try:
            got = self.answer(effect)
        except KeyboardInterrupt:
            self.screen.interrupted.append(True)
            return ModelFailure(message=INTERRUPTED)
        if isinstance(got, ModelFailure) and got.facts:
            self.screen.failure_facts = got.facts
        return got

    def read(self):
        while True:
            line = read_turn(self.console)
            command = line.strip() if line is not None else None
            if command == "/help":
                print("\n".join(f"{c:<8} {what}" for c, what in COMMANDS)
                      + "\nany other line is a message to the model", file=sys.stderr)
            elif command == "/model":
                print(self.model, file=sys.stderr)
            elif command in ("/exit", "/quit"):
                return None  # the end of the chat, as Ctrl-D gives it
            else:
                return line


def read_turn(console) -> str | None:
    """The user's next message; None at the end of input. Blank lines are
    skipped (an empty user turn says nothing); Ctrl-C at the prompt drops
    the line being typed."""
    while True:
        try:
            line = console.read("> ")
        except KeyboardInterrupt:
            sys.stdout.write("\n")
            continue
        if line is None:
            return None
        if line.strip():
            return line
