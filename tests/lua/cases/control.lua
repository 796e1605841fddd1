for i = 1, 3 do print(i) end
for i = 3, 1, -1 do print(i) end
for i = 1, 2, 0.5 do print(i) end
for i = 1.0, 3 do print(i) end
for i = 1, 0 do print("never") end
for i = 1, 3.7 do print(i) end
for i = -1, -3.5, -1 do print(i) end
for i = math.maxinteger - 2, math.maxinteger do print(i) end
-- ===
local i = 0
while i < 5 do i = i + 1 if i == 3 then break end end
print(i)
repeat local k = i; i = i - 1 until k <= 1
print(i)
-- ===
for i = 1, 5 do
  if i % 2 == 0 then goto continue end
  print(i)
  ::continue::
end
-- ===
local n = 0
::top::
n = n + 1
if n < 3 then goto top end
print(n)
-- ===
for i = 1, 3 do
  for j = 1, 3 do
    if j == 2 then goto next_i end
    print(i, j)
  end
  ::next_i::
end
-- ===
do
  local k = 0
  ::a::
  k = k + 1
  while true do
    if k < 3 then goto a end
    break
  end
  print("k", k)
end
-- ===
for i = 1, 10, "x" do end
-- ===
for i = 1, 10, 0 do end
-- ===
for i = nil, 10 do end
-- ===
local t = {}
for i = 1, 3 do t[i] = function() return i end end
print(t[1](), t[2](), t[3]())
-- ===
local fs = {}
local j = 0
while j < 3 do
  j = j + 1
  local k = j
  fs[j] = function() k = k + 10 return k end
end
print(fs[1](), fs[1](), fs[2](), fs[3]())
-- ===
local function counter()
  local c = 0
  return function() c = c + 1 return c end, function() return c end
end
local inc, get = counter()
inc() inc()
print(get())
-- ===
local a, b, c = (function() return 1, 2, 3 end)()
print(a, b, c)
local d, e = ((function() return 1, 2 end)())
print(d, e)
local t = {(function() return 1, 2 end)(), (function() return 3, 4 end)()}
print(#t, t[1], t[2], t[3])
print((select('#', (function() end)())))
print(select('#', nil, nil), select(-1, 1, 2, 3), select(2, "a", "b", "c"))
-- ===
local function f(...)
  local a, b = ...
  return select('#', ...), a, b, ...
end
print(f())
print(f(1))
print(f(1, nil, 3))
print((f(1, 2)))
-- ===
local x, y = 1, 2
x, y = y, x
print(x, y)
local t = {1, 2}
local i = 1
i, t[i] = i + 1, 20
print(i, t[1], t[2])
-- ===
local function loop(n, acc) if n == 0 then return acc end return loop(n - 1, acc + 1) end
print(loop(1000000, 0))
-- ===
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(8000))
-- ===
local function inf(n) return 1 + inf(n) end
print(pcall(inf, 1))
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(8000))
