print(math.rad(180), math.deg(math.pi), math.deg(1), math.rad(1))
print(string.format("%.6f %.6f", math.rad(45), math.deg(0.5)))
local function round(x, n) local m = 10 ^ (n or 0); return math.floor(x * m + 0.5) / m end
print(round(3.14159, 2), round(2.5), round(-2.5), round(1234.5678, -2))
local function hypot(a, b) return math.sqrt(a * a + b * b) end
print(hypot(3, 4), hypot(5, 12), hypot(1, 1))
for _, deg in ipairs({0, 30, 45, 60, 90, 180, 270}) do
  local r = math.rad(deg)
  print(deg, string.format("%.4f %.4f %.4f", math.sin(r), math.cos(r), r))
end
print(math.floor(math.deg(math.atan(1, 1))), math.ceil(math.deg(math.acos(-1))))
local function clamp(x, lo, hi) return math.max(lo, math.min(hi, x)) end
print(clamp(5, 1, 3), clamp(-1, 0, 10), clamp(2.5, 1, 3))
local function gcd(a, b) while b ~= 0 do a, b = b, a % b end return a end
local function lcm(a, b) return a // gcd(a, b) * b end
print(gcd(48, 18), gcd(17, 5), lcm(4, 6), lcm(21, 6))
local function isprime(n)
  if n < 2 then return false end
  for i = 2, math.floor(math.sqrt(n)) do if n % i == 0 then return false end end
  return true
end
local primes = {}
for i = 1, 60 do if isprime(i) then primes[#primes + 1] = i end end
print(table.concat(primes, " "))
print(math.log(1024, 2), math.log(1000, 10), math.log(math.exp(2)), math.log(8, 4))
print(math.exp(math.log(10)), 10 ^ 0.5, math.sqrt(10))
