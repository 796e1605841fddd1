local t = nil
local x = 1 +
  t.y
-- ===
local a = {}
local b = a.b
  .c
-- ===
local function f()
  return nil
end
local v = f()
print(
  v
  +
  1
)
-- ===
local s = 0
for i = 1, 3 do
  s = s + i
end
error("at line 5")
-- ===
local t = {
  1,
  2,
  nil + 1,
}
-- ===
local function g(a,
                 b)
  error("in g")
end
g(1,
  2)
-- ===
local x = nil
if x
  .field then end
-- ===
local str = "a" ..
  "b" ..
  {}
-- ===
local f
f(
 1,
 2
)
