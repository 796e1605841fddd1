-- coroutine.yield inside every kind of callback: Lua 5.4 lets it through
-- metamethods, __pairs, iterators and pcall; a gsub function, a sort
-- comparator, __tostring, xpcall's handler and load's reader fail with
-- 'attempt to yield across a C-call boundary'
local function try(name, f)
  local co = coroutine.create(f)
  local ok, v = coroutine.resume(co)
  local n = 0
  while ok and coroutine.status(co) == "suspended" do n = n + 1; ok, v = coroutine.resume(co, n) end
  print(name, ok, v, n)
end
local y = coroutine.yield
try("gsub", function() return (string.gsub("ab", "%w", function(c) return c .. y() end)) end)
try("sort", function() local t = {3, 1, 2}; table.sort(t, function(a, b) y() return a < b end); return t[1] end)
try("index", function() return setmetatable({}, {__index = function(_, k) return k .. y() end}).x end)
try("newindex", function() local s; setmetatable({}, {__newindex = function(_, k, v) s = v + y() end}).x = 1; return s end)
try("add", function() local v = setmetatable({}, {__add = function(_, b) return b + y() end}) + 1; return v end)
try("lt", function() local o = setmetatable({}, {__lt = function() return y() == 1 end}); return o < o end)
try("le", function() local o = setmetatable({}, {__le = function() return y() == 1 end}); return not (o <= o) end)
try("eq", function() local mt = {__eq = function() return y() == 1 end}; return setmetatable({}, mt) == setmetatable({}, mt) end)
try("concat", function() return "a" .. setmetatable({}, {__concat = function(a, b) return "m" .. y() end}) .. "b" end)
try("unm", function() return -setmetatable({}, {__unm = function() return y() end}) end)
try("len", function() return #setmetatable({}, {__len = function() return y() end}) end)
try("call", function() return setmetatable({}, {__call = function(_, a) return a + y() end})(10) end)
try("close", function() local r; do local x <close> = setmetatable({}, {__close = function() r = y() end}) end; return r end)
try("tostring", function() return tostring(setmetatable({}, {__tostring = function() return "t" .. y() end})) end)
try("format", function() return string.format("%s", setmetatable({}, {__tostring = function() return "t" .. y() end})) end)
try("pairs", function() for k in pairs(setmetatable({}, {__pairs = function() y(); return next, {7} end})) do return k end end)
try("iterator", function() local s = 0; for i in function(_, i) i = (i or 0) + 1; if i <= 2 then return i + y() end end do s = s + i end; return s end)
try("xpcall", function() return select(2, xpcall(error, function(m) return m .. y() end, "e")) end)
try("load", function() return select(2, load(function() y() end)) end)
try("pcall", function() return select(2, pcall(function() return y() + 1 end)) end)
