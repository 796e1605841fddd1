local function where() local info = debug.getinfo(2, "Sl"); return info.short_src .. ":" .. info.currentline end
print(where())
local function named() return debug.getinfo(1, "n").name end
print(named())
local info = debug.getinfo(print)
print(info.what, info.short_src, info.source)
local function f(a, b) local c = 3; return debug.getlocal(1, 1), debug.getlocal(1, 3) end
print(f(10, 20))
local ok, tb = xpcall(function() error("boom") end, debug.traceback)
print(ok, tb:match("^[^\n]*"))
print((debug.traceback("msg"):match("^[^\n]*")))
print(debug.traceback("msg", 1):match("^msg\nstack traceback:") ~= nil)
local up = 5
local function g() return up end
print(debug.getupvalue(g, 1))
debug.setupvalue(g, 1, 99)
print(g(), up)
print(debug.getmetatable("").__index == string)
local fi = debug.getinfo(1, "f")
print(type(fi.func))
local li = debug.getinfo(where, "S")
print(li.what, li.linedefined, li.lastlinedefined)
print(type(debug.traceback({})), type(debug.traceback()), debug.traceback(nil, 1) ~= nil)
