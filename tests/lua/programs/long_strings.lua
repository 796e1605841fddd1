local _P, _b = print, {} local io = {write = function(...) for i = 1, select('#', ...) do local v = select(i, ...) if math.type(v) == 'float' then v = string.format('%.14g', v) end _b[#_b + 1] = tostring(v) end return io end} local function print(...) local t = table.pack(...) for i = 1, t.n do t[i] = tostring(t[i]) end _P(table.concat(_b) .. table.concat(t, '\t', 1, t.n)) _b = {} end local a = [[
first line
second line]]
print(a)
local b = [==[
contains ]] and [[ inside
]==]
io.write(b)
print([[]], [[x]], #[[

]])
--[[ block
comment ]] print("after block comment")
--[==[ another
]] still comment
]==] print("after level2")
---[[ not a block comment
print("line comment trick")
--]]
print("escapes: \a\b|\f|\v|" == "escapes: \7\8|\12|\11|")
print("\65\066\0677", "\x41\x42", "\u{41}\u{20AC}", "a\z
      b")
print('\'', "\"", '\\', "\
newline")
print(#"\z   
   ", "x\z y")
local c = [[
  leading spaces kept]]
print(c)
print([==[a]=]b]==])
print("\r\n" == "\13\10", #"\u{7FFFFFFF}")
print(load("return '\\q'"))
print(load("return \"abc"))
print(load("return [[abc"))
print(load("x = 'a\\300'"))
print(load("x = '\\u{110000000}'"))
print(load("return 1 .. 2")())
print(load("return 0x"), load("return 1e"), load("return 3..4"))

do local s = table.concat(_b) if s ~= '' then _P((s:gsub('\n$', ''))) end end
