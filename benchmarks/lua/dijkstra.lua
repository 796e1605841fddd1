-- dijkstra: shortest paths on an n x n grid with random weights, using a
-- hand-written binary heap of {dist, node} pairs.
local function push(heap, d, v)
  local n = #heap + 1
  heap[n] = {d, v}
  while n > 1 do
    local p = n // 2
    if heap[p][1] <= d then break end
    heap[n], heap[p] = heap[p], heap[n]
    n = p
  end
end

local function pop(heap)
  local top = heap[1]
  local last = heap[#heap]
  heap[#heap] = nil
  local size = #heap
  if size > 0 then
    heap[1] = last
    local i = 1
    while true do
      local l, r, m = 2 * i, 2 * i + 1, i
      if l <= size and heap[l][1] < heap[m][1] then m = l end
      if r <= size and heap[r][1] < heap[m][1] then m = r end
      if m == i then break end
      heap[i], heap[m] = heap[m], heap[i]
      i = m
    end
  end
  return top[1], top[2]
end

function bench(n)
  local weight, seed = {}, 5
  for v = 1, n * n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    weight[v] = seed % 9 + 1
  end
  local dist = {}
  local heap = {}
  dist[1] = 0
  push(heap, 0, 1)
  local settled = 0
  while #heap > 0 do
    local d, v = pop(heap)
    if d == dist[v] then
      settled = settled + 1
      local row, col = (v - 1) // n, (v - 1) % n
      local function relax(u)
        local nd = d + weight[u]
        local old = dist[u]
        if old == nil or nd < old then
          dist[u] = nd
          push(heap, nd, u)
        end
      end
      if col > 0 then relax(v - 1) end
      if col < n - 1 then relax(v + 1) end
      if row > 0 then relax(v - n) end
      if row < n - 1 then relax(v + n) end
    end
  end
  local total = 0
  for v = 1, n * n do total = total + dist[v] end
  return dist[n * n] * 1000000 + total % 1000000 + settled
end
