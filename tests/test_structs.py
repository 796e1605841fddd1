"""runvil.structs: the value classes that replaced attrs on the start-up
path behave as attrs' did (fields by position or name, defaults and
factories, comparison and hashing by value, frozen classes, evolve)."""

from __future__ import annotations

import copy
import pickle

import pytest

from runvil.engine.effects import ModelReply, ModelRound
from runvil.engine.tasks import Task
from runvil.structs import COMPILED_AFTER, FrozenError, Struct, _make_init, field, replace


class Point(Struct, frozen=True):
    x: int
    y: int = 0
    tags: list = field(factory=list)
    note: str = field(default="", eq=False, repr=False)
    double: int = field(init=False, eq=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "double", 2 * self.x)


class Counter(Struct):
    n: int = 0
    seen: dict = field(factory=dict)


def test_fields_by_position_or_name_with_defaults_and_a_fresh_factory_value():
    a, b = Point(1), Point(x=1, y=2, tags=["t"], note="n")
    assert (a.x, a.y, a.tags, a.note, a.double) == (1, 0, [], "", 2)
    assert (b.y, b.tags, b.note) == (2, ["t"], "n")
    assert Point(1).tags is not Point(1).tags


def test_python_reports_a_wrong_call_as_for_any_function():
    with pytest.raises(TypeError, match=r"Point.__init__\(\) missing 1 required positional argument: 'x'"):
        Point()
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Point(1, z=2)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        Point(1, x=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'double'"):
        Point(1, double=4)  # set by __post_init__, not given


def test_equality_and_hash_by_value_leave_out_eq_false_fields():
    assert Point(1, 2) == Point(1, 2, note="other") and Point(1, 2) != Point(1, 3)
    assert hash(Point(1, 2, ("a",))) == hash(Point(1, 2, ("a",), note="x"))
    assert Point(1) != (1, 0) and (Point(1) == object()) is False
    assert ModelReply("hi") == ModelReply(text="hi") and ModelReply("hi") != ModelReply("ho")


def test_repr_names_the_fields_shown():
    assert repr(Point(1, 2)) == "Point(x=1, y=2, tags=[])"
    assert repr(ModelRound(1, "w", "m", "chat", ())) == (
        "ModelRound(id=1, role='w', model='m', origin='chat', messages=(), tools=(), options={})")


def test_a_frozen_class_refuses_assignment_and_deletion():
    p = Point(1)
    with pytest.raises(FrozenError):
        p.x = 2
    with pytest.raises(AttributeError):
        del p.y
    assert p.x == 1


def test_a_mutable_class_is_assignable_and_unhashable():
    c = Counter()
    c.n += 1
    assert c == Counter(1) and c != Counter(2)
    with pytest.raises(TypeError):
        hash(c)


def test_eq_false_keeps_identity():
    a, b = Task("t1", "S", None), Task("t1", "S", None)
    assert a != b and a == a and len({a, b}) == 2


def test_replace_copies_with_changes_and_remakes_post_init_fields():
    p = Point(1, 2, ["t"], note="n")
    q = replace(p, x=5)
    assert (q.x, q.y, q.tags, q.note, q.double) == (5, 2, ["t"], "n", 10)
    assert p.x == 1


def test_a_subclass_adds_fields_after_its_bases():
    class Point3(Point):
        z: int = 9

    assert repr(Point3(1, 2)) == "Point3(x=1, y=2, tags=[], z=9)"
    with pytest.raises(FrozenError):
        Point3(1).z = 1
    assert Point(1, 2) != Point3(1, 2)  # another class


def test_copies_and_pickles_are_equal():
    p = Point(1, 2, [[1]])
    assert copy.copy(p) == p and copy.deepcopy(p) == p and copy.deepcopy(p).tags[0] is not p.tags[0]
    r = ModelRound(1, "w", "m", "chat", ({"role": "user", "content": "x"},))
    assert pickle.loads(pickle.dumps(r)) == r


def _point_class():
    class P(Struct, frozen=True):
        x: int
        y: int
        z: int = 3
        tags: list = field(factory=list)
        double: int = field(init=False, default=0)
    return P


CALLS = [((), {}), ((1,), {}), ((1, 2), {}), ((1, 2, 4, ["t"]), {}), ((1, 2, 4, [], 5), {}),
         ((1,), {"y": 2, "tags": ()}), ((1, 2), {"x": 1}), ((1, 2), {"double": 1}), ((1, 2), {"w": 1}),
         ((), {"y": 2})]


def outcome(cls, args, kwargs):
    try:
        obj = cls(*args, **kwargs)
    except TypeError as e:
        return "TypeError", str(e)
    return repr(obj), obj.double, obj.tags


def test_the_generic_init_and_the_compiled_one_agree():
    generic, compiled = _point_class(), _point_class()
    compiled.__init__ = _make_init(compiled)
    for args, kwargs in CALLS:
        assert outcome(generic, args, kwargs) == outcome(compiled, args, kwargs), (args, kwargs)
    assert generic.__init__.__name__ == "_generic_init"  # the calls above stayed below COMPILED_AFTER


def test_a_class_made_often_gets_its_own_init():
    cls = _point_class()
    for i in range(COMPILED_AFTER + 1):
        assert cls(i, 2).x == i
    assert cls.__init__.__qualname__.endswith("P.__init__") and cls.__init__.__name__ == "__init__"
    assert outcome(cls, (1,), {"y": 2}) == ("P(x=1, y=2, z=3, tags=[], double=0)", 0, [])
