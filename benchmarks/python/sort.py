"""sort: list.sort of n pseudo-random integers, without and with a comparator.

The comparator variant uses functools.cmp_to_key with a Python comparison
function, i.e. the same algorithmic work as table.sort calling a Lua function
(plain `b.sort(reverse=True)` would be faster but is a different benchmark).
"""

from functools import cmp_to_key


def _greater(p, q):
    return -1 if p > q else (1 if p < q else 0)


def bench(n):
    a, b = [], []
    x = 12345
    for i in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        a.append(x)
        b.append(x)
    a.sort()
    b.sort(key=cmp_to_key(_greater))
    s = 0
    for i in range(1, n + 1, 97):
        s = (s + a[i - 1] * (i % 13 + 1) + b[i - 1]) % 1000000007
    return s
