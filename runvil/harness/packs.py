"""Packs: named sets of bound tools (docs/reference/tools.md). The built-in Packs
are `web` (search, fetch: web.py) and `files` (read, write, list in the
run's workspace folder: workspace.py); others are Python plugins
discovered by the entry point group `runvil.packs` (a Pack is described in
packbase.py)."""

from __future__ import annotations

import json
import threading

from ..engine.effects import ToolCall, ToolFailure, ToolResult
from .packbase import PackError
from .web import WebPack
from .workspace import FilesPack, Workspace

__all__ = ["PackError", "PackTools", "WithPackTools", "discover_packs", "pack_schemas"]


def discover_packs(workspace: Workspace | None = None, web_settings=None, wanted=None) -> dict:
    """Every Pack by name: the built-ins, then plugins (which may not
    replace a built-in). Making them opens nothing: the web Pack connects
    on its first call. `wanted` (a prompt's `uses`) lets a run skip the
    entry-point scan, tens of milliseconds of start-up, when it names only
    built-ins: a Pack outside `uses` cannot be offered anyway."""
    packs = {"web": WebPack(web_settings), "files": FilesPack(workspace)}
    if wanted is not None and all(name in packs for name in wanted):
        return packs
    from importlib.metadata import entry_points

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
    answers its tools itself). Thread-safe, so the calls of one batch run
    at the same time. A tool's failure (PackError, or any exception a
    plugin raises) becomes a ToolFailure, whose text the model sees.

    `workspace` defaults to a fresh temporary folder, removed by `close()`;
    `web_settings` is read by duck typing (see web.py)."""

    def __init__(self, workspace: Workspace | None = None, web_settings=None, wanted=None):
        self.workspace = workspace if workspace is not None else Workspace.temporary()
        self.packs = discover_packs(workspace=self.workspace, web_settings=web_settings, wanted=wanted)

    def __call__(self, effect: ToolCall):
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
            result = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
        return ToolResult(result)

    def close(self) -> None:
        try:
            for pack in self.packs.values():
                close = getattr(pack, "close", None)
                if close is not None:
                    try:
                        close()
                    except Exception:  # a plugin's close must not keep the workspace
                        pass
        finally:
            self.workspace.close()


class WithPackTools:
    """An answerer whose model rounds go to `models` and whose bound tool
    calls go to the Packs (`PackTools`). It is always `concurrent`: the
    bound calls of one batch are performed at the same time
    (docs/reference/configuration.md); rounds for a `models` that is not
    concurrent itself are answered one at a time."""

    concurrent = True

    def __init__(self, models, tools: PackTools):
        self.models, self.tools = models, tools
        self.world_input = getattr(models, "world_input", None)
        self._models_lock = None if getattr(models, "concurrent", False) else threading.Lock()

    def __call__(self, effect):
        if isinstance(effect, ToolCall):
            return self.tools(effect)
        if self._models_lock is None:
            return self.models(effect)
        with self._models_lock:
            return self.models(effect)

    def close(self) -> None:
        try:
            close = getattr(self.models, "close", None)
            if close is not None:
                close()
        finally:
            self.tools.close()
