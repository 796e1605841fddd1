local function m(f) print(select(2, pcall(f))) end
local cfg = {}
local t = {}
m(function()
  cfg.settings.value = {
    1, 2,
  }
end)
m(function()
  cfg.a.b = math.max(1,
    2)
end)
m(function()
  local r = cfg.x
    + 1
end)
m(function()
  local r = 1
    + cfg.x
end)
m(function()
  local r = cfg.x
    .. "s"
end)
m(function()
  local ok = cfg.x
    < 1
end)
m(function()
  local a = cfg.x and
    cfg.y.z
end)
m(function()
  local a = cfg.x or
    cfg.y.z
end)
m(function()
  return cfg.q
     .w
end)
m(function()
  print("value:",
        t.a.b)
end)
m(function()
  local msg = "x=" .. tostring(1) ..
              ", y=" .. t.y
end)
m(function()
  if t.a and
     t.b.c then end
end)
m(function()
  local r = math.floor(
    t.z * 2
  )
end)
m(function()
  t.list[#t.list + 1] =
    5
end)
m(function()
  local obj = {
    name = "x",
    size = t.s.w,
    other = 1,
  }
end)
m(function()
  return string.format("%d %d",
    1,
    nil)
end)
m(function()
  local v = t.a
  or t.b.c
end)
m(function()
  t.fn(
    1, 2)
end)
m(function()
  local x = {}
  x.y.z
    = 1
end)
