local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end local Animal = {}
Animal.__index = Animal
function Animal.new(name, sound)
  local self = setmetatable({}, Animal)
  self.name = name
  self.sound = sound or "..."
  return self
end
function Animal:speak() return self.name .. " says " .. self.sound end
function Animal:kind() return "animal" end
Animal.__tostring = function(s) return "Animal<" .. s.name .. ">" end

local Dog = setmetatable({}, {__index = Animal})
Dog.__index = Dog
Dog.__tostring = Animal.__tostring
function Dog.new(name)
  local self = Animal.new(name, "woof")
  return setmetatable(self, Dog)
end
function Dog:kind() return "dog, also " .. Animal.kind(self) end
function Dog:fetch() return self.name .. " fetches" end

local Puppy = setmetatable({}, {__index = Dog})
Puppy.__index = Puppy
Puppy.__tostring = Animal.__tostring
function Puppy.new(name)
  local self = Dog.new(name)
  self.sound = "yip"
  return setmetatable(self, Puppy)
end
function Puppy:kind() return "puppy < " .. Dog.kind(self) end

local a, d, p = Animal.new("Cat", "meow"), Dog.new("Rex"), Puppy.new("Bit")
for _, x in ipairs({a, d, p}) do
  print(x:speak(), x:kind(), tostring(x))
end
print(d:fetch(), p:fetch(), a.fetch)
print(getmetatable(p) == Puppy, getmetatable(getmetatable(p)).__index == Dog)

-- class helper
local function class(parent)
  local c = {}
  c.__index = c
  if parent then setmetatable(c, {__index = parent}) end
  c.new = function(...)
    local o = setmetatable({}, c)
    if o.init then o:init(...) end
    return o
  end
  return c
end
local Shape = class()
function Shape:init(n) self.n = n end
function Shape:area() return 0 end
function Shape:describe() return string.format("%s with area %.2f", self.n, self:area()) end
local Circle = class(Shape)
function Circle:init(r) Shape.init(self, "circle"); self.r = r end
function Circle:area() return math.pi * self.r ^ 2 end
local Rect = class(Shape)
function Rect:init(w, h) Shape.init(self, "rect"); self.w, self.h = w, h end
function Rect:area() return self.w * self.h end
local shapes = {Circle.new(1), Rect.new(2, 3), Shape.new("blob"), Circle.new(2.5)}
for _, s in ipairs(shapes) do print(s:describe()) end
table.sort(shapes, function(x, y) return x:area() < y:area() end)
for _, s in ipairs(shapes) do io.write(s.n, " ") end
print()
-- Account with private state via closures
local function Account(balance)
  local self = {}
  function self.deposit(v) balance = balance + v end
  function self.withdraw(v)
    if v > balance then error("insufficient funds") end
    balance = balance - v
  end
  function self.balance() return balance end
  return self
end
local acc = Account(100)
acc.deposit(50)
print(acc.balance(), pcall(acc.withdraw, 500))
acc.withdraw(30)
print(acc.balance())

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
