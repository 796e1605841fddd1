-- the <close> variables of coroutines that are closed: an error in one __close
-- goes to the rest; a dead coroutine's, closed from another, may not yield
local function closer(name, fail)
  return setmetatable({}, {__close = function(_, e)
    print("close", name, e)
    if fail then error(fail, 0) end
  end})
end
-- closing a suspended coroutine: an error in one __close goes to the rest
local co = coroutine.create(function()
  local a <close> = closer("a")
  local b <close> = closer("b", "b failed")
  local c <close> = closer("c")
  coroutine.yield(1)
end)
print(coroutine.resume(co))
print(coroutine.close(co))
print(coroutine.status(co))
-- a yield in a __close that a dead coroutine's close runs
local co2 = coroutine.create(function()
  local a <close> = setmetatable({}, {__close = function(_, e) print("co2 close", e) print(pcall(coroutine.yield, 1)) end})
  error("co2 err", 0)
end)
print(coroutine.resume(co2))
local outer = coroutine.wrap(function() print(coroutine.close(co2)) return "outer done" end)
print(outer())
