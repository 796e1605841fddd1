local f = load("return 1 + 2")
print(f())
print(load("syntax error here"))
local env = {x = 5}
local g = load("return x", "chunk", "t", env)
print(g())
local h = load("y = 10; return y", "=mychunk", "t", env)
print(h(), env.y, y)
print(type(load(function() return nil end)))
local pieces = {"return ", "'pie", "ces'"}
local i = 0
print(load(function() i = i + 1; return pieces[i] end)())
print(pcall(load("error('in chunk')", "=named")))
print(pcall(load("error('in chunk2')", "@file.lua")))
print(pcall(load("error('in chunk3')")))
print(pcall(load("local x = nil; return x.f", "=(load)")))
local function sandbox()
  local _ENV = {print = print}
  z = 3
  print(z)
  return _ENV
end
print(sandbox().z, z)
do
  local _ENV = setmetatable({}, {__index = _G})
  newglobal = "in custom env"
  print(newglobal, _G.newglobal)
end
print(load("return ...", "v")(1, 2, 3))
print(select("#", load("return")()))
print(load("return 1", "x", "b"))
local fn, err = load("x =", "=src")
print(fn, err)
print(load("\27Lua"))
print(_G._G == _G, _ENV == _G, _VERSION)
print(rawequal(_G, _ENV))
local cnt = 0
setmetatable(_G, {__index = function(_, k) cnt = cnt + 1; return "dflt_" .. k end})
print(undefined_var_a, undefined_var_b, cnt)
setmetatable(_G, nil)
print(undefined_var_c)
print(dofile == nil, type(require))
print(load("return 2^10")(), load("return 'a' .. 'b'")())
print(load("local a <const> = 5; return a * 2")())
print(load("return function(...) return select('#', ...) end")()(nil, nil))
