local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end -- continue
for i = 1, 10 do
  if i % 2 == 0 then goto continue end
  io.write(i, " ")
  ::continue::
end
print()
-- nested loops break out
for i = 1, 3 do
  for j = 1, 3 do
    if i * j == 4 then goto done end
    io.write(i, "*", j, " ")
  end
end
::done::
print()
-- backward jump loop
local n = 0
::top::
n = n + 1
if n < 5 then goto top end
print("n", n)
-- closures in goto loop get fresh locals
local fs = {}
do
  local i = 1
  ::again::
  local x = i * 10
  fs[#fs + 1] = function() return x end
  i = i + 1
  if i <= 3 then goto again end
end
print(fs[1](), fs[2](), fs[3]())
-- while with continue
local k = 0
while k < 10 do
  k = k + 1
  if k % 3 ~= 0 then goto cont end
  io.write(k, ";")
  ::cont::
end
print()
-- repeat with continue (label at end of block before until)
local r = 0
repeat
  r = r + 1
  if r == 2 then goto skip end
  io.write("r", r, " ")
  ::skip::
until r >= 4
print()
-- goto out of nested blocks
do
  do
    do goto out end
  end
  print("not printed")
end
::out::
print("out")
-- state machine
local state, steps = "a", {}
::sa:: if state == "a" then steps[#steps+1] = "A"; state = "b"; goto sb end
::sb:: if state == "b" then steps[#steps+1] = "B"; state = "c"; goto sa end
print(table.concat(steps))
print(load("goto nowhere") )
print(load("do local x ::l1:: ::l1:: end"))
print(load("goto f; local a; ::f:: print(a)"))
print(load("::a:: ::a::"))

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
