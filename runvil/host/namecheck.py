"""`runvil check`'s static pass over literal names: what a run would report
with a did-you-mean, found before the run (docs/reference/commands.md, `runvil check`).

A prompt's Lua is scanned token by token (no Lua parser: a check with warm
caches imports neither lark nor the Engine) for calls whose argument is a
string literal: `jump('Fnish')`, `models.use('writr')`,
`tasks.spawn('Ask2')`, `tools.offer('web/serch')`, `packs.offer('wbe')`;
for the `var` fields it sets; and for the sections that run a model round.

A name that certainly fails when its call runs is an *error* (exit 3, as a
parse error): the run would raise at that call, with the message given
here, which is the run's own. A likely mistake is a *warning* (exit 0):
`{{var.x}}` that no block sets while some block writes `var` by a computed
key, a global that is never set and is one letter away from an Engine
global (`mesages`), `models.get` of a name close to a declared role.
Anything the scan cannot see through (a shadowed `jump`, `require`d code
that may select a model or set `var`) lowers an error to a warning or
drops it.
"""

from __future__ import annotations

import re

from ..structs import Struct

ENGINE_GLOBALS = ("messages", "models", "tools", "packs", "tasks", "compactors", "json", "var", "prose", "input",
                  "jump", "require")
LUA_GLOBALS = ("assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall", "print", "rawequal", "rawget",
               "rawlen", "rawset", "select", "setmetatable", "tonumber", "tostring", "type", "xpcall", "string",
               "table", "math", "utf8", "coroutine", "os", "_G", "_ENV", "_VERSION")
NO_MODEL = "no model selected; call models.use(role) or models.default(role) first"
#: calls whose literal first argument the pass checks
CHECKED_CALLS = ("jump", "models.use", "models.default", "models.get", "tasks.spawn", "tasks.fanout", "tools.offer",
                 "tools.call", "packs.offer")

_TOKEN = re.compile(r"""
    (?P<long_comment>--\[(?P<lc>=*)\[.*?\](?P=lc)\])
  | (?P<comment>--[^\n]*)
  | (?P<long_string>\[(?P<ls>=*)\[.*?\](?P=ls)\])
  | (?P<string>"(?:\\.|\\\n|[^"\\\n])*"|'(?:\\.|\\\n|[^'\\\n])*')
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<number>0[xX][0-9a-fA-F.]*(?:[pP][+-]?[0-9]+)?|[0-9][0-9.]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)
  | (?P<op>==|~=|<=|>=|\.\.\.|\.\.|::|<<|>>|//|[^\s])
  | (?P<space>\s+)
""", re.S | re.X)
_PLAIN_STRING = re.compile(r"[^\\]*")
_VAR_REF = re.compile(r"(?<!\\)\{\{\s*var\.([A-Za-z_][A-Za-z_0-9]*)")
_GLOBAL_REF = re.compile(r"(?<!\\)\{\{\s*([A-Za-z_][A-Za-z_0-9]*)\s*(?:\.|\}\})")


class Finding(Struct, frozen=True):
    """One error or warning: its level, file line and message (the run's
    own words for an error), and a hint for a `help:` line."""

    level: str  # "error" or "warning"
    line: int
    message: str
    name: str | None = None  # the name at fault, for the caret under it
    help: str | None = None

    def as_json(self, path: str) -> dict:
        data = {"level": self.level, "file": path, "line": self.line, "message": self.message}
        return data if self.help is None else {**data, "help": [self.help]}


class Token(Struct, frozen=True):
    kind: str  # name, string, number, op
    value: str  # a string's text when it has no escape, else None
    line: int


def tokens(code: str, first_line: int) -> list[Token]:
    """The tokens of a block's Lua code (comments dropped), with file lines."""
    out = []
    line = first_line
    for m in _TOKEN.finditer(code):
        kind = m.lastgroup
        text = m.group()
        if kind in ("name", "number", "op"):
            out.append(Token(kind, text, line))
        elif kind == "string":
            body = text[1:-1]
            out.append(Token("string", body if _PLAIN_STRING.fullmatch(body) else None, line))
        elif kind == "long_string":
            out.append(Token("string", None, line))
        line += text.count("\n")
    return out


