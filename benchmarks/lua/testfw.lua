-- testfw: a unit-test framework shaped like luaunit and busted: every test
-- runs under xpcall with a handler that takes a traceback, every assertion
-- is a call that raises a formatted string (at level 2, so the message
-- names the test's line) or a failure table with a __tostring, expected
-- errors are checked through pcall, values are pretty-printed with %q and
-- %d, varargs helpers count their arguments with select('#', ...); n tests
-- of four to six assertions each, one in eight failing.
local M = {assertions = 0}

local Failure = {}
Failure.__index = Failure
Failure.__tostring = function(f) return "failure: " .. f.msg end

local function prettystr(v, depth)
  local t = type(v)
  if t == "string" then return string.format("%q", v) end
  if t == "number" then
    if math.type(v) == "integer" then return string.format("%d", v) end
    return string.format("%.4f", v)
  end
  if t ~= "table" then return tostring(v) end
  depth = depth or 0
  if depth > 2 then return "{...}" end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local parts = {}
  for i, k in ipairs(keys) do
    parts[i] = string.format("%s=%s", tostring(k), prettystr(v[k], depth + 1))
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

local function fail(fmt, ...)
  error(string.format(fmt, ...), 3)  -- the line of the test that asserted
end

local function failure(fmt, ...)
  error(setmetatable({msg = string.format(fmt, ...)}, Failure))
end

local function deep_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do
    if not deep_equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

function M.assertEquals(actual, expected)
  M.assertions = M.assertions + 1
  if type(actual) == "table" and type(expected) == "table" then
    if not deep_equal(actual, expected) then
      fail("expected: %s, actual: %s", prettystr(expected), prettystr(actual))
    end
  elseif actual ~= expected then
    fail("expected: %s, actual: %s", prettystr(expected), prettystr(actual))
  end
end

function M.assertAlmostEquals(actual, expected, margin)
  M.assertions = M.assertions + 1
  if math.abs(actual - expected) > margin then
    fail("values differ beyond margin %g: %5.2f vs %5.2f", margin, actual, expected)
  end
end

function M.assertTrue(v, ...)
  M.assertions = M.assertions + 1
  if v ~= true then
    local extra = select("#", ...) > 0 and string.format(" (%s)", tostring((...))) or ""
    fail("expected true, got %s%s", prettystr(v), extra)
  end
end

function M.assertNil(v)
  M.assertions = M.assertions + 1
  if v ~= nil then failure("expected nil, got %s", prettystr(v)) end
end

function M.assertStrContains(s, part)
  M.assertions = M.assertions + 1
  if not string.find(s, part, 1, true) then
    fail("could not find %q in %q", part, s)
  end
end

function M.assertError(f, ...)
  M.assertions = M.assertions + 1
  local ok = pcall(f, ...)
  if ok then fail("expected an error when calling %s with %d arguments", "function", select("#", ...)) end
end

function M.assertErrorMsgContains(part, f, ...)
  M.assertions = M.assertions + 1
  local ok, err = pcall(f, ...)
  if ok then fail("no error, expected one containing %q", part) end
  local msg = tostring(err)
  if not string.find(msg, part, 1, true) then
    fail("error message %q does not contain %q", msg, part)
  end
end

function M.assertArgs(count, ...)
  M.assertions = M.assertions + 1
  local n = select("#", ...)
  if n ~= count then fail("expected %d arguments, got %d", count, n) end
  for i = 1, n do
    if select(i, ...) == nil then failure("argument %d of %d is nil", i, n) end
  end
end

-- the code under test: small functions of the kind libraries test
local function split(s, sep)
  local out = {}
  for piece in string.gmatch(s, "([^" .. sep .. "]+)") do out[#out + 1] = piece end
  return out
end

local function checked_div(a, b)
  if b == 0 then error({code = "EDIV", a = a}) end
  if type(a) ~= "number" then error("checked_div: number expected, got " .. type(a), 2) end
  return a / b
end

local function handler(e)
  local trace = debug.traceback("", 2)
  return {err = e, trace = trace}
end

local function run(tests)
  local passed, failed, digest = 0, 0, 0
  for _, t in ipairs(tests) do
    local ok, res = xpcall(t.fn, handler, t.arg)
    if ok then
      passed = passed + 1
    else
      failed = failed + 1
      local msg = tostring(res.err):gsub("^[^:]*:%d+: ", "")
      local line = string.format("%-24s %s", t.name, msg)
      local has_trace = res.trace:find("stack traceback:", 1, true) and 1 or 0
      digest = (digest * 31 + #line + has_trace) % 1000000007
    end
  end
  return passed, failed, digest
end

local function suite(n)
  local tests = {}
  local function it(name, fn, arg) tests[#tests + 1] = {name = name, fn = fn, arg = arg} end
  for i = 1, n do
    local k = i % 8
    if k == 0 then
      it(string.format("test_%04d_fails", i), function(j)
        M.assertEquals(j + 1, j + 1)
        M.assertEquals({j, "x", {y = j}}, {j, "x", {y = j + 1}})
      end, i)
    elseif k == 1 then
      it(string.format("test_%04d_numbers", i), function(j)
        M.assertEquals(j * 2, j + j)
        M.assertAlmostEquals(j / 3, j / 3 + 0.001, 0.01)
        M.assertTrue(j > 0, "positive")
        M.assertNil(nil)
      end, i)
    elseif k == 2 then
      it(string.format("test_%04d_strings", i), function(j)
        local parts = split("a,b," .. j .. ",d", ",")
        M.assertEquals(#parts, 4)
        M.assertEquals(parts[3], tostring(j))
        M.assertStrContains(table.concat(parts, "-"), "b-" .. j)
        M.assertEquals(string.format("%05d|%-3s|%x", j, "ab", j), string.format("%05d|ab |%x", j, j))
      end, i)
    elseif k == 3 then
      it(string.format("test_%04d_errors", i), function(j)
        M.assertError(checked_div, j, 0)
        M.assertErrorMsgContains("number expected", checked_div, "x", 1)
        M.assertErrorMsgContains("attempt to index", function() local t = nil; return t.x end)
        M.assertEquals(checked_div(j, 2), j / 2)
      end, i)
    elseif k == 4 then
      it(string.format("test_%04d_tables", i), function(j)
        M.assertEquals({j, j + 1, {z = "q"}}, {j, j + 1, {z = "q"}})
        M.assertArgs(3, j, "two", {})
        M.assertEquals(select("#", nil, nil), 2)
      end, i)
    elseif k == 5 then
      it(string.format("test_%04d_values", i), function(j)
        local ok, err = pcall(error, {code = j})
        M.assertEquals(ok, false)
        M.assertEquals(err.code, j)
        M.assertEquals(tostring(j + 0.5), (j .. ".5"))
        M.assertTrue(pcall(tostring, j))
      end, i)
    elseif k == 6 then
      it(string.format("test_%04d_nested", i), function(j)
        local ok, err = pcall(pcall, error, "inner")
        M.assertTrue(ok)
        M.assertEquals(err, false)
        M.assertNil(select(3, pcall(error)))
        M.assertEquals(string.format("%s=%d", "k", j), "k=" .. j)
      end, i)
    else
      it(string.format("test_%04d_message", i), function(j)
        M.assertErrorMsgContains("boom " .. j, error, "boom " .. j)
        if j % 16 == 7 then M.assertNil(j) end  -- a failure table
        M.assertArgs(2, j, j)
      end, i)
    end
  end
  return tests
end

function bench(n)
  M.assertions = 0
  local passed, failed, digest = run(suite(n))
  return (digest + passed * 7 + failed * 3 + M.assertions) % 1000000007
end
