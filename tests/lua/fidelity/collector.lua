-- collectgarbage() is Lua's full collection: weak entries go, finalizers run
local weak = setmetatable({}, {__mode = "k"})
weak[{}] = 1
local keep = {}
weak[keep] = 2
setmetatable({}, {__gc = function() print("finalized by collectgarbage") end})
collectgarbage()
local n = 0
for _ in pairs(weak) do n = n + 1 end
print("weak entries", n)

-- garbage made in a loop, no collectgarbage: a collection runs by itself
-- and its finalizer before the loop ends
local done = false
local mt = {__gc = function() if not done then done = true print("finalized in the loop") end end}
local i = 0
while not done and i < 1000000 do
  setmetatable({}, mt)
  i = i + 1
end
print("loop ended", done)

-- stopped, nothing is collected by itself
collectgarbage()
collectgarbage("stop")
local ran = false
local mt2 = {__gc = function() ran = true end}
for _ = 1, 20000 do setmetatable({}, mt2) end
print("stopped", ran, collectgarbage("isrunning"))
collectgarbage("restart")
collectgarbage()
print("restarted", ran, collectgarbage("isrunning"))

-- an error in a finalizer is a warning, shown once warnings are on
setmetatable({}, {__gc = function() error("hidden") end})
collectgarbage()
warn("@on")
local failed = false
local mt3 = {__gc = function() if not failed then failed = true error("boom in __gc") end end}
i = 0
while not failed and i < 1000000 do
  setmetatable({}, mt3)
  i = i + 1
end
print("after the failing finalizer", failed)
setmetatable({}, {__gc = function() error({}) end})
setmetatable({}, {__gc = function() error("no position", 0) end})
collectgarbage()
warn("several ", "pieces")
warn("@off")
warn("not shown")
print(pcall(warn))
print(pcall(warn, "a", {}))
print(select("#", warn("@on", "x")))
