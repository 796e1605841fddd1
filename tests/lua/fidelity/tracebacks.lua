-- a traceback names the line each level raised at, inside loops too
local function inner()
  for i = 1, 3 do
    local f = function() return i end
    if f() == 2 then error("boom") end
  end
end
print(xpcall(inner, debug.traceback))
print(select(2, pcall(inner)))
print(xpcall(function()
  local t = {}
  for k, v in pairs({a = 1}) do
    t[k] = v
    while true do
      error("in pairs")
    end
  end
end, debug.traceback))
print(xpcall(function()
  for i = 1, 2 do
    local ok = pcall(error, "caught")
    local info = debug.getinfo(1, "l")
    if i == 2 then error("line " .. info.currentline) end
  end
end, function(m) return m .. " / " .. debug.getinfo(2, "l").currentline end))
