local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end local function range(n, m, step)
  step = step or 1
  local i = n - step
  return function()
    i = i + step
    if (step > 0 and i <= m) or (step < 0 and i >= m) then return i end
  end
end
for i in range(1, 5) do io.write(i, " ") end print()
for i in range(10, 1, -4) do io.write(i, " ") end print()
-- stateless iterator
local function iter(t, i)
  i = i + 1
  local v = t[i]
  if v then return i, v end
end
local function myipairs(t) return iter, t, 0 end
for i, v in myipairs({"a", "b", "c"}) do io.write(i, "=", v, " ") end print()
-- ipairs stops at nil
for i, v in ipairs({1, 2, nil, 4}) do io.write(i, " ") end print()
-- pairs order on array part
local t = {10, 20, 30}
for k, v in pairs(t) do io.write(k, ":", v, " ") end print()
-- sorted keys
local d = {banana = 3, apple = 1, cherry = 2}
local keys = {}
for k in pairs(d) do keys[#keys + 1] = k end
table.sort(keys)
for _, k in ipairs(keys) do io.write(k, "=", d[k], " ") end print()
-- __pairs
local proxy = setmetatable({}, {__pairs = function(t)
  local i = 0
  return function() i = i + 1; if i <= 3 then return i, i * i end end, t, nil
end})
for k, v in pairs(proxy) do io.write(k, "->", v, " ") end print()
-- ipairs respects __index
local ip = setmetatable({}, {__index = function(t, i) if i <= 4 then return i * 2 end end})
for i, v in ipairs(ip) do io.write(v, " ") end print()
-- string iteration
for c in ("hey"):gmatch(".") do io.write(c, "|") end print()
-- fibonacci generator closure
local function fibs(limit)
  local a, b = 0, 1
  return function()
    if a > limit then return nil end
    local r = a
    a, b = b, a + b
    return r
  end
end
for f in fibs(100) do io.write(f, " ") end print()
-- next
local nt = {x = 1}
print(next(nt), next(nt, "x"))
print(pcall(next, nt, "nokey"))
-- modifying during traversal (assign existing)
local m = {a = 1, b = 2, c = 3}
for k in pairs(m) do m[k] = nil end
print(next(m))
-- iterator with closing value (4th value)
do
  local closed = false
  local mt = {__close = function() closed = true end}
  for i in function(s, c) if c < 3 then return c + 1 end end, nil, 0, setmetatable({}, mt) do
    io.write(i, " ")
  end
  print(closed)
end
print(pcall(function() for x in 42 do end end))
print(pcall(function() for x in nil do end end))

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
