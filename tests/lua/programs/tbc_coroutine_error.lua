-- an error that ends a coroutine leaves its to-be-closed variables open
-- (Lua's manual, 3.3.8): coroutine.close closes them, with the error; a
-- coroutine.wrap function closes them before the error goes on
local co = coroutine.create(function()
  local c <close> = setmetatable({}, {__close = function(_, e) print("closed", e) end})
  error("boom")
end)
print(coroutine.resume(co))
print(coroutine.status(co))
print(coroutine.close(co))
local w = coroutine.wrap(function()
  local c <close> = setmetatable({}, {__close = function(_, e) print("wrap closed", e) end})
  error("boom2")
end)
print(pcall(w))
local caught = coroutine.create(function()
  print(pcall(function()
    local c <close> = setmetatable({}, {__close = function(_, e) print("caught closed", e) end})
    error("boom3")
  end))
  return "on"
end)
print(coroutine.resume(caught))
