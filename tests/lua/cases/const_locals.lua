local function m(f) print(select(2, pcall(f))) end
local t = {}
m(function() local x <const> = nil; return x.y end)
m(function() local k <const> = "kk"; return t[k].x end)
m(function() local a, b <const> = 1, 2.5; return b | 1 end)
m(function() local a <const>, b = 2.5, 1; return a | 1 end)
m(function() local c <const> = 10; local d <const> = c * 2; return d .. "", math.type(d) end)
m(function() local s <const> = "x"; local f = function() return s .. 1, s.y.z end; return f() end)
m(function() local n <const> = 2^53; return n | 0 end)
m(function() local z <const> = {}; return z.a.b end)
