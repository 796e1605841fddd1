local function fnv1a(s)
  local h = 0xcbf29ce484222325
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = h * 0x100000001b3
  end
  return h
end
print(fnv1a(""), fnv1a("a"), fnv1a("hello world"))
print(string.format("%016x", fnv1a("lua")), string.format("%x", fnv1a("runvil")))
local function djb2(s)
  local h = 5381
  for c in s:gmatch(".") do h = ((h << 5) + h + c:byte()) & 0xFFFFFFFF end
  return h
end
print(djb2("hello"), djb2("The quick brown fox"))
local function lcg(seed)
  local state = seed
  return function()
    state = state * 6364136223846793005 + 1442695040888963407
    return (state >> 33) & 0x7FFFFFFF
  end
end
local r = lcg(42)
print(r(), r(), r(), r())
local function xorshift(x)
  x = x ~ (x << 13)
  x = x ~ (x >> 7)
  x = x ~ (x << 17)
  return x
end
local x = 88172645463325252
for i = 1, 3 do x = xorshift(x); print(x) end
print(math.maxinteger * 3, math.mininteger * 3, math.maxinteger * math.maxinteger)
print(0x7fffffff * 0x7fffffff, 0xffffffff * 0xffffffff)
local crc = 0xFFFFFFFF
for _, b in ipairs({("abc"):byte(1, -1)}) do
  crc = crc ~ b
  for _ = 1, 8 do
    local mask = -(crc & 1)
    crc = (crc >> 1) ~ (0xEDB88320 & mask)
  end
end
print(string.format("%08x", ~crc & 0xFFFFFFFF))
print(string.format("%x %X %o", math.mininteger, -1, -1))
print(-1 >> 1, (-1 >> 1) + 1, 1 << 63 >> 63, (1 << 63) // 2)
