"""Tasks and fan-out (docs/reference/tasks.md; docs/reference/conversations.md "Task notices and
task tools in the list").

A task runs one section (and the sections it jumps to) in a fresh VM on its
own baton context, concurrently with its spawner. Its id is the spawner's
execution id and a counter: the walk's first task is `0.0`, a task that
task starts is `0.0.0`. When a task ends, a notice is queued for the VM
that spawned it, and the loop delivers it at that VM's next round as a user
record (`deliver_notices`). A fan-out arm is a task without a notice.

Decisions where the spec is silent (docs/DECISIONS.md): a task's `input` is
the text it was given (JSON data as compact JSON), nil when none; `await`
and `cancel` see only the tasks of the calling VM, so waits form a tree and
cannot deadlock; awaiting a failed task raises its error value again; tasks
still running when the run ends are abandoned.
"""

from __future__ import annotations

from ..lua.api import LuaError, LuaTable
from ..lua.api import lib_table
from ..lua.api import fmt_number
from ..structs import Struct, field
from .conversation.records import Record
from .errors import ErrorValue, RunError, engine_error, names_hint, raise_lua, reported
from .errors import message_type as type_for_message
from .luajson import NotJSON, encode_compact, from_json, mark_list, record_views, to_json
from .scheduler import plain_builtin, waiting_builtin
from .strings import from_lua_str, to_lua_str
from .tools import ToolDef, add_offer, check_offer_open

NOTICE_COMPLETED = "Task id={id} (## {section}) completed: {text}"
NOTICE_FAILED = "Task id={id} (## {section}) failed: {text}"
NOTICE_CANCELED = "Task id={id} (## {section}) was canceled: {text}"
STATUS_RUNNING = "Task id={id} (## {section}) is running"
STARTED = "Task id={id} (## {section}) started"
NO_SECTION = "{fn}: no section named `{name}` ({known})"
NO_TASK = "{fn}: no task with id '{id}' was started in this section"
CANCELED_BY_DEFAULT = "canceled by the section that started it"
RUN_ENDED = "the run ended before the task did"

