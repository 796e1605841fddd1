-- pipeline: a coroutine generator pipeline: numbers -> filter -> map ->
-- batches, each stage a coroutine.wrap generator (about 2.3 n yields).
local function numbers(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i) end
  end)
end

local function filter(pred, gen)
  return coroutine.wrap(function()
    for x in gen do
      if pred(x) then coroutine.yield(x) end
    end
  end)
end

local function map(f, gen)
  return coroutine.wrap(function()
    for x in gen do coroutine.yield(f(x)) end
  end)
end

local function batches(size, gen)
  return coroutine.wrap(function()
    local batch = {}
    for x in gen do
      batch[#batch + 1] = x
      if #batch == size then
        coroutine.yield(batch)
        batch = {}
      end
    end
    if #batch > 0 then coroutine.yield(batch) end
  end)
end

function bench(n)
  local odd = filter(function(x) return x % 3 ~= 0 end, numbers(n))
  local squares = map(function(x) return x * x % 1000 end, odd)
  local total, count = 0, 0
  for batch in batches(16, squares) do
    count = count + 1
    for i = 1, #batch do total = total + batch[i] end
  end
  return total * 1000 + count
end
