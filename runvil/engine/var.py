"""The run's shared state, `var` (docs/reference/var.md):
a store of JSON values by name, and the userdata each VM sees as `var`.

- `var.x = v` stores a deep copy of v's JSON form (the converter of
  `luajson`); `var.x = nil` deletes x. A value with no JSON form is refused
  with `var.{name} must be JSON data, got {type}`, where `var.{name}` is the
  path of the offending value written as json.encode writes it
  (`var.cfg.items[2]`, `var["my key"]`).
- Reading `var.x` builds a fresh Lua value each time, so changing what a
  read returned (`var.t.a = 1`, which reads `var.t` and sets a field of
  that copy) leaves the stored value unchanged: write the whole value back.
- `pairs(var)` walks the stored names in sorted (byte) order; the names are
  fixed when the walk starts, names deleted since are skipped.
- Names are strings; any other key is refused, and `#var` is refused.
"""

from __future__ import annotations

from ..lua.api import Multi, Userdata
from ..lua.api import builtin
from .errors import message_type, raise_lua
from .luajson import NotJSON, copy_json, from_json, path_key, to_json, to_lua_string, to_unicode


class VarStore:
    """The JSON values of `var`, by name (Python side, real Unicode names).

    Stored values are never shared with anyone: `set` copies what it is
    given, `get` hands out a value that must be treated as read-only, and
    `snapshot` copies."""

    __slots__ = ("_values",)

    def __init__(self, values: dict | None = None):
        self._values: dict = {}
        for k, v in (values or {}).items():
            self.set(k, v)

    def get(self, name: str, default=None):
        """The stored JSON value (read-only), or `default` when unset."""
        return self._values.get(name, default)

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def set(self, name: str, value) -> None:
        """Stores a copy of a Python JSON value (None is JSON null)."""
        self._values[name] = copy_json(value)

    def delete(self, name: str) -> None:
        self._values.pop(name, None)

    def names(self) -> list[str]:
        """The stored names in the order `pairs(var)` walks them."""
        return sorted(self._values, key=_byte_order)

    def snapshot(self) -> dict:
        """A deep copy of every value, names in sorted order."""
        return {k: copy_json(self._values[k]) for k in self.names()}

    def _store(self, name: str, value) -> None:
        """Stores a value already freshly built (no copy needed)."""
        self._values[name] = value

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self):
        return f"<VarStore {sorted(self._values)}>"


def _byte_order(name: str) -> bytes:
    return to_lua_string(name).encode("latin-1")


class VarView(Userdata):
    """`var` in a VM: a userdata over a VarStore.

    `views` is passed to the converter (see luajson.to_json); by default a
    record view, like any userdata but json.null, is refused."""

    __slots__ = ("store", "views")

    def __init__(self, store: VarStore, views=None):
        self.store = store
        self.views = views

    def lua_index(self, key):
        if type(key) is not str:
            _refuse_key(key)
        v = self.store._values.get(to_unicode(key), _MISSING)
        return None if v is _MISSING else from_json(v)

    def lua_newindex(self, key, value):
        if type(key) is not str:
            _refuse_key(key)
        name = to_unicode(key)
        if value is None:
            self.store.delete(name)
            return
        try:
            if self.views is None:
                # a bare view is refused; one inside a table stores its record
                # (docs/reference/conversations.md "Using a view as a record")
                j = to_json(value, "var" + path_key(key))
            else:
                j = copy_json(to_json(value, "var" + path_key(key), self.views))
        except NotJSON as e:
            raise_lua(e.must_be_json())
        self.store._store(name, j)

    def lua_len(self):
        raise_lua("var has no length; walk its names with pairs(var)")

    def lua_pairs(self):
        store = self.store
        names = store.names()
        pos = [0]

        @builtin
        def var_next(*_args):
            values = store._values
            i = pos[0]
            while i < len(names):
                name = names[i]
                i += 1
                v = values.get(name, _MISSING)
                if v is not _MISSING:
                    pos[0] = i
                    return Multi((to_lua_string(name), from_json(v)))
            pos[0] = i
            return None

        return var_next, self, None


_MISSING = object()


def _refuse_key(key):
    raise_lua(f"var names must be strings, got {message_type(key)}")
