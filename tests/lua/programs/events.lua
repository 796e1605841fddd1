local Emitter = {}
Emitter.__index = Emitter
function Emitter.new() return setmetatable({handlers = {}}, Emitter) end
function Emitter:on(name, fn)
  local list = self.handlers[name] or {}
  self.handlers[name] = list
  list[#list + 1] = fn
  return function()
    for i, f in ipairs(list) do if f == fn then table.remove(list, i) return true end end
    return false
  end
end
function Emitter:emit(name, ...)
  local list = self.handlers[name]
  if not list then return 0 end
  local n = 0
  for _, f in ipairs({table.unpack(list)}) do f(...); n = n + 1 end
  return n
end
local e = Emitter.new()
local log = {}
local off1 = e:on("data", function(...) log[#log + 1] = "h1:" .. table.concat({...}, ",") end)
e:on("data", function(x) log[#log + 1] = "h2:" .. tostring(x) end)
print(e:emit("data", 1, 2, 3))
print(off1(), off1())
print(e:emit("data", "z"), e:emit("none"))
print(table.concat(log, " | "))
local once
local calls = 0
once = e:on("tick", function() calls = calls + 1; once() end)
e:emit("tick"); e:emit("tick")
print("once calls", calls)
local function debounce(fn)
  local last
  return function(v) if v ~= last then last = v; return fn(v) end end
end
local seen = {}
local d = debounce(function(v) seen[#seen + 1] = v end)
for _, v in ipairs({1, 1, 2, 2, 2, 3, 1, 1}) do d(v) end
print(table.concat(seen, ","))
local function pipeline(...)
  local stages = table.pack(...)
  return function(x)
    for i = 1, stages.n do x = stages[i](x) end
    return x
  end
end
print(pipeline(function(x) return x + 1 end, function(x) return x * 10 end, tostring, string.reverse)(41))
