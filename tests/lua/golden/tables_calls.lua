local t = {}
local u = {1, 2, 3,}
local v = {a = 1, ["b"] = 2; [3] = 4, 5; f(), ...}
local w = {{}, {x = {y = {}}}, [{}] = {}}
f()
f(1, 2, 3)
f"str"
f[[long]]
f{1, 2}
f.g.h(1)
f:g(1):h"x":i{2}
a.b[c].d:e(f)(g)[h] = 1
local r = f(1)(2)(3), ("s"):rep(3), #{...}
print(
  1,
  2
)
obj
  :method1()
  :method2()
