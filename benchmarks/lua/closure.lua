-- closure: creating closures (counter generators) and calling them, which
-- reads and updates their upvalues.
local function counter(start)
  local c = start
  return function(k)
    c = c + k
    return c
  end
end

function bench(n)
  local s = 0
  for i = 1, n // 4 do
    local f = counter(i)
    s = s + f(1) + f(2) + f(3) + f(4)
  end
  local acc = 0
  local function add(v) acc = acc + v end
  for i = 1, n do
    add(i)
  end
  return (s + acc) % 1000000007
end
