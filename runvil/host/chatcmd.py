"""`runvil chat` (host.md): an interactive chat in the Workshop chat shape.
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
    from .runcmd import EXIT_FAILED, EXIT_OK, EXIT_USAGE, drive_closing, open_log, usage_error, world_for

    p = argparse.ArgumentParser(prog="runvil chat", description="Chat with a model.")
    p.add_argument("--system", help="a system message that leads the chat")
    p.add_argument("--bind", action="append", default=[], metavar="ROLE=MODEL", help="chat=MODEL picks the model")
    p.add_argument("--config")
    p.add_argument("--script")
    p.add_argument("--log")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else EXIT_OK
    from ..engine.effects import UserTurn
    from ..engine.run import Run
    from ..prompt import parse_text

    prompt = parse_text(CHAT_PROMPT, path="<chat>")
    live = sys.stdout.isatty()
    streamed = []

    def fragment(effect, text):
        streamed.append(text)
        sys.stdout.write(text)
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

    def show(ev):
        if ev.type == "reply" and ev.execution_id == "0":
            sys.stdout.write("\n" if streamed else ev.data["text"] + "\n")
            sys.stdout.flush()
            streamed.clear()
        elif ev.type == "print":
            streamed.clear()
            print(ev.data["text"], file=sys.stderr)

    run.events.listeners.append(show)
    try:
        log = open_log(args.log, run) if args.log else None
    except OSError as e:
        return usage_error(f"cannot write the run log {args.log}: {e.strerror or e}", answer)
    interactive = sys.stdin.isatty()
    if interactive:
        print("runvil chat: type a message; Ctrl-D ends the chat", file=sys.stderr)

    def answer_or_read(effect):
        if isinstance(effect, UserTurn):
            return read_turn(interactive)
        return answer(effect)

    outcome = drive_closing(run, answer_or_read, answer, log)
    if not outcome.ok:
        print(f"error[{outcome.error.kind}]: {outcome.error.message}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def read_turn(interactive: bool) -> str | None:
    """The user's next message; None at the end of input. Blank lines are
    skipped (an empty user turn says nothing)."""
    while True:
        if interactive:
            try:
                line = input("> ")
            except EOFError:
                print(file=sys.stderr)
                return None
        else:
            line = sys.stdin.readline()
            if not line:
                return None
        text = line.rstrip("\n")
        if text.strip():
            return text
