local function check(t, cmp)
  for i = 2, #t do
    if cmp then assert(not cmp(t[i], t[i - 1])) else assert(not (t[i] < t[i - 1])) end
  end
  return true
end
local seed = 12345
local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n end
local t = {}
for i = 1, 1000 do t[i] = rnd(500) end
table.sort(t)
print(check(t), t[1], t[500], t[1000])
table.sort(t, function(a, b) return a > b end)
print(check(t, function(a, b) return a > b end), t[1], t[1000])
local s = {}
for i = 1, 200 do s[i] = string.char(97 + rnd(26)) .. string.char(97 + rnd(26)) end
table.sort(s)
print(s[1], s[100], s[200])
local f = {}
for i = 1, 100 do f[i] = rnd(1000) / 7 end
table.sort(f)
print(string.format("%.4f %.4f", f[1], f[100]))
-- stable-ish: sort pairs by key then by name
local people = {
  {name = "Ann", age = 30}, {name = "Bob", age = 25}, {name = "Cid", age = 30},
  {name = "Dee", age = 25}, {name = "Eve", age = 35},
}
table.sort(people, function(a, b)
  if a.age ~= b.age then return a.age < b.age end
  return a.name < b.name
end)
for _, p in ipairs(people) do print(p.name, p.age) end
print(pcall(table.sort, {1, 2, nil, 4}))
local mixed = {3, 1.5, 2, -1, 0.5}
table.sort(mixed)
print(table.concat(mixed, " "))
local one = {1}
table.sort(one)
print(one[1])
local e = {}
table.sort(e)
print(#e)
print(pcall(table.sort, {1, "x", 2}, nil))
print(pcall(table.sort, {{}, {}}))
local objs = {}
local mt = {__lt = function(a, b) return a.v < b.v end}
for i = 1, 10 do objs[i] = setmetatable({v = (i * 7) % 10}, mt) end
table.sort(objs)
local out = {}
for i = 1, 10 do out[i] = objs[i].v end
print(table.concat(out, ","))
