"""Reading and checking the YAML frontmatter of a prompt file (docs/reference/prompt-file.md).

The frontmatter is the YAML between a first line `---` and the next `---`
line. Every problem is reported as `invalid frontmatter: {detail}` on the
file line of the offending key or value, and all of them are collected (for
`runvil check`), not just the first.

Decisions (where the spec is silent):

- **YAML 1.2 core schema.** Only `true`/`false` are booleans, only
  `null`/`~`/empty are null, integers are decimal, `0o17` or `0x1f`, and
  there are no timestamps or merge keys. So `thinking: off` is the string
  `off`, `description: No` is a string, and `max_tool_iterations: 010` is
  ten, as a user reads them (PyYAML's YAML 1.1 would say False, False, 8).
- **`{raw}` is the value as written** in the file: the source text of the
  value, quotes included (`"ten"` shows as `"ten"`, `2.5` as `2.5`,
  `24.0` as `24.0`). A value written over several lines is joined into one
  line, long
  values are cut at 60 characters with `...`, and an empty value shows as
  `nothing`.
- **A whole number is a bare YAML integer**: `2.5`, `24.0`, `1e3`, `true`,
  `"24"` and `nothing` all get `must be a whole number`; any integer outside
  1..1000, however large, gets `must be between 1 and 1000`.
- `models:` or `uses:` left empty mean no roles and no packs; a role with no
  options may be written `writer: {}` or `writer:`.
- A duplicate key (at any level we check) is refused rather than letting the
  last one win silently.
- **Hostile YAML is a parse error** (the scripted world reads YAML with the
  same loader): a frontmatter over `MAX_FRONTMATTER_BYTES`, nesting deeper
  than `MAX_DEPTH` levels, aliases that expand
  to more than `MAX_NODES` nodes (a "billion laughs" document), an alias
  inside the node it names, an integer of more digits than CPython turns
  into a number (4300), and control characters are each refused with their
  position.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent

from .model import Frontmatter, ParseError, RoleOptions
from .structure import MESSAGE

NOT_A_MAPPING = "the frontmatter must be a mapping of keys, got {raw}"
MISSING_KEY = "missing required key '{key}'"
UNKNOWN_KEY = "unknown key '{key}' (only keys starting with 'x-' may be added)"
DID_YOU_MEAN = "; did you mean '{name}'?"  # after UNKNOWN_KEY or UNKNOWN_OPTION, when a name is close
DUPLICATE_KEY = "duplicate key '{key}'"
BAD_NAME = "name must be lowercase letters, digits and '-', got {raw}"
BAD_DESCRIPTION = "description must be a non-empty string, got {raw}"
BAD_RUNVIL = "runvil must be 0, got {raw}"
BAD_MODELS = "models must be a mapping of role names to options, got {raw}"
BAD_ROLE_NAME = "models: a role name must be a non-empty string, got {raw}"
BAD_ROLE = "models.{role} must be a mapping of options, got {raw}"
UNKNOWN_OPTION = "models.{role}: unknown option '{option}'"
BAD_MODEL_ID = "models.{role}.model must be a non-empty string, got {raw}"
BAD_NUMBER = "models.{role}.{option} must be a number, got {raw}"
BAD_POSITIVE = "models.{role}.{option} must be a positive whole number, got {raw}"
BAD_THINKING = "models.{role}.thinking must be one of off, low, medium, high, got {raw}"
BAD_USES = "uses must be a list of pack names, got {raw}"
BAD_PACK = "uses: a pack name must be a non-empty string, got {raw}"
DUPLICATE_PACK = "uses lists pack '{pack}' twice"
NOT_WHOLE = "max_tool_iterations must be a whole number, got {raw}"
OUT_OF_RANGE = "max_tool_iterations must be between 1 and 1000, got {raw}"

REQUIRED = ("name", "description", "runvil")
OPTIONAL = ("models", "uses", "max_tool_iterations")
ROLE_OPTIONS = ("model", "temperature", "top_p", "max_tokens", "thinking", "context")
THINKING = ("off", "low", "medium", "high")
DEFAULT_MAX_TOOL_ITERATIONS = 24
_NAME = re.compile(r"[a-z0-9-]+\Z")

#: YAML nesting, in levels: within the default recursion limit of a host
#: thread (PyYAML composes and constructs recursively)
MAX_DEPTH = 100
#: the nodes a document may have, each alias counting the nodes it stands for
MAX_NODES = 100_000
#: digits of an integer: CPython's limit for turning text into an int
MAX_INT_DIGITS = 4300
TOO_DEEP = "the YAML nests deeper than {limit} levels"
TOO_MANY_NODES = "the YAML holds more than {limit} nodes (an alias counts as the nodes it names)"
TOO_BIG_FRONTMATTER = "the frontmatter is {size} bytes; the limit is {limit} bytes"
#: the frontmatter's size (bytes): PyYAML reads about a megabyte a second
MAX_FRONTMATTER_BYTES = 256 * 1024
RECURSIVE_ALIAS = "the alias *{anchor} is inside the node it names"
TOO_MANY_DIGITS = "an integer of {digits} digits is too long (the limit is {limit} digits)"
BAD_CHARACTER = "the control character U+{code:04X} is not allowed in YAML"


# --- YAML 1.2 core schema on top of PyYAML's safe loader -------------------


class FrontmatterLoader(yaml.SafeLoader):
    """PyYAML's safe loader, bounded: its composer counts depth and nodes
    (aliases by the size of what they name), so a hostile document is a
    marked error before anything is built from it."""

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._sizes: dict[str, int] = {}  # anchor -> nodes it stands for
        self._open: set[str] = set()  # anchors whose node is being composed

    def _count(self, n: int, mark) -> None:
        self._nodes += n
        if self._nodes > MAX_NODES:
            raise ComposerError(None, None, TOO_MANY_NODES.format(limit=MAX_NODES), mark)

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            if event.anchor in self._open:
                raise ComposerError(None, None, RECURSIVE_ALIAS.format(anchor=event.anchor), event.start_mark)
            self._count(self._sizes.get(event.anchor, 1), event.start_mark)
            return super().compose_node(parent, index)
        if self._depth >= MAX_DEPTH:
            raise ComposerError(None, None, TOO_DEEP.format(limit=MAX_DEPTH), event.start_mark)
        self._count(1, event.start_mark)
        before = self._nodes
        anchor = event.anchor
        if anchor is not None:
            self._open.add(anchor)
        self._depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open.discard(anchor)
        if anchor is not None:
            self._sizes[anchor] = self._nodes - before + 1
        return node


_DROPPED = {f"tag:yaml.org,2002:{t}" for t in ("bool", "int", "float", "null", "timestamp", "value", "merge")}
FrontmatterLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _DROPPED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
FrontmatterLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
FrontmatterLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
FrontmatterLoader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
FrontmatterLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))


def _construct_bool(loader, node):
    value = loader.construct_scalar(node)
    if value not in ("true", "True", "TRUE", "false", "False", "FALSE"):
        raise ConstructorError(None, None, f"invalid boolean '{value}'", node.start_mark)
    return value in ("true", "True", "TRUE")


def _construct_int(loader, node):
    value = loader.construct_scalar(node)
    if not _INT.match(value):
        raise ConstructorError(None, None, f"invalid integer '{value}'", node.start_mark)
    if value.startswith(("0o", "0x")):
        return int(value[2:], 8 if value[1] == "o" else 16)  # no digit limit for powers of two
    digits = len(value.lstrip("+-"))
    if digits > MAX_INT_DIGITS:
        raise ConstructorError(None, None, TOO_MANY_DIGITS.format(digits=digits, limit=MAX_INT_DIGITS), node.start_mark)
    return int(value, 10)


def _construct_float(loader, node):
    value = loader.construct_scalar(node)
    if not _FLOAT.match(value):
        raise ConstructorError(None, None, f"invalid float '{value}'", node.start_mark)
    lowered = value.lower()
    if lowered.endswith(".inf"):
        return -math.inf if lowered.startswith("-") else math.inf
    if lowered == ".nan":
        return math.nan
    return float(value)


FrontmatterLoader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
FrontmatterLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
FrontmatterLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


# --- checking the keys -------------------------------------------------------


class _Checker:
    """Validates the composed YAML nodes, collecting every problem."""

    def __init__(self, loader: FrontmatterLoader, text: str, first_line: int, path: str):
        self.loader, self.text, self.first_line, self.path = loader, text, first_line, path
        self.errors: list[ParseError] = []

    def fail(self, node, detail: str) -> None:
        # A missing key is reported on the opening `---` line.
        line = self.first_line + node.start_mark.line if node is not None else self.first_line - 1
        self.errors.append(ParseError("Frontmatter", MESSAGE.format(detail=detail), line, self.path))

    def raw(self, node) -> str:
        written = self.text[node.start_mark.index : node.end_mark.index]
        written = re.sub(r"[ \t]*\n\s*", " ", written).strip()
        if not written:
            return "nothing"
        return written if len(written) <= 60 else written[:57] + "..."

    def key_text(self, key, node) -> str:
        """A key for a message: a string as it is, anything else (`~`, `1`,
        `[a]`) as written, never as a Python value (`None`)."""
        return key if isinstance(key, str) else self.raw(node)

    def value(self, node) -> Any:
        return self.loader.construct_object(node, deep=True)

    def pairs(self, mapping_node) -> list[tuple[Any, Any, Any]]:
        """(key, key_node, value_node) in file order, refusing duplicates."""
        seen: set = set()
        out = []
        for knode, vnode in mapping_node.value:
            key = self.value(knode)
            marker = (type(key), key) if isinstance(key, (str, int, float, bool, type(None))) else repr(key)
            if marker in seen:
                self.fail(knode, DUPLICATE_KEY.format(key=self.key_text(key, knode)))
                continue
            seen.add(marker)
            out.append((key, knode, vnode))
        return out

    def check(self, top) -> Frontmatter | None:
        if top is None:
            top = yaml.MappingNode("tag:yaml.org,2002:map", [], None, None)
        elif not isinstance(top, yaml.MappingNode):
            self.fail(top, NOT_A_MAPPING.format(raw=self.raw(top)))
            return None
        fields: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        present: set[str] = set()
        for key, knode, vnode in self.pairs(top):
            if isinstance(key, str) and key.startswith("x-"):
                extra[key] = self.value(vnode)
            elif key in REQUIRED or key in OPTIONAL:
                present.add(key)
                checked = getattr(self, f"check_{key}")(vnode)
                if checked is not _BAD:
                    fields[key] = checked
            else:
                self.fail(knode, UNKNOWN_KEY.format(key=self.key_text(key, knode))
                          + did_you_mean(key, (*REQUIRED, *OPTIONAL)))
        for key in REQUIRED:
            if key not in present:
                self.fail(None, MISSING_KEY.format(key=key))
        if self.errors:
            return None
        return Frontmatter(extra=extra, **fields)

    def check_name(self, node):
        v = self.value(node)
        if isinstance(v, str) and _NAME.match(v):
            return v
        self.fail(node, BAD_NAME.format(raw=self.raw(node)))
        return _BAD

    def check_description(self, node):
        v = self.value(node)
        if isinstance(v, str) and v.strip():
            return v
        self.fail(node, BAD_DESCRIPTION.format(raw=self.raw(node)))
        return _BAD

    def check_runvil(self, node):
        v = self.value(node)
        if type(v) is int and v == 0:
            return 0
        self.fail(node, BAD_RUNVIL.format(raw=self.raw(node)))
        return _BAD

    def check_max_tool_iterations(self, node):
        v = self.value(node)
        if type(v) is not int:
            self.fail(node, NOT_WHOLE.format(raw=self.raw(node)))
            return _BAD
        if not 1 <= v <= 1000:
            self.fail(node, OUT_OF_RANGE.format(raw=self.raw(node)))
            return _BAD
        return v

    def check_uses(self, node):
        if _is_null(node):
            return ()
        if not isinstance(node, yaml.SequenceNode):
            self.fail(node, BAD_USES.format(raw=self.raw(node)))
            return _BAD
        packs: list[str] = []
        ok = True
        for item in node.value:
            v = self.value(item)
            if not (isinstance(v, str) and v.strip()):
                self.fail(item, BAD_PACK.format(raw=self.raw(item)))
                ok = False
            elif v in packs:
                self.fail(item, DUPLICATE_PACK.format(pack=v))
                ok = False
            else:
                packs.append(v)
        return tuple(packs) if ok else _BAD

    def check_models(self, node):
        if _is_null(node):
            return {}
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, BAD_MODELS.format(raw=self.raw(node)))
            return _BAD
        roles: dict[str, RoleOptions] = {}
        ok = True
        for role, knode, vnode in self.pairs(node):
            if not (isinstance(role, str) and role.strip()):
                self.fail(knode, BAD_ROLE_NAME.format(raw=self.raw(knode)))
                ok = False
                continue
            options = self.check_role(role, vnode)
            if options is _BAD:
                ok = False
            else:
                roles[role] = options
        return roles if ok else _BAD

    def check_role(self, role: str, node):
        if _is_null(node):
            return RoleOptions()
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, BAD_ROLE.format(role=role, raw=self.raw(node)))
            return _BAD
        options: dict[str, Any] = {}
        ok = True
        for option, knode, vnode in self.pairs(node):
            if option not in ROLE_OPTIONS:
                self.fail(knode, UNKNOWN_OPTION.format(role=role, option=self.key_text(option, knode))
                          + did_you_mean(option, ROLE_OPTIONS))
                ok = False
                continue
            v = self.value(vnode)
            raw = self.raw(vnode)
            if option == "model":
                good, detail = isinstance(v, str) and bool(v.strip()), BAD_MODEL_ID
            elif option in ("temperature", "top_p"):
                good = _finite_number(v)
                detail = BAD_NUMBER
            elif option in ("max_tokens", "context"):
                good, detail = type(v) is int and v > 0, BAD_POSITIVE
            else:
                good, detail = isinstance(v, str) and v in THINKING, BAD_THINKING
            if good:
                options[option] = v
            else:
                self.fail(vnode, detail.format(role=role, option=option, raw=raw))
                ok = False
        return RoleOptions(**options) if ok else _BAD


_BAD = object()


def did_you_mean(name, names) -> str:
    """`; did you mean 'models'?` for a misspelt key (`modles`), else ""."""
    if not isinstance(name, str):
        return ""
    import difflib  # here: only a refused key pays for it

    close = difflib.get_close_matches(name, list(names), n=1, cutoff=0.6)
    return DID_YOU_MEAN.format(name=close[0]) if close else ""


def _finite_number(v) -> bool:
    """A number a provider can be sent as a float: an integer too large
    for one (a 400-digit hex) is no more a temperature than NaN is."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _is_null(node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def read_frontmatter(text: str, first_line: int, path: str) -> tuple[Frontmatter | None, list[ParseError]]:
    """Parses and checks the YAML `text` whose first line is file line
    `first_line`. Returns the frontmatter (None when invalid) and every
    problem found."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FRONTMATTER_BYTES:  # reported on the opening `---` line
        detail = TOO_BIG_FRONTMATTER.format(size=size, limit=MAX_FRONTMATTER_BYTES)
        return None, [ParseError("Frontmatter", MESSAGE.format(detail=detail), first_line - 1, path)]
    try:
        loader = FrontmatterLoader(text)
    except yaml.reader.ReaderError as exc:
        line, detail = yaml_problem(exc, text)
        return None, [ParseError("Frontmatter", MESSAGE.format(detail=detail), first_line + line, path)]
    try:
        top = loader.get_single_node()
        checker = _Checker(loader, text, first_line, path)
        frontmatter = checker.check(top)
        return frontmatter, checker.errors
    except yaml.YAMLError as exc:
        line, detail = yaml_problem(exc, text)
        return None, [ParseError("Frontmatter", MESSAGE.format(detail=detail), first_line + line, path)]
    finally:
        loader.dispose()


def yaml_problem(exc: yaml.YAMLError, text: str) -> tuple[int, str]:
    """(0-based line in `text`, one-line detail) of a PyYAML error: its
    problem and mark, or the control character a reader refused."""
    if isinstance(exc, yaml.reader.ReaderError):
        code = exc.character if isinstance(exc.character, int) else 0
        return text.count("\n", 0, exc.position), BAD_CHARACTER.format(code=code)
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        return (mark.line if mark is not None else 0), exc.problem or exc.context or "malformed YAML"
    return 0, str(exc).split("\n")[0]  # pragma: no cover - every PyYAML error we know is marked
