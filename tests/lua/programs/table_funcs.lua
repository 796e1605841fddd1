local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end local t = {1, 2, 3}
table.insert(t, 4)
table.insert(t, 1, 0)
print(table.concat(t, ","))
print(table.remove(t), table.remove(t, 1), table.concat(t, ","))
print(table.remove({}), #t)
print(pcall(table.insert, t, 10, 5))
print(pcall(table.insert, t, 1, 2, 3))
print(pcall(table.insert, t))
print(table.concat({}), table.concat({1, 2.5, "x"}, "-"), table.concat({1, 2, 3}, ", ", 2, 3))
print(table.concat({"a", "b", "c"}, "", 3, 2))
print(pcall(table.concat, {1, {}, 3}))
print(pcall(table.concat, {1, nil, 3}, ",", 1, 3))
local s = {5, 2, 8, 1, 9, 3}
table.sort(s)
print(table.concat(s, " "))
table.sort(s, function(a, b) return a > b end)
print(table.concat(s, " "))
local words = {"banana", "apple", "Cherry", "date"}
table.sort(words)
print(table.concat(words, " "))
table.sort(words, function(a, b) return a:lower() < b:lower() end)
print(table.concat(words, " "))
local recs = {{n = "a", v = 3}, {n = "b", v = 1}, {n = "c", v = 2}}
table.sort(recs, function(x, y) return x.v < y.v end)
for _, r in ipairs(recs) do io.write(r.n, r.v, " ") end
print()
print(pcall(table.sort, {3, "a", 1}))
print(table.unpack({1, 2, 3}))
local p = table.pack()
print(p.n, #p)
local m = table.move({1, 2, 3, 4, 5}, 2, 4, 1)
print(table.concat(m, ","))
local m2 = table.move({1, 2, 3}, 1, 3, 3)
print(table.concat(m2, ","))
local dst = table.move({1, 2, 3}, 1, 3, 2, {})
print(dst[1], dst[2], dst[3], dst[4])
print(#{1, 2, 3, nil}, #{n = 1}, #"", #{nil})
local r = {}
for i = 1, 10 do r[i] = i * i end
print(#r, table.remove(r, 5), #r, table.concat(r, " "))
table.insert(r, #r + 1, 99)
print(r[#r])
print(table.remove(r, #r + 1))
print((pcall(table.remove, r, #r + 2)))  -- message: arg #1 in 5.4.4, #2 in 5.4.8
local big = {}
for i = 1, 100 do big[i] = (i * 37) % 101 end
table.sort(big)
print(big[1], big[50], big[100])
local st = {3, 1, 2}
table.sort(st, function(a, b) return a > b end)
print(st[1], st[2], st[3])
print(select("#", table.unpack({}, 1, 3)))
print(next({}), type(next), rawlen({1, 2}), rawlen("abc"), rawequal(t, t), rawequal(1, 1.0))
print(rawget(t, 1), rawset(t, 1, "z") == t, t[1])
print(pcall(table.sort, {1,2,3}, function(a,b) return true end))

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
