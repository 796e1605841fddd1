print("10" + 1, "10" - 1, "10" * "2", "10" / 4, "10" // 3, "10" % 3, "2" ^ 10, -"3")
print("0x10" + 0, "1e1" + 0, " 7 " * 1, "10" + 0.5, math.type("10" + 1), math.type("10.0" + 1))
print(10 .. "", 1.5 .. "", -0.0 .. "", 1e100 .. "", 2^63 .. "", math.mininteger .. "")
print(pcall(function() return "abc" + 1 end))
print(pcall(function() return {} .. "" end))
print(pcall(function() return "1" < 2 end))
print("10" == 10, "abc" < "abd", 1 == 1.0, "1" == "1.0")
print(#("x" .. 12), ("5"):rep(3), (5):type == nil)
print(math.floor("3.7"), math.max("10", 9) == nil)
print(string.rep(5, 2), string.upper(12), string.len(123), ("x"):rep("3"))
print(tostring(3) == "3", tostring(3.0) == "3.0")
print(3 | "4" == nil)
print("3" | 0, "0x10" & 0xff, pcall(function() return "3.5" | 0 end))
print("9007199254740993" + 0, "9223372036854775807" + 0, "9223372036854775808" + 0)
print(10 == "10", 0 == -0, 1/0 > math.maxinteger, "a" .. 1 + 2)
print(2 .. 3, 2.0 .. 3)
local t = {}
t[1.0] = "a"; t[2] = "b"; t["1"] = "c"
print(t[1], t[2.0], t["1"], #t)
t[2^53] = "big"
print(t[2^53], t[math.tointeger(2^53)])
t[-0.0] = "zero"
print(t[0], t[0.0])
print(next({}, nil))
local keys = {}
for k, v in pairs({[1] = 1, [1.5] = 2}) do keys[#keys + 1] = math.type(k) end
table.sort(keys)
print(table.concat(keys, " "))
print(math.type(3 // 1), math.type(3.0 // 1), math.type(2^2), math.type(7 // 2.0))
print(1e15 == 10^15, 2^53 == 2^53 + 1, math.type(10 // 3))
print(string.format("%d", "42"), pcall(string.format, "%d", "4.5"))
print(("10"):len(), ("abc"):upper())
