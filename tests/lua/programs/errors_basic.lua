print(pcall(error, "msg"))
print(pcall(error, "msg", 0))
print(pcall(error))
print(pcall(error, nil))
print(pcall(error, 42))
local okc, ec = pcall(error, {code = 7}); print(okc, type(ec), ec.code)
local function lvl1() error("at level 1") end
local function lvl2() error("at level 2", 2) end
local function caller() lvl2() end
print(pcall(lvl1))
print(pcall(caller))
print(pcall(function() error("lvl0", 0) end))
print(pcall(function() error("lvl3", 3) end))
local ok, e = pcall(function() error(setmetatable({}, {__tostring = function() return "custom" end})) end)
print(ok, tostring(e))
-- xpcall with handler
print(xpcall(function() error("oops") end, function(m) return "handled: " .. m end))
print(xpcall(function() return 1, 2, 3 end, print))
print(xpcall(function(a, b) return a + b end, print, 3, 4))
print(xpcall(function() local x = nil; return x.y end, function(m) return (m:gsub("^.-:%d+: ", "")) end))
-- nested pcall
print(pcall(pcall, error, "inner"))
print(pcall(function()
  local ok, err = pcall(error, "first")
  error("second after " .. err, 0)
end))
-- error in handler
print(xpcall(function() error("a") end, function(m) error("b") end))
-- error objects preserved
local tbl = {}
local ok2, e2 = pcall(error, tbl)
print(ok2, e2 == tbl)
-- runtime errors messages
print(pcall(function() return 1 + nil end))
print(pcall(function() return {} .. "x" end))
print(pcall(function() return #5 end))
print(pcall(function() return -{} end))
print(pcall(function() return {} < {} end))
print(pcall(function() return 1 < "2" end))
print(pcall(function() return {} < 1 end))
print(pcall(function() return nil > 1 end))
print(pcall(function() local a = "x"; return a() end))
print(pcall(function() return ("x")() end))
print(pcall(function() return 2^"x" end))
print(pcall(function() return math.floor("a") end))
print(pcall(string.rep, "x", -1, {}))
print(pcall(setmetatable, {}, 1))
print(pcall(function() return 1 .. {} end))
print(select("#", pcall(error)))
print(pcall(function() error("with\nnewline") end))
-- error with non-string at level adds no position
print(pcall(error, 12, 2))
print(pcall(function() error(12.5) end))
