-- a 52-call method chain (builder pattern); fine in real Lua
local sb = {}
function sb:add(s) self[#self + 1] = s; return self end
sb:add("a"):add("b"):add("c"):add("d"):add("e"):add("f"):add("g"):add("h"):add("i"):add("j"):add("k"):add("l"):add("m"):add("n"):add("o"):add("p"):add("q"):add("r"):add("s"):add("t"):add("u"):add("v"):add("w"):add("x"):add("y"):add("z"):add("A"):add("B"):add("C"):add("D"):add("E"):add("F"):add("G"):add("H"):add("I"):add("J"):add("K"):add("L"):add("M"):add("N"):add("O"):add("P"):add("Q"):add("R"):add("S"):add("T"):add("U"):add("V"):add("W"):add("X"):add("Y"):add("Z")
print(table.concat(sb))
