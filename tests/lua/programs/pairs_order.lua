-- pairs order for tables whose hash part holds only numbers/booleans
-- (deterministic in real Lua: it follows the hash node layout)
local function show(label, t)
  local parts = {}
  for k, v in pairs(t) do parts[#parts + 1] = tostring(k) .. "=" .. tostring(v) end
  print(label, table.concat(parts, " "))
end
show("sparse", {[1] = "one", [3] = "three", [5] = "five", [7] = "seven"})
local t = {}
t[10] = "a"; t[20] = "b"; t[5] = "c"; t[1] = "d"; t[100] = "e"
show("assigned", t)
show("mixed", {10, 20, 30, [5] = 50, [-1] = -1, [0] = 0})
show("floats", {[1.5] = "a", [2.5] = "b", [0.5] = "c"})
show("bools", {[true] = 1, [false] = 0})
local u = {}
for i = 1, 10 do u[i * 3] = i end
show("multiples", u)
local squares = {}
for i = 1, 12 do squares[i * i] = i end
show("squares", squares)
local neg = {}
for i = -5, 5 do neg[i] = i * i end
show("negatives", neg)
local years = {[1999] = "a", [2000] = "b", [2024] = "c", [1970] = "d"}
show("years", years)
local ids = {}
for _, id in ipairs({42, 7, 19, 3, 88, 61, 25}) do ids[id] = true end
show("ids", ids)
local holes = {}
for i = 1, 10 do holes[i] = i end
holes[3] = nil; holes[7] = nil
show("holes", holes)
local b = {}
b[1] = 1; b[2] = 2; b[4] = 4
print("border", #b)
local count = {}
for _, n in ipairs({5, 3, 5, 1, 3, 5, 9, 1}) do count[n] = (count[n] or 0) + 1 end
show("counts", count)
