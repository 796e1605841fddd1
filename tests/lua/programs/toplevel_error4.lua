local function f() error("deep", 2) end
local function g() f() end
g()
