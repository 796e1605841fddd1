local function permgen(a, n)
  n = n or #a
  if n <= 1 then coroutine.yield(a) else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      permgen(a, n - 1)
      a[n], a[i] = a[i], a[n]
    end
  end
end
local function permutations(a)
  return coroutine.wrap(function() permgen(a) end)
end
for p in permutations({1, 2, 3}) do print(table.concat(p, " ")) end
-- filter/map pipelines
local function gen(n) return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end) end
local function filter(pred, g) return coroutine.wrap(function() for v in g do if pred(v) then coroutine.yield(v) end end end) end
local function map(f, g) return coroutine.wrap(function() for v in g do coroutine.yield(f(v)) end end) end
local out = {}
for v in map(function(x) return x * x end, filter(function(x) return x % 2 == 0 end, gen(10))) do out[#out + 1] = v end
print(table.concat(out, ","))
-- passing values in both directions
local acc = coroutine.wrap(function(first)
  local total = first
  while true do
    local v = coroutine.yield(total)
    if v == nil then break end
    total = total + v
  end
  return "final " .. total
end)
print(acc(1), acc(2), acc(3), acc(nil))
-- yield multiple values
local multi = coroutine.create(function() coroutine.yield(1, 2, 3); coroutine.yield(); return nil, nil end)
print(coroutine.resume(multi))
print(coroutine.resume(multi))
print(coroutine.resume(multi))
print(coroutine.resume(multi))
-- coroutine inside coroutine
local outer = coroutine.wrap(function()
  local inner = coroutine.wrap(function() coroutine.yield("inner1"); coroutine.yield("inner2") end)
  coroutine.yield(inner())
  coroutine.yield("outer")
  coroutine.yield(inner())
end)
print(outer(), outer(), outer())
-- yield from nested function calls
local function deep(n) if n == 0 then coroutine.yield("bottom") else deep(n - 1) end end
local dco = coroutine.create(function() deep(100); return "back" end)
print(coroutine.resume(dco))
print(coroutine.resume(dco))
-- yield inside metamethod
local mt = {__index = function(t, k) return coroutine.yield(k) end}
local co = coroutine.create(function() local t = setmetatable({}, mt); return "got " .. t.foo end)
print(coroutine.resume(co))
print(coroutine.resume(co, "bar"))
-- yield inside sort comparator
local sco = coroutine.wrap(function()
  local t = {3, 1, 2}
  table.sort(t, function(a, b) coroutine.yield("cmp"); return a < b end)
  return table.concat(t)
end)
local okr, r = pcall(sco)
print(okr, r)
-- wrap dead
local w = coroutine.wrap(function() return 1 end)
print(w())
print(pcall(w))
-- resume running
local selfco
selfco = coroutine.create(function() return coroutine.resume(selfco) end)
print(coroutine.resume(selfco))
print(coroutine.resume(coroutine.running()))
