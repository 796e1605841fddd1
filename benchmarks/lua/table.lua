-- table: array appends and reads, plus string-keyed record fields.
function bench(n)
  local t = {}
  for i = 1, n do
    t[#t + 1] = i
  end
  local s = 0
  for i = 1, #t do
    s = s + t[i]
  end
  local rec = {count = 0, total = 0, max = 0}
  for i = 1, n do
    local v = t[i] % 1000
    rec.count = rec.count + 1
    rec.total = rec.total + v
    if v > rec.max then rec.max = v end
  end
  local pts = {}
  for i = 1, n // 4 do
    pts[i] = {x = i, y = i * 2, name = "p"}
  end
  local q = 0
  for i = 1, #pts do
    local p = pts[i]
    q = q + p.x + p.y
  end
  return s + rec.count + rec.total + rec.max + q
end
