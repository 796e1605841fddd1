"""Which provider answers a model round, and answering the independent
effects of one step concurrently (runvil.md §1 "Harness").

`ProviderSet` reads a host config by duck typing (`providers`: name ->
object with `base_url`, `api_key_env`; `models`: id -> object with
`provider`, `name`) so the harness never imports the host. A round's
`effect.model` is the bound catalog model id (the host binds with
`name=id`); when it is not a catalog id, the role's binding is tried.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from ..engine.effects import ModelFailure, ModelRound, ToolCall, ToolFailure
from .openai import DEFAULT_TIMEOUT, OpenAIProvider

MAX_WORKERS = 8


class ProviderSet:
    """Bound model ids -> OpenAIProvider instances, made on first use and
    shared by every round on the same model. Thread-safe."""

    concurrent = True  # the driver may answer one step's effects in parallel

    def __init__(
        self,
        config,
        bindings: dict | None = None,
        keys: dict | None = None,
        environ=None,
        timeout: float = DEFAULT_TIMEOUT,
        on_fragment: Callable | None = None,
        factory=OpenAIProvider,
    ):
        self.config = config
        self.bindings = dict(bindings or {})
        self.keys = dict(keys or {})  # provider name -> key, read up front by the host
        self.environ = os.environ if environ is None else environ
        self.timeout = timeout
        self.on_fragment = on_fragment  # on_fragment(effect, text): live output
        self.factory = factory
        self._providers: dict[str, object] = {}
        self._lock = threading.Lock()

    def catalog_model(self, effect: ModelRound):
        models = self.config.models
        if effect.model in models:
            return models[effect.model]
        b = self.bindings.get(effect.role)
        if b is not None and b.id in models:
            return models[b.id]
        return None

    def _key(self, provider: str) -> str | None:
        if provider in self.keys:
            return self.keys[provider]
        var = self.config.providers[provider].api_key_env
        if var is None:
            return None
        key = (self.environ.get(var) or "").strip()
        if not key:
            raise LookupError(f"the environment variable {var} is not set")
        return key

    def provider_for(self, model) -> object:
        with self._lock:
            p = self._providers.get(model.id)
            if p is None:
                prov = self.config.providers[model.provider]
                p = self.factory(prov.base_url, self._key(model.provider), model.name, timeout=self.timeout)
                self._providers[model.id] = p
            return p

    def answer(self, effect):
        """A ModelReply or ModelFailure for a round; a ToolFailure for a bound
        tool call (no Pack backend here)."""
        if isinstance(effect, ToolCall):
            return ToolFailure(f"no tool backend is configured for {effect.name}")
        if not isinstance(effect, ModelRound):
            raise TypeError(f"the providers cannot answer {effect!r}")
        model = self.catalog_model(effect)
        if model is None:
            return ModelFailure(message=f"no provider is configured for the model '{effect.model}'")
        try:
            provider = self.provider_for(model)
        except LookupError as e:
            return ModelFailure(message=f"provider '{model.provider}' needs an API key: {e.args[0]}")
        cb = None
        if self.on_fragment is not None:
            on = self.on_fragment

            def cb(text, _effect=effect):
                on(_effect, text)

        return provider.answer(effect, on_fragment=cb)

    __call__ = answer

    def close(self) -> None:
        with self._lock:
            for p in self._providers.values():
                p.close()
            self._providers.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def answer_concurrently(effects, answer: Callable, max_workers: int = MAX_WORKERS) -> dict:
    """Answers the independent effects of one step, in parallel threads;
    returns {effect.id: answer} in the effects' order. The first exception an
    answerer raises (in effect order) is re-raised once all have finished."""
    effects = list(effects)
    if len(effects) <= 1:
        return {e.id: answer(e) for e in effects}
    with ThreadPoolExecutor(max_workers=min(max_workers, len(effects)), thread_name_prefix="runvil-effect") as pool:
        futures = [(e.id, pool.submit(answer, e)) for e in effects]
        done = [(i, f.exception(), f) for i, f in futures]
    for _, exc, _ in done:
        if exc is not None:
            raise exc
    return {i: f.result() for i, _, f in done}
