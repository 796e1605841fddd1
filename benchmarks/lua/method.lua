-- method: method calls through a metatable's __index (a Point class).
local Point = {}
Point.__index = Point

function Point.new(x, y)
  return setmetatable({x = x, y = y}, Point)
end

function Point:move(dx, dy)
  self.x = self.x + dx
  self.y = self.y + dy
end

function Point:sum()
  return self.x + self.y
end

function bench(n)
  local p = Point.new(0, 0)
  for i = 1, n do
    p:move(1, 2)
  end
  return p:sum()
end
