-- char-by-char scanning with string methods (hot loop of s:byte / s:sub)
local text = string.rep("The quick brown fox jumps over the lazy dog. ", 4000)
local vowels, spaces, upper, sum = 0, 0, 0, 0
for i = 1, #text do
  local c = text:sub(i, i)
  if c:find("[aeiou]") then vowels = vowels + 1 end
  local b = text:byte(i)
  if b == 32 then spaces = spaces + 1 end
  if b >= 65 and b <= 90 then upper = upper + 1 end
  sum = (sum + b) % 65536
end
print(#text, vowels, spaces, upper, sum)
local words = 0
for w in text:gmatch("%a+") do if w:lower() == "the" then words = words + 1 end end
print("the:", words)
