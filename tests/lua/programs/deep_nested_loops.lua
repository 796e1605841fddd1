-- 22 nested numeric for loops; fine in real Lua
local n = 0
for i1 = 1, 2 do for i2 = 1, 1 do for i3 = 1, 1 do for i4 = 1, 1 do for i5 = 1, 1 do
for i6 = 1, 1 do for i7 = 1, 1 do for i8 = 1, 1 do for i9 = 1, 1 do for i10 = 1, 1 do
for i11 = 1, 1 do for i12 = 1, 1 do for i13 = 1, 1 do for i14 = 1, 1 do for i15 = 1, 1 do
for i16 = 1, 1 do for i17 = 1, 1 do for i18 = 1, 1 do for i19 = 1, 1 do for i20 = 1, 1 do
for i21 = 1, 1 do for i22 = 1, 2 do
n = n + 1
end end end end end
end end end end end
end end end end end
end end end end end
end end
print("nested loops", n)
