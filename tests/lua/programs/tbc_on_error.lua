-- the to-be-closed variables an error leaves: an error that ends a
-- coroutine leaves them open (Lua's manual, 3.3.8), coroutine.close closes
-- them with the error, a coroutine.wrap function before the error goes on
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
-- Lua runs xpcall's message handler first, at the error, and closes the
-- variables after it with the handler's value; an error in __close
-- replaces the error value
print(xpcall(function()
  local c <close> = setmetatable({}, {__close = function(_, e) print("close", e) end})
  error("x")
end, function(m) print("handler", m) return "h:" .. m end))
print(pcall(function()
  local c <close> = setmetatable({}, {__close = function() error("in close") end})
  error("x")
end))
