-- a unit-test framework in the shape of busted/luaunit/u-test: pcall,
-- debug.traceback, debug.getinfo and os.exit with the failure count
local T = {passed = 0, failed = 0, results = {}}

local function caller_line(level)
  local info = debug.getinfo(level + 1, "Sl")
  return info.short_src .. ":" .. info.currentline
end

function T.assert_equal(a, b, msg)
  if a ~= b then
    error(string.format("%s expected %s, got %s", msg or "values differ:", tostring(b), tostring(a)), 2)
  end
end

function T.assert_error(f, pattern)
  local ok, err = pcall(f)
  if ok then error("expected an error", 2) end
  if pattern and not tostring(err):find(pattern) then
    error("error '" .. tostring(err) .. "' does not match '" .. pattern .. "'", 2)
  end
end

function T.test(name, f)
  local at = caller_line(2)
  local ok, err = xpcall(f, function(e)
    local tb = debug.traceback(tostring(e), 2)
    return {message = e, traceback = tb}
  end)
  if ok then
    T.passed = T.passed + 1
    io.write("[PASS] ", name, "\n")
  else
    T.failed = T.failed + 1
    io.write("[FAIL] ", name, " (", at, ")\n  ", tostring(err.message), "\n")
    local first = err.traceback:match("stack traceback:\n\t([^\n]*)")
    io.write("  first level: ", tostring(first), "\n")
  end
end

T.test("arithmetic", function() T.assert_equal(1 + 1, 2) end)
T.test("strings", function() T.assert_equal(("x"):rep(3), "xxx") end)
T.test("failing", function() T.assert_equal(2 * 2, 5, "math is off:") end)
T.test("errors", function() T.assert_error(function() error("boom") end, "boom") end)
T.test("wrong error", function() T.assert_error(function() error("bang") end, "boom") end)
T.test("runtime error", function() local t = nil; return t.field end)
T.test("info", function()
  local info = debug.getinfo(1, "nSl")
  T.assert_equal(info.what, "Lua")
  T.assert_equal(info.short_src, "testframework.lua")
  T.assert_equal(type(debug.getinfo(print).what), "string")
end)
io.stderr:write(string.format("%d passed, %d failed\n", T.passed, T.failed))
os.exit(T.failed == 0 and 0 or 3)
