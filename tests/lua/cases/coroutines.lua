local co = coroutine.create(function(a, b)
  print("start", a, b)
  local c = coroutine.yield(a + b)
  print("got", c)
  local d, e = coroutine.yield(c * 2)
  print("got", d, e)
  return "done", 99
end)
print(coroutine.status(co))
print(coroutine.resume(co, 1, 2))
print(coroutine.status(co))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, "x", "y"))
print(coroutine.status(co))
print(coroutine.resume(co))
-- ===
local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)
print(gen(), gen(), gen())
-- ===
local co = coroutine.create(function() error("inside") end)
print(coroutine.resume(co))
print(coroutine.status(co))
local co2 = coroutine.create(function() error({}) end)
local ok, e = coroutine.resume(co2)
print(ok, type(e))
-- ===
print(coroutine.isyieldable(), select("#", coroutine.running()))
print(coroutine.resume(coroutine.create(function() return coroutine.isyieldable() end)))
print(pcall(coroutine.yield, 1))
-- ===
local w = coroutine.wrap(function() error("boom") end)
print(pcall(w))
-- ===
local w = coroutine.wrap(function() error("boom") end)
w()
-- ===
local outer
outer = coroutine.create(function()
  local inner = coroutine.create(function()
    print("inner sees outer as", coroutine.status(outer))
    coroutine.yield()
  end)
  coroutine.resume(inner)
  print("inner is", coroutine.status(inner))
  return "ok"
end)
print(coroutine.resume(outer))
print(coroutine.resume(outer))
-- ===
local log = {}
local co = coroutine.create(function()
  local x <close> = setmetatable({}, {__close = function(_, e) log[#log + 1] = "closed " .. tostring(e) end})
  coroutine.yield(1)
  log[#log + 1] = "never"
end)
coroutine.resume(co)
print(coroutine.close(co), coroutine.status(co), log[1], log[2])
print(coroutine.close(coroutine.create(print)))
local bad = coroutine.create(function() error("E", 0) end)
coroutine.resume(bad)
print(coroutine.close(bad))
-- ===
print(pcall(coroutine.resume, 1))
print(pcall(coroutine.create))
print(coroutine.resume(coroutine.running()))
-- ===
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
end
local s = 0
for v in gen(100) do s = s + v end
print(s)
