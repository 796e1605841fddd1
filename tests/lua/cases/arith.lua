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
