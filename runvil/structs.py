"""Small value classes without attrs or dataclasses, for start-up (issue 13,
item 3): importing attrs and building some forty classes with it took about
a third of `runvil run`'s start-up, and `dataclasses` imports `inspect`.
Every layer may use this module; it imports nothing of runvil.

A class lists its fields as annotations, in order (a base class's first),
with a default as the class attribute, or a `field(...)`:

    class ModelReply(Struct, frozen=True):
        text: str = ""
        usage: dict = field(factory=dict)

It then behaves as attrs made it: `ModelReply("hi", usage={})` takes the
fields by position or by name; instances compare by value (the same class,
equal fields) and print as `ModelReply(text='hi', usage={})`; a frozen
class refuses assignment (`FrozenError`, an AttributeError) and hashes by
value, a mutable one is unhashable, and `eq=False` keeps identity.
`replace(obj, **changes)` is attrs.evolve; `__post_init__`, if defined,
runs after the fields are set.

Each class's `__init__` is Python source compiled at its first instance,
as attrs and dataclasses compile theirs at class creation: a class that a
run never makes costs nothing but its definition.
"""

from __future__ import annotations

from operator import attrgetter

_NOTHING = object()


class FrozenError(AttributeError):
    """An assignment to a field of a frozen Struct."""


class field:
    """A field's options: `default` or `factory` (called for each instance),
    `init=False` (set by `__post_init__` instead), `eq=False` and
    `repr=False` (left out of comparison, hashing and printing)."""

    __slots__ = ("default", "eq", "factory", "init", "repr")

    def __init__(self, default=_NOTHING, *, factory=None, init: bool = True, eq: bool = True, repr: bool = True):
        self.default, self.factory, self.init, self.eq, self.repr = default, factory, init, eq, repr


class Struct:
    """The base of a value class (see the module's docstring)."""

    __slots__ = ()
    _fields: dict[str, field] = {}
    _frozen = False

    def __init_subclass__(cls, frozen: bool = False, eq: bool = True, **kwargs):
        super().__init_subclass__(**kwargs)
        fields = dict(cls._fields)  # a base class's fields come first
        for name in cls.__dict__.get("__annotations__", {}):
            value = cls.__dict__.get(name, _NOTHING)
            spec = value if isinstance(value, field) else field(value)
            if isinstance(value, field):  # the class attribute is the plain default, or none
                if spec.default is _NOTHING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, spec.default)
            fields[name] = spec
        cls._fields = fields
        if "__init__" not in cls.__dict__:
            cls.__init__ = _first_init
        cls._frozen = frozen = frozen or cls._frozen
        if frozen:
            cls.__setattr__ = cls.__delattr__ = _refuse
        compared = [n for n, f in fields.items() if f.eq]
        cls._key = staticmethod(attrgetter(*compared) if compared else lambda obj: ())
        cls._shown = tuple(n for n, f in fields.items() if f.repr)
        if eq:
            cls.__eq__ = _eq
            cls.__hash__ = _hash if frozen else None

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n, _NOTHING)!r}" for n in self._shown)
        return f"{type(self).__qualname__.rsplit('>.', 1)[-1]}({shown})"  # as attrs: no '<locals>.'"


def replace(obj: Struct, **changes):
    """A copy of `obj` with `changes` (as attrs.evolve): the fields set by
    `__post_init__` are made anew."""
    values = {n: getattr(obj, n) for n, f in obj._fields.items() if f.init}
    values.update(changes)
    return type(obj)(**values)


def _first_init(self, *args, **kwargs):
    cls = type(self)
    init = cls.__init__ = _make_init(cls)
    init(self, *args, **kwargs)


def _make_init(cls):
    """The class's own __init__: its fields stored straight into the
    instance's __dict__ (past a frozen class's __setattr__)."""
    params, body = [], ["    _d = self.__dict__"]
    names = {"_NOTHING": _NOTHING}
    for i, (name, f) in enumerate(cls._fields.items()):
        if f.factory is not None:
            names[f"_factory{i}"] = f.factory
        if not f.init:
            if f.factory is not None:
                body.append(f"    _d[{name!r}] = _factory{i}()")
            elif f.default is not _NOTHING:
                names[f"_default{i}"] = f.default
                body.append(f"    _d[{name!r}] = _default{i}")
            continue
        if f.factory is not None:
            params.append(f"{name}=_NOTHING")
            body.append(f"    _d[{name!r}] = _factory{i}() if {name} is _NOTHING else {name}")
            continue
        if f.default is _NOTHING:
            params.append(name)
        else:
            names[f"_default{i}"] = f.default
            params.append(f"{name}=_default{i}")
        body.append(f"    _d[{name!r}] = {name}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n"
    exec(compile(source, f"<{cls.__qualname__}.__init__>", "exec"), names)
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def _refuse(self, name, *value):
    raise FrozenError(f"cannot assign to field {name!r} of a frozen {type(self).__qualname__}")


def _eq(self, other):
    if other.__class__ is not self.__class__:
        return NotImplemented
    return self._key(self) == self._key(other)


def _hash(self):
    return hash((type(self).__qualname__, self._key(self)))
