"""The sans-IO Engine (docs/architecture.md): a run's VMs, the Engine globals,
the conversation and its loop, as effects and events.

Its modules form layers, top first. A module imports only modules of its
own layer or of the layers below, at its top, and no import chain comes
back to where it started (tests/engine/test_layers.py reads this table and
checks every import, those inside functions included). Headings are those of
docs/reference/conversations.md unless another page is named:

| layer | module | holds |
|---|---|---|
| run | run | the sans-IO `Run` and its walk (docs/architecture.md); it builds each entry's VM |
| vm | vm | a section VM: the globals installed, prose, `jump`, `require` (docs/reference/prompt-file.md) |
| globals | models | `models` (docs/reference/models.md), "Loop arguments and errors" |
| | conversation.loop | "How the loop runs", "Tool rounds and the round cap" |
| | tasks | `tasks` (docs/reference/tasks.md), "Task notices and task tools in the list" |
| | tools | `tools` and `packs`, offers, the section's tool list (docs/reference/tools.md) |
| | conversation.compaction | `compactors`, `models.compact`: "Compactors and context exhaustion" |
| rounds | conversation.rounds | "The round counter and what each round reports", "Empty replies and |
| | | finish reasons", "How a provider overflow is recognized"; roles bound (docs/reference/models.md) |
| conversation | conversation.messages | "messages is the section's conversation", "Building a message list" |
| | conversation.replace | "Editing a list with replace" |
| | conversation.records | "Message records", "System records lead the list", "When records are checked" |
| | conversation.views | "Reading records" |
| | conversation.compose | "What the model receives" |
| | conversation.precheck | "The context precheck" |
| base | errors, effects, events | error values (docs/reference/error-values.md), effects, run events |
| | | (docs/reference/conversations.md) |
| | limits, scheduler | the run's budget, the baton scheduler |
| | luajson, var, strings | JSON (docs/reference/json.md), `var`, Lua strings at the boundary |

Within the globals, models runs the loop, the loop delivers task notices,
answers task tools and runs compactors, and `tasks.offer` offers tools. The
globals reach the run only through `vm.run` (the scheduler, events and
`var` beneath them; the task registry in tasks); `Run` is on top because
it is the one place that builds VMs, and every VM installs the globals.
"""
