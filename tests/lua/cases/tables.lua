local t = {1, 2, 3, nil, 5}
print(t[1], t[4], t[5])
local u = {x = 1, y = nil, ["z"] = 3, [1.0] = "one", [2] = "two"}
print(u.x, u.y, u.z, u[1], u[2], #u)
local v = {10, 20, [2] = "x", 30}
print(v[1], v[2], v[3])
-- ===
local t = {}
t[1.0] = "a"; t[2] = "b"; t[3.5] = "c"
print(t[1], t[2.0], t[3.5], #t)
t[true] = 1; t[1] = nil
print(t[true], t[1], t[2])
-- ===
local t = {}
for i = 1, 10 do t[i] = i * i end
print(#t, t[10])
t[#t] = nil
print(#t)
local k = {}
for key, value in pairs({a = 1, b = 2, c = 3, 10, 20}) do k[#k + 1] = tostring(key) .. "=" .. value end
print(#k)
-- ===
local t = {}
t[nil] = 1
-- ===
local t = {}
t[0/0] = 1
-- ===
local t = setmetatable({}, {__index = function(t, k) return k .. "!" end})
print(t.x, t[1], rawget(t, "x"))
local base = {greet = function(self) return "hi " .. self.name end}
local obj = setmetatable({name = "bob"}, {__index = base})
print(obj:greet())
-- ===
local log = {}
local t = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = k; rawset(t, k, v * 2) end})
t.a = 1; t.a = 5; t.b = 2
print(t.a, t.b, #log)
-- ===
local V = {}
V.__index = V
V.__add = function(a, b) return setmetatable({x = a.x + b.x}, V) end
V.__eq = function(a, b) return a.x == b.x end
V.__lt = function(a, b) return a.x < b.x end
V.__le = function(a, b) return a.x <= b.x end
V.__tostring = function(a) return "V(" .. a.x .. ")" end
V.__len = function(a) return a.x end
V.__call = function(self, y) return self.x + y end
V.__concat = function(a, b) return "cat" end
V.__unm = function(a) return setmetatable({x = -a.x}, V) end
local function new(x) return setmetatable({x = x}, V) end
local a, b = new(1), new(2)
print(tostring(a + b), a == new(1), a < b, a <= b, a > b, #b, a(10), a .. "s", 1 .. a, tostring(-a))
-- ===
local t = setmetatable({}, {__index = function() error("boom") end})
print(pcall(function() return t.x end))
-- ===
local mt = {__metatable = "locked"}
local t = setmetatable({}, mt)
print(getmetatable(t))
print(pcall(setmetatable, t, {}))
-- ===
print(rawequal(1, 1.0), rawequal("a", "a"), rawequal({}, {}), rawlen({1, 2}), rawlen("abc"))
print(next({}), type(next), next({10}))
print(pcall(next, {}, "nokey"))
-- ===
local t = {a = 1, b = 2, c = 3}
for k in pairs(t) do t[k] = nil end
print(next(t))