class Block:
    """What the scan found in one Lua block."""

    def __init__(self, toks: list[Token]):
        self.toks = toks
        self.calls: list[tuple[str, Token | None, int]] = []  # (callee, literal argument or None, line)
        self.locals: set[str] = set()  # names declared local, or assigned as globals
        self.var_set: set[str] = set()
        self.var_dynamic = False
        self.globals_used: list[Token] = []
        self._scan()

    def _scan(self) -> None:
        t = self.toks
        n = len(t)
        self._declarations()
        for i, tok in enumerate(t):
            before = t[i - 1].value if i else ""
            if tok.kind != "name" or before in (".", ":", "::", "goto"):
                continue
            after = t[i + 1].value if i + 1 < n else ""
            if after == "=" and before not in ("local", ","):
                self.locals.add(tok.value)  # a global assigned: maybe not the Engine's any more
            if tok.value == "var":
                self._var(i)
                continue
            callee, j = tok.value, i + 1
            if after == "." and i + 2 < n and t[i + 2].kind == "name":
                callee, j = f"{tok.value}.{t[i + 2].value}", i + 3
            nxt = t[j] if j < n else None
            if nxt is not None and (nxt.value == "(" or nxt.kind == "string"):
                arg = nxt if nxt.kind == "string" else (t[j + 1] if j + 1 < n and t[j + 1].kind == "string"
                                                        and j + 2 < n and t[j + 2].value in (",", ")") else None)
                self.calls.append((callee, arg, tok.line))
            if after in (".", ":", "(", "["):
                self.globals_used.append(tok)

    def _declarations(self) -> None:
        """The names a block declares: `local a, b`, `local function f`,
        `for k, v in`, and a function's parameters."""
        t = self.toks
        n = len(t)
        for i, tok in enumerate(t):
            if tok.value == "local" or tok.value == "for":
                j = i + 1
                if j < n and t[j].value == "function":
                    j += 1
                while j < n and t[j].kind == "name":
                    self.locals.add(t[j].value)
                    j += 1
                    if j + 2 < n and t[j].value == "<":  # <const>, <close>
                        j += 3
                    if j < n and t[j].value == ",":
                        j += 1
                    else:
                        break
            elif tok.value == "function":
                j = i + 1
                if j + 1 < n and t[j].kind == "name" and t[j + 1].value == "(":
                    self.locals.add(t[j].value)  # `function jump()`: a global of the prompt's own
                while j < n and (t[j].kind == "name" or t[j].value in (".", ":")):
                    j += 1
                if j < n and t[j].value == "(":
                    j += 1
                    while j < n and t[j].value != ")":
                        if t[j].kind == "name":
                            self.locals.add(t[j].value)
                        j += 1

    def _var(self, i: int) -> None:
        t = self.toks
        after = t[i + 1].value if i + 1 < len(t) else ""
        if after == "." and i + 3 < len(t) and t[i + 2].kind == "name":
            if t[i + 3].value == "=":
                self.var_set.add(t[i + 2].value)
        elif after == "[":
            key = t[i + 2] if i + 2 < len(t) else None
            if key is not None and key.kind == "string" and key.value is not None and i + 4 < len(t) \
                    and t[i + 3].value == "]":
                if t[i + 4].value == "=":
                    self.var_set.add(key.value)
            else:
                self.var_dynamic = True
        else:
            self.var_dynamic = True  # `var` itself handed on: anything may be written through it


