-- __index chains of functions and tables, rawget/rawset, __newindex chains
local calls = {}
local A = {a = "A.a"}
local B = setmetatable({b = "B.b"}, {__index = A})
local C = setmetatable({c = "C.c"}, {__index = function(t, k)
  calls[#calls + 1] = k
  return B[k]
end})
local D = setmetatable({}, {__index = C})
print(D.a, D.b, D.c, D.d, rawget(D, "a"))
print(table.concat(calls, ","))
-- __newindex chain: table with metatable that has __newindex
local log = {}
local inner = setmetatable({}, {__newindex = function(t, k, v) log[#log + 1] = "inner " .. k; rawset(t, k, v) end})
local outer = setmetatable({}, {__newindex = inner})
outer.x = 1
print(rawget(outer, "x"), rawget(inner, "x"), table.concat(log, ","))
-- existing key does not trigger __newindex
local cnt = 0
local tt = setmetatable({present = 1}, {__newindex = function(t, k, v) cnt = cnt + 1; rawset(t, k, v) end})
tt.present = 2; tt.absent = 3; tt.absent = 4
print(cnt, tt.present, tt.absent)
-- defaults
local function withDefault(d) return setmetatable({}, {__index = function() return d end}) end
local dd = withDefault(0)
dd.x = 5
print(dd.x, dd.y, dd[1])
-- read-only table
local function readonly(t)
  return setmetatable({}, {__index = t, __newindex = function(_, k) error("attempt to update read-only field " .. tostring(k), 2) end, __len = function() return #t end})
end
local ro = readonly({1, 2, 3})
print(ro[1], #ro, pcall(function() ro[1] = 5 end))
-- __index on strings
local smt = getmetatable("")
local old = smt.__index
smt.__index = function(s, k)
  if type(k) == "number" then return string.sub(s, k, k) end
  return old[k]
end
print(("hello")[1], ("hello")[5], ("hello"):upper())
smt.__index = old
-- __call with varargs
local callable = setmetatable({}, {__call = function(self, ...) return select("#", ...), ... end})
print(callable(1, nil, 3))
print(callable())
-- __call chain (callable as __call?)
local proxy = setmetatable({}, {__call = callable})
local okp, n1, selfp, xp = pcall(proxy, "x"); print(okp, n1, selfp == proxy, xp)
-- tables as keys
local k1, k2 = {}, {}
local map = {[k1] = "one", [k2] = "two"}
print(map[k1], map[k2], map[{}])
-- memoize via __index
local sq = setmetatable({}, {__index = function(t, n) local v = n * n; rawset(t, n, v); return v end})
print(sq[4], sq[5], rawget(sq, 4), rawget(sq, 6))
-- __len
local lenobj = setmetatable({1, 2, 3}, {__len = function() return 42 end})
print(#lenobj, rawlen(lenobj))
-- __index = rawget loop bound
local proto = {greet = function(self) return "hi " .. self.name end}
local obj = setmetatable({name = "bob"}, {__index = proto})
print(obj:greet())
-- __unm and __bnot return values
local u = setmetatable({}, {__unm = function() return "neg" end, __bnot = function() return "not" end})
print(-u, ~u)
print(getmetatable(setmetatable({}, {__index = 1})).__index)
print(pcall(function() local bad = setmetatable({}, {__index = 1}); return bad.x end))
