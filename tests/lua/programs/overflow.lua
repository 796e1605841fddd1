local max, min = math.maxinteger, math.mininteger
print(max + 1, min - 1, max * max, min * -1, max - min)
print(-min, min // -1, min % -1, max // -1)
print(math.abs(min), math.abs(max), math.abs(-0.0))
print(max + 1.0, min - 1.0, max * 1.0)
print(max == max + 0.0, max < max + 0.0, max + 0.0 == 2^63)
print(min == -2^63, min < -2^63, min <= -2^63)
print(1 < 1.1, max < math.huge, min > -math.huge, 2^53 == 2^53 + 1)
print(9007199254740993 < 9007199254740992.0, 9007199254740993 == 9007199254740992.0)
print(math.ult(1, -1), math.ult(-1, 1), math.ult(max, min))
print(max // 1, max % 2, min % 3, min // 7)
print(string.format("%d", min), string.format("%x", min))
print(1 << 63 == min, (1 << 63) - 1 == max)
print(5 // -2, -5 // 2, 5 % -2, -5 % 2)
local s = 0
for i = 1, 100 do s = s + max end
print(s)
local f = 1
for i = 1, 25 do f = f * i end
print(f)
print(2^63 // 1, math.floor(2^62), math.floor(2^63))
print(pcall(math.floor, 0/0))
print(math.floor(-0.0), math.ceil(-0.5), math.ceil(0.5))
print(math.fmod(min, -1), math.fmod(7, -3), math.fmod(-7, 3))
print(pcall(math.fmod, 1, 0))
print(math.fmod(1, 0.0), math.fmod(1.0, 0))
print(3 % -math.huge, -3 % math.huge, 0 % -2)
