-- many coroutines: a scheduler with lots of tasks, and abandoned generators
local tasks = {}
for i = 1, 3000 do
  tasks[#tasks + 1] = coroutine.create(function()
    local acc = 0
    for step = 1, 3 do acc = acc + i * step; coroutine.yield(acc) end
    return acc
  end)
end
local total, rounds = 0, 0
while #tasks > 0 do
  rounds = rounds + 1
  for idx = #tasks, 1, -1 do
    local ok, v = coroutine.resume(tasks[idx])
    if coroutine.status(tasks[idx]) == "dead" then total = total + v; table.remove(tasks, idx) end
  end
end
print("scheduler", total, rounds)
local firsts = 0
for i = 1, 5000 do
  local g = coroutine.wrap(function() for k = 1, 10 do coroutine.yield(k) end end)
  firsts = firsts + g()
end
print("abandoned", firsts)
local gen = coroutine.wrap(function() for i = 1, 100000 do coroutine.yield(i) end end)
local s = 0
for i = 1, 100000 do s = s + gen() end
print("yields", s)
