local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end -- closures and upvalues
local function counter()
  local n = 0
  return function() n = n + 1; return n end
end
local c1, c2 = counter(), counter()
print(c1(), c1(), c1(), c2(), c2())

local fs = {}
for i = 1, 5 do fs[i] = function() return i * 10 end end
for i = 1, 5 do io.write(fs[i](), " ") end
print()

local shared = {}
do
  local x = 1
  shared.get = function() return x end
  shared.set = function(v) x = v end
end
print(shared.get()); shared.set(42); print(shared.get())

local acc = {}
local i = 1
while i <= 3 do
  local j = i
  acc[#acc + 1] = function() j = j + 100; return j end
  i = i + 1
end
print(acc[1](), acc[1](), acc[2](), acc[3]())

local function mk(a)
  return function(b)
    return function(c) return a + b + c end
  end
end
print(mk(1)(2)(3), mk(10)(20)(30))

-- recursive local function
local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
print(fib(20))
local fact
fact = function(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print(fact(20), fact(21), fact(25))

-- upvalue shared among loop closures repeat-until
local k = 0
local gs = {}
repeat
  local kk = k
  gs[#gs+1] = function() return kk end
  k = k + 1
until kk >= 3
for _, g in ipairs(gs) do io.write(g(), ",") end
print()

-- closures capturing loop var of generic for
local t = {"a","b","c"}
local hs = {}
for idx, v in ipairs(t) do hs[idx] = function() return idx .. v end end
print(hs[1](), hs[2](), hs[3]())
-- nested functions modifying outer locals
local function outer()
  local v = 0
  local function inc() v = v + 1 end
  local function get() return v end
  inc(); inc(); inc()
  return get()
end
print(outer())
print(select('#', (function() end)()))

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
