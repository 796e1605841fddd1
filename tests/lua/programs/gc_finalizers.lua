local obj = setmetatable({}, {__gc = function() print("gc at exit") end})
do
  local tmp = setmetatable({name = "tmp"}, {__gc = function(o) print("collected " .. o.name) end})
end
collectgarbage()
collectgarbage()
local cache = setmetatable({}, {__mode = "k"})
do
  local key = {}
  cache[key] = "value"
end
collectgarbage()
local n = 0
for _ in pairs(cache) do n = n + 1 end
print("weak entries left", n)
local vals = setmetatable({}, {__mode = "v"})
vals.a = {}
vals.b = "strings are not collected"
collectgarbage()
print(vals.a, vals.b)
print("end of script")
