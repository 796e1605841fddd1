-- a 110-term sum and a 66-way 'or' chain; fine in real Lua
local a = 1
local sum = a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a + a
print(sum)
local c = "x"
local isvowel = c == "a" or c == "e" or c == "i" or c == "o" or c == "u" or c == "A" or c == "E" or c == "I" or c == "O" or c == "U" or c == "1" or c == "2" or c == "3" or c == "4" or c == "5" or c == "6" or c == "7" or c == "8" or c == "9" or c == "0" or c == "b" or c == "c" or c == "d" or c == "f" or c == "g" or c == "h" or c == "j" or c == "k" or c == "l" or c == "m" or c == "n" or c == "p" or c == "q" or c == "r" or c == "s" or c == "t" or c == "v" or c == "w" or c == "y" or c == "z" or c == "B" or c == "C" or c == "D" or c == "F" or c == "G" or c == "H" or c == "J" or c == "K" or c == "L" or c == "M" or c == "N" or c == "P" or c == "Q" or c == "R" or c == "S" or c == "T" or c == "V" or c == "W" or c == "X" or c == "Y" or c == "Z" or c == "-" or c == "+" or c == "*" or c == "/" or c == "%" or c == "^"
print(isvowel)
