local cases = {"plain", "with \"quotes\"", "back\\slash", "nl\nnl", "cr\rcr", "tab\tx", "\0zero", "\0001", "\1\2\3", "\127\128\255", "é", "\x1b[0m", "a\r\n"}
for _, s in ipairs(cases) do print(string.format("%q", s)) end
print(string.format("%q", 0), string.format("%q", -0.0), string.format("%q", 3.25), string.format("%q", 2^63))
print(string.format("%q", math.maxinteger), string.format("%q", 1e-300))
print(pcall(string.format, "%q", {}))
print(string.format("%q", true), string.format("%q", nil), string.format("%q", false))
local s = string.format("return %q", "round\ntrip\0\"")
print(load(s)() == "round\ntrip\0\"")
print(string.format("%q", "\u{10FFFF}"))
print(string.format("%q", "9\0009"))
