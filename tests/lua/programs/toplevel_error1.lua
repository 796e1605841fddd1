print("before")
local t = {}
print(t.a.b)
