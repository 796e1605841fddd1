"""loop: a numeric for loop summing integers."""


def bench(n):
    s = 0
    for i in range(1, n + 1):
        s = s + i
    return s
