-- debug.getinfo's func is the very closure a level runs
local function make(n) return function() return debug.getinfo(1, "f").func, n end end
local a, b = make(1), make(2)
print(a() == a, b() == b, a() ~= b())
local function level2() return debug.getinfo(2, "f").func end
local function caller() return (level2()) end
print(caller() == caller)
for i = 1, 200 do
  local f = function() return debug.getinfo(1).func end
  assert(f() == f)
end
local counters = {}
for i = 1, 3 do
  local n = 0
  counters[i] = function() n = n + 1 return debug.getinfo(1, "f").func end
end
for i = 3, 1, -1 do assert(counters[i]() == counters[i], i) end
-- a test framework's error level: the first level outside this file's helpers
local function errorlevel()
  local level, info = 2, debug.getinfo(2, "S")
  while info and info.source == debug.getinfo(1, "S").source and level < 50 do
    level = level + 1
    info = debug.getinfo(level)
  end
  return level
end
print(errorlevel())
print("done")
