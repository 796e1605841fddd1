local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end local s = "héllo wörld ✓ 😀"
print(#s, utf8.len(s))
for p, c in utf8.codes("aé✓😀") do io.write(p, ":", c, " ") end print()
print(utf8.char(72, 233, 10003, 128512))
print(utf8.char())
print(utf8.codepoint("héllo", 1, -1))
print(utf8.codepoint("✓"))
print(utf8.offset("aé✓😀", 3), utf8.offset("aé✓😀", -1), utf8.offset("aé✓😀", 0, 3))
print(utf8.offset("abc", 5), utf8.offset("abc", 4))
print(utf8.len("\xff"), utf8.len("abc\xe4"), utf8.len("", 1))
print(utf8.len("héllo", 3), pcall(utf8.len, "héllo", 10))
print(utf8.charpattern)
for ch in s:gmatch(utf8.charpattern) do io.write("[", ch, "]") end print()
print(pcall(utf8.codepoint, "\xff"))
print(pcall(utf8.char, -1))
print(utf8.char(0x7FFFFFFF):byte(1, -1))
print(utf8.len("\u{7FF}\u{800}\u{FFFF}\u{10000}"))
print(pcall(utf8.offset, "aé", 1, 3))
local codes = {}
for _, c in utf8.codes("Ωμέγα") do codes[#codes + 1] = c end
print(table.concat(codes, ","))
print(pcall(function() for p, c in utf8.codes("a\xffb") do end end))
print(utf8.codepoint("abc", -1), utf8.len("abc", -1), utf8.len("abc", 4))
print(string.format("%q", utf8.char(233)))
print(("ñ"):byte(1, -1))
print(utf8.offset("héllo", 1), utf8.offset("héllo", 2), utf8.offset("héllo", 3), utf8.offset("héllo", 6), utf8.offset("héllo", 7))
print(utf8.len("\xed\xa0\x80"), utf8.len("\xed\xa0\x80", 1, -1, true))

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
