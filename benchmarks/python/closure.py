"""closure: creating closures (counter generators) and calling them."""


def counter(start):
    c = start

    def step(k):
        nonlocal c
        c = c + k
        return c

    return step


def bench(n):
    s = 0
    for i in range(1, n // 4 + 1):
        f = counter(i)
        s = s + f(1) + f(2) + f(3) + f(4)
    acc = 0

    def add(v):
        nonlocal acc
        acc = acc + v

    for i in range(1, n + 1):
        add(i)
    return (s + acc) % 1000000007
