-- Text work of the kinds prompt programs do (issue 28's held-out shapes):
-- lines and fields, word counts, redaction, e-mail extraction, title-casing,
-- whitespace, templates, JSON-ish fields, frontiers and positions.
local words = {"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Lorem", "ipsum",
               "reply", "tool", "model", "JSON", "answer", "a", "of", "runvil"}
local seed = 11
local function rand(n) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n end
local parts = {}
for i = 1, 400 do
  local w = words[rand(#words) + 1]
  local k = rand(40)
  if k == 0 then w = w .. "." .. words[rand(#words) + 1] .. "@example" .. rand(7) .. ".org"
  elseif k == 1 then w = tostring(rand(100000))
  elseif k == 2 then w = "https://www." .. w .. ".com/p" .. rand(50)
  elseif k == 3 then w = w .. ",  "
  elseif k == 4 then w = w .. ".\n"
  elseif k == 5 then w = "\t" .. w
  elseif k == 6 then w = "caf\195\169" end
  parts[#parts + 1] = w
end
local text = table.concat(parts, " ")

-- lines and fields
local lines = {}
for line in (text .. "\n"):gmatch("(.-)\r?\n") do lines[#lines + 1] = line end
print("lines", #lines, #lines[1], lines[#lines]:sub(1, 20))
local fields = 0
for _, line in ipairs(lines) do
  for field in line:gmatch("[^,]+") do fields = fields + 1 end
end
print("fields", fields)

-- word counts, sorted by count then word
local counts = {}
for w in text:gmatch("%a+") do w = w:lower(); counts[w] = (counts[w] or 0) + 1 end
local keys = {}
for w in pairs(counts) do keys[#keys + 1] = w end
table.sort(keys, function(a, b) if counts[a] ~= counts[b] then return counts[a] > counts[b] end return a < b end)
local top = {}
for i = 1, 6 do top[i] = keys[i] .. "=" .. counts[keys[i]] end
print(table.concat(top, " "))

-- e-mail extraction and redaction
local mails = {}
for user, host in text:gmatch("([%w%.]+)@([%w%.]+%.%a+)") do mails[#mails + 1] = user .. " at " .. host end
print("mails", #mails, mails[1], mails[#mails])
local redacted, n = text:gsub("[%w%.]+@[%w%.]+", "<email>")
print("redacted", n, #redacted)
print((text:gsub("%d%d%d+", function(d) return ("#"):rep(#d) end)):sub(1, 80))

-- title-casing with a function, a table, and a false answer
local titled = text:gsub("(%a)(%a*)", function(a, b) return a:upper() .. b end)
print(titled:sub(1, 60))
local swapped = text:gsub("%a+", {fox = "cat", dog = "wolf", the = false})
print(swapped:sub(1, 60))
print(("hello world from lua"):gsub("(%w+)", "<%1>"))
print(("hello world"):gsub("o", {o = 1}), ("abc"):gsub("", "-"))
print(("abc=123, x=7"):gsub("(%w+)=(%w+)", "%2=%1"))

-- whitespace
local clean = text:gsub("%s+", " "):gsub("^%s+", ""):gsub("%s+$", "")
print("clean", #clean, #text)
print(("  trim me  "):match("^%s*(.-)%s*$") .. "|")

-- templates
local vars = {name = "Ada", n = 3, what = "replies"}
print(("Dear ${name}, you have ${n} new ${what}. ${missing}"):gsub("%${(%w+)}", function(k)
  local v = vars[k]
  return v and tostring(v) or nil
end))
print(string.format("%-8s|%5d|%05.1f|%x|%q|%s|%g", "left", 42, 3.14159, 255, "a\nb\0c", nil, 1e20))

-- JSON-ish fields
local json = '{"name": "runvil", "version": 12, "tags": ["lua", "text"], "nested": {"ok": true}}'
local got = {}
for k, v in json:gmatch('"(%w+)":%s*("?[%w%.]+"?)') do got[#got + 1] = k .. "->" .. v end
print(table.concat(got, " "))
print(json:match('"tags":%s*(%b[])'), json:match("%b{}", 2))

-- frontiers, positions, anchors, back-references
print(("THE (quick) fox"):find("%f[%a]%a+%f[%A]"))
print(("hello"):match("()ll()"), ("aaa"):find("a-", 2), ("x = 'a' .. \"b\""):match("([\"'])(.-)%1"))
print(("one two  three"):find("%s+", 5), ("[test]"):find("[", 1, true), ("a.b"):find(".", 2, true))
print(("^caret$"):match("^^(%a+)%$$"), ("end$"):find("$", 1, true), ("x$y"):match("x$y"))
local pos = {}
for p, w in ("alpha beta gamma"):gmatch("()(%a+)") do pos[#pos + 1] = p .. ":" .. w end
print(table.concat(pos, ","))

-- building text in loops, rep, case, numbers
local acc = ""
for i = 1, 50 do acc = acc .. i % 10 end
print(acc, ("ab"):rep(3, "-"), ("MiXeD"):upper(), ("MiXeD"):lower())
print(tostring(1 / 3), 10 // 3, 7.0, -0.0, 2^53, math.maxinteger, 1e100, 255 // 1.0)
print(#text, select(2, text:gsub("\n", "")), text:byte(1), ("%d items"):format(3))
