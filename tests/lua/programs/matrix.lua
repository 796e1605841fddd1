local function matmul(a, b)
  local n, m, p = #a, #b, #b[1]
  local c = {}
  for i = 1, n do
    c[i] = {}
    for j = 1, p do
      local s = 0
      for k = 1, m do s = s + a[i][k] * b[k][j] end
      c[i][j] = s
    end
  end
  return c
end
local function show(m)
  for _, row in ipairs(m) do
    local parts = {}
    for j, v in ipairs(row) do parts[j] = string.format("%6g", v) end
    print(table.concat(parts, " "))
  end
end
local A = {{1, 2}, {3, 4}}
local B = {{5, 6}, {7, 8}}
show(matmul(A, B))
local I = {{1, 0}, {0, 1}}
show(matmul(A, I))
local F = {{0.5, 1.5}, {2.25, -1}}
show(matmul(F, A))
local function det(m)
  return m[1][1] * m[2][2] - m[1][2] * m[2][1]
end
print(det(A), det(F), det(matmul(A, B)))
local function pow(m, e)
  local r = I
  while e > 0 do
    if e % 2 == 1 then r = matmul(r, m) end
    m = matmul(m, m)
    e = e // 2
  end
  return r
end
local fibm = pow({{1, 1}, {1, 0}}, 50)
print(fibm[1][2], math.type(fibm[1][2]))
local fibf = pow({{1.0, 1}, {1, 0}}, 80)
print(fibf[1][2], string.format("%.0f", fibf[1][2]))
local big = pow({{1, 1}, {1, 0}}, 100)
print(big[1][2])
local function transpose(m)
  local t = {}
  for i = 1, #m[1] do t[i] = {} for j = 1, #m do t[i][j] = m[j][i] end end
  return t
end
show(transpose({{1, 2, 3}, {4, 5, 6}}))
