local text = [[
It was the best of times, it was the worst of times, it was the age of wisdom,
it was the age of foolishness, it was the epoch of belief, it was the epoch of
incredulity, it was the season of Light, it was the season of Darkness.
]]
local freq = {}
local total = 0
for w in text:lower():gmatch("%a+") do
  freq[w] = (freq[w] or 0) + 1
  total = total + 1
end
local words = {}
for w, c in pairs(freq) do words[#words + 1] = {w = w, c = c} end
table.sort(words, function(a, b) if a.c ~= b.c then return a.c > b.c end return a.w < b.w end)
for i = 1, 8 do print(string.format("%2d. %-12s %3d %5.1f%%", i, words[i].w, words[i].c, 100 * words[i].c / total)) end
print("total words", total, "unique", #words)
local lines = 0
for line in text:gmatch("[^\n]*\n") do lines = lines + 1 end
print("lines", lines)
local caps = {}
for w in text:gmatch("%u%l*") do caps[#caps + 1] = w end
print(table.concat(caps, " "))
print((text:gsub("%s+", " "):sub(1, 40)))
local vowels = select(2, text:gsub("[aeiouAEIOU]", ""))
print("vowels", vowels)
local longest = ""
for w in text:gmatch("%a+") do if #w > #longest then longest = w end end
print("longest", longest, #longest)
local acronym = text:gsub("(%a)%a*", "%1"):gsub("[^%a]", ""):sub(1, 20)
print(acronym)
local rev = {}
for w in ("one two three"):gmatch("%S+") do table.insert(rev, 1, w) end
print(table.concat(rev, " "))
print(("%5.1f"):format(12.345), ("%-5d|"):format(42), ("%+.2e"):format(12345.6789))
