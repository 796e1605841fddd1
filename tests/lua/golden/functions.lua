function f() end
function f(a, b) return a + b end
function t.a.b.c(...) return ... end
function t.a.b:m(x, ...) return self, x, ... end
local function g(a, b, ...)
  local h = function(x) return x end
  return function() return h end
end
local anon = function(...) local t = {...} return select('#', ...) end
obj.cb = function(self) return self end
return function(a) return a end
