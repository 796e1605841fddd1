local function f(...)
  return select('#', ...), ...
end
print(f())
print(f(nil))
print(f(nil, nil))
print(f(1, nil, 3))
print(select(2, "a", "b", "c"))
print(select(-1, "a", "b", "c"))
print(select(-3, "a", "b", "c"))
print(pcall(select, -4, "a", "b", "c"))
print(pcall(select, 0, "a"))
print(select(5, 1, 2))
local function g(...)
  local a, b = ...
  local t = {...}
  local p = table.pack(...)
  return a, b, #t, p.n
end
print(g(1, 2, 3))
print(g())
local function h(...) return ... end
print((h(1, 2, 3)))
print(h(1, 2, 3), "end")
print("start", h(1, 2, 3))
local t = {h(1, 2), h(3, 4)}
print(#t, t[1], t[2], t[3])
t = {h(1, 2), (h(3, 4))}
print(#t)
local function sum(...)
  local s = 0
  for i = 1, select('#', ...) do
    s = s + (select(i, ...))
  end
  return s
end
print(sum(1, 2, 3, 4, 5), sum(), sum(1.5, 2))
local function va2(a, ...)
  local n = select('#', ...)
  return a, n
end
print(va2(), va2(1), va2(1, 2, 3))
print(string.format("%d %d", select(2, 10, 20, 30)))
local packed = table.pack(1, nil, 3, nil)
print(packed.n, packed[1], packed[2], packed[3], packed[4])
print(table.unpack({1, 2, 3}, 2))
print(table.unpack({1, 2, 3}, 2, 5))
print(table.unpack({}, 1, 0))
local function tail(...) return select('#', ...) end
print(tail(table.unpack({1, nil, nil}, 1, 3)))
print(math.max(h(3, 9, 2)))
