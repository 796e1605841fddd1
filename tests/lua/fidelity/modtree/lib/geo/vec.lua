local Vec = {}
Vec.__index = Vec
function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
function Vec:len() return math.sqrt(self.x ^ 2 + self.y ^ 2) end
function Vec.__add(a, b) return Vec.new(a.x + b.x, a.y + b.y) end
function Vec.__tostring(v) return ("(%g, %g)"):format(v.x, v.y) end
return Vec
