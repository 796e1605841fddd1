local function try(f, ...) print(pcall(f, ...)) end
local N <const> = 10
local S <const> = "a\0b\"c"
local F <const> = 2.5
local T <const> = {1}
local up = 3
local function consts() return N, #S, F, up end
try(load(string.dump(consts)))
local function consts2() return T, up, N end
try(load(string.dump(consts2)))
-- the first upvalue is the one used first, inner functions included
local first, second = 1, 2
local function inner()
  local g = function() return second end
  return first, g()
end
try(load(string.dump(inner)))
local getx
do
  local _ENV = {print = print, x = 'mine'}
  getx = function() return x end
end
print(getx())
try(load(string.dump(getx)))
local function twoline(
  a, b)
  return a + b, c_global
end
print(load(string.dump(twoline))(1, 2))
local t = {}
t.f = function(...) return select('#', ...) end
print(load(string.dump(t.f))(nil, nil))
local function longstr()
  local s = [[
a function keyword: function() end ]]
  return s, "end"
end
print(load(string.dump(longstr))())
local function loops(n)
  local acc = 0
  for i = 1, n do
    if i % 2 == 0 then acc = acc + i elseif i % 3 == 0 then acc = acc - 1 else acc = acc + 0 end
  end
  while acc > 100 do acc = acc - 100 end
  repeat acc = acc + 1 until acc > 0
  do local z = 1 acc = acc + z end
  return acc
end
print(loops(10), load(string.dump(loops))(10))
local co = coroutine.wrap(load(string.dump(function(a) local b = coroutine.yield(a + 1) return b * 2 end)))
print(co(1), co(5))
