local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
    return "done"
  end)
end
local g = gen(3)
print(g(), g(), g(), g())
print(pcall(g))
local co = coroutine.create(function(a, b)
  print("start", a, b)
  local c = coroutine.yield(a + b)
  print("got", c)
  local d, e = coroutine.yield(c * 2)
  print("got", d, e)
  return "fin", d + e
end)
print(coroutine.status(co))
print(coroutine.resume(co, 1, 2))
print(coroutine.status(co))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, 3, 4))
print(coroutine.status(co))
print(coroutine.resume(co))
-- error inside coroutine
local ce = coroutine.create(function() error("boom") end)
print(coroutine.resume(ce))
print(coroutine.status(ce))
local ce2 = coroutine.create(function() error({code = 1}) end)
local ok, err = coroutine.resume(ce2)
print(ok, type(err), err.code)
-- running / isyieldable
print(coroutine.isyieldable())
local main, ismain = coroutine.running()
print(type(main), ismain)
coroutine.wrap(function()
  local c, m = coroutine.running()
  print(type(c), m, coroutine.isyieldable(), coroutine.status(c))
end)()
-- yield across pcall
local cp = coroutine.create(function()
  local ok, v = pcall(function()
    local x = coroutine.yield("in pcall")
    error("err " .. x)
  end)
  coroutine.yield(tostring(ok) .. " " .. v)
  return "end"
end)
print(coroutine.resume(cp))
print(coroutine.resume(cp, "X"))
print(coroutine.resume(cp))
print(coroutine.resume(cp))
-- status inside: normal
local outer
outer = coroutine.create(function()
  local inner = coroutine.create(function() print("outer is", coroutine.status(outer)) end)
  coroutine.resume(inner)
end)
coroutine.resume(outer)
-- close
local cc = coroutine.create(function() coroutine.yield(1) end)
coroutine.resume(cc)
print(coroutine.close(cc), coroutine.status(cc))
print(coroutine.close(coroutine.create(print)))
local cerr = coroutine.create(function() error("x") end)
coroutine.resume(cerr)
print(coroutine.close(cerr))
-- wrap error propagates
local w = coroutine.wrap(function() error("wrapped err") end)
print(pcall(w))
local w2 = coroutine.wrap(function() error({}) end)
print(type(select(2, pcall(w2))))
-- resume dead/self
print(coroutine.resume(co))
print(pcall(coroutine.resume, 1))
-- producer/consumer
local prod = coroutine.create(function()
  for _, v in ipairs({"a", "b", "c"}) do coroutine.yield(v) end
end)
local out = {}
while true do
  local ok, v = coroutine.resume(prod)
  if not v then break end
  out[#out + 1] = v
end
print(table.concat(out), coroutine.status(prod))
print(select("#", coroutine.resume(coroutine.create(function() return end))))
print(coroutine.resume(coroutine.create(function(...) return select("#", ...) end), nil, nil))
print(pcall(coroutine.yield, 1))
