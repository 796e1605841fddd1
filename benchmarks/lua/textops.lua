-- textops: the text operations of issue 28 over a generated text of n
-- lines: words by gmatch, digits replaced, title-casing with a function,
-- e-mail addresses by gmatch with two captures, whitespace collapsed.
local WORDS = {"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Lorem", "ipsum",
               "dolor", "sit", "amet", "runvil", "prompt", "model", "tool", "answer", "reply", "of"}

local function make_text(n)
  local lines, seed = {}, 5
  for i = 1, n do
    local words = {}
    for w = 1, 10 do
      seed = (seed * 1103515245 + 12345) % 2147483648
      local r = seed // 256
      local word = WORDS[r % #WORDS + 1]
      if r % 23 == 0 then
        word = word .. "." .. WORDS[(r // 32) % #WORDS + 1] .. "@mail" .. r % 7 .. ".example.org"
      elseif r % 11 == 0 then
        word = tostring(r % 100000)
      end
      words[w] = word
    end
    lines[i] = table.concat(words, (i % 3 == 0) and "  " or " ") .. ((i % 4 == 0) and " \t" or "")
  end
  return table.concat(lines, "\n")
end

local function capitalize(first, rest)
  return first:upper() .. rest
end

function bench(n)
  local text = make_text(n)
  local words = 0
  for w in text:gmatch("%a+") do words = words + 1 end
  local hashed, digits = text:gsub("%d+", "#")
  local titled, titles = text:gsub("(%a)(%a*)", capitalize)
  local emails = 0
  for user, host in text:gmatch("([%w%.]+)@([%w%.]+%.%a+)") do
    emails = emails + #user + #host
  end
  local squeezed, blanks = text:gsub("%s+", " ")
  return words + #hashed + digits + #titled + titles + emails + #squeezed + blanks
end
