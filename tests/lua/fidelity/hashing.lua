-- checksums and hashes with Lua 5.4's integer bit operators
local function crc32(s)
  local crc = 0xFFFFFFFF
  for i = 1, #s do
    crc = crc ~ s:byte(i)
    for _ = 1, 8 do
      local mask = -(crc & 1)
      crc = (crc >> 1) ~ (0xEDB88320 & mask)
    end
  end
  return (~crc) & 0xFFFFFFFF
end

local function adler32(s)
  local a, b = 1, 0
  for i = 1, #s do
    a = (a + s:byte(i)) % 65521
    b = (b + a) % 65521
  end
  return (b << 16) | a
end

local function fnv1a64(s)
  local h = -3750763034362895579 -- 0xcbf29ce484222325
  for i = 1, #s do
    h = h ~ s:byte(i)
    h = h * 0x100000001b3
  end
  return h
end

local function rotl32(x, n) return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF end

local function murmur3_32(s, seed)
  local h = seed & 0xFFFFFFFF
  local c1, c2 = 0xcc9e2d51, 0x1b873593
  local n = #s - #s % 4
  for i = 1, n, 4 do
    local k = string.unpack("<I4", s, i)
    k = (k * c1) & 0xFFFFFFFF
    k = rotl32(k, 15)
    k = (k * c2) & 0xFFFFFFFF
    h = h ~ k
    h = rotl32(h, 13)
    h = (h * 5 + 0xe6546b64) & 0xFFFFFFFF
  end
  local k = 0
  local rest = #s % 4
  if rest >= 3 then k = k ~ (s:byte(n + 3) << 16) end
  if rest >= 2 then k = k ~ (s:byte(n + 2) << 8) end
  if rest >= 1 then
    k = k ~ s:byte(n + 1)
    k = (k * c1) & 0xFFFFFFFF
    k = rotl32(k, 15)
    k = (k * c2) & 0xFFFFFFFF
    h = h ~ k
  end
  h = h ~ #s
  h = h ~ (h >> 16)
  h = (h * 0x85ebca6b) & 0xFFFFFFFF
  h = h ~ (h >> 13)
  h = (h * 0xc2b2ae35) & 0xFFFFFFFF
  return h ~ (h >> 16)
end

for _, s in ipairs({"", "a", "abc", "The quick brown fox jumps over the lazy dog", string.rep("\255\0", 50)}) do
  print(string.format("%08x %08x %016x %08x %d", crc32(s), adler32(s), fnv1a64(s), murmur3_32(s, 42), fnv1a64(s)))
end
print(math.ult(1, -1), -1 >> 1, 1 << 63, 1 << 64, 5 // 0.0, -7 // 2, -7 % 3, 7.5 // 2)
print(pcall(function() return 1 // 0 end))
print(pcall(function() return 1.5 | 0 end))
print(string.pack(">I2", 0xBEEF):byte(1, -1))
