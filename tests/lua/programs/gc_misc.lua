local before = collectgarbage("count")
print(type(before), before > 0)
local t = {}
for i = 1, 10000 do t[i] = {i} end
t = nil
print(collectgarbage(), collectgarbage("collect"))
print(type(collectgarbage("count")), math.type(collectgarbage("count")))
print(collectgarbage("isrunning"))
print(collectgarbage("incremental"))
print(collectgarbage("generational"))
print(collectgarbage("incremental"))
collectgarbage("stop")
print(collectgarbage("isrunning"))
collectgarbage("restart")
print(collectgarbage("isrunning"))
print(pcall(collectgarbage, "bogus"))
local weak = setmetatable({}, {__mode = "v"})
weak[1] = {}
local keep = {}
weak[2] = keep
collectgarbage()
print(weak[2] == keep)
local gced = false
do
  local obj = setmetatable({}, {__gc = function() gced = true end})
end
print(type(gced))
