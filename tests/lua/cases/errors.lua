local x
print(x.y)
-- ===
print(y.z)
-- ===
local t = {}
print(t.a.b)
-- ===
local t = {}
t.a.b = 1
-- ===
x = nil
x()
-- ===
local t = {}
t:m()
-- ===
local t = {}
t.f()
-- ===
local up
local function f() return up.x end
f()
-- ===
error("plain")
-- ===
error("no position", 0)
-- ===
local function f() error("level two", 2) end
f()
-- ===
error({code = 1})
-- ===
error()
-- ===
print(pcall(error, "x"))
print(pcall(error, "x", 0))
print(pcall(error))
print(select('#', pcall(error)))
print(type(select(2, pcall(error, {1}))))
-- ===
local ok, e = pcall(function() local a = nil; return a + 1 end)
print(ok, e)
print(xpcall(function() error("E") end, function(m) return "handled: " .. m end))
print(xpcall(function(a, b) return a + b end, print, 1, 2))
-- ===
local e = setmetatable({}, {__tostring = function() return "custom error" end})
error(e)
-- ===
assert(false)
-- ===
assert(nil, "my message")
-- ===
print(assert(1, 2, 3))
-- ===
print(type(select(2, pcall(assert, false, {}))))
-- ===
local ok, err = pcall(function() local t <close> = 42 end)
print(ok, err)
-- ===
local log = {}
do
  local a <close> = setmetatable({}, {__close = function(o, e) log[#log + 1] = "a:" .. tostring(e) end})
  local b <close> = setmetatable({}, {__close = function(o, e) log[#log + 1] = "b:" .. tostring(e) end})
  log[#log + 1] = "body"
end
print(table and #log, log[1], log[2], log[3])
local ok, e = pcall(function()
  local c <close> = setmetatable({}, {__close = function(o, e) log[#log + 1] = "c:" .. tostring(e) end})
  error("oops", 0)
end)
print(ok, e, log[4])
