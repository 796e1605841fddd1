-- json: a JSON encoder and decoder written in Lua, round-tripping a
-- generated catalog document (about 200 KB at n = 1500).
local null = setmetatable({}, {__name = "null"})

local escapes = {['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\t'] = '\\t',
                 ['\r'] = '\\r', ['\b'] = '\\b', ['\f'] = '\\f'}
local unescapes = {['"'] = '"', ['\\'] = '\\', ['/'] = '/', n = '\n', t = '\t',
                   r = '\r', b = '\b', f = '\f'}

local function escape_char(c)
  return escapes[c] or string.format("\\u%04x", c:byte())
end

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', escape_char) .. '"'
end

local function encode_value(v, buf)
  local tv = type(v)
  if v == null then
    buf[#buf + 1] = "null"
  elseif tv == "string" then
    buf[#buf + 1] = encode_string(v)
  elseif tv == "number" then
    buf[#buf + 1] = string.format("%d", v)
  elseif tv == "boolean" then
    buf[#buf + 1] = v and "true" or "false"
  elseif v[1] ~= nil or next(v) == nil then
    buf[#buf + 1] = "["
    for i = 1, #v do
      if i > 1 then buf[#buf + 1] = "," end
      encode_value(v[i], buf)
    end
    buf[#buf + 1] = "]"
  else
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    buf[#buf + 1] = "{"
    for i, k in ipairs(keys) do
      if i > 1 then buf[#buf + 1] = "," end
      buf[#buf + 1] = encode_string(k)
      buf[#buf + 1] = ":"
      encode_value(v[k], buf)
    end
    buf[#buf + 1] = "}"
  end
end

local function encode(v)
  local buf = {}
  encode_value(v, buf)
  return table.concat(buf)
end

local function skip(s, i)
  return s:find("[^ \t\r\n]", i) or #s + 1
end

local function decode_string(s, i)
  local buf = {}
  local j = i + 1
  while true do
    local c = s:byte(j)
    if c == 34 then
      break
    elseif c == 92 then
      local e = s:sub(j + 1, j + 1)
      if e == "u" then
        buf[#buf + 1] = string.char(tonumber(s:sub(j + 2, j + 5), 16))
        j = j + 6
      else
        buf[#buf + 1] = unescapes[e]
        j = j + 2
      end
    else
      local k = s:find('["\\]', j)
      buf[#buf + 1] = s:sub(j, k - 1)
      j = k
    end
  end
  return table.concat(buf), j + 1
end

local decode_value

local function decode_object(s, i)
  local obj = {}
  i = skip(s, i + 1)
  if s:sub(i, i) == "}" then return obj, i + 1 end
  while true do
    local key, val
    key, i = decode_string(s, skip(s, i))
    i = skip(s, i)
    val, i = decode_value(s, i + 1)
    obj[key] = val
    i = skip(s, i)
    local d = s:sub(i, i)
    i = i + 1
    if d == "}" then return obj, i end
  end
end

local function decode_array(s, i)
  local arr = {}
  i = skip(s, i + 1)
  if s:sub(i, i) == "]" then return arr, i + 1 end
  while true do
    local val
    val, i = decode_value(s, i)
    arr[#arr + 1] = val
    i = skip(s, i)
    local d = s:sub(i, i)
    i = i + 1
    if d == "]" then return arr, i end
  end
end

function decode_value(s, i)
  i = skip(s, i)
  local c = s:sub(i, i)
  if c == "{" then
    return decode_object(s, i)
  elseif c == "[" then
    return decode_array(s, i)
  elseif c == '"' then
    return decode_string(s, i)
  elseif c == "t" then
    return true, i + 4
  elseif c == "f" then
    return false, i + 5
  elseif c == "n" then
    return null, i + 4
  end
  local num = s:match("^-?%d+", i)
  return tonumber(num), i + #num
end

local function make_doc(n)
  local items = {}
  local seed = 42
  for i = 1, n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    local owner = null
    if seed % 5 ~= 0 then
      owner = {name = "user" .. (seed % 97), level = seed % 4}
    end
    items[i] = {
      id = i,
      name = 'item "' .. i .. '"\n',
      score = seed % 1000,
      active = seed % 3 == 0,
      tags = {"t" .. (seed % 7), "t" .. (seed % 11)},
      owner = owner,
    }
  end
  return {version = 1, title = "catalog\twith\ttabs", items = items}
end

function bench(n)
  local text = encode(make_doc(n))
  local doc = decode_value(text, 1)
  local again = encode(doc)
  local total = 0
  for _, item in ipairs(doc.items) do
    total = total + item.id + item.score
  end
  return #text + #again + total + (text == again and 1 or 0)
end
