local function sieve(n)
  local is = {}
  for i = 2, n do is[i] = true end
  for i = 2, math.floor(math.sqrt(n)) do
    if is[i] then for j = i * i, n, i do is[j] = false end end
  end
  local out = {}
  for i = 2, n do if is[i] then out[#out + 1] = i end end
  return out
end
print(table.concat(sieve(100), " "))
local function bsearch(t, x)
  local lo, hi = 1, #t
  while lo <= hi do
    local mid = (lo + hi) // 2
    if t[mid] == x then return mid elseif t[mid] < x then lo = mid + 1 else hi = mid - 1 end
  end
  return nil
end
local primes = sieve(1000)
print(#primes, bsearch(primes, 997), bsearch(primes, 998), bsearch(primes, 2))
local function queens(n)
  local count, cols, d1, d2 = 0, {}, {}, {}
  local first
  local pos = {}
  local function place(r)
    if r > n then
      count = count + 1
      if not first then first = table.concat(pos, ",") end
      return
    end
    for c = 1, n do
      if not cols[c] and not d1[r + c] and not d2[r - c + n] then
        cols[c], d1[r + c], d2[r - c + n] = true, true, true
        pos[r] = c
        place(r + 1)
        cols[c], d1[r + c], d2[r - c + n] = nil, nil, nil
      end
    end
  end
  place(1)
  return count, first
end
print(queens(6))
print(queens(8))
local function roman(n)
  local vals = {{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}}
  local s = ""
  for _, p in ipairs(vals) do while n >= p[1] do s = s .. p[2]; n = n - p[1] end end
  return s
end
print(roman(1994), roman(2024), roman(3999), roman(4))
local function rle(s)
  return (s:gsub("((.)%2*)", function(run, c) return #run .. c end))
end
print(rle("aaabccddddde"), rle(""), rle("abc"))
local function caesar(s, k)
  return (s:gsub("%a", function(c)
    local base = c:match("%l") and 97 or 65
    return string.char((c:byte() - base + k) % 26 + base)
  end))
end
print(caesar("Hello, World!", 3), caesar(caesar("Hello, World!", 3), -3))
local b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function b64(data)
  local out = {}
  for i = 1, #data, 3 do
    local a, b, c = data:byte(i, i + 2)
    local n = (a << 16) | ((b or 0) << 8) | (c or 0)
    for j = 0, 3 do
      if i + j - 1 <= #data + 0 and (j < 2 or (j == 2 and b) or (j == 3 and c)) then
        local idx = (n >> (18 - 6 * j)) & 63
        out[#out + 1] = b64chars:sub(idx + 1, idx + 1)
      else
        out[#out + 1] = "="
      end
    end
  end
  return table.concat(out)
end
print(b64("Man"), b64("Ma"), b64("M"), b64("hello world"))
local function collatz(n) local steps = 0 while n ~= 1 do n = n % 2 == 0 and n // 2 or 3 * n + 1; steps = steps + 1 end return steps end
print(collatz(27), collatz(97), collatz(1))
local function gcdext(a, b) if b == 0 then return a, 1, 0 end local g, x, y = gcdext(b, a % b) return g, y, x - (a // b) * y end
print(gcdext(240, 46))
local function powmod(b, e, m) local r = 1 b = b % m while e > 0 do if e & 1 == 1 then r = r * b % m end b = b * b % m e = e >> 1 end return r end
print(powmod(2, 100, 1000000007), powmod(3, 200, 13))
