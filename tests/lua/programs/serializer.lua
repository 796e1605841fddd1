local function serialize(v, indent)
  indent = indent or ""
  local t = type(v)
  if t == "string" then return string.format("%q", v)
  elseif t == "number" or t == "boolean" or t == "nil" then return tostring(v)
  elseif t == "table" then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b)
      local ta, tb = type(a), type(b)
      if ta ~= tb then return ta < tb end
      return a < b
    end)
    local lines = {}
    for _, k in ipairs(keys) do
      local ks = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or "[" .. serialize(k) .. "]"
      lines[#lines + 1] = indent .. "  " .. ks .. " = " .. serialize(v[k], indent .. "  ")
    end
    if #lines == 0 then return "{}" end
    return "{\n" .. table.concat(lines, ",\n") .. "\n" .. indent .. "}"
  end
  return "<" .. t .. ">"
end
local data = {
  name = "widget", price = 9.99, qty = 3, tags = {"a", "b", "c"},
  dims = {w = 10, h = 2.5, ["d-x"] = 0}, active = true, [10] = "ten", [1.5] = "float key",
  nested = {deep = {deeper = {deepest = "yes"}}}, quote = 'say "hi"\n', fn = print,
}
print(serialize(data))
local copy = load("return " .. serialize({a = 1, b = {2, 3}, c = "x\ty"}))()
print(copy.a, copy.b[2], copy.c)
local function deepcopy(o, seen)
  seen = seen or {}
  if type(o) ~= "table" then return o end
  if seen[o] then return seen[o] end
  local c = {}
  seen[o] = c
  for k, v in pairs(o) do c[deepcopy(k, seen)] = deepcopy(v, seen) end
  return setmetatable(c, getmetatable(o))
end
local cyc = {name = "root"}
cyc.self = cyc
local cc = deepcopy(cyc)
print(cc.name, cc.self == cc, cc.self ~= cyc)
local function equal(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not equal(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end
print(equal({1, {2, 3}, x = "y"}, {1, {2, 3}, x = "y"}), equal({1}, {1, 2}), equal({a = {b = 1}}, {a = {b = 2}}))
