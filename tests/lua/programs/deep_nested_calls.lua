-- 70 nested calls f(f(f(...))) compiled by load; fine in real Lua
local src = "return " .. string.rep("tostring(", 70) .. "1" .. string.rep(")", 70)
print(load(src)())
