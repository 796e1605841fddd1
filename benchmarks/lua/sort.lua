-- sort: table.sort of n pseudo-random integers (a deterministic LCG, so every
-- engine sorts the same numbers), once without and once with a comparator.
function bench(n)
  local a, b = {}, {}
  local x = 12345
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    a[i] = x
    b[i] = x
  end
  table.sort(a)
  table.sort(b, function(p, q) return p > q end)
  local s = 0
  for i = 1, n, 97 do
    s = (s + a[i] * (i % 13 + 1) + b[i]) % 1000000007
  end
  return s
end
