"""Which provider answers a model round, and answering the independent
effects of one step concurrently (docs/architecture.md).

`ProviderSet` reads a host config by duck typing (`providers`: name ->
object with `base_url`, `api_key_env`, `timeout`, `max_retries`, and
optionally `stream`, `tool_choice`, `stream_usage`; `models`:
id -> object with `provider`, `name`) so the harness never imports the
host. Retries are reported through `on_retry(effect, attempt, status,
wait)`, which the Host sets to add a `model_retry` run event: the Engine
never sees HTTP. A round's
`effect.model` is the bound catalog model id (the host binds with
`name=id`); when it is not a catalog id, the role's binding is tried.
Every answer and streamed fragment is scrubbed of the configured keys
(scrubber.py) before anyone sees it.
"""

from __future__ import annotations

import os
import threading
from typing import Callable

from ..engine.effects import ModelFailure, ModelRound, ToolCall, ToolFailure
from ..threads import start_helper_thread
from .echo import echo_reply
from .retries import DEFAULT_MAX_RETRIES, RetryPolicy
from .scrubber import Scrubber, StreamScrubber, key_problem, shown_variable

MAX_WORKERS = 8
ECHO = "echo"  # the offline model's id, answered here when the catalog has no model of that id
NO_PROVIDER = "no provider is configured for the model '{model}'"
NEEDS_KEY = "provider '{provider}' needs an API key: {why}"
KEY_NOT_SET = "{variable} is not set"
NO_TOOL_BACKEND = "no tool backend is configured for {name}"


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
        timeout: float | None = None,
        on_fragment: Callable | None = None,
        factory=None,
        on_retry: Callable | None = None,
    ):
        self.config = config
        self.bindings = dict(bindings or {})
        self.keys = dict(keys or {})  # provider name -> key, read up front by the host
        self.environ = os.environ if environ is None else environ
        self.timeout = timeout  # overrides every provider's own when given
        self.on_fragment = on_fragment  # on_fragment(effect, text): live output
        self.on_retry = on_retry  # on_retry(effect, attempt, status, wait): the run log and live output
        self.factory = factory  # None: OpenAIProvider, imported on first use (httpx is slow to import)
        self._providers: dict[str, object] = {}
        self._lock = threading.Lock()
        self.scrubber = Scrubber(self._configured_keys())

    def _configured_keys(self) -> list[str]:
        """Every key the config's providers name, whether a binding uses it
        or not: none of them may leave the process."""
        keys = [k for k in self.keys.values() if isinstance(k, str)]
        for p in getattr(self.config, "providers", {}).values():
            var = getattr(p, "api_key_env", None)
            if var:
                keys.append((self.environ.get(var) or "").strip())
        return keys

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
        variable = shown_variable(var, f"providers.{provider}.api_key_env")
        if not key:
            raise LookupError(KEY_NOT_SET.format(variable=variable))
        problem = key_problem(key)
        if problem is not None:
            raise LookupError(f"{variable} {problem}")
        return key

    def provider_for(self, model) -> object:
        with self._lock:
            p = self._providers.get(model.id)
            if p is None:
                from .openai import DEFAULT_TIMEOUT, OpenAIProvider, WireSettings

                prov = self.config.providers[model.provider]
                timeout = self.timeout or getattr(prov, "timeout", None) or DEFAULT_TIMEOUT
                retries = getattr(prov, "max_retries", None)
                policy = RetryPolicy(DEFAULT_MAX_RETRIES if retries is None else retries)
                factory = self.factory or OpenAIProvider
                settings = WireSettings(getattr(prov, "stream", True), getattr(prov, "tool_choice", "auto"),
                                        getattr(prov, "stream_usage", True))
                p = factory(prov.base_url, self._key(model.provider), model.name, timeout=timeout, retry=policy,
                            settings=settings)
                self._providers[model.id] = p
            return p

    def answer(self, effect):
        """A ModelReply or ModelFailure for a round; a ToolFailure for a bound
        tool call (no Pack backend here)."""
        if isinstance(effect, ToolCall):
            return ToolFailure(NO_TOOL_BACKEND.format(name=effect.name))
        if not isinstance(effect, ModelRound):
            raise TypeError(f"the providers cannot answer {effect!r}")
        model = self.catalog_model(effect)
        if model is None and effect.model == ECHO:  # `-m echo`, `--bind ROLE=echo`: offline, beside real models
            return echo_reply(effect)
        if model is None:
            return ModelFailure(message=NO_PROVIDER.format(model=effect.model))
        try:
            provider = self.provider_for(model)
        except LookupError as e:
            return ModelFailure(message=NEEDS_KEY.format(provider=model.provider, why=e.args[0]))
        fragment = retry = stream = None
        if self.on_fragment is not None:
            on_fragment = self.on_fragment
            stream = StreamScrubber(self.scrubber)

            def fragment(text):
                shown = stream.feed(text)
                if shown:
                    on_fragment(effect, shown)

        if self.on_retry is not None:
            on_retry = self.on_retry

            def retry(attempt, status, wait):
                on_retry(effect, attempt, status, wait)

        try:
            answer = provider.answer(effect, on_fragment=fragment, on_retry=retry)
        except Exception as e:  # a bug below: its text may quote what the provider sent
            said = f"{type(e).__name__}: {e}"
            if self.scrubber.text(said) == said:
                raise
            raise RuntimeError(self.scrubber.text(said)) from None
        if isinstance(answer, ModelFailure):  # what the Host's help lines name
            answer = with_provider_facts(answer, model.provider,
                                         self.scrubber.text(self.config.providers[model.provider].base_url))
        if stream is not None:
            rest = stream.end()
            if rest:
                self.on_fragment(effect, rest)
        return self.scrubber.answer(answer)

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


def with_provider_facts(failure: ModelFailure, provider: str, url: str) -> ModelFailure:
    """The failure with its provider's name and URL among its facts."""
    from ..structs import replace

    return replace(failure, facts={**(failure.facts or {}), "provider": provider, "url": url})


def answer_concurrently(effects, answer: Callable, max_workers: int = MAX_WORKERS) -> dict:
    """Answers the independent effects of one step at the same time, on at
    most `max_workers` threads; returns {effect.id: answer} in the effects'
    order. The first exception an answerer raised (in effect order) is
    re-raised once all have finished. The threads are daemons and the wait
    can be interrupted, so Ctrl-C or SIGTERM never waits for a slow call.
    Where no thread starts, the calling thread answers them in turn."""
    effects = list(effects)
    if len(effects) <= 1:
        return {e.id: answer(e) for e in effects}
    answers: list = [None] * len(effects)
    errors: list = [None] * len(effects)
    pending = iter(range(len(effects)))
    lock = threading.Lock()

    def work():
        while True:
            with lock:
                i = next(pending, None)
            if i is None:
                return
            try:
                answers[i] = answer(effects[i])
            except BaseException as e:  # handed to the driving thread
                errors[i] = e

    workers = []
    for _ in range(min(max_workers, len(effects))):
        try:
            w = start_helper_thread(work, "runvil-effect")
        except RuntimeError:  # can't start new thread (Pyodide): this one works too
            work()
            break
        workers.append(w)
    for w in workers:
        w.join()
    for e in errors:
        if e is not None:
            raise e
    return {e.id: a for e, a in zip(effects, answers)}
