"""Packs: named sets of bound tools (spec/runvil.md §7). The built-in Packs
are `web` (search, fetch; both need a configured endpoint) and `files`
(read, write, list in a per-run workspace folder); others are Python
plugins discovered by the entry point group `runvil.packs`.

A Pack is an object with `name`, `tools` (tool name -> {description,
parameters}) and `perform(tool, arguments) -> str` (raising PackError for a
failure the model should see)."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path


class PackError(Exception):
    """A tool failure: its message becomes untrusted tool text."""


def _obj(props: dict, required: list) -> dict:
    return {"type": "object", "properties": props, "required": required}


class WebPack:
    name = "web"
    tools = {
        "search": {"description": "Search the web; returns the top results as text.",
                   "parameters": _obj({"query": {"type": "string"}}, ["query"])},
        "fetch": {"description": "Fetch a web page and return its text.",
                  "parameters": _obj({"url": {"type": "string"}}, ["url"])},
    }

    def __init__(self, endpoint: str | None = None):
        self.endpoint = endpoint

    def perform(self, tool: str, arguments: dict) -> str:
        if not self.endpoint:
            raise PackError(f"web/{tool} needs a configured endpoint")
        raise PackError(f"web/{tool}: the endpoint {self.endpoint} is not reachable from this host")


class FilesPack:
    name = "files"
    tools = {
        "read": {"description": "Read a text file of the run's workspace.",
                 "parameters": _obj({"path": {"type": "string"}}, ["path"])},
        "write": {"description": "Write a text file in the run's workspace.",
                  "parameters": _obj({"path": {"type": "string"}, "content": {"type": "string"}}, ["path", "content"])},
        "list": {"description": "List the files of the run's workspace.", "parameters": _obj({}, [])},
    }

    def __init__(self, workspace: str | Path | None = None):
        self.workspace = Path(workspace) if workspace is not None else None

    def _path(self, rel) -> Path:
        if self.workspace is None:
            raise PackError("files: no workspace folder for this run")
        if not isinstance(rel, str) or not rel:
            raise PackError("files: path must be a non-empty string")
        root = self.workspace.resolve()
        p = (root / rel).resolve()
        if p != root and root not in p.parents:
            raise PackError(f"files: {rel} is outside the workspace")
        return p

    def perform(self, tool: str, arguments: dict) -> str:
        if tool == "read":
            p = self._path(arguments.get("path"))
            try:
                return p.read_text(encoding="utf-8")
            except OSError as e:
                raise PackError(f"files/read: {arguments.get('path')}: {e.strerror}") from None
        if tool == "write":
            p = self._path(arguments.get("path"))
            content = arguments.get("content")
            if not isinstance(content, str):
                raise PackError("files/write: content must be a string")
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(content, encoding="utf-8")
            return f"wrote {len(content.encode('utf-8'))} bytes to {arguments['path']}"
        if tool == "list":
            if self.workspace is None or not self.workspace.exists():
                return ""
            root = self.workspace.resolve()
            return "\n".join(sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()))
        raise PackError(f"files has no tool {tool}")


def discover_packs(workspace=None, web_endpoint=None) -> dict:
    """Every Pack by name: the built-ins, then plugins (which may not
    replace a built-in)."""
    packs = {"web": WebPack(web_endpoint), "files": FilesPack(workspace)}
    for ep in entry_points(group="runvil.packs"):
        if ep.name not in packs:
            try:
                packs[ep.name] = ep.load()()
            except Exception:  # a broken plugin must not break every run
                continue
    return packs


def pack_schemas(packs: dict) -> dict:
    """What the Engine needs: pack -> tool -> {description, parameters}."""
    return {name: dict(p.tools) for name, p in packs.items()}


class PackTools:
    """Answers bound tool calls (`ToolCall` effects) with the Packs' own
    tools, for runs on real providers or the echo model (a scripted world
    answers its tools itself). The `files` Pack works in a per-run
    workspace folder: a fresh temporary folder, made on the first write and
    removed by `close()`. A tool's failure (PackError, or any exception a
    plugin raises) becomes a ToolFailure, whose text the model sees."""

    def __init__(self, web_endpoint=None):
        import tempfile
        import uuid

        self.workspace = Path(tempfile.gettempdir()) / f"runvil-workspace-{uuid.uuid4().hex[:12]}"
        self.packs = discover_packs(workspace=self.workspace, web_endpoint=web_endpoint)

    def __call__(self, effect):
        from ..engine.effects import ToolFailure, ToolResult

        pack_name, _, tool = effect.name.partition("/")
        pack = self.packs.get(pack_name)
        if pack is None or tool not in pack.tools:
            return ToolFailure(f"no tool backend is configured for {effect.name}")
        try:
            result = pack.perform(tool, dict(effect.arguments or {}))
        except PackError as e:
            return ToolFailure(str(e))
        except Exception as e:  # a broken plugin fails its call, not the run
            return ToolFailure(f"{effect.name} failed: {type(e).__name__}: {e}")
        if not isinstance(result, str):
            import json

            result = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
        return ToolResult(result)

    def close(self) -> None:
        import shutil

        shutil.rmtree(self.workspace, ignore_errors=True)


class WithPackTools:
    """An answerer whose model rounds go to `models` and whose bound tool
    calls go to the Packs (`PackTools`)."""

    def __init__(self, models, tools: PackTools):
        self.models, self.tools = models, tools
        self.concurrent = getattr(models, "concurrent", False)
        self.world_input = getattr(models, "world_input", None)

    def __call__(self, effect):
        from ..engine.effects import ToolCall

        return self.tools(effect) if isinstance(effect, ToolCall) else self.models(effect)

    def close(self) -> None:
        try:
            close = getattr(self.models, "close", None)
            if close is not None:
                close()
        finally:
            self.tools.close()
