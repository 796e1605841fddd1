-- textproc: text processing with patterns: splitting lines, counting words
-- with gmatch, finding addresses, rewriting with gsub captures.
local WORDS = {"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Lorem",
               "ipsum", "dolor", "sit", "amet", "runvil", "prompt", "model", "tool"}

local function make_text(n)
  local lines, seed = {}, 3
  for i = 1, n do
    local words = {}
    for w = 1, 12 do
      seed = (seed * 1103515245 + 12345) % 2147483648
      local word = WORDS[seed % #WORDS + 1]
      if seed % 29 == 0 then word = word .. "@example.org" end
      if seed % 31 == 0 then word = word .. "," end
      words[w] = word
    end
    lines[i] = "  " .. table.concat(words, " ") .. ". (" .. i .. ")  "
  end
  return table.concat(lines, "\n")
end

local function capitalize(first, rest)
  return first:upper() .. rest
end

function bench(n)
  local text = make_text(n)
  local counts, distinct = {}, 0
  for word in text:gmatch("%a+") do
    word = word:lower()
    local c = counts[word]
    if c then counts[word] = c + 1 else counts[word] = 1; distinct = distinct + 1 end
  end
  local emails = 0
  for user, host in text:gmatch("(%w+)@([%w%.]+%a)") do
    emails = emails + #user + #host
  end
  local trimmed, numbers = 0, 0
  for line in text:gmatch("[^\n]+") do
    local body = line:match("^%s*(.-)%s*$")
    trimmed = trimmed + #body
    local num = body:match("%((%d+)%)$")
    numbers = numbers + tonumber(num)
  end
  local titled, changes = text:gsub("(%a)(%a*)", capitalize)
  local squeezed = titled:gsub("%s+", " ")
  local first = squeezed:find("Runvil Prompt", 1, true) or 0
  return distinct + counts.the * 7 + emails + trimmed + numbers + changes + #squeezed + first
end
