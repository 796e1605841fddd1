-- An operator a builtin applies (math.max, table.sort, table.insert) calls
-- its metamethod from C: a value that cannot be called is reported
-- without the "(metamethod ...)" that the same operator in Lua code gets.
local o = setmetatable({}, {__lt = 'notfn', __le = 'x', __len = 'y', __add = 'z', __index = 'w'})
print(pcall(function() return math.max(1, o) end))
print(pcall(function() return math.min(o, 1) end))
print(pcall(function() return o < o end))
print(pcall(function() return o <= 1 end))
print(pcall(table.sort, {o, o, o}))
print(pcall(table.insert, o, 1))
print(pcall(function() return #o end))
print(pcall(function() return o + 1 end))
print(pcall(function() return o.x end))
print(pcall(table.concat, o))
print(pcall(table.unpack, o))
local co = coroutine.wrap(function() coroutine.yield(o < o) end)
print(pcall(co))
local co2 = coroutine.wrap(function() coroutine.yield(math.max(o, 2)) end)
print(pcall(co2))
