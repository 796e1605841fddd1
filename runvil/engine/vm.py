"""A section VM (docs/reference/prompt-file.md): a fresh sandboxed Lua state per
section entry, with the Engine globals installed, running the section's
pieces top to bottom."""

from __future__ import annotations

import hashlib
import os
import re

from ..lua.api import Limits, LuaError, LuaTable, Userdata
from ..lua.api import builtin
from ..lua.api import lib_table
from ..lua.api import ModuleFiles, open_package
from ..lua.api import fmt_number, getmetamethod, type_name
from ..prompt import MAX_BLOCK_BYTES
from ..prompt.interpolate import NULL, InterpolationError, fill
from ..prompt.interpolate import NotJSON as Unfit
from ..prompt.model import LuaBlock
from .conversation.compaction import open_compactors
from .conversation.messages import ASSIGN_GLOBAL, MessageList
from .effects import UserTurn
from .errors import ErrorValue, names_hint, raise_lua, run_error_from
from .luajson import JSON_NULL, NotJSON, encode_compact, open_json, record_views, to_json
from .limits import SECTION_ENTRIES, BudgetedState
from .models import loop, open_models
from .strings import from_lua_str, to_lua_str
from .scheduler import waiting_builtin
from .tasks import open_tasks
from .tools import open_tools
from .var import VarView


JUMP_REPORTING = "jump cannot be used while an error is reported (in its __tostring)"
JUMP_ENDED = "jump cannot be used here: its section has ended"


class JumpSignal(BaseException):
    """`jump('Name')`: ends the section; the walk continues at Name."""

    def __init__(self, target: str):
        self.target = target


