"""An ended run is freed by reference counting alone: its section VMs,
their Lua states and the run itself form no reference cycle once they have
ended, so a batch of thousands of short runs leaves nothing to the cyclic
garbage collector (whose passes over every closed VM took a third of a
batch's time). A state whose Lua runs as generator twins (every state on
the inline backend; one that made a coroutine) still holds cycles among
the twins' closures and waits for the collector."""

from __future__ import annotations

import gc
import weakref

import pytest

from runvil.engine.effects import ModelReply
from runvil.engine.run import ModelBinding, Run
from runvil.lua.stack import INLINE
from runvil.prompt import parse_text

from .prompts import head

BODY = """
```lua
models.default('writer')
var.topic = input
local words = {}
for w in input:gmatch('%a+') do words[#words + 1] = w:upper() end
var.words = table.concat(words, ' ')
```

## Draft

Write about {{var.topic}}.

```lua
messages:user(prose)
models.loop()
var.draft = messages[#messages].content
```

## Review

Review: {{var.draft}}
"""


def run_to_end(body: str, replies: list, vms: list) -> Run:
    prompt = parse_text(head(models=("writer",)) + body, path="t.md")
    run = Run(prompt, input="tides", bindings={"writer": ModelBinding("w-model")}, release_lua=True,
              on_vm=lambda vm: vms.extend((weakref.ref(vm), weakref.ref(vm.state))))
    while True:
        effects = run.step()
        if run.done:
            return run
        run.resume({e.id: ModelReply(text=replies.pop(0)) for e in effects})


@pytest.fixture
def no_collector():
    if INLINE:
        pytest.skip("on the inline backend every state runs its Lua as twins, whose closures hold cycles")
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("replies, ok", [(["a draft", "a review"], True), ([""], False)],
                         ids=["ok", "failed"])
def test_an_ended_run_and_its_vms_are_freed_without_the_collector(no_collector, replies, ok):
    vms: list = []
    run = run_to_end(BODY, replies, vms)
    assert run.outcome.ok is ok
    gone = weakref.ref(run)
    assert len(vms) == 2 * (3 if ok else 2)  # each VM and its Lua state
    del run
    assert gone() is None
    assert [vm() for vm in vms] == [None] * len(vms)


def test_a_cancelled_run_is_freed_without_the_collector(no_collector):
    vms: list = []
    prompt = parse_text(head(models=("writer",)) + BODY, path="t.md")
    run = Run(prompt, input="tides", bindings={"writer": ModelBinding("w-model")}, release_lua=True,
              on_vm=lambda vm: vms.extend((weakref.ref(vm), weakref.ref(vm.state))))
    assert run.step()  # waits on the Draft's round
    run.cancel()
    gone = weakref.ref(run)
    del run
    assert gone() is None
    assert [vm() for vm in vms] == [None] * len(vms)
