-- oop: classes with metatables: a three-level __index chain, operator
-- metamethods (__add, __eq, __lt, __le), __tostring, and sorting objects.
local Base = {}
Base.__index = Base

function Base:describe()
  return self.kind .. "#" .. self.id
end

function Base:weight()
  return self:area() + self:perimeter()
end

local Shape = setmetatable({}, Base)
Shape.__index = Shape
Shape.kind = "shape"

function Shape:perimeter()
  return 0
end

local Rect = setmetatable({}, Shape)
Rect.__index = Rect
Rect.kind = "rect"

function Rect.new(id, w, h)
  return setmetatable({id = id, w = w, h = h}, Rect)
end

function Rect:area() return self.w * self.h end
function Rect:perimeter() return 2 * (self.w + self.h) end

local Square = setmetatable({}, Rect)
Square.__index = Square
Square.kind = "square"

function Square.new(id, s)
  return setmetatable({id = id, w = s, h = s}, Square)
end

local Money = {}
Money.__index = Money

local function money(cents) return setmetatable({cents = cents}, Money) end

Money.__add = function(a, b) return money(a.cents + b.cents) end
Money.__eq = function(a, b) return a.cents == b.cents end
Money.__lt = function(a, b) return a.cents < b.cents end
Money.__le = function(a, b) return a.cents <= b.cents end
Money.__tostring = function(m) return string.format("$%d.%02d", m.cents // 100, m.cents % 100) end

function bench(n)
  local shapes, seed = {}, 11
  for i = 1, n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    if seed % 3 == 0 then
      shapes[i] = Square.new(i, seed % 17 + 1)
    else
      shapes[i] = Rect.new(i, seed % 13 + 1, seed % 19 + 1)
    end
  end
  local total, names = 0, 0
  for _, s in ipairs(shapes) do
    total = total + s:weight()
    names = names + #s:describe()
  end
  local sum, equal, less = money(0), 0, 0
  local prices = {}
  for i = 1, n do
    local m = money(shapes[i]:area() * 25)
    prices[i] = m
    sum = sum + m
    if i > 1 then
      if m == prices[i - 1] then equal = equal + 1 end
      if m < prices[i - 1] then less = less + 1 end
      if m <= prices[i - 1] then less = less + 1 end
    end
  end
  local sorted = {}
  for i = 1, n // 4 do sorted[i] = prices[i] end
  table.sort(sorted)
  local text = tostring(sum) .. tostring(sorted[1]) .. tostring(sorted[#sorted])
  return total + names + equal + less + sum.cents % 1000003 + #text
end