class Pass:
    """The checks of one prompt, from its frontmatter and its body."""

    def __init__(self, frontmatter, h1, sections, packs=None):
        self.roles = list(frontmatter.models)
        self.uses = list(frontmatter.uses)
        self.h1 = h1
        self.sections = list(sections)
        self.section_names = [s.name for s in self.sections]
        self._packs = packs  # pack -> its tool names, read when a tool is offered
        self.findings: list[Finding] = []
        self.blocks = {id(s): [Block(tokens(b.code, b.line)) for b in _blocks(s)] for s in (h1, *self.sections)}
        every = [b for bs in self.blocks.values() for b in bs]
        self.shadowed = set().union(*(b.locals for b in every)) if every else set()
        self.requires = any(c[0] == "require" for b in every for c in b.calls)
        self.var_set = set().union(*(b.var_set for b in every)) if every else set()
        self.var_dynamic = any(b.var_dynamic for b in every)

    def reached(self) -> set[str]:
        """The sections a run may enter: the first, one after a section
        that does not end with a jump, and any a literal jump or task names
        (every one, when a name is computed or the model may start tasks)."""
        every = [(c, arg) for bs in self.blocks.values() for b in bs for c, arg, _ in b.calls]
        if "jump" in self.shadowed or any(c in ("jump", "tasks.spawn", "tasks.fanout") and (arg is None or
                                                                                          arg.value is None)
                                          or c == "tasks.offer" for c, arg in every):
            return set(self.section_names)
        reached = {arg.value for c, arg in every if c in ("jump", "tasks.spawn", "tasks.fanout")}
        falls = True  # the walk enters the first section
        for section in self.sections:
            if falls:
                reached.add(section.name)
            falls = not _ends_with_jump(section, self.blocks[id(section)])
        return reached

    def run(self) -> list[Finding]:
        reached = self.reached()
        for section in (self.h1, *self.sections):
            for block in self.blocks[id(section)]:
                for callee, arg, line in block.calls:
                    if callee.split(".")[0] not in self.shadowed and arg is not None and arg.value is not None:
                        self._call(section, callee, arg.value, line)
                self._misspelt_globals(block)
            if section is not self.h1 and section.name in reached:
                self._model_selected(section)
                self._var_refs(section)
        return sorted(self.findings, key=lambda f: (f.line, f.level))

    def _fail(self, line: int, message: str, name: str | None = None, help: str | None = None, level="error"):
        self.findings.append(Finding(level, line, message, name, help))

    def _call(self, section, callee: str, name: str, line: int) -> None:
        if callee == "jump" and name not in self.section_names:
            if section is self.h1:
                return self._fail(line, "jump works only in a section, not in the H1 body", "jump")
            self._fail(line, f"jump: no section named `{name}` ({names_hint(name, self.section_names, 'sections')})",
                       name)
        elif callee in ("models.use", "models.default") and name not in self.roles:
            from ..engine.models import unknown_role

            self._fail(line, unknown_role(callee.split(".")[1], name, self.roles), name)
        elif callee == "models.get" and name not in self.roles:
            import difflib

            close = difflib.get_close_matches(name, self.roles, n=1, cutoff=0.6)
            if close:
                self._fail(line, f"models.get: '{name}' is not a declared role, so it is read as a model id; "
                                 f"did you mean '{close[0]}'?", name, level="warning")
        elif callee in ("tasks.spawn", "tasks.fanout") and name not in self.section_names:
            from types import SimpleNamespace

            from ..engine.tasks import no_section

            self._fail(line, no_section(callee, name, SimpleNamespace(sections=self.sections)), name)
        elif callee in ("tools.offer", "tools.call") and name.count("/") == 1:
            self._pack(line, callee, *name.split("/"))
        elif callee == "packs.offer":
            self._pack(line, callee, name, None)

    def _pack(self, line: int, fn: str, pack: str, tool: str | None) -> None:
        if pack not in self.uses:
            from ..engine.tools import NOT_IN_USES

            return self._fail(line, NOT_IN_USES.format(fn=fn, pack=pack), pack)
        packs = self.packs()
        if pack not in packs:
            from ..engine.tools import UNKNOWN_PACK

            return self._fail(line, UNKNOWN_PACK.format(fn=fn, pack=pack), pack)
        if tool is not None and tool not in packs[pack]:
            from ..engine.tools import UNKNOWN_TOOL

            self._fail(line, UNKNOWN_TOOL.format(fn=fn, pack=pack, tool=tool,
                                                 known=names_hint(tool, packs[pack], "its tools")), tool)

    def packs(self) -> dict:
        """Pack -> its tool names, for the Packs the prompt uses (read once:
        only a prompt that names a Pack's tool imports the Packs)."""
        if self._packs is None:
            from ..harness.packs import discover_packs, pack_schemas

            self._packs = {p: list(tools) for p, tools in pack_schemas(discover_packs(wanted=self.uses)).items()}
        return self._packs

    def _model_selected(self, section) -> None:
        """A section that runs a round with no model selected: the run
        raises missing_model there."""
        blocks = self.blocks[id(section)]
        calls = {c[0] for b in (*blocks, *self.blocks[id(self.h1)]) for c in b.calls}
        if "models" in self.shadowed or self.requires or "models.default" in calls:
            return
        if any(c[0] == "models.use" for b in blocks for c in b.calls):
            return
        sends = section.pieces and not hasattr(section.pieces[-1], "code")
        rounds = [c for b in blocks for c in b.calls if c[0] in ("models.loop", "models.infer")]
        if not sends and not rounds:
            return
        if sends:  # the prose's first line that is not blank
            prose = section.pieces[-1]
            text_lines = prose.text.split("\n")
            line = prose.line + next((k for k, t in enumerate(text_lines) if t.strip()), 0)
        else:
            line = rounds[0][2]
        role = self.roles[0] if len(self.roles) == 1 else "ROLE"
        self._fail(line, f"section `{section.name}` runs a model round with no model selected: {NO_MODEL}",
                   help=f"add models.default('{role}') to the H1 block" + (
                       "" if len(self.roles) == 1 else f", or models.use('{role}') to the section"))

    def _var_refs(self, section) -> None:
        for piece in section.pieces:
            if hasattr(piece, "code"):
                continue
            for k, line in enumerate(piece.text.split("\n")):
                for m in _GLOBAL_REF.finditer(line):
                    name = m.group(1)
                    if name in self.var_set and name not in ENGINE_GLOBALS and name not in self.shadowed:
                        self._fail(piece.line + k, f"{{{{{name}}}}} reads a global that no block sets, so the run "
                                   f"fails with global `{name}` is nil", name,
                                   help=f"var.{name} is set: write {{{{var.{name}}}}}", level="warning")
                for m in _VAR_REF.finditer(line):
                    name = m.group(1)
                    if name in self.var_set:
                        continue
                    unsure = self.var_dynamic or self.requires
                    import difflib

                    close = difflib.get_close_matches(name, sorted(self.var_set), n=1, cutoff=0.6)
                    self._fail(piece.line + k, f"{{{{var.{name}}}}}: no block sets var.{name}, so the run fails with "
                               f"global `var.{name}` is nil", f"var.{name}",
                               help=f"did you mean `var.{close[0]}`?" if close else None,
                               level="warning" if unsure else "error")

    def _misspelt_globals(self, block: Block) -> None:
        import difflib

        known = set(ENGINE_GLOBALS) | set(LUA_GLOBALS) | self.shadowed
        for tok in block.globals_used:
            if tok.value in known:
                continue
            close = difflib.get_close_matches(tok.value, ENGINE_GLOBALS, n=1, cutoff=0.8)
            if close:
                self._fail(tok.line, f"global '{tok.value}' is never set", tok.value,
                           help=f"did you mean '{close[0]}'?", level="warning")


