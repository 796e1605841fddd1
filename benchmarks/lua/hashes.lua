-- hashes: MD5 and SHA-1 of n bytes written with Lua 5.4's integer bit
-- operations, as pure-Lua hashing libraries do: 32-bit words kept with
-- `& 0xffffffff`, left rotations, little-endian (MD5) and big-endian
-- (SHA-1) word loads with string.byte, the digests in hex with
-- string.format("%08x").
local M32 = 0xffffffff

local function rol(x, n)
  return ((x << n) | (x >> (32 - n))) & M32
end

local function pad(msg, big_endian)
  local n = #msg
  local bits = n * 8
  local tail = {}
  for i = 0, 7 do
    local shift = big_endian and (56 - 8 * i) or (8 * i)
    tail[#tail + 1] = string.char((bits >> shift) & 0xff)
  end
  return msg .. "\128" .. string.rep("\0", (55 - n) % 64) .. table.concat(tail)
end

local S = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
           5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21}
local K = {}
for i = 0, 63 do K[i + 1] = math.floor(math.abs(math.sin(i + 1)) * 2 ^ 32) & M32 end

local function md5(msg)
  msg = pad(msg, false)
  local a0, b0, c0, d0 = 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476
  local X = {}
  for chunk = 1, #msg, 64 do
    for j = 0, 15 do
      local b1, b2, b3, b4 = string.byte(msg, chunk + 4 * j, chunk + 4 * j + 3)
      X[j] = b1 | (b2 << 8) | (b3 << 16) | (b4 << 24)
    end
    local a, b, c, d = a0, b0, c0, d0
    for i = 0, 63 do
      local f, g
      if i < 16 then
        f = (b & c) | (~b & d); g = i
      elseif i < 32 then
        f = (d & b) | (~d & c); g = (5 * i + 1) % 16
      elseif i < 48 then
        f = b ~ c ~ d; g = (3 * i + 5) % 16
      else
        f = c ~ (b | ~d); g = (7 * i) % 16
      end
      f = (f + a + K[i + 1] + X[g]) & M32
      a, d, c = d, c, b
      b = (b + rol(f, S[i + 1])) & M32
    end
    a0, b0 = (a0 + a) & M32, (b0 + b) & M32
    c0, d0 = (c0 + c) & M32, (d0 + d) & M32
  end
  local out = {}
  for _, h in ipairs({a0, b0, c0, d0}) do  -- little-endian bytes
    for s = 0, 24, 8 do out[#out + 1] = string.format("%02x", (h >> s) & 0xff) end
  end
  return table.concat(out)
end

local function sha1(msg)
  msg = pad(msg, true)
  local h0, h1, h2, h3, h4 = 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0
  local w = {}
  for chunk = 1, #msg, 64 do
    for j = 0, 15 do
      local b1, b2, b3, b4 = string.byte(msg, chunk + 4 * j, chunk + 4 * j + 3)
      w[j] = (b1 << 24) | (b2 << 16) | (b3 << 8) | b4
    end
    for j = 16, 79 do
      w[j] = rol(w[j - 3] ~ w[j - 8] ~ w[j - 14] ~ w[j - 16], 1)
    end
    local a, b, c, d, e = h0, h1, h2, h3, h4
    for j = 0, 79 do
      local f, k
      if j < 20 then
        f = (b & c) | (~b & d); k = 0x5a827999
      elseif j < 40 then
        f = b ~ c ~ d; k = 0x6ed9eba1
      elseif j < 60 then
        f = (b & c) | (b & d) | (c & d); k = 0x8f1bbcdc
      else
        f = b ~ c ~ d; k = 0xca62c1d6
      end
      local t = (rol(a, 5) + (f & M32) + e + k + w[j]) & M32
      e, d, c, b, a = d, c, rol(b, 30), a, t
    end
    h0, h1, h2 = (h0 + a) & M32, (h1 + b) & M32, (h2 + c) & M32
    h3, h4 = (h3 + d) & M32, (h4 + e) & M32
  end
  return string.format("%08x%08x%08x%08x%08x", h0, h1, h2, h3, h4)
end

function bench(n)
  local bytes = {}
  for i = 1, n do bytes[i] = string.char(i % 251) end
  local msg = table.concat(bytes)
  local total = 0
  for _, hex in ipairs({md5(msg), sha1(msg)}) do
    for i = 1, #hex, 8 do
      total = (total + tonumber(hex:sub(i, i + 7), 16)) % 1000000007
    end
  end
  return total
end
