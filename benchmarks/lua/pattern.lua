-- pattern: string.gmatch / string.gsub / string.find over a generated text.
local words = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}

function bench(n)
  local parts = {}
  for i = 1, n do
    parts[i] = words[i % 6 + 1] .. i .. "=" .. (i * 7 % 1000)
  end
  local text = table.concat(parts, " ")
  local total = 0
  -- gmatch with captures
  for k, v in string.gmatch(text, "(%a+)%d+=(%d+)") do
    total = total + #k + tonumber(v)
  end
  -- gsub with a plain replacement, and with captures in the replacement
  local r1, c1 = string.gsub(text, "%d+", "#")
  local r2, c2 = string.gsub(text, "(%a+)(%d+)", "%2%1", n // 2)
  total = total + #r1 + c1 + #r2 + c2
  -- gsub with a function replacement
  local r3 = string.gsub(string.sub(text, 1, #text // 4), "%a+", function(w)
    return string.upper(w)
  end)
  total = total + string.byte(r3, 1) + #r3
  -- find: plain search loop and a pattern with an anchor-free class
  local pos, found = 1, 0
  while true do
    local s, e = string.find(text, "gamma", pos, true)
    if not s then break end
    found = found + 1
    pos = e + 1
  end
  local s, e = string.find(text, "zeta%d+=9%d%d")
  total = total + found + (s or 0) + (e or 0)
  return total
end
