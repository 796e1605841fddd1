"""coroutine: Python generators: one yielding n values, and a send() ping-pong."""


def gen(n):
    for i in range(1, n + 1):
        yield i


def pingpong():
    a = yield
    while True:
        a = yield a * 2


def bench(n):
    s = 0
    for v in gen(n):
        s = s + v
    co = pingpong()
    next(co)
    for i in range(1, n // 2 + 1):
        v = co.send(i)
        s = s + v
    return s