class SectionVM:
    """One Lua execution context's VM: the H1 pass, a section entry, a task
    or a fan-out arm."""

    def __init__(self, run, section: str | None, execution_id: str, input: str | None = None):
        self.run = run
        self.section = section
        self.execution_id = execution_id
        self.input = run.input if section is None else input
        self.spawned: list = []  # tasks this VM started (tasks.spawn, the task tool)
        self.notices: list[str] = []  # task notices waiting for the next loop round
        self.role: str | None = None  # models.use
        # tools offered in this VM; the H1's offers are in scope everywhere
        self.offers: list = run.h1_offers if section is None else []
        self.rendered_tools = None  # fixed at the first loop round
        self.in_loop = False
        self.compacting = False
        self.compactors_table = None  # the Engine's `compactors` table
        self.closed = False
        self.ctx = run.sched.current  # the context this VM's Lua runs in (a jump elsewhere is refused)
        self.reporting = False  # an uncaught error's __tostring runs (report_error): jump is refused
        self.last_turn = None  # the run's round counter at this VM's last answered round
        self.state = BudgetedState(run.budget, stdout=self._print, limits=run.limits or Limits())
        run.lua_states.add(self.state)
        self.messages = MessageList(self)
        self._install_globals()
        if run.on_vm is not None:
            run.on_vm(self)

    # ------------------------------------------------------------- globals

    def _install_globals(self):
        st = self.state
        G = st.G
        open_json(st)
        G.set_str("var", VarView(self.run.var))
        G.set_str("input", to_lua_str(self.input) if self.input is not None else None)
        G.set_str("prose", "")
        G.set_str("models", open_models(self))
        tools, packs = open_tools(self)
        G.set_str("tools", tools)
        G.set_str("packs", packs)
        G.set_str("compactors", open_compactors(self))
        G.set_str("tasks", open_tasks(self))
        if self.run.chat:
            G.set_str("chat", self._open_chat())
        G.set_str("jump", builtin(lambda *a: self._jump(*a)))
        # `require` and `package` as Lua's (docs/reference/globals.md), confined to
        # the prompt's folder; the module runs through the Engine's call, so
        # it may wait (models.*) as a block does. Like Lua's registry copy,
        # package.loaded stays the same table when `package` is rebound
        folder = str(self.run.prompt.folder)
        self.package = open_package(st, ModuleFiles(folder, MAX_BLOCK_BYTES, chunk_name=_module_chunk_name))
        self.package.on_read = module_hashes(self.run.required)
        G.set_str("require", waiting_builtin("require", self._require))
        st.ns["_package_loaded"] = self.package.loaded
        # `messages` is not a raw global: reads come through __index, and
        # assigning the global is refused, leaving the same list in place.
        lst = self.messages
        meta = LuaTable()

        @builtin
        def g_index(t, k):
            return lst if k == "messages" else None

        @builtin
        def g_newindex(t, k, v):
            if k == "messages":
                raise_lua(ASSIGN_GLOBAL)
            t.set(k, v)

        meta.set_str("__index", g_index)
        meta.set_str("__newindex", g_newindex)
        # The list stays fixed however the block tries: `setmetatable(_G,
        # nil)` meets Lua's "cannot change a protected metatable" (and
        # getmetatable(_G) gives false), `rawset(_G, 'messages', v)` the
        # error assigning the global gives.
        meta.set_str("__metatable", False)
        G.meta = meta
        raw_set = G.get("rawset")

        def rawset(*args):  # not a builtin of its own: errors stay raw_set's
            if len(args) > 1 and args[0] is G and type(args[1]) is str and args[1] == "messages":
                raise_lua(ASSIGN_GLOBAL)
            return raw_set(*args)

        G.set_str("rawset", rawset)

    def _open_chat(self):
        """`chat.read()`: the user's next message, or nil when they are done."""
        def read(*args):
            sched = self.run.sched
            (text,) = yield from sched.await_effects([UserTurn(sched.new_id())])
            return None if text is None else to_lua_str(text)

        return lib_table({"read": waiting_builtin("chat.read", read)}, "chat.")

    def _print(self, text: str) -> None:
        self.run.events.emit("print", self.execution_id, self.section, text=printed_line(text))

    def _jump(self, *args):
        name = args[0] if args else None
        if self.reporting:
            raise_lua(JUMP_REPORTING)
        if self.closed or self.run.sched.current is not self.ctx:
            raise_lua(JUMP_ENDED)
        if self.section is None:
            raise_lua("jump works only in a section, not in the H1 body")
        if type(name) is not str:
            raise_lua("jump needs a section name")
        target = from_lua_str(name)
        if self.run.prompt.section(target) is None:
            raise_lua(f"jump: no section named `{target}` "
                      f"({names_hint(target, [s.name for s in self.run.prompt.sections], 'sections')})")
        entries = self.run.budget.limits.section_entries
        if entries is not None and self.run.budget.entries >= entries:
            raise_lua(SECTION_ENTRIES.format(limit=entries))  # catchable where the jump is
        raise JumpSignal(target)

    def _require(self, *args):
        name = args[0] if args else None
        if type(name) is not str:
            raise_lua("require needs a module name")
        package = self.package
        cached = package.loaded.get(name)
        if cached is not None and cached is not False:
            return cached
        loader, data = package.find_loader(name)
        results = yield from self.state.call_g(loader, name, data)
        return package.store(name, results[0] if results else None, data)

    # --------------------------------------------------------------- pieces

    def run_pieces(self, pieces: list, send_trailing: bool):
        """Runs prose and blocks in order; returns the first non-nil value a
        block returns (which ends the section), or the terminal reply when
        trailing prose is sent, or None. A generator, as everything that
        runs Lua in a context (runvil.engine.scheduler). An error that
        leaves it ends this execution: it leaves with its run error made
        here, while the VM is alive (`report_error`)."""
        try:
            return (yield from self._run_pieces(pieces, send_trailing))
        except LuaError as e:
            if getattr(e, "run_error", None) is None:
                e.run_error = yield from self.report_error(e.value)
            raise

    def report_error(self, value):
        """The run error for an uncaught error value. A table's `__tostring`
        runs here, as Lua of this VM in its context, with a budget of its
        own (a block's): models.*, tasks.* work as in a block (or are
        refused with a Lua error where they cannot wait), `jump` is refused
        (the section has failed); a __tostring that fails, or returns no
        string, leaves Lua's `(error object is a table value)`. A generator."""
        h = getmetamethod(value, "__tostring") if type(value) is LuaTable else None
        if h is None:
            return run_error_from(value)
        self.reporting = True
        self.state.reset_limits()
        try:
            results = yield from self.state.call_g(h, value)
        except LuaError:
            results = ()
        finally:
            self.reporting = False
            self.run.budget.steps += self.state.block_steps()
        text = results[0] if results else None
        if type(text) is int or type(text) is float:
            text = fmt_number(text)
        return run_error_from(value, text if type(text) is str else None)

    def _run_pieces(self, pieces: list, send_trailing: bool):
        pending: list[str] = []
        saw_lua = False
        for piece in pieces:
            if not isinstance(piece, LuaBlock):
                pending.append(piece.text)
                continue
            saw_lua = True
            text = self.fill_prose(pending, fill)
            pending = []
            self.state.G.set_str("prose", to_lua_str(text))
            fn = self.state.instantiate(piece.compiled)
            self.state.reset_limits()  # each block gets the run's limits afresh
            results = yield from self.run_block(fn)
            if results and results[0] is not None:
                return results[0]
        del saw_lua
        if not send_trailing:
            # the H1 body's trailing prose is neither a block's `prose` nor
            # sent: nothing reads it, so its references are not filled
            return None
        text = self.fill_prose(pending, fill)
        if text:
            return (yield from self.send_prose(text))
        return None

    def run_block(self, fn):
        """Calls a block's function, counting its steps in the run's budget."""
        budget = self.run.budget
        overrun = budget.overrun()
        if overrun is not None:
            raise LuaError(_engine_lua_error(overrun))
        try:
            return (yield from self.state.call_g(fn))
        finally:
            budget.steps += self.state.block_steps()

    def fill_prose(self, pieces: list[str], fill) -> str:
        text = trim_blank_lines(_COMMENT.sub("", "\n".join(pieces)))
        if not text:
            return ""
        try:
            return fill(text, self.lookup_global)
        except InterpolationError as e:
            raise LuaError(_engine_lua_error(e.message)) from None

    def lookup_global(self, path: list[str]):
        """`{{name.field}}` in prose: a global's value as Python JSON data
        (str as text), None for nil, or NotJSON for anything else."""
        v = self.messages if path[0] == "messages" else self.state.G.get(to_lua_str(path[0]))
        for key in path[1:]:
            k = _path_key(key)
            if isinstance(v, VarView):
                v = v.lua_index(to_lua_str(key))  # a stored null reads as json.null
            elif type(v) is LuaTable:
                v = v.get(k)
            elif v is None:
                return None
            elif isinstance(v, Userdata) and v is not JSON_NULL and v.meta is None:
                # an Engine object's fields read as Lua reads them:
                # {{messages.1.content}}, {{err.message}}, {{h.name}}
                try:
                    v = v.lua_index(k)
                except LuaError:
                    return Unfit(type_name(v))
            else:
                return Unfit(type_name(v))
        if v is None:
            return None
        if v is JSON_NULL:
            return NULL  # JSON data: `null`, not nil
        if type(v) is str:
            return from_lua_str(v)
        try:
            return to_json(v)
        except NotJSON as e:
            return Unfit(getattr(e, "lua_type", None) or type_name(v))

    def send_prose(self, text: str):
        """Trailing prose is sent: messages:user(prose), then models.loop();
        the terminal reply is the section's result."""
        self.state.call(lambda: (self.messages._methods["user"](self.messages, to_lua_str(text)), None)[1])
        yield from loop(self, None, None)
        last = self.messages.records[-1].content if self.messages.records else None
        return to_lua_str(last) if isinstance(last, str) else None

    def result_text(self, value) -> str:
        """A result as text: strings as they are, numbers and booleans with
        tostring, tables as compact JSON."""
        t = type(value)
        if t is str:
            return from_lua_str(value)
        if t is int or t is float:
            return fmt_number(value)
        if t is bool:
            return "true" if value else "false"
        if isinstance(value, (list, dict)):
            return encode_compact(value)
        try:
            return encode_compact(to_json(value, views=record_views))  # a view gives its record
        except NotJSON as e:
            raise LuaError(_engine_lua_error(f"the result must be JSON data: {e.reason}")) from None

    def close(self):
        """Ends the VM: the objects that refer back to the VM let go of it.
        Its state is closed, not emptied: a function of it may still run
        after the VM ended (a task's error value re-raised in its parent
        calls its `__tostring`), so its globals and namespace stay."""
        self.closed = True
        self.state.close()
        self.messages.release()
        self.compactors_table = None


