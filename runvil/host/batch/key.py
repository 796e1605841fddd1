"""What decides a row's result, as one key (docs/reference/commands.md "Batches": "A row is
done when the database holds a successful run of it with the same key").

The run key covers the prompt's text (sha256 of its bytes), each bound
model (its catalog id, context window and output reserve, the provider's
name for it, the provider's URL and request settings: everything of the
catalog entry and the provider but timeouts, retries, the key's variable
and the provider's own name) and the scripted world's text. The row's id
and input are compared beside it. The modules a run `require`d are known
only once it has run: each run stores them (path beside the prompt ->
sha256 of the file), and a stored run counts only while every one of them
still has that hash (`ModuleCheck`).
"""

from __future__ import annotations

import hashlib
import json
import os

#: provider settings that change how a request is sent, not what it asks
NOT_IN_KEY = frozenset({"name", "api_key_env", "timeout", "max_retries"})


def fields_of(value, leave_out=frozenset()) -> dict:
    """A Struct's fields as plain values (repr for anything JSON cannot say)."""
    names = getattr(type(value), "_fields", None) or {}
    return {n: getattr(value, n, None) for n in names if n not in leave_out}


def model_settings(binding, config) -> dict:
    """Everything about a bound model that decides its replies."""
    out = {"binding": fields_of(binding)}
    catalog = getattr(config, "models", {}).get(binding.id) if config is not None else None
    if catalog is not None:
        out["catalog"] = fields_of(catalog, {"id"})
        provider = getattr(config, "providers", {}).get(catalog.provider)
        if provider is not None:
            out["provider"] = fields_of(provider, NOT_IN_KEY)
    return out


def run_key(prompt_sha256: str, bindings: dict, config, world_path: str | None) -> str:
    """The sha256 of what decides a row's result, but its input and modules."""
    world = None
    if world_path:
        with open(world_path, "rb") as f:
            world = hashlib.sha256(f.read()).hexdigest()
    parts = {"prompt": prompt_sha256, "world": world,
             "models": {role: model_settings(b, config) for role, b in sorted(bindings.items())}}
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=repr, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def modules_json(required: dict) -> str:
    """A run's required modules as stored: sorted JSON, path -> sha256."""
    return json.dumps(dict(sorted(required.items())), separators=(",", ":"), ensure_ascii=False)


class ModuleCheck:
    """Whether a stored run's modules still hold: every file, beside the
    prompt, has the hash the run stored. Each file is hashed once per
    batch."""

    def __init__(self, prompt_path: str):
        self.folder = os.path.dirname(os.path.abspath(prompt_path))
        self.hashes: dict = {}
        self.verdicts: dict = {}

    def __call__(self, stored: str | None) -> bool:
        if not stored or stored == "{}":
            return True
        verdict = self.verdicts.get(stored)
        if verdict is None:
            try:
                modules = json.loads(stored)
                verdict = all(self._hash(path) == sha for path, sha in modules.items())
            except (ValueError, AttributeError, TypeError):
                verdict = False
            self.verdicts[stored] = verdict
        return verdict

    def _hash(self, path: str) -> str | None:
        if path not in self.hashes:
            try:
                with open(os.path.join(self.folder, path), "rb") as f:
                    self.hashes[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                self.hashes[path] = None
        return self.hashes[path]
