"""unittest: a small unit-test framework (assertions raising formatted
errors, every test caught, deep equality, a summary), n tests, a tenth failing."""


class Failure(Exception):
    pass


def fail(msg):
    raise Failure(msg)


def deep_equal(a, b):
    if a == b:
        return True
    if not isinstance(a, dict) or not isinstance(b, dict):
        return False
    for k, v in a.items():
        if not deep_equal(v, b.get(k)):
            return False
    return all(k in a for k in b)


def equal(got, want):
    if got != want:
        fail("expected %s, got %s" % (want, got))


def same(got, want):
    if not deep_equal(got, want):
        fail("tables differ (%d vs %d fields)" % (len(got), len(want)))


def truthy(v, what="value"):
    if not v:
        fail("%s: expected a true value, got %s" % (what, v))


def raises(fn, text):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        if text not in str(e) and text not in type(e).__name__.lower():
            fail("error %r does not match %r" % (str(e), text))
        return
    fail("expected an error matching %r" % text)


def suite(n):
    tests = []

    def it(name, fn):
        tests.append((name, fn))

    for i in range(1, n + 1):
        k = i % 10
        if k == 0:
            it("case %d fails" % i, lambda i=i: equal(i * 2, i * 2 + 1))
        elif k < 4:
            it("case %d arithmetic" % i, lambda i=i: (equal(i + i, 2 * i), truthy(i > 0, "positive")))
        elif k < 7:
            it("case %d tables" % i, lambda i=i: same({1: i, 2: i + 1, 3: {"x": i}}, {1: i, 2: i + 1, 3: {"x": i}}))
        else:
            def errors(i=i):
                def bad():
                    raise Failure({"code": i})
                raises(bad, "code")
                raises(lambda: None.x, "attribute")
            it("case %d errors" % i, errors)
    return tests


def bench(n):
    passed = failed = 0
    messages = []
    for name, fn in suite(n):
        try:
            fn()
            passed += 1
        except Failure as e:
            failed += 1
            messages.append("FAIL %s: %s" % (name, e))
    total = passed * 3 + failed
    for m in messages:
        total = (total + len(m)) % 1000000007
    return total
