local M = {name = "tiny json"}
local function enc(v)
  local t = type(v)
  if t == "table" then
    local parts = {}
    for i = 1, #v do parts[i] = enc(v[i]) end
    return "[" .. table.concat(parts, ",") .. "]"
  elseif t == "string" then return string.format("%q", v)
  else return tostring(v) end
end
M.encode = enc
return M
