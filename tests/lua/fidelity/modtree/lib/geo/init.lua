local name = ...
local M = {version = "1.2", modname = name}
M.vec = require(name .. ".vec")
M.shapes = require(name .. ".shapes")
return M
