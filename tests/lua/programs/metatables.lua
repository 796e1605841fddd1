local V = {}
V.__index = V
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
V.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
V.__mul = function(a, b)
  if type(a) == "number" then return vec(a * b.x, a * b.y) end
  if type(b) == "number" then return vec(a.x * b, a.y * b) end
  return a.x * b.x + a.y * b.y
end
V.__div = function(a, b) return vec(a.x / b, a.y / b) end
V.__mod = function(a, b) return vec(a.x % b, a.y % b) end
V.__pow = function(a, b) return vec(a.x ^ b, a.y ^ b) end
V.__unm = function(a) return vec(-a.x, -a.y) end
V.__idiv = function(a, b) return vec(a.x // b, a.y // b) end
V.__band = function(a, b) return "band" end
V.__bor = function(a, b) return "bor" end
V.__bxor = function(a, b) return "bxor" end
V.__shl = function(a, b) return "shl" end
V.__shr = function(a, b) return "shr" end
V.__bnot = function(a) return "bnot" end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x < b.x end
V.__le = function(a, b) return a.x <= b.x end
V.__len = function(a) return 2 end
V.__concat = function(a, b)
  local sa = type(a) == "table" and a:str() or tostring(a)
  local sb = type(b) == "table" and b:str() or tostring(b)
  return sa .. sb
end
V.__tostring = function(a) return "(" .. a.x .. "," .. a.y .. ")" end
V.__call = function(self, k) return self[k] end
function V:str() return tostring(self) end
local a, b = vec(1, 2), vec(3, 4)
print(tostring(a + b), tostring(a - b), a * b, tostring(2 * a), tostring(a * 3))
print(tostring(b / 2), tostring(b % 2), tostring(a ^ 2), tostring(-a), tostring(b // 2))
print(a & b, a | 1, 1 ~ a, a << 1, a >> 1, ~a)
print(a == b, a == vec(1, 2), a ~= vec(1, 2), a < b, a <= b, a > b, a >= b)
print(#a, a .. b, a .. "!", "!" .. a, 1 .. a)
print(a("x"), a("y"))
print(a, b)
print(rawequal(a, vec(1, 2)), rawlen(a))
-- __eq not called for different types / same object
local cnt = 0
local E = {__eq = function() cnt = cnt + 1; return true end}
local e1, e2 = setmetatable({}, E), setmetatable({}, E)
print(e1 == e2, e1 == e1, e1 == 1, cnt)
print(e1 ~= e2, cnt)
-- __lt result converted to boolean
local L = {__lt = function() return 1 end, __le = function() return nil end}
local l1, l2 = setmetatable({}, L), setmetatable({}, L)
print(l1 < l2, l1 <= l2, l1 > l2, not (l1 >= l2))
-- __index function and __newindex
local log = {}
local P = setmetatable({}, {
  __index = function(t, k) return k .. "!" end,
  __newindex = function(t, k, v) log[#log + 1] = k .. "=" .. tostring(v); rawset(t, k, v) end,
})
print(P.foo, P[1])
P.a = 1; P.a = 2; P.b = nil
print(table.concat(log, " "), P.a)
-- __newindex table
local store = {}
local Q = setmetatable({}, {__newindex = store, __index = store})
Q.x = 10
print(rawget(Q, "x"), store.x, Q.x)
-- __metatable
local locked = setmetatable({}, {__metatable = "locked"})
print(getmetatable(locked), pcall(setmetatable, locked, {}))
print(getmetatable("abc").__index == string)
print(pcall(setmetatable, 1, {}))
-- __unm, __len on strings default
print(#"abc", -"2", -"2.5")
-- __concat with numbers
local C = setmetatable({}, {__concat = function(x, y) return "C" end})
print(C .. 1, 1 .. C, "a" .. C .. "b")
-- __close is tested elsewhere; __mode
local weak = setmetatable({}, {__mode = "k"})
print(getmetatable(weak).__mode)
-- __index depth
local base = {greet = function() return "hi" end}
local mid = setmetatable({}, {__index = base})
local top = setmetatable({}, {__index = mid})
print(top.greet(), top.nothing)
