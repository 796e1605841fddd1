io.write("no newline")
local x = 1 + nil
