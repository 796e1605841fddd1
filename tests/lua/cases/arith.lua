-- Chunks separated by "-- ===" lines; each runs on runvil and on real Lua 5.4
-- (lupa) and must print the same and fail the same way.
print(1 + 2, 1 - 2, 2 * 3, 7 / 2, 7 // 2, 7 % 3, 2 ^ 10)
print(7 // -2, 7 % -2, -7 // 2, -7 % 2, 7.5 // 2, 7.5 % 2, -7.5 % 2, 5.3 % -2)
print(1 / 0, -1 / 0, 3 // 0.0, -3 // 0.0, 0x7fffffffffffffff + 1, math and 1 or 2)
print(9223372036854775807 + 1, -9223372036854775808 - 1, 9223372036854775807 * 2)
print(-(-9223372036854775808), 9223372036854775807 // -1, -9223372036854775808 // -1, -9223372036854775808 % -1)
print(1e15, 1e16, 1e100, 2^53, 2^63, -0.0, 0.1, 1/3, 100 / 2, 3.0, -3.5e-7)
print(10 == 10.0, 1 < 1.5, "a" < "b", "abc" < "abd", "Z" < "a", "" < "a", 2^53 == 2^53 + 1)
print(math == nil, 0x10, 0xff, 0x1p4, 0x.8, 1e2, .5, 3., 0xA.8p1)
print(5 // 0.0, -5 % math.huge, 5 % -math.huge, 0.0 % 1)
-- ===
print(3 & 5, 3 | 5, 3 ~ 5, ~0, 1 << 62, 1 << 63, 1 << 64, -1 >> 1, 2.0 & 3, 256 >> -2)
-- ===
print("10" + 1, "3.0" + 1, "0x10" * 2, 10 .. 20, 1.5 .. "", -2^2, 2^-1)
-- ===
print(#"hello", #"", -"2", - -3)
-- ===
print(1 + nil)
-- ===
local t = {}
print(t.x + 1)
-- ===
local x = "abc"
print(x + 1)
-- ===
print({} + 1)
-- ===
local a = 1
print(a .. {})
-- ===
print(1 // 0)
-- ===
print(1 % 0)
-- ===
print(1.5 | 1)
-- ===
print("a" | 1)
-- ===
print(1 < "x")
-- ===
print({} < {})
-- ===
print(nil < 1)
-- ===
local s = "x"
print(#s, #nil)
-- ===
-- integer locals (compiled without type checks) still wrap around
local i = 9223372036854775806
for k = 1, 3 do i = i + 1 end
print(i)
local j = -9223372036854775807 - 1
j = j - 1
local m = 4611686018427387904
m = m * 4
print(j, j * 2, m, 7 // 2, 7 % 3, -7 // 2, -7 % 3)
local n = 0
while n < 5 do n = n + 1 end
print(n, n == 5, n ~= 5, n < 5, n >= 5, n & 3, n | 8, n ~ 1)
local s = 0
for q = 1, 10, 3 do s = s + q * q end
print(s)
