"""arrays: list reads in loops: sums, a dot product, prefix sums, a
backwards walk, rows of a matrix, a sieve and binary searches (indices from
1 in the names, as the Lua twin's; the lists from 0)."""


def bench(n):
    a, b = [], []
    for i in range(1, n + 1):
        a.append(i % 97)
        b.append((i * 7) % 101)
    s = 0
    for i in range(n):
        s = s + a[i]
    dot = 0
    for i in range(n):
        dot = dot + a[i] * b[i]
    pre = [0]
    for i in range(1, n):
        pre.append(pre[i - 1] + a[i])
    back = 0
    for i in range(n - 1, -1, -1):
        back = (back * 3 + b[i]) % 1000003
    m, size = [], 40
    for r in range(1, size + 1):
        row = []
        for c in range(1, size + 1):
            row.append(a[(r * c) % n])
        m.append(row)
    trace = 0
    for _k in range(n // (size * size) + 1):
        for r in range(size):
            row = m[r]
            for c in range(size):
                trace = trace + row[c] * m[c][r]
    sieve, primes = [True] * (n + 1), 0
    sieve[1] = False
    for i in range(2, n + 1):
        if sieve[i]:
            primes = primes + 1
            for j in range(i * i, n + 1, i):
                sieve[j] = False
    found = 0
    for q in range(1, n + 1, 3):
        lo, hi = 1, n
        while lo < hi:
            mid = (lo + hi) // 2
            if pre[mid - 1] < q:
                lo = mid + 1
            else:
                hi = mid
        found = found + lo
    return (s + dot + pre[n - 1] + back + trace + primes + found) % 1000000007
