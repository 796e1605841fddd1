"""Reading and checking a scripted world file (docs/reference/commands.md "The
scripted world"): as strictly as `runvil.toml`, every problem named with the
world file's line.

The YAML is read with the prompt frontmatter's YAML 1.2 loader; mappings
and lists remember the line of each key and item, and numbers their
source text (so `text: 3.10` is the text "3.10"). An unknown key, a reply
with neither text, tool calls nor an error, a usage field other than the
four, a role the prompt does not declare and a YAML tag other than the
plain types (`!!binary`, `!!set`, `!!timestamp`, `!!omap`, `!!pairs`) are
refused; a key close to a known one is suggested ("did you mean").
"""

from __future__ import annotations

import json
import math

import yaml

TOP_KEYS = ("input", "models", "replies", "tools")
MODEL_KEYS = ("context", "max_tokens", "model")
REPLY_KEYS = ("text", "tool_calls", "finish_reason", "usage", "reasoning", "fragments", "error", "stream_error",
              "model", "unreachable", "failure")
#: what makes a reply entry a reply: text (or its fragments), tool calls or an error of some kind
REPLY_BODY = ("text", "fragments", "tool_calls", "error", "stream_error", "unreachable", "failure")
ERROR_KEYS = ("status", "body", "message")
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "total_tokens")
CALL_KEYS = ("id", "name", "arguments")
TOOL_KEYS = ("result", "error", "dropped", "reason")


class WorldError(ValueError):
    """A scripted world file that cannot be used (a usage error, so a
    ValueError as the config's errors): `detail` says what, `line` where
    (1-based, None when the whole file is at fault), `file` which world."""

    def __init__(self, detail: str, line: int | None = None, file: str | None = None):
        self.detail, self.line, self.file = detail, line, file
        super().__init__(self._text())

    def _text(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        if self.file is None:
            return f"{where}{self.detail}"
        return f"the scripted world {self.file}: {where}{self.detail}"

    def in_file(self, file: str) -> WorldError:
        return WorldError(self.detail, self.line, file)


# ------------------------------------------------------------------ reading


class Map(dict):
    """A YAML mapping that remembers its line and the line of each key."""

    line: int | None = None
    lines: dict

    def line_of(self, key) -> int | None:
        return getattr(self, "lines", {}).get(key, self.line)


class Seq(list):
    """A YAML list that remembers its line and the line of each item."""

    line: int | None = None
    lines: list

    def line_of(self, index: int) -> int | None:
        lines = getattr(self, "lines", [])
        return lines[index] if 0 <= index < len(lines) else self.line


class Int(int):
    """A YAML integer that remembers how it was written."""

    source: str


class Float(float):
    """A YAML float that remembers how it was written."""

    source: str


_LOADER = None
#: the YAML types beyond the plain ones (text, numbers, booleans, null, lists, mappings): a world
#: stands for JSON a provider would send, which has no bytes, sets, dates or ordered pairs
NOT_PLAIN = ("binary", "set", "timestamp", "omap", "pairs")
NOT_PLAIN_TAG = ("the YAML tag !!{tag} is not allowed here (only the plain YAML types: text, numbers, "
                 "true/false, null, lists and mappings)")
def world_loader():
    """The YAML 1.2 loader of the prompt frontmatter, keeping lines and
    number texts."""
    global _LOADER
    if _LOADER is None:
        from yaml.constructor import ConstructorError

        from ..prompt.frontmatter import FrontmatterLoader

        class WorldLoader(FrontmatterLoader):
            pass

        def keeping(tag, kind):
            base = FrontmatterLoader.yaml_constructors[tag]

            def construct(loader, node):
                value = kind(base(loader, node))
                value.source = node.value
                return value

            WorldLoader.add_constructor(tag, construct)

        def mapping(loader, node):
            data = Map()
            data.line, data.lines = node.start_mark.line + 1, {}
            yield data
            for knode, vnode in node.value:
                key = loader.construct_object(knode, deep=True)
                try:
                    hash(key)
                except TypeError:
                    raise ConstructorError("while reading a mapping", node.start_mark,
                                           "a key that is a list or a mapping", knode.start_mark) from None
                if key in data.lines:
                    raise ConstructorError(None, None, f"duplicate key '{_text(key)}'", knode.start_mark)
                data.lines[key] = knode.start_mark.line + 1
                data[key] = loader.construct_object(vnode, deep=True)

        def sequence(loader, node):
            data = Seq()
            data.line = node.start_mark.line + 1
            data.lines = [item.start_mark.line + 1 for item in node.value]
            yield data
            data.extend(loader.construct_object(item, deep=True) for item in node.value)

        def refuse(loader, node):
            tag = node.tag.rsplit(":", 1)[-1]
            raise ConstructorError(None, None, NOT_PLAIN_TAG.format(tag=tag), node.start_mark)

        for tag in NOT_PLAIN:
            WorldLoader.add_constructor(f"tag:yaml.org,2002:{tag}", refuse)
        keeping("tag:yaml.org,2002:int", Int)
        keeping("tag:yaml.org,2002:float", Float)
        WorldLoader.add_constructor("tag:yaml.org,2002:map", mapping)
        WorldLoader.add_constructor("tag:yaml.org,2002:seq", sequence)
        _LOADER = WorldLoader
    return _LOADER


def shipped_world_loader():
    """world_loader on libyaml's parser, where PyYAML has it: the same
    data, lines and number texts at seven times the speed, but without the
    composer's bounds on depth, nodes and aliases, so only for YAML that
    runvil ships (its conformance suite), never for a user's."""
    try:
        from yaml.cyaml import CParser
    except ImportError:  # (PyYAML built without libyaml)
        return world_loader()
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    class ShippedWorldLoader(CParser, world_loader()):
        def __init__(self, stream):
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    return ShippedWorldLoader


def read_world_text(text: str):
    """The YAML data of a world file; WorldError with the line on bad YAML."""
    from ..prompt.frontmatter import yaml_problem

    try:
        return yaml.load(text, Loader=world_loader())
    except yaml.YAMLError as e:  # one line, with the file's line
        line, detail = yaml_problem(e, text)
        raise WorldError(detail, line + 1) from None
    except RecursionError:  # pragma: no cover - the loader's depth limit comes first
        raise WorldError("the YAML nests too deeply") from None


# ------------------------------------------------------------------ helpers


def line_of(container, key) -> int | None:
    finder = getattr(container, "line_of", None)
    return finder(key) if finder is not None else None


def fail(detail: str, container=None, key=None):
    raise WorldError(detail, line_of(container, key) if key is not None else getattr(container, "line", None))


def known_keys(m: dict, allowed: tuple, where: str) -> None:
    """Refuses the first key of `m` that is not `allowed`, suggesting the
    closest known one."""
    for k in m:
        if k not in allowed:
            import difflib  # here: only a refused world pays for it

            name = _text(k) if k is not None else "null"
            close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'? " if close else ""
            place = f" in {where}" if where else ""
            fail(f"unknown key '{name}'{place} ({hint}known: {', '.join(allowed)})", m, k)


def _text(v) -> str:
    """A scalar as the text it stands for (a number as it was written)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    source = getattr(v, "source", None)
    return source if source is not None else str(v)


text_of = _text


def plain(v):
    """JSON data with the source-keeping numbers and line-keeping
    containers made plain again."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def is_scalar(v) -> bool:
    return isinstance(v, (str, int, float, bool))


def compact(v) -> str:
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False, default=str)


