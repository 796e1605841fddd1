local function show(...) print(select('#', ...), ...) end
local function try(f, ...) show(pcall(f, ...)) end
-- a function without upvalues, with varargs
local function sum(...)
  local s = 0
  for i = 1, select('#', ...) do s = s + select(i, ...) end
  return s, ...
end
show(load(string.dump(sum))(1, 2, 3))
-- upvalues are fresh: the first is the environment, the rest nil
local count = 0
local function counter() count = count + 1; return count end
try(load(string.dump(counter)))
local a, b = 10, 20
local function pair() return a, b end
local p = load(string.dump(pair))
print(p() == _G, select(2, p()))
print(load(string.dump(pair), 'x', 'b', {})())
-- globals through _ENV: the env argument of load
local function greet(name) return greeting .. ', ' .. name end
greeting = 'hello'
print(load(string.dump(greet))('lua'))
print(load(string.dump(greet), nil, 'bt', {greeting = 'hi'})('lua'))
try(load(string.dump(greet), nil, 'b', nil), 'x')
-- a global after an upvalue: _ENV is nil
local sep = ':'
local function joined(x) return sep .. tostring(x) end
try(load(string.dump(joined)), 1)
-- recursion through its own upvalue
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
try(load(string.dump(fact)), 1)
try(load(string.dump(fact)), 3)
-- methods, several functions on one line, nested closures
local obj = {}
function obj:scale(k) return (self.v or 1) * k end
function obj.plain(k) return k + 1 end
print(load(string.dump(obj.scale))({v = 4}, 2), load(string.dump(obj.plain))(41))
local f1, f2 = function(x) return x * 2 end, function(x) return x * 3 end
print(load(string.dump(f1))(5), load(string.dump(f2))(5))
local function maker()
  local n = 0
  return function() n = n + 1; return n end
end
local mk = load(string.dump(maker))
local c1 = mk()
print(c1(), c1(), mk()())
-- dumping a loaded function again, and a main chunk
local again = load(string.dump(load(string.dump(f2))))
print(again(7))
local main = load('local x = ... return x and x * 10, select("#", ...)')
print(load(string.dump(main))(4, 5), load(string.dump(main, true))())
-- errors keep the dumped chunk's name and lines
local function boom(kind)
  if kind == 1 then error('boom') end
  if kind == 2 then error({code = 7}) end
  local t = nil
  return t.field
end
local lb = load(string.dump(boom), 'ignored')
try(lb, 1)
print(select(2, pcall(lb, 2)).code)
try(lb, 3)
try(load(string.dump(load('error("x")', '=mine')), 'other'))
try(load(string.dump(load('local t = {...} return #t, t[1]', '=(load)')), 'x'), 5, nil)
-- the header and the modes
local s = string.dump(sum)
print(type(s), s:sub(1, 4) == '\27Lua', s:byte(5))
print(load(s, 'name', 't'))
print(load(s, 'name', 'b') ~= nil, load(s, 'name', 'bt') ~= nil)
local given = false
print(load(function() if not given then given = true return s end end)(1, 2, 3))
local parts, i = {}, 0
for k = 1, #s, 7 do parts[#parts + 1] = s:sub(k, k + 6) end
print(load(function() i = i + 1 return parts[i] end)(10, 20))
print(load('\27Lua'))
-- what cannot be dumped
try(string.dump, print)
try(string.dump, string.dump)
try(string.dump, coroutine.wrap(function() end))
try(string.dump)
try(string.dump, {})
try(string.dump, 'x')
