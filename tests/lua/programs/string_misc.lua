local s = "The quick brown fox"
local words = {}
for w in s:gmatch("%S+") do words[#words + 1] = w end
print(#words, words[1], words[#words])
print(s:len(), s:lower(), s:upper())
print(("%s=%d"):format("x", 10), ("abc"):rep(2, "|"))
print(("hello"):byte(1, -1))
print(("a,b;c d"):gsub("[,; ]", "_"))
local function split(str, sep)
  local out = {}
  for piece in (str .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do out[#out + 1] = piece end
  return out
end
local parts = split("a,b,,c", ",")
print(#parts, table.concat(parts, "|"))
local function trim(x) return (x:gsub("^%s+", ""):gsub("%s+$", "")) end
print("[" .. trim("  padded  ") .. "]")
print(("abc"):find("b", 1, true), ("a.c"):find("."), ("a.c"):find("%."))
print(string.format("%-10s|", "left"), string.format("%10s|", "right"))
local count = select(2, ("banana"):gsub("a", "a"))
print(count)
print(("hello world"):find("o w"), ("hello"):find("l", -2))
print(("test123abc"):match("%a+"), ("test123abc"):match("%d+"), ("test123abc"):match(".-(%d)"))
print(("x"):rep(10):len(), ("ab"):rep(3, ", "))
print(("Hello"):gsub(".", function(c) return string.format("%02X", c:byte()) end))
print(string.char(("ABC"):byte(1, 3)))
print(("%a"):rep(2), ("50%"):gsub("%%", " percent"))
local csv = "name,age\nann,30\nbob,25"
for line in csv:gmatch("[^\n]+") do
  local a, b = line:match("([^,]*),([^,]*)")
  print(a, b)
end
print(("one;two;;three"):find(";;"), ("abc"):sub(2, 2), ("abc"):sub(4, 5) == "")
print(tostring(("x"):find("y")), ("aaa"):gsub("a", "b", 0))
print(("hello"):match("(h)(e)(l)(l)(o)"))
print(string.format("%3d|%-3d|%03d", 1, 2, 3))
print(("AbC"):lower() == "abc", ("abc") < ("abd"), ("Z") < ("a"), ("") == (""))
print(("%d items"):format(3), #string.format("%099d", 1))
print(string.format("%s and %s", "a", 1.0), ("x"):byte() + 1)
print(("a b c"):gsub(" ", "", 1))
print(select("#", ("abc"):byte(1, 10)), select("#", ("abc"):byte(3, 1)))
