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

import argparse
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


def chat_command(argv: list[str]) -> int:
    from .usage import UsageMeter, report_retries
    from .runcmd import EXIT_FAILED, EXIT_OK, EXIT_USAGE, drive_closing, open_log, usage_error, world_for

    p = argparse.ArgumentParser(
        prog="runvil chat",
        description="Chat with a model: each line is a turn, run by models.loop under a summarizing compactor.",
        epilog="examples:\n  runvil chat                                   offline, on the echo model"
               "\n  runvil chat -m openai/gpt-4o-mini --system \"Answer in French.\"",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--system", metavar="TEXT", help="a system message that leads the chat")
    p.add_argument("--bind", action="append", default=[], metavar="ROLE=MODEL",
                   help="chat=MODEL picks the catalog model (repeatable)")
    p.add_argument("-m", "--model", metavar="MODEL", help="the catalog model to chat with (as --bind chat=MODEL)")
    p.add_argument("--config", metavar="FILE",
                   help="the config file (default: RUNVIL_CONFIG, else ./runvil.toml, else the echo model)")
    p.add_argument("--script", metavar="WORLD.yaml", help="answer from a scripted world instead of real providers")
    p.add_argument("--log", metavar="FILE", help="write the run log (events as JSON Lines)")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    from ..engine.effects import UserTurn
    from ..engine.run import Run
    from ..prompt import parse_text
    from .repl import INTERRUPTED, Console

    from .termtext import TerminalStream

    prompt = parse_text(CHAT_PROMPT, path="<chat>")
    live = sys.stdout.isatty()
    streamed = []
    out, err = TerminalStream(sys.stdout), TerminalStream(sys.stderr)  # model text: no control sequence obeyed

    def fragment(effect, text):
        streamed.append(text)
        out.write(text)
        sys.stdout.flush()

    try:
        bindings, answer, note = world_for(args, prompt, on_fragment=fragment if live else None)
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

    def show(ev):
        if ev.type == "reply" and ev.execution_id == "0":
            out.write("\n" if streamed else ev.data["text"] + "\n")
            sys.stdout.flush()
            streamed.clear()
        elif ev.type == "print":
            streamed.clear()
            if interrupted:  # the failed turn's error: Ctrl-C says it shorter
                interrupted.clear()
                print(("\n" if live else "") + INTERRUPTED, file=sys.stderr)
            else:
                print(ev.data["text"], file=err)

    run.events.listeners.append(show)
    try:
        log = open_log(args.log, run) if args.log else None
    except OSError as e:
        return usage_error(f"cannot write the run log {args.log}: {e.strerror or e}", answer)
    console = Console("chat_history")
    if console.interactive:
        from .. import __version__

        print(f"runvil chat {__version__} · type a message; Ctrl-D ends the chat, Ctrl-C stops a reply", file=sys.stderr)
    interrupted = []

    def answer_or_read(effect):
        if isinstance(effect, UserTurn):
            return read_turn(console)
        try:
            return answer(effect)
        except KeyboardInterrupt:
            # the turn fails and is taken back, as any failed turn is
            from ..engine.effects import ModelFailure

            interrupted.append(True)
            return ModelFailure(message=INTERRUPTED)

    meter = UsageMeter(answer_or_read)
    outcome = drive_closing(run, meter, answer, log)
    if console.interactive:
        print(meter.closing_line(), file=sys.stderr)
    if not outcome.ok:
        print(f"error[{outcome.error.kind}]: {outcome.error.message}", file=err)
        return EXIT_FAILED
    return EXIT_OK


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
