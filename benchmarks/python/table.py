"""table: list appends and reads, plus string-keyed record fields (dicts)."""


def bench(n):
    t = []
    for i in range(1, n + 1):
        t.append(i)
    s = 0
    for i in range(len(t)):
        s = s + t[i]
    rec = {"count": 0, "total": 0, "max": 0}
    for i in range(n):
        v = t[i] % 1000
        rec["count"] = rec["count"] + 1
        rec["total"] = rec["total"] + v
        if v > rec["max"]:
            rec["max"] = v
    pts = []
    for i in range(1, n // 4 + 1):
        pts.append({"x": i, "y": i * 2, "name": "p"})
    q = 0
    for p in pts:
        q = q + p["x"] + p["y"]
    return s + rec["count"] + rec["total"] + rec["max"] + q
