local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end local t = {}
for i = 1, 10 do t[i] = i end
print(#t)
t[#t] = nil
print(#t)
t[#t + 1] = "x"
print(#t, t[10])
local s = {1, 2, 3}
s[5] = 5
print(#s == 3 or #s == 5)
local u = {n = 3, 1, 2}
print(#u)
local w = {}
w[1] = 1; w[2] = 2; w[3] = 3
table.remove(w, 1)
print(#w, w[1], w[2], w[3])
local stack = {}
for i = 1, 5 do stack[#stack + 1] = i * 10 end
while #stack > 0 do io.write(table.remove(stack), " ") end
print()
local q = {first = 1, last = 0}
local function push(q, v) q.last = q.last + 1; q[q.last] = v end
local function pop(q) local v = q[q.first]; q[q.first] = nil; q.first = q.first + 1; return v end
push(q, "a"); push(q, "b"); push(q, "c")
print(pop(q), pop(q), q.first, q.last)
local m = {}
for i = 1, 3 do m[i] = {} for j = 1, 3 do m[i][j] = i * j end end
for i = 1, 3 do print(table.concat(m[i], " ")) end
local count = 0
for k, v in pairs({a = 1, b = 2, 3, 4, [10] = 5}) do count = count + 1 end
print(count)
print(#"", #"abc", #{{}, {}}, #{nil, nil, 3} == 3 or true)
local big = {}
for i = 1, 100000 do big[i] = i end
print(#big, big[#big])
for i = 100000, 50001, -1 do big[i] = nil end
print(#big)
local ins = {}
for i = 1, 5 do table.insert(ins, 1, i) end
print(table.concat(ins, ","))
table.insert(ins, 3, "mid")
print(table.concat(ins, ","))
print(table.remove(ins, 3), table.concat(ins, ","))
local t2 = {10, 20, 30}
t2[2] = nil
print(t2[1], t2[2], t2[3])
local t3 = {[1] = "a", [2] = "b", [3] = "c"}
print(#t3, table.concat(t3))
local t4 = {[-1] = "neg", [0] = "zero", "one"}
print(#t4, t4[-1], t4[0], t4[1])

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
