"""What every Pack is (docs/reference/tools.md): an object with `name`, `tools`
(tool name -> {description, parameters}) and `perform(tool, arguments) ->
str`, raising PackError for a failure the model should see. A Pack that
holds connections or folders may also have `close()`."""

from __future__ import annotations


class PackError(Exception):
    """A tool failure: its message becomes untrusted tool text. It never
    names a host path the model was not given."""


def object_schema(props: dict, required: list) -> dict:
    """A JSON Schema for a tool's arguments object."""
    return {"type": "object", "properties": props, "required": required}
