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

-- where each closes, and with which value
local function closer(name, fail)
  return setmetatable({}, {__close = function(_, e)
    print("close", name, type(e) == "table" and "table" or e)
    if fail then error(fail, 0) end
  end})
end
-- several, innermost first; an error in one replaces the value for the rest
print(pcall(function()
  local a <close> = closer("a")
  local b <close> = closer("b", "b failed")
  local c <close> = closer("c")
  error("first", 0)
end))
-- a table error
print(select("#", pcall(function() local a <close> = closer("a") error({}) end)))
-- a generic for's closing value
print(pcall(function()
  for i in function(_, i) i = (i or 0) + 1 if i < 3 then return i end end, nil, nil, closer("for") do
    if i == 2 then error("in for", 0) end
  end
end))
-- nested pcalls
print(pcall(function()
  local a <close> = closer("outer")
  print(pcall(function() local b <close> = closer("inner") error("inner err", 0) end))
  error("outer err", 0)
end))
-- inside a coroutine, caught there, and the coroutine goes on
local co = coroutine.create(function()
  print(pcall(function() local a <close> = closer("co-a") error("co err", 0) end))
  coroutine.yield("after pcall")
  local b <close> = closer("co-b", "close failed")
  error("ends it", 0)
end)
print(coroutine.resume(co))
print(coroutine.resume(co))
print(coroutine.status(co))
print(coroutine.close(co))
print(coroutine.close(co))
-- xpcall's handler sees the error before the closes; they get its value
print(xpcall(function()
  local a <close> = closer("x-a")
  local b <close> = closer("x-b")
  error("xe", 0)
end, function(m) print("handler", m) return "handled" end))
-- a normal exit, and break and goto
do local n <close> = closer("normal") end
for i = 1, 3 do local l <close> = closer("loop" .. i) if i == 2 then break end end
-- a wrap function closes before the error goes on, and a close error replaces it
local w = coroutine.wrap(function() local a <close> = closer("w", "w close failed") error("w err", 0) end)
print(pcall(w))
-- an error in a message handler
print(xpcall(function() local a <close> = closer("h") error("e", 0) end, function() error("again") end))
