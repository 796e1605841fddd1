"""report: a sales report: grouping rows, sorting, money with thousands
separators, padded columns (the same report as report.lua)."""

REGIONS = ["north", "south", "east", "west", "central"]
PRODUCTS = ["apples", "pears", "plums", "cherries", "quinces", "figs", "dates"]


def money(cents):
    return f"{cents // 100:,}.{cents % 100:02d}"


def make_rows(n):
    rows, seed = [], 7
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        rows.append({
            "region": REGIONS[seed % len(REGIONS)],
            "product": PRODUCTS[(seed // 7) % len(PRODUCTS)],
            "qty": seed % 50 + 1,
            "price": 99 + (seed // 13) % 5000,
        })
    return rows


def group(rows):
    by_region = {}
    for r in rows:
        g = by_region.get(r["region"])
        if g is None:
            g = by_region[r["region"]] = {"name": r["region"], "total": 0, "products": {}}
        p = g["products"].get(r["product"])
        if p is None:
            p = g["products"][r["product"]] = {"name": r["product"], "qty": 0, "total": 0}
        p["qty"] += r["qty"]
        p["total"] += r["qty"] * r["price"]
        g["total"] += r["qty"] * r["price"]
    return by_region


def by_total(x):
    return (-x["total"], x["name"])


def render(by_region):
    out = []
    for g in sorted(by_region.values(), key=by_total):
        out.append("== %s (%s) ==" % (g["name"].upper(), money(g["total"])))
        for rank, p in enumerate(sorted(g["products"].values(), key=by_total), 1):
            out.append("%2d. %-10s %8d %16s %6.1f%%" % (rank, p["name"], p["qty"], money(p["total"]),
                                                       p["total"] * 100 / g["total"]))
    return "\n".join(out)


def bench(n):
    rows = make_rows(n)
    size = lines = 0
    for chunk in range(20):
        text = render(group(rows[chunk::20]))
        size += len(text)
        lines += text.count("\n")
    money_chars = sum(len(money(r["qty"] * r["price"])) for r in rows)
    return size * 1000 + lines + money_chars
