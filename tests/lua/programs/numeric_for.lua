local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end for i = 1, 3 do io.write(i, " ") end print()
for i = 3, 1, -1 do io.write(i, " ") end print()
for i = 1, 0 do io.write("never") end print("empty")
for i = 1.0, 2.0, 0.5 do io.write(i, " ") end print()
for i = 0, 1, 0.1 do io.write(i, " ") end print()
for i = 1, 3.5 do io.write(i, " ") end print()
for i = 1, 2, 0.25 do io.write(math.type(i), " ") end print()
for i = 10, 1, -3 do io.write(i, " ") end print()
for i = math.maxinteger - 2, math.maxinteger do io.write(i, " ") end print()
for i = math.mininteger, math.mininteger + 2 do io.write(i, " ") end print()
for i = math.mininteger + 2, math.mininteger, -1 do io.write(i, " ") end print()
for i = math.maxinteger - 1, math.maxinteger, 10 do io.write(i, " ") end print()
for i = 1, math.huge do if i > 3 then break end io.write(i, " ") end print()
for i = 1, 3 do local j = i; i = i * 10; io.write(i, ":", j, " ") end print()
print(pcall(function() for i = 1, 10, 0 do end end))
print(pcall(function() for i = "a", 10 do end end))
print(pcall(function() for i = 1, {} do end end))
print(pcall(function() for i = 1, 2, nil do end end))
for i = "1", 2 do io.write(i, " ") end print()
for i = 3, 1 do print("x") end
for i = 1, 0.5 do print("y") end
for i = -1, -3, -1 do io.write(i, " ") end print()
for i = 0.1, 0.35, 0.1 do io.write(i, " ") end print()
for i = 1, 3 do
  for j = i, 3 do io.write(i, j, " ") end
end
print()
local t = {}
for i = 1, 5 do t[#t + 1] = function() return i end end
print(t[1](), t[5]())
for i = 5, 5 do io.write("once ", i) end print()
for i = 2^53 - 2, 2^53 - 1 do io.write(string.format("%.0f ", i)) end print()
for i = 1, -math.huge, -1 do if i < -2 then break end io.write(i, " ") end print()
for i = 3.0, 1, -1 do io.write(i, " ") end print()
for i = 1, 3, 1.0 do io.write(i, " ") end print()

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