#: the longest `print` line a run keeps, in bytes: the events keep every
#: line for the run's whole life (the log, the page, --db), so a longer
#: one is cut, at a UTF-8 character's start, and ends with PRINT_CUT
PRINT_LIMIT = 1 << 20
PRINT_CUT = "… [cut: {n} more bytes]"


def printed_line(text: str) -> str:
    """A line `print` wrote (a Lua string, its newline included) as the
    print event keeps it: without its trailing newlines, cut past
    PRINT_LIMIT bytes."""
    end = len(text)
    while end and text[end - 1] == "\n":
        end -= 1
    if end <= PRINT_LIMIT:
        return from_lua_str(text[:end] if end < len(text) else text)
    cut = PRINT_LIMIT
    while cut > PRINT_LIMIT - 3 and "\x80" <= text[cut] <= "\xbf":  # not inside a character
        cut -= 1
    return from_lua_str(text[:cut]) + PRINT_CUT.format(n=end - cut)


def _path_key(key: str):
    """A `{{a.b.3}}` path part as the Lua key it reads: digits are an
    integer when one fits in 64 bits, else the float Lua's numeral gives
    (so 5,000 digits read key `1e+5000`, which is inf, as `t[1e5000]`)."""
    if not (key.isdigit() and key.isascii()):
        return to_lua_str(key)
    if len(key) <= 19 and int(key) < 2**63:
        return int(key)
    return float(key)


def module_hashes(required: dict):
    """What the package library calls with each module it reads: the run
    keeps the module's hash by its path in the prompt's folder (a batch's
    stored row holds only while they still match). A closure over the dict
    alone, so the VM and its package refer to each other through nothing."""

    def read(filename: str, data: bytes) -> None:
        required[os.path.normpath(filename)] = hashlib.sha256(data).hexdigest()

    return read


def _module_chunk_name(filename: str) -> str:
    """A module's chunk is named by its path in the prompt's folder
    (`util/text.lua`), as the host's error pictures find it."""
    return "@" + os.path.normpath(filename)


def _engine_lua_error(message: str):
    return ErrorValue("lua", message)


#: an HTML comment in prose: invisible in Markdown, so never sent or filled in
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)


def trim_blank_lines(text: str) -> str:
    """Prose trimmed of leading and trailing blank lines."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)

