"""dijkstra: shortest paths on an n x n grid with a hand-written binary heap
(the same algorithm as dijkstra.lua)."""


def push(heap, d, v):
    heap.append((d, v))
    n = len(heap) - 1
    while n > 0:
        p = (n - 1) // 2
        if heap[p][0] <= d:
            break
        heap[n], heap[p] = heap[p], heap[n]
        n = p


def pop(heap):
    top = heap[0]
    last = heap.pop()
    size = len(heap)
    if size:
        heap[0] = last
        i = 0
        while True:
            l, r, m = 2 * i + 1, 2 * i + 2, i
            if l < size and heap[l][0] < heap[m][0]:
                m = l
            if r < size and heap[r][0] < heap[m][0]:
                m = r
            if m == i:
                break
            heap[i], heap[m] = heap[m], heap[i]
            i = m
    return top


def bench(n):
    weight, seed = [], 5
    for _ in range(n * n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        weight.append(seed % 9 + 1)
    dist = {0: 0}
    heap = []
    push(heap, 0, 0)
    settled = 0
    while heap:
        d, v = pop(heap)
        if d == dist[v]:
            settled += 1
            row, col = divmod(v, n)

            def relax(u):
                nd = d + weight[u]
                old = dist.get(u)
                if old is None or nd < old:
                    dist[u] = nd
                    push(heap, nd, u)

            if col > 0:
                relax(v - 1)
            if col < n - 1:
                relax(v + 1)
            if row > 0:
                relax(v - n)
            if row < n - 1:
                relax(v + n)
    total = sum(dist[v] for v in range(n * n))
    return dist[n * n - 1] * 1000000 + total % 1000000 + settled
