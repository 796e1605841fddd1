-- counters sharing state, memoize, compose, curry
local function memoize(f)
  local cache, hits = {}, 0
  return function(n)
    if cache[n] == nil then cache[n] = f(n) else hits = hits + 1 end
    return cache[n]
  end, function() return hits end
end
local slowsq = function(n) return n * n end
local msq, mhits = memoize(slowsq)
print(msq(4), msq(4), msq(5), msq(4), mhits())
local function compose(...)
  local fs = {...}
  return function(x)
    for i = #fs, 1, -1 do x = fs[i](x) end
    return x
  end
end
local inc = function(x) return x + 1 end
local dbl = function(x) return x * 2 end
print(compose(inc, dbl)(5), compose(dbl, inc)(5), compose()(7))
local function curry(f, n)
  n = n or 2
  local function helper(args, k)
    return function(x)
      local a = {table.unpack(args)}
      a[#a + 1] = x
      if k == 1 then return f(table.unpack(a)) end
      return helper(a, k - 1)
    end
  end
  return helper({}, n)
end
print(curry(function(a, b, c) return a .. b .. c end, 3)("x")("y")("z"))
-- upvalues shared between sibling closures after the creating function returned
local function pair()
  local v = 0
  return function() v = v + 1 return v end, function() v = v * 10 return v end
end
local i1, m1 = pair()
print(i1(), m1(), i1(), m1())
-- closures over loop variables in while vs for
local list = {}
for i = 1, 3 do
  local x = i
  list[i] = function() x = x + 1; return x end
end
print(list[1](), list[1](), list[2](), list[3]())
-- closure capturing parameter, modifying
local function adder(n) return function(d) n = n + d; return n end end
local ad = adder(10)
print(ad(1), ad(2), ad(-13))
-- vararg in closure
local function bind(f, ...)
  local bound = table.pack(...)
  return function(...)
    local args = {table.unpack(bound, 1, bound.n)}
    local extra = table.pack(...)
    for j = 1, extra.n do args[bound.n + j] = extra[j] end
    return f(table.unpack(args, 1, bound.n + extra.n))
  end
end
print(bind(print, 1, nil)(3, nil))
print(bind(math.max, 3)(9, 1))
-- self-referencing closures
local function Y(f) return function(...) return f(Y(f), ...) end end
print(Y(function(self, n) if n <= 1 then return 1 end return n * self(n - 1) end)(10))
-- deep nesting of upvalues
local a = 1
local function l1()
  local b = 2
  return function()
    local c = 3
    return function() a = a + 1; return a + b + c end
  end
end
local l3 = l1()()
print(l3(), l3(), a)
