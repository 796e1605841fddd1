local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end local vals = {0, 1, -1, 2, 3, 7, -7, 0.5, -0.5, 2.5, 1e10, 3.0}
for _, a in ipairs({7, -7, 7.0, -7.5}) do
  for _, b in ipairs({2, -2, 2.0, 0.5, -3}) do
    print(a, b, a + b, a - b, a * b, a / b, a // b, a % b, a ^ b)
  end
end
print(1 / 0, -1 / 0, 0 / 0 ~= 0 / 0, 1 // 0.0, 1 % math.huge, -1 % math.huge, 1 % -math.huge)
print(math.huge // 1, -math.huge // 1, math.huge % 2)
print(5 // 0.0, 0.0 // 0.0 ~= 0.0 // 0.0, -5 % 0.0 ~= -5 % 0.0)
print(2^63 % 2, 2^64 // 3, 1e300 * 1e300, -1e300 * 1e300)
print(3 * 1.0, 3 + 0.0, 6 / 2, 6 // 2, 6.0 // 2, 2^2, 10 % 3.0)
print(100 // 7, 100.0 // 7, -100 // 7, 100 // -7, -100 % 7, 100 % -7)
print(0.1 * 3, 0.3, 0.1 * 3 == 0.3, 1 - 0.9, 1e-7, 123456789.123)
print(1e15 + 0.3, 99999999999999.9, 123456789012.345678, 2^-10)
for _, v in ipairs(vals) do io.write(tostring(v * 1.5), " ") end
print()
print(8 % 3.5, -8 % 3.5, 8 % -3.5, 2^0.5 * 2^0.5 == 2, math.sqrt(2)^2)
print(7 // 1e-300 > 0, 1e308 // 1e-308)
print((-2) ^ 2, -2 ^ 2, 2 ^ -2, (-2) ^ 0.5 ~= (-2) ^ 0.5)
print(0x7fffffffffffffff + 1, 0x7fffffffffffffff * 2, -0x8000000000000000)
print(5 // 2 * 2 + 5 % 2, -5 // 2 * 2 + -5 % 2, 5.5 // 2 * 2 + 5.5 % 2)

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
