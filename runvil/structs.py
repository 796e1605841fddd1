"""Small value classes without attrs or dataclasses, for start-up:
importing attrs and building some forty classes with it took about
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

A class's first `COMPILED_AFTER` instances are made by one generic
`__init__`; then the class gets its own, Python source compiled as attrs
and dataclasses compile theirs at class creation (a process's first
compile costs about 1.5 ms, each one after about 50 us; the generic one
costs about 1.5 us an instance more). So a short run compiles nothing, and
a class made often is made as fast as attrs makes it.
"""

from __future__ import annotations

from operator import attrgetter

_NOTHING = object()
#: the instances of a class made by the generic __init__ before it gets its own
COMPILED_AFTER = 50


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
        cls._params = tuple(n for n, f in fields.items() if f.init)
        cls._made = 0
        if "__init__" not in cls.__dict__:
            cls.__init__ = _generic_init
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
        return f"{_name(type(self))}({shown})"


def replace(obj: Struct, **changes):
    """A copy of `obj` with `changes` (as attrs.evolve): the fields set by
    `__post_init__` are made anew."""
    values = {n: getattr(obj, n) for n, f in obj._fields.items() if f.init}
    values.update(changes)
    return type(obj)(**values)


def _name(cls) -> str:
    return cls.__qualname__.rsplit(">.", 1)[-1]  # as attrs: no '<locals>.'


def _generic_init(self, *args, **kwargs):
    """Any class's __init__, reading its fields' options; it refuses a wrong
    call with the words Python uses for the compiled one."""
    cls = type(self)
    cls._made += 1
    if cls._made >= COMPILED_AFTER and cls.__dict__.get("__init__") is _generic_init:
        cls.__init__ = _make_init(cls)
    params, fields = cls._params, cls._fields
    if len(args) > len(params):
        fewest = sum(1 for n in params if fields[n].default is _NOTHING and fields[n].factory is None)
        takes = f"from {fewest + 1} to {len(params) + 1}" if fewest < len(params) else f"{len(params) + 1}"
        raise TypeError(f"{cls.__qualname__}.__init__() takes {takes} positional arguments "
                        f"but {len(args) + 1} were given")
    d = self.__dict__
    given = dict(zip(params, args))
    for name, value in kwargs.items():
        if name not in params:
            raise TypeError(f"{cls.__qualname__}.__init__() got an unexpected keyword argument '{name}'")
        if name in given:
            raise TypeError(f"{cls.__qualname__}.__init__() got multiple values for argument '{name}'")
        given[name] = value
    missing = []
    for name, f in fields.items():
        if name in given:
            d[name] = given[name]
        elif f.factory is not None:
            d[name] = f.factory()
        elif f.default is not _NOTHING:
            d[name] = f.default
        elif f.init:
            missing.append(f"'{name}'")
    if missing:
        names = missing[0] if len(missing) == 1 else (
            f"{missing[0]} and {missing[1]}" if len(missing) == 2 else ", ".join(missing[:-1]) + f", and {missing[-1]}")
        s = "" if len(missing) == 1 else "s"
        raise TypeError(f"{cls.__qualname__}.__init__() missing {len(missing)} required positional argument{s}: {names}")
    if hasattr(cls, "__post_init__"):
        self.__post_init__()


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
