local a, b, c = 1, 2
print(a, b, c)
a, b = b, a
print(a, b)
local x, y, z = (function() return 1, 2, 3 end)()
print(x, y, z)
local p, q = 1, 2, 3
print(p, q)
local t = {}
local i = 1
i, t[i] = i + 1, 20
print(i, t[1], t[2])
local u = {1, 2, 3}
local j = 1
j, u[j] = 2, "x"
print(j, u[1], u[2])
local function mr() return 10, 20, 30 end
local m1, m2, m3, m4 = mr()
print(m1, m2, m3, m4)
local n1, n2, n3 = mr(), 5
print(n1, n2, n3)
local k1, k2, k3 = 5, mr()
print(k1, k2, k3)
t = {mr(), mr()}
print(#t)
t = {mr(), mr(), x = 1}
print(#t, t.x)
t = {[1] = "a", "b"}
print(t[1])
-- globals
g1, g2 = 1
print(g1, g2)
g1, g2 = g2, g1
print(g1, g2)
local s = {}
s.a, s.b, s.c = mr()
print(s.a, s.b, s.c)
-- swap via table fields
s.a, s.c = s.c, s.a
print(s.a, s.c)
-- parenthesized truncation
local r = {(mr())}
print(#r)
print((mr()))
-- nested function returning nothing
local function none() end
local aa, bb = none()
print(aa, bb)
local cc = (none())
print(cc)
print(none())
print((none()))
