-- coroutine: switching between coroutines: a generator (coroutine.wrap)
-- yielding n values, and a resume/yield ping-pong passing values both ways.
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do
      coroutine.yield(i)
    end
  end)
end

function bench(n)
  local s = 0
  for v in gen(n) do
    s = s + v
  end
  local co = coroutine.create(function(a)
    while true do
      a = coroutine.yield(a * 2)
    end
  end)
  for i = 1, n // 2 do
    local ok, v = coroutine.resume(co, i)
    s = s + v
  end
  return s
end
