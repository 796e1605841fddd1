-- Prelude for Lua 5.4.4's own test files (tests/lua/test_testes.py): stubs
-- what the sandbox lacks -- collectgarbage, a small debug, io and package,
-- require, and the helper modules testes/ loads from files -- so each file
-- runs unchanged except for the skipped lines listed in the test. The same
-- prelude runs under lua5.4, so a stub can never make a file pass there
-- that would fail with Lua's real library.

_soft = true   -- the lighter variants all.lua selects for a quick run
_port = true   -- skip what depends on the C library's locale and formats

local gc_options = {
  collect = 0, stop = 0, restart = 0, count = 0, step = true,
  isrunning = true, incremental = "incremental", generational = "incremental",
  setpause = 100, setstepmul = 100,
}

function collectgarbage (opt, ...)
  opt = opt or "collect"
  local r = gc_options[opt]
  if r == nil then
    error("bad argument #1 to 'collectgarbage' (invalid option '" ..
          tostring(opt) .. "')", 2)
  end
  if opt == "count" then return 100.0, 0 end
  return r
end

-- debug: only what the files call in lines that are not skipped
debug = {
  traceback = function (msg) return msg end,
}

-- io.write writes through print, one line at a time
local pending = {}
io = {
  write = function (...)
    for i = 1, select("#", ...) do
      local s = select(i, ...)
      if type(s) ~= "string" and type(s) ~= "number" then
        error("bad argument #" .. i .. " to 'io.write' (string expected, got " ..
              type(s) .. ")", 2)
      end
      s = tostring(s)
      local nl = string.find(s, "\n[^\n]*$")
      if nl then
        pending[#pending + 1] = string.sub(s, 1, nl - 1)
        print(table.concat(pending))
        pending = {string.sub(s, nl + 1)}
      else
        pending[#pending + 1] = s
      end
    end
    return io
  end,
}

os = os or {}
function os.setlocale (loc)
  if loc == nil or loc == "C" or loc == "" then return "C" end
  return nil
end
function os.exit () error("os.exit called") end
os.getenv = os.getenv or function () return nil end

-- package and require, with the helper modules testes/ keeps in files
package = {loaded = {}, preload = {}, path = "", cpath = ""}
for _, name in ipairs{"string", "table", "math", "utf8", "coroutine", "os"} do
  package.loaded[name] = _G[name]
end
package.loaded._G = _G
package.loaded.package = package
package.loaded.debug = debug
package.loaded.io = io

-- tracegc.lua: reports collections; there is no collector to trace
package.preload.tracegc = function ()
  return {start = function () end, stop = function () end}
end

-- bwcoercion.lua: string operands of bitwise operators, through the
-- string metatable, as Lua 5.3 did
package.preload.bwcoercion = function ()
  local smt = getmetatable("")
  local function toint (x)
    local y = tonumber(x)
    if y == nil then return nil end
    return math.tointeger(y)
  end
  local function trymt (x, y, mtname)
    if type(y) ~= "string" then
      local mt = getmetatable(y)
      local mm = mt and rawget(mt, mtname)
      if mm then return mm(x, y) end
    end
    error("attempt to perform bitwise operation on a " .. type(x) ..
          " value (metamethod '" .. string.sub(mtname, 3) .. "')", 3)
  end
  local function checkargs (x, y, mtname)
    local xi, yi = toint(x), toint(y)
    if xi and yi then return xi, yi end
    return trymt(x, y, mtname), nil
  end
  local function binary (mtname, op)
    smt[mtname] = function (x, y)
      local a, b = checkargs(x, y, mtname)
      if b == nil then return a end
      return op(a, b)
    end
  end
  binary("__band", function (a, b) return a & b end)
  binary("__bor", function (a, b) return a | b end)
  binary("__bxor", function (a, b) return a ~ b end)
  binary("__shl", function (a, b) return a << b end)
  binary("__shr", function (a, b) return a >> b end)
  smt.__bnot = function (x)
    local a = toint(x)
    if a then return ~a end
    return trymt(x, x, "__bnot")
  end
  return true
end

function require (name)
  local v = package.loaded[name]
  if v ~= nil then return v end
  local loader = package.preload[name]
  if loader == nil then
    error("module '" .. tostring(name) .. "' not found", 2)
  end
  v = loader(name, ":preload:")
  if v == nil then v = true end
  package.loaded[name] = v
  return v
end
