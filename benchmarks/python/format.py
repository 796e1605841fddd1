"""format: %-formatting with %d, %s and %5.2f."""


def bench(n):
    total = 0
    for i in range(1, n + 1):
        s = "%d %s %5.2f" % (i, "item", i / 7)
        total = total + len(s) + ord(s[-1])
    return total
