#!/usr/bin/env lua
local x <const>, y <close>, z = 1, nil
local p, q
w, y.z, t[1], f().g = 1, 2, 3
;;; f(); g "s"; h {1}; o:m() ; (f)()
do local a = 1 end
while i < 10 do i = i + 1 if i == 5 then break end end
repeat local k = i until k > 3
if a then b() end
if a then elseif b then else end
if a then v = 1 elseif b then v = 2 elseif c then v = 3 else v = 4 end
for i = 1, 10 do end
for i = 10, 1, -1 do print(i) end
for k, v in pairs(t) do print(k, v) end
for a, b, c in f, s, nil do end
goto continue
::continue::
do return end
do return 1, 2; end
return f(x)
