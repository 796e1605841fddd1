local t = {}
t.fail = function() error("module failed on purpose") end
t.fail()
return t
