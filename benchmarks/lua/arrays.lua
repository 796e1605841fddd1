-- arrays: reads of array parts in loops: sums, a dot product, prefix sums,
-- a backwards walk, rows of a matrix, a sieve and binary searches.
function bench(n)
  local a, b = {}, {}
  for i = 1, n do
    a[i] = i % 97
    b[i] = (i * 7) % 101
  end
  local s = 0
  for i = 1, n do s = s + a[i] end
  local dot = 0
  for i = 1, n do dot = dot + a[i] * b[i] end
  local pre = {0}
  for i = 2, n do pre[i] = pre[i - 1] + a[i] end
  local back = 0
  for i = n, 1, -1 do back = (back * 3 + b[i]) % 1000003 end
  local m, size = {}, 40
  for r = 1, size do
    local row = {}
    for c = 1, size do row[c] = a[(r * c) % n + 1] end
    m[r] = row
  end
  local trace = 0
  for k = 1, n // (size * size) + 1 do
    for r = 1, size do
      local row = m[r]
      for c = 1, size do trace = trace + row[c] * m[c][r] end
    end
  end
  local sieve, primes = {}, 0
  for i = 1, n do sieve[i] = true end
  sieve[1] = false
  for i = 2, n do
    if sieve[i] then
      primes = primes + 1
      for j = i * i, n, i do sieve[j] = false end
    end
  end
  local found = 0
  for q = 1, n, 3 do
    local lo, hi = 1, n
    while lo < hi do
      local mid = (lo + hi) // 2
      if pre[mid] < q then lo = mid + 1 else hi = mid end
    end
    found = found + lo
  end
  return (s + dot + pre[n] + back + trace + primes + found) % 1000000007
end
