error(setmetatable({}, {__tostring = function() return "tostring'd error" end}))
