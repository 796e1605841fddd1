-- `<=` without __le: not (b < a) through __lt, as Lua 5.4 built with
-- LUA_COMPAT_5_3 (its own makefile, Debian's lua5.4) compares
local mt = {__lt = function(a, b) print("lt", a.n, b.n) return a.n < b.n end}
local a, b = setmetatable({n = 1}, mt), setmetatable({n = 2}, mt)
print(a <= b, b <= a, a >= b, a <= a)
print(pcall(function() return a <= 1 end))
print(pcall(function() return 1 >= a end))
local c = setmetatable({n = 3}, {__lt = function() return nil end})
print(c <= c, c >= c)
print(pcall(function() return {} <= {} end))
print(pcall(function() return {} <= 1 end))
-- the second operand's __lt when only it has one; __le wins over __lt
local only = setmetatable({n = 5}, mt)
print(pcall(function() return only <= {n = 4} end), pcall(function() return {n = 9} <= only end))
local both = setmetatable({n = 0}, {__lt = function() print("lt called") return true end,
                                    __le = function() print("le called") return false end})
print(both <= both)
-- a yield inside the __lt that stands in for __le
local co = coroutine.wrap(function()
  local ymt = {__lt = function(x, y) coroutine.yield("in lt " .. x.n .. " " .. y.n) return x.n < y.n end}
  local x, y = setmetatable({n = 1}, ymt), setmetatable({n = 2}, ymt)
  return x <= y, y <= x, x >= y
end)
print(co()) print(co()) print(co()) print(co())
-- sorting with a comparator that uses <=
local items = {}
for i = 1, 8 do items[i] = setmetatable({n = (i * 5) % 8}, mt) end
local calls = 0
mt.__lt = function(p, q) calls = calls + 1 return p.n < q.n end
table.sort(items, function(p, q) return not (q <= p) end)
local out = {}
for i, v in ipairs(items) do out[i] = v.n end
print(table.concat(out, " "), calls > 0)
