print("this should not run")
local x = = 1
