local function where()
  local info = debug.getinfo(2, "Sl")
  return info.short_src .. ":" .. info.currentline
end
print(where())
local function f(a, b, ...)
  local x = 10
  local info = debug.getinfo(1, "nSlu")
  print(info.what, info.short_src, info.source, info.linedefined, info.nparams, info.isvararg, info.nups, info.name, info.namewhat, info.currentline)
  print(debug.getlocal(1, 1), debug.getlocal(1, 2), debug.getlocal(1, 3))
  return x
end
f(1, 2)
local main = debug.getinfo(1, "S")
print(main.what, main.linedefined, main.short_src, main.source)
local pinfo = debug.getinfo(print)
print(pinfo.what, pinfo.short_src, pinfo.source, pinfo.linedefined, pinfo.currentline)
local up1, up2 = 5, 6
local function g() return up1 + up2 end
print(debug.getupvalue(g, 1), debug.getupvalue(g, 2), debug.getupvalue(g, 3))
print(debug.setupvalue(g, 1, 100), g())
print(debug.traceback("msg"))
print(debug.traceback("lvl2", 2))
print(debug.traceback({}) ~= nil, type(debug.traceback({})))
print(debug.traceback())
local function deep(n) if n == 0 then return debug.traceback("deep") end return (deep(n - 1)) end
print(deep(30))
local t = {} function t.m() return debug.traceback("in m") end
print(t.m())
local obj = {} function obj:meth() return debug.traceback("in meth") end
print(obj:meth())
print(pcall(error, "x"))
print(xpcall(function() error("oops") end, debug.traceback))
print(select(2, xpcall(function() local y = nil; return y.z end, debug.traceback)))
print(debug.gethook())
local count = 0
debug.sethook(function(ev) count = count + 1 end, "", 100)
for i = 1, 10000 do local _ = i * 2 end
debug.sethook()
print(count > 10, debug.gethook())
local lines = {}
debug.sethook(function(ev, line) lines[#lines + 1] = ev .. line end, "l")
local a = 1
local b = 2
debug.sethook()
print(table.concat(lines, " "))
local calls = 0
debug.sethook(function(ev) calls = calls + 1 end, "c")
g() g()
debug.sethook()
print(calls >= 2)
print(debug.getinfo(100))
print(pcall(debug.getinfo, 1, ">"))
print(debug.getmetatable("").__index == string)
-- getfenv/setfenv emulations (Penlight's compat) read _ENV through upvalues
local function getfenv(f)
  f = (type(f) == 'function' and f or debug.getinfo(f + 1, 'f').func)
  local name, val
  local up = 0
  repeat
    up = up + 1
    name, val = debug.getupvalue(f, up)
  until name == '_ENV' or name == nil
  return val
end
local function uses_globals() return tostring end
print(getfenv(uses_globals) == _G, getfenv(1) == _G)
local counter = 0
local function bump() counter = counter + 1 return counter end
bump()
print(debug.getupvalue(bump, 1))
print(debug.setupvalue(bump, 1, 41), bump(), counter)
-- the string metatable removed and put back, as Penlight's pretty.read does
local smt = getmetatable("")
debug.setmetatable("", nil)
print(pcall(function() return ("woo"):upper() end))
print(pcall(function() return ("x"):rep(2) end))
debug.setmetatable("", smt)
print(("woo"):upper(), ("x"):rep(2), ("a"):upper())
