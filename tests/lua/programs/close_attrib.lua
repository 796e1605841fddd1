local function res(name, log)
  return setmetatable({name = name}, {__close = function(self, err)
    log[#log + 1] = "close " .. self.name .. " err=" .. tostring(err)
  end})
end
local log = {}
do
  local a <close> = res("a", log)
  local b <close> = res("b", log)
  log[#log + 1] = "body"
end
print(table.concat(log, "; "))
log = {}
local ok, e = pcall(function()
  local x <close> = res("x", log)
  local y <close> = res("y", log)
  error("fail")
end)
print(ok, e)
print(table.concat(log, "; "))
log = {}
local function f()
  local r <close> = res("ret", log)
  return "value"
end
print(f(), table.concat(log, "; "))
log = {}
for i = 1, 3 do
  local c <close> = res("loop" .. i, log)
  if i == 2 then break end
end
print(table.concat(log, "; "))
local k <const> = 10
print(k * 2)
print(load("local k <const> = 1; k = 2"))
print(load("local k <foo> = 1"))
do
  local n <close> = nil
  local f2 <close> = false
  print("nil and false are allowed")
end
print(pcall(function() local bad <close> = {} end))
print(pcall(function() local bad <close> = 42 end))
-- error in __close replaces error
log = {}
print(pcall(function()
  local z <close> = setmetatable({}, {__close = function() error("close err") end})
  error("orig")
end))
-- goto out of block closes
log = {}
do
  local i = 0
  ::again::
  do
    local g <close> = res("g" .. i, log)
    i = i + 1
    if i < 3 then goto again end
  end
end
print(table.concat(log, "; "))
-- coroutine close runs pending closes
log = {}
local co = coroutine.create(function()
  local q <close> = res("co", log)
  coroutine.yield(1)
end)
coroutine.resume(co)
print(coroutine.close(co), table.concat(log, "; "))
