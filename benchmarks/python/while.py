"""while: the same sum with a while loop, a comparison and a modulo per step."""


def bench(n):
    s, i = 0, 0
    while i < n:
        i = i + 1
        if i % 3 == 0:
            s = s + i
        else:
            s = s - 1
    return s
