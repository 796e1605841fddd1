local function check(v, lvl)
  if type(v) ~= "number" then error("expected number, got " .. type(v), lvl) end
  return v
end
local function api(v) return check(v, 2) end
local function api3(v) return check(v, 3) end
local function user() return api3("x") end
print(pcall(check, "a"))
print(pcall(check, "a", 1))
print(pcall(api, "a"))
print(pcall(user))
print(pcall(check, "a", 0))
local Obj = {}
Obj.__index = Obj
function Obj:method(x) if not x then error("missing x") end return x end
local o = setmetatable({}, Obj)
print(pcall(o.method, o))
print(pcall(function() return o:method() end))
print(pcall(function() return o:nomethod() end))
print(pcall(function() return Obj.nomethod() end))
-- error rethrow
local ok, e = pcall(function()
  local ok2, e2 = pcall(error, "inner", 0)
  error(e2, 0)
end)
print(ok, e)
local ok3, e3 = pcall(function()
  local ok2, e2 = pcall(error, "inner2")
  error(e2)
end)
print(ok3, e3)
-- xpcall traceback handler returns message only
print(xpcall(function() error("tb") end, function(m) return "H:" .. m end))
print(xpcall(function() error() end, function(m) return "H:" .. tostring(m) end))
print(xpcall(function() error({1, 2}) end, function(m) return #m end))
-- error with level in nested call through pcall
local function lv2() error("lvl2 msg", 2) end
print(pcall(lv2))
-- error with level pointing to main chunk
local function thrower() error("from thrower", 2) end
local ok4, e4 = pcall(function()
  thrower()
end)
print(e4)
-- numbers as messages with level: position added?
print(pcall(error, 5))
print(pcall(function() error(5) end))
print(pcall(function() error("5") end))
-- tostring on error objects
local E = setmetatable({msg = "E!"}, {__tostring = function(s) return "Error: " .. s.msg end})
local ok5, e5 = pcall(error, E)
print(ok5, tostring(e5), e5 == E)
-- assert returns all its args
print(pcall(assert, 1, 2, 3))
print(select("#", pcall(assert, true)))
print(pcall(function() assert(false, "assert message") end))
print(pcall(function() assert(nil) end))
print(pcall(function() local t = nil; assert(t, "t is nil") end))
