-- precedence and associativity (Lua 5.4 manual §3.4.8)
local a = 1 + 2 * 3 - 4 / 5 // 6 % 7
local b = a or b and c == d < e <= f > g >= h ~= i
local c = x | y ~ z & w << 1 >> 2 .. "s" .. "t"
local d = -2 ^ 2, 2 ^ -3, 2 ^ 3 ^ 2, -x ^ -y ^ z, not a == b, #t + 1, ~x & ~y
local e = (a + b) * c, (f()), (...), - - -1, not not nil
local f = a .. b .. c + d, 1 .. 2, a < b < c, "x" .. -1 ^ 2
local g = true, false, nil, ..., 1 - -1, a - b - c, a ^ b ^ c
local h = a and not b or c and d, x // y // z, (x) + (y), t.x.y + t[1][2]
