-- this file starts with a UTF-8 byte order mark, which lua skips
print("bom skipped")
local t = {1, 2, 3}
print(#t, t[2])