TASK_TOOLS = {
    "task": (
        "Start a section of this prompt as a background task. Answers with the task's id; "
        "a notice reports its result when it ends.",
        {
            "type": "object",
            "properties": {
                "section": {"type": "string", "description": "the section's name, without the ##"},
                "input": {"type": "string", "description": "the task's input text"},
            },
            "required": ["section"],
        },
    ),
    "task_status": (
        "Report whether a task is still running, or how it ended. Without an id, reports every task.",
        {"type": "object", "properties": {"id": {"type": "string", "description": "the task's id"}}},
    ),
    "await_tasks": (
        "Wait until tasks end and report how each ended. Without ids, waits for every task.",
        {"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}}}},
    ),
}


class Task(Struct, eq=False):
    id: str
    section: str
    spawner: object  # the SectionVM whose section started it
    notify: bool = True  # False for a fan-out arm
    state: str = "running"  # completed, failed, canceled
    value: object = None  # the result as JSON data
    text: str = ""  # the result text, the failure message, or the cancel reason
    error: object = None  # the raised Lua value of a failure
    ctx: object = None
    waiters: list = field(factory=list)  # contexts blocked until it ends
    children: list = field(factory=list)

    def notice(self) -> str:
        if self.state == "running":
            return STATUS_RUNNING.format(id=self.id, section=self.section)
        form = {"completed": NOTICE_COMPLETED, "failed": NOTICE_FAILED, "canceled": NOTICE_CANCELED}[self.state]
        return form.format(id=self.id, section=self.section, text=self.text)


class TaskRegistry:
    """The run's tasks: ids, starting, ending, cancelling, waiting."""

    def __init__(self, run):
        self.run = run
        self.by_id: dict[str, Task] = {}
        self.counters: dict[str, int] = {}

    def start(self, vm, fn: str, section: str, input: str | None, notify: bool = True) -> Task:
        run = self.run
        if run.prompt.section(section) is None:
            raise_lua(no_section(fn, section, run.prompt))
        n = self.counters.get(vm.execution_id, 0)
        self.counters[vm.execution_id] = n + 1
        task = Task(f"{vm.execution_id}.{n}", section, vm, notify)
        self.by_id[task.id] = task
        vm.spawned.append(task)
        parent = self.by_id.get(vm.execution_id)
        if parent is not None:
            parent.children.append(task)

        def body():
            try:
                return ("ok", (yield from run.run_chain(task.id, section, input, walk_on=False, finish=result_of)))
            except LuaError as e:
                return ("failed", e.value, reported(e).message)
            except RunError as e:
                return ("failed", engine_error("lua", e.message).value, e.message)

        task.ctx = run.sched.spawn(f"task-{task.id}", body)
        task.ctx.on_finish.append(lambda ctx: self._ended(task, ctx))
        return task

    def _ended(self, task: Task, ctx) -> None:
        if task.state != "running":
            return  # cancelled earlier
        outcome = ctx.result
        if outcome is None:  # unwound without an outcome: the run ended, or an Engine bug
            self.end(task, "canceled", RUN_ENDED)
        elif outcome[0] == "ok":
            value = outcome[1]
            task.value = value
            self.end(task, "completed", "" if value is None else result_text(value))
        else:
            task.error = outcome[1]
            self.end(task, "failed", outcome[2])

    def end(self, task: Task, state: str, text: str) -> None:
        task.state = state
        task.text = text
        spawner = task.spawner
        if task.notify and not spawner.closed:
            spawner.notices.append(task.notice())
        for ctx in task.waiters:
            self.run.sched.wake(ctx)
        task.waiters.clear()

    def cancel(self, task: Task, reason: str) -> bool:
        """Cancels a running task and every task it started."""
        if task.state != "running":
            return False
        for child in task.children:
            self.cancel(child, reason)
        self.end(task, "canceled", reason)
        self.run.sched.cancel(task.ctx)
        return True

    def wait(self, tasks: list, stop_at_failure: bool = False):
        """Blocks the current context until every task has ended (or, with
        `stop_at_failure`, until one of them fails). A generator (the
        scheduler's `block`)."""
        sched = self.run.sched
        while True:
            running = [t for t in tasks if t.state == "running"]
            if not running or (stop_at_failure and any(t.state != "completed" for t in tasks if t.state != "running")):
                return
            for t in running:
                t.waiters.append(sched.current)
            yield from sched.block()
            for t in running:
                if sched.current in t.waiters:
                    t.waiters.remove(sched.current)


def no_section(fn: str, name: str, prompt) -> str:
    """NO_SECTION, listing the sections there are."""
    return NO_SECTION.format(fn=fn, name=name, known=names_hint(name, [s.name for s in prompt.sections], "sections"))


def result_of(vm, value):
    """A section's result as JSON data, read before its VM closes."""
    if type(value) is str:
        return from_lua_str(value)
    try:
        return to_json(value, views=record_views)  # a returned view gives its record
    except NotJSON as e:
        raise LuaError(ErrorValue("lua", f"the result must be JSON data: {e.reason}")) from None


def result_text(value) -> str:
    """JSON data as result text: strings as they are, other data as compact
    JSON (numbers and booleans read as `tostring` gives them)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return fmt_number(value)
    return encode_compact(value)


def raise_failure(task: Task):
    """Awaiting a task that did not complete raises its error again."""
    if task.state == "canceled":
        raise engine_error("cancelled", task.notice())
    raise LuaError(task.error)


def input_text(fn: str, value) -> str | None:
    """A task's input: text as it is, other JSON data as compact JSON."""
    if value is None or type(value) is str:
        return None if value is None else from_lua_str(value)
    try:
        return result_text(to_json(value, "input"))
    except NotJSON as e:
        raise_lua(f"{fn}: {e.must_be_json()}")


# ------------------------------------------------------------ the global


def open_tasks(vm):
    """The `tasks` global of a VM."""
    return TasksLibrary(vm).table()


class TasksLibrary:
    """The `tasks` library of one VM: spawn, await, cancel, fan-out, and
    the task tools it offers; the tasks it spawned are `vm.spawned`."""

    def __init__(self, vm):
        self.vm = vm
        self.registry = vm.run.tasks

    def table(self):
        """The Lua `tasks` table, whose builtins call these methods."""
        return lib_table({"spawn": plain_builtin("tasks.spawn", self.spawn),
                          "await": waiting_builtin("tasks.await", self.await_),
                          "cancel": plain_builtin("tasks.cancel", self.cancel),
                          "offer": plain_builtin("tasks.offer", self.offer),
                          "fanout": waiting_builtin("tasks.fanout", self.fanout)}, "tasks.")

    @staticmethod
    def section_arg(fn: str, args: tuple) -> str:
        name = args[0] if args else None
        if type(name) is not str:
            raise_lua(f"{fn} needs a section name, got {type_for_message(name)}")
        return from_lua_str(name)

    def own(self, fn: str, ident) -> Task:
        """The task of this VM whose id is `ident`."""
        if type(ident) is not str:
            raise_lua(f"{fn}: a task id is a string, got {type_for_message(ident)}")
        key = from_lua_str(ident)
        for t in self.vm.spawned:
            if t.id == key:
                return t
        raise_lua(NO_TASK.format(fn=fn, id=key))

    @staticmethod
    def lua_value(task: Task):
        return None if task.value is None else from_json(task.value)

    def results_list(self, tasks: list) -> LuaTable:
        """Results in order, as a JSON array (a nil result leaves a hole)."""
        out = mark_list(LuaTable())
        for i, t in enumerate(tasks, 1):
            if t.value is not None:
                out.set_int(i, self.lua_value(t))
        return out

    def spawn(self, *args):
        """tasks.spawn(section, input?) -> id"""
        section = self.section_arg("tasks.spawn", args)
        text = input_text("tasks.spawn", args[1] if len(args) > 1 else None)
        return to_lua_str(self.registry.start(self.vm, "tasks.spawn", section, text).id)

    def await_(self, *args):
        """tasks.await(ids?): waits for the tasks, then their results"""
        ids = args[0] if args else None
        if ids is None:
            tasks = list(self.vm.spawned)
        elif type(ids) is str:
            tasks = [self.own("tasks.await", ids)]
        elif type(ids) is LuaTable:
            tasks = [self.own("tasks.await", ids.get(i)) for i in range(1, ids.length() + 1)]
        else:
            raise_lua(f"tasks.await takes (ids?): an id or a list of ids, got {type_for_message(ids)}")
        yield from self.registry.wait(tasks)
        for t in tasks:
            if t.state != "completed":
                raise_failure(t)
        return self.lua_value(tasks[0]) if type(ids) is str else self.results_list(tasks)

    def cancel(self, *args):
        """tasks.cancel(id, reason?)"""
        task = self.own("tasks.cancel", args[0] if args else None)
        reason = args[1] if len(args) > 1 else None
        if reason is not None and type(reason) is not str:
            raise_lua(f"tasks.cancel: reason must be a string, got {type_for_message(reason)}")
        return self.registry.cancel(task, from_lua_str(reason) if reason else CANCELED_BY_DEFAULT)

    def offer(self, *args):
        """tasks.offer(): the task tools join the section's offers"""
        check_offer_open(self.vm, "tasks.offer")
        for name, (description, parameters) in TASK_TOOLS.items():
            add_offer(self.vm, ToolDef(name, description, parameters, "task"))

    def fanout(self, *args):
        """tasks.fanout(section, inputs): one arm per input, all awaited;
        the first failure cancels the other arms"""
        section = self.section_arg("tasks.fanout", args)
        inputs = args[1] if len(args) > 1 else None
        if type(inputs) is not LuaTable:
            raise_lua(f"tasks.fanout: inputs must be a list, got {type_for_message(inputs)}")
        texts = [input_text("tasks.fanout", inputs.get(i)) for i in range(1, inputs.length() + 1)]
        if self.vm.run.prompt.section(section) is None:
            raise_lua(no_section("tasks.fanout", section, self.vm.run.prompt))
        arms = [self.registry.start(self.vm, "tasks.fanout", section, text, notify=False) for text in texts]
        try:
            yield from self.registry.wait(arms, stop_at_failure=True)
        finally:
            for arm in arms:  # an arm failed, or this VM is being cancelled
                self.registry.cancel(arm, "another arm of the fan-out failed")
        for arm in arms:
            if arm.state == "failed":
                raise_failure(arm)
        return self.results_list(arms)


# ----------------------------------------------------- notices and task tools


def deliver_notices(vm) -> None:
    """Queued task notices join the list as user records when a round's
    request is sent (before the precheck)."""
    while vm.notices:
        text = vm.notices.pop(0)
        vm.messages.records.append(Record("user", text))
        vm.run.events.emit("task_notice", vm.execution_id, vm.section, text=text)


def run_task_tool(vm, tool, call: dict):
    """Answers a call of a task tool; a bad call is answered with text, for
    the model to read, rather than raised. A generator (await_tasks waits)."""
    registry = vm.run.tasks
    args = call["arguments"]
    if tool.name == "task":
        section = args.get("section")
        if not isinstance(section, str):
            text = "task: the section argument must be a section name"
        elif vm.run.prompt.section(section) is None:
            text = no_section("task", section, vm.run.prompt)
        else:
            inp = args.get("input")
            task = registry.start(vm, "task", section, inp if isinstance(inp, str) or inp is None else result_text(inp))
            text = STARTED.format(id=task.id, section=task.section)
    else:
        wanted = args.get("id") if tool.name == "task_status" else args.get("ids")
        if wanted is None:
            tasks = list(vm.spawned)
        else:
            ids = [wanted] if isinstance(wanted, str) else wanted if isinstance(wanted, list) else []
            known = {t.id: t for t in vm.spawned}
            tasks = [known[i] for i in ids if isinstance(i, str) and i in known]
            missing = [i for i in ids if not (isinstance(i, str) and i in known)]
            if missing or not ids:
                return _succeeded(vm, tool, call, NO_TASK.format(fn=tool.name, id=missing[0] if missing else ""))
        if tool.name == "await_tasks":
            yield from registry.wait(tasks)
        text = "\n".join(t.notice() for t in tasks) if tasks else "no tasks were started in this section"
    return _succeeded(vm, tool, call, text)


def _succeeded(vm, tool, call, text: str) -> str:
    vm.run.events.emit("tool_call_succeeded", vm.execution_id, vm.section, name=tool.name, id=call["id"])
    return text
