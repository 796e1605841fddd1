-- coroutines of every shape: yield across pcall, from a metamethod, from
-- an iterator, from a sort comparator, nested coroutines
local out = {}
local function add(...) out[#out + 1] = table.concat({...}, " ") end
local co = coroutine.create(function(a)
  local ok, v = pcall(function() return coroutine.yield(a + 1) * 2 end)
  add("pcall", tostring(ok), v)
  local mt = {__add = function(x, y) return coroutine.yield("meta") + y end}
  add("meta", setmetatable({}, mt) + 5)
  for i in coroutine.wrap(function() for k = 1, 3 do coroutine.yield(k * 10) end end) do add("iter", i) end
  local t = {3, 1, 2}
  local sorted, why = pcall(table.sort, t, function(x, y) coroutine.yield("cmp") return x < y end)
  add("sort", tostring(sorted), why)
  table.sort(t, function(x, y) return x > y end)
  add("sorted", table.concat(t, ","))
  local inner = coroutine.wrap(function() local x = coroutine.yield("inner") return x .. "!" end)
  add("nested", inner(), inner("deep"))
  return "end"
end)
local steps = 0
local ok, r = coroutine.resume(co, 1)
while coroutine.status(co) ~= "dead" do
  steps = steps + 1
  if r == "meta" then ok, r = coroutine.resume(co, 100) else ok, r = coroutine.resume(co, 21) end
end
add("done", tostring(ok), r, "after", steps, "resumes")
print(table.concat(out, "\n"))