def names_hint(name: str, names, label: str) -> str:
    """The Engine's list of what exists, with its did-you-mean (imported
    only for a finding: a good prompt's check never loads the Engine)."""
    from ..engine.errors import names_hint as hint

    return hint(name, names, label)


def _ends_with_jump(section, blocks: list[Block]) -> bool:
    """Whether a section's last piece is a block whose last statement is a
    `jump(...)` at its top level (`jump('A')`, `return jump 'A'`)."""
    if not section.pieces or not hasattr(section.pieces[-1], "code") or not blocks:
        return False
    t = blocks[-1].toks
    if len(t) >= 4 and t[-1].value == ")" and t[-2].kind == "string" and t[-3].value == "(":
        return t[-4].value == "jump"
    return len(t) >= 2 and t[-1].kind == "string" and t[-2].value == "jump"


def _blocks(section) -> list:
    return [p for p in section.pieces if hasattr(p, "code")]


def check_names(text: str, path: str) -> list[Finding]:
    """The findings of a prompt whose text parses (check_text found no
    error): its frontmatter and body are read again, without compiling."""
    from ..prompt import split_lines
    from ..prompt.frontmatter_cache import read_frontmatter
    from ..prompt.structure import read_body, split_frontmatter

    lines = split_lines(text)
    end, body_start, _ = split_frontmatter(lines)
    frontmatter, _ = read_frontmatter("\n".join(lines[1:end - 1]), 2, path)
    body = read_body(lines, body_start, path)
    return Pass(frontmatter, body.h1, body.sections).run()
