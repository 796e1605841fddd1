local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(5000))
local function sum(n, acc) if n == 0 then return acc end return sum(n - 1, acc + n) end
print(sum(1000000, 0))
local function even(n) if n == 0 then return true end return odd(n - 1) end
function odd(n) if n == 0 then return false end return even(n - 1) end
print(pcall(even, 10))
local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
print(ack(2, 3), ack(3, 3))
local function hanoi(n, from, to, via, moves)
  if n == 0 then return moves end
  moves = hanoi(n - 1, from, via, to, moves)
  moves = moves + 1
  return hanoi(n - 1, via, to, from, moves)
end
print(hanoi(10, "A", "C", "B", 0))
local memo = {}
local function fib(n)
  if n <= 2 then return 1 end
  if memo[n] then return memo[n] end
  local v = fib(n - 1) + fib(n - 2)
  memo[n] = v
  return v
end
print(fib(90))
local function perms(a, n, out)
  n = n or #a
  out = out or {}
  if n <= 1 then out[#out + 1] = table.concat(a) else
    for i = 1, n do
      a[n], a[i] = a[i], a[n]
      perms(a, n - 1, out)
      a[n], a[i] = a[i], a[n]
    end
  end
  return out
end
local p = perms({"a", "b", "c"})
print(#p, table.concat(p, " "))
local function inf(n) return inf(n + 1) + 1 end
local ok, e = pcall(inf, 1)
print(ok, e)
local function count(n) if n > 0 then return count(n - 1) end return "done" end
print(count(300000))
