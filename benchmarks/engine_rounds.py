"""The Engine's own cost per loop round, next to the cost of JSON-encoding
the request it sends (issue: "keep the first well below the second").

A prompt runs one models.loop of 200 tool rounds (a bound tool, answered
in place), so the list grows to 400 records; the time spent inside
Run.step() for each round is the Engine's own time. A second block builds
a 10,000-record list, walks it, edits it with replace and estimates it.

    python -m benchmarks.engine_rounds
"""

from __future__ import annotations

import json
import statistics
import sys
import time

from runvil.engine.effects import ModelReply, ModelRound, ToolResult
from runvil.engine.run import ModelBinding, Run
from runvil.prompt import parse_text

HEAD = """---
name: bench
description: Engine rounds.
runvil: 0
models:
  writer: {}
uses: [web]
max_tool_iterations: 1000
---

# Bench
"""

LOOP = HEAD + """
## Loop

```lua
models.use('writer')
tools.offer('web/search')
messages:system('You search the web.')
messages:user('Search two hundred times, then answer.')
models.loop()
return #messages
```
"""

BIG = HEAD + """
## Big

```lua
local t0 = os.clock()
for i = 1, 5000 do
  messages:user('question number ' .. i .. ' about the weather in Paris')
  messages:assistant('answer number ' .. i .. ': it is sunny, 24 C')
end
local t1 = os.clock()
local n = 0
for i, r in ipairs(messages) do n = n + #r.content end
local t2 = os.clock()
models.compact(function(reason)
  messages:replace(2, 1001, { role = 'assistant', content = 'summary of a thousand turns' })
end, 'bench')
local t3 = os.clock()
return string.format('%d %.4f %.4f %.4f', #messages, t1 - t0, t2 - t1, t3 - t2)
```
"""


def bench_rounds(rounds: int = 200):
    run = Run(parse_text(LOOP, "bench.md"), bindings={"writer": ModelBinding("m", context=10_000_000)},
              packs={"web": {"search": {"description": "search", "parameters": {"type": "object"}}}})
    engine_times, encode_times, sizes = [], [], []
    n = 0
    while True:
        t = time.perf_counter()
        effects = run.step()
        engine_times.append(time.perf_counter() - t)
        if run.done:
            break
        answers = {}
        for e in effects:
            if isinstance(e, ModelRound):
                t = time.perf_counter()
                json.dumps({"model": e.model, "messages": list(e.messages), "tools": list(e.tools)})
                encode_times.append(time.perf_counter() - t)
                sizes.append(len(e.messages))
                n += 1
                if n <= rounds:
                    call = {"id": f"call_{n}", "name": "web_search", "arguments": {"query": f"query {n}"}}
                    answers[e.id] = ModelReply(text="", tool_calls=(call,), finish_reason="tool_calls")
                else:
                    answers[e.id] = ModelReply(text="done")
            else:
                answers[e.id] = ToolResult(f"result for {e.arguments['query']}: " + "lorem ipsum " * 20)
        run.resume(answers)
    assert run.outcome.ok, run.outcome.error
    # one round = two steps: the reply (which posts the tool call) and the
    # tool result (which appends the round, composes, prechecks and sends)
    per_round = [engine_times[i] + engine_times[i + 1] for i in range(1, len(engine_times) - 1, 2)][-20:]
    return {
        "rounds": n,
        "records at the end": int(run.outcome.result),
        "engine ms/round (last 20)": 1000 * statistics.median(per_round),
        "json.dumps ms/request (last 20)": 1000 * statistics.median(encode_times[-20:]),
        "messages in the last request": sizes[-1],
    }


def bench_big():
    run = Run(parse_text(BIG, "bench.md"), bindings={"writer": ModelBinding("m")})
    t = time.perf_counter()
    while not run.done:
        run.step()
    total = time.perf_counter() - t
    assert run.outcome.ok, run.outcome.error
    count, build, walk, edit = run.outcome.result.split()
    return {"records": int(count) + 999, "build s": float(build), "walk s": float(walk), "replace s": float(edit),
            "whole block s": total}


def main() -> int:
    print("loop of tool rounds:", json.dumps(bench_rounds(), indent=1))
    print("10,000-record list:", json.dumps(bench_big(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
