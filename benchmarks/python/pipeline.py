"""pipeline: a generator pipeline: numbers -> filter -> map -> batches
(the same stages as pipeline.lua, with Python generators)."""


def numbers(n):
    for i in range(1, n + 1):
        yield i


def filtered(pred, gen):
    for x in gen:
        if pred(x):
            yield x


def mapped(f, gen):
    for x in gen:
        yield f(x)


def batches(size, gen):
    batch = []
    for x in gen:
        batch.append(x)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def bench(n):
    odd = filtered(lambda x: x % 3 != 0, numbers(n))
    squares = mapped(lambda x: x * x % 1000, odd)
    total = count = 0
    for batch in batches(16, squares):
        count += 1
        total += sum(batch)
    return total * 1000 + count
