"""string: building strings with join, `+` in a loop, %-formatting."""


def bench(n):
    parts = []
    for i in range(1, n + 1):
        parts.append("item" + str(i))
    joined = ",".join(parts)
    total = len(joined)
    for i in range(1, n + 1):
        line = "key_" + str(i) + " = " + str(i * 3) + ";"
        total = total + len(line)
    acc = ""
    for i in range(n // 20):
        acc = acc + "ab"
    total = total + len(acc)
    for i in range(1, n // 4 + 1):
        s = "%s-%d" % ("row", i)
        total = total + len(s) + ord(s[-1])
    upper = joined[:1000].upper()
    total = total + ord(upper[2]) + len("xy" * 100)
    return total