def shown(v) -> str:
    """A value for a message: a number as written, other data as compact JSON."""
    if is_scalar(v) and not isinstance(v, str):
        return _text(v)
    return compact(plain(v))


def optional_text(v, refusal: str, container=None, key=None) -> str | None:
    """A scalar as its text, null as None; anything else is refused."""
    if v is None:
        return None
    if not is_scalar(v):
        fail(refusal, container, key)
    return _text(v)


def whole_count(m: dict, key: str, where: str):
    """A positive whole number (4096.0 counts), None when absent; any
    other number, however written, is refused with its text."""
    v = m.get(key)
    if v is None:
        return None
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        fail(f"{where}.{key} must be a positive whole number, got {shown(v)}", m, key)
    return int(v)


def check_json_data(value, where: str, container=None, key=None) -> None:
    """Tool-call arguments reach the Engine as JSON data: a NaN, an infinity
    or a key that is not text (YAML's `1:` or `~:`) has no JSON form, so the
    world is refused where it says so."""
    todo = [(value, where, container, key)]
    while todo:
        v, place, parent, k = todo.pop()
        if isinstance(v, float) and not math.isfinite(v):
            fail(f"{place} is {_text(v)}, which has no JSON form", parent, k)
        if isinstance(v, list):
            todo.extend((x, f"{place}[{i + 1}]", v, i) for i, x in enumerate(v))
        elif isinstance(v, dict):
            for kk, x in v.items():
                if not isinstance(kk, str):
                    fail(f"{place} has the key {_text(kk) if kk is not None else 'null'}, which is not text", v, kk)
                todo.append((x, f"{place}.{kk}", v, kk))
