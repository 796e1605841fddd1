"""testfw: a unit-test framework shaped like luaunit and busted (every test
caught with its traceback, assertions raising formatted messages or failure
objects, expected errors checked, varargs counted), n tests, one in eight
failing."""

import traceback


class Failure(Exception):
    def __init__(self, msg):
        super().__init__(msg)
        self.msg = msg

    def __str__(self):
        return "failure: " + self.msg


class AssertionFailed(Exception):
    pass


assertions = 0


def prettystr(v, depth=0):
    if isinstance(v, str):
        return '"%s"' % v
    if isinstance(v, bool) or v is None:
        return str(v).lower() if v is not None else "nil"
    if isinstance(v, int):
        return "%d" % v
    if isinstance(v, float):
        return "%.4f" % v
    if depth > 2:
        return "{...}"
    keys = sorted(v, key=str)
    return "{" + ", ".join("%s=%s" % (k, prettystr(v[k], depth + 1)) for k in keys) + "}"


def fail(fmt, *args):
    raise AssertionFailed(fmt % args)


def deep_equal(a, b):
    if a == b:
        return True
    if not isinstance(a, dict) or not isinstance(b, dict):
        return False
    for k, v in a.items():
        if not deep_equal(v, b.get(k)):
            return False
    return all(k in a for k in b)


def assert_equals(actual, expected):
    global assertions
    assertions += 1
    if isinstance(actual, dict) and isinstance(expected, dict):
        if not deep_equal(actual, expected):
            fail("expected: %s, actual: %s", prettystr(expected), prettystr(actual))
    elif actual != expected:
        fail("expected: %s, actual: %s", prettystr(expected), prettystr(actual))


def assert_almost_equals(actual, expected, margin):
    global assertions
    assertions += 1
    if abs(actual - expected) > margin:
        fail("values differ beyond margin %g: %5.2f vs %5.2f", margin, actual, expected)


def assert_true(v, *rest):
    global assertions
    assertions += 1
    if v is not True:
        extra = " (%s)" % (rest[0],) if rest else ""
        fail("expected true, got %s%s", prettystr(v), extra)


def assert_nil(v=None):
    global assertions
    assertions += 1
    if v is not None:
        raise Failure("expected nil, got %s" % prettystr(v))


def assert_str_contains(s, part):
    global assertions
    assertions += 1
    if part not in s:
        fail('could not find "%s" in "%s"', part, s)


def assert_error(f, *args):
    global assertions
    assertions += 1
    try:
        f(*args)
    except Exception:  # noqa: BLE001
        return
    fail("expected an error when calling %s with %d arguments", "function", len(args))


def assert_error_msg_contains(part, f, *args):
    global assertions
    assertions += 1
    try:
        f(*args)
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        if part not in msg:
            fail('error message "%s" does not contain "%s"', msg, part)
        return
    fail('no error, expected one containing "%s"', part)


def assert_args(count, *args):
    global assertions
    assertions += 1
    if len(args) != count:
        fail("expected %d arguments, got %d", count, len(args))
    for i, v in enumerate(args):
        if v is None:
            raise Failure("argument %d of %d is nil" % (i + 1, len(args)))


class CodedError(Exception):
    def __init__(self, **fields):
        super().__init__(fields)
        self.fields = fields


def split(s, sep):
    return [p for p in s.split(sep) if p]


def checked_div(a, b):
    if b == 0:
        raise CodedError(code="EDIV", a=a)
    if not isinstance(a, (int, float)):
        raise TypeError("checked_div: number expected, got " + type(a).__name__)
    return a / b


def raise_(v):
    raise v if isinstance(v, Exception) else AssertionFailed(v)


def run(tests):
    passed = failed = digest = 0
    for name, fn, arg in tests:
        try:
            fn(arg)
            passed += 1
        except Exception as e:  # noqa: BLE001
            trace = "stack traceback:\n" + "".join(traceback.format_tb(e.__traceback__))
            failed += 1
            line = "%-24s %s" % (name, e)
            has_trace = 1 if "stack traceback:" in trace else 0
            digest = (digest * 31 + len(line) + has_trace) % 1000000007
    return passed, failed, digest


def suite(n):
    tests = []

    def it(name, fn, arg):
        tests.append((name, fn, arg))

    for i in range(1, n + 1):
        k = i % 8
        if k == 0:
            def t0(j):
                assert_equals(j + 1, j + 1)
                assert_equals({1: j, 2: "x", 3: {"y": j}}, {1: j, 2: "x", 3: {"y": j + 1}})
            it("test_%04d_fails" % i, t0, i)
        elif k == 1:
            def t1(j):
                assert_equals(j * 2, j + j)
                assert_almost_equals(j / 3, j / 3 + 0.001, 0.01)
                assert_true(j > 0, "positive")
                assert_nil(None)
            it("test_%04d_numbers" % i, t1, i)
        elif k == 2:
            def t2(j):
                parts = split("a,b,%d,d" % j, ",")
                assert_equals(len(parts), 4)
                assert_equals(parts[2], str(j))
                assert_str_contains("-".join(parts), "b-%d" % j)
                assert_equals("%05d|%-3s|%x" % (j, "ab", j), "%05d|ab |%x" % (j, j))
            it("test_%04d_strings" % i, t2, i)
        elif k == 3:
            def t3(j):
                assert_error(checked_div, j, 0)
                assert_error_msg_contains("number expected", checked_div, "x", 1)
                assert_error_msg_contains("has no attribute", lambda: None.x)
                assert_equals(checked_div(j, 2), j / 2)
            it("test_%04d_errors" % i, t3, i)
        elif k == 4:
            def t4(j):
                assert_equals({1: j, 2: j + 1, 3: {"z": "q"}}, {1: j, 2: j + 1, 3: {"z": "q"}})
                assert_args(3, j, "two", {})
                assert_equals(len((None, None)), 2)
            it("test_%04d_tables" % i, t4, i)
        elif k == 5:
            def t5(j):
                try:
                    raise CodedError(code=j)
                except CodedError as e:
                    ok, err = False, e.fields
                assert_equals(ok, False)
                assert_equals(err["code"], j)
                assert_equals("%.14g" % (j + 0.5), "%d.5" % j)
                assert_true(True, str(j))
            it("test_%04d_values" % i, t5, i)
        elif k == 6:
            def t6(j):
                try:
                    raise_("inner")
                except AssertionFailed:
                    ok, err = True, False
                assert_true(ok)
                assert_equals(err, False)
                assert_nil(None)
                assert_equals("%s=%d" % ("k", j), "k=%d" % j)
            it("test_%04d_nested" % i, t6, i)
        else:
            def t7(j):
                assert_error_msg_contains("boom %d" % j, raise_, "boom %d" % j)
                if j % 16 == 7:
                    assert_nil(j)
                assert_args(2, j, j)
            it("test_%04d_message" % i, t7, i)
    return tests


def bench(n):
    global assertions
    assertions = 0
    passed, failed, digest = run(suite(n))
    return (digest + passed * 7 + failed * 3 + assertions) % 1000000007
