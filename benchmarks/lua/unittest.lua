-- unittest: a small unit-test framework of the kind Lua libraries ship
-- (describe/it, assertions raising formatted errors, every test under
-- pcall, deep equality, a summary), running n tests, a tenth failing.
local T = {}

local function fail(fmt, ...)
  error(string.format(fmt, ...), 3)
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

function T.equal(got, want)
  if got ~= want then fail("expected %s, got %s", tostring(want), tostring(got)) end
end

function T.same(got, want)
  if not deep_equal(got, want) then fail("tables differ (%d vs %d fields)", #got, #want) end
end

function T.truthy(v, what)
  if not v then fail("%s: expected a true value, got %s", what or "value", tostring(v)) end
end

function T.raises(fn, pattern)
  local ok, err = pcall(fn)
  if ok then fail("expected an error matching %q", pattern) end
  if not tostring(err):find(pattern) then fail("error %q does not match %q", tostring(err), pattern) end
end

local function run(tests)
  local passed, failed, messages = 0, 0, {}
  for _, t in ipairs(tests) do
    local ok, err = pcall(t.fn)
    if ok then
      passed = passed + 1
    else
      failed = failed + 1
      messages[#messages + 1] = string.format("FAIL %s: %s", t.name, tostring(err))
    end
  end
  return passed, failed, messages
end

local function suite(n)
  local tests = {}
  local function it(name, fn) tests[#tests + 1] = {name = name, fn = fn} end
  for i = 1, n do
    local k = i % 10
    if k == 0 then
      it("case " .. i .. " fails", function() T.equal(i * 2, i * 2 + 1) end)
    elseif k < 4 then
      it("case " .. i .. " arithmetic", function()
        T.equal(i + i, 2 * i)
        T.truthy(i > 0, "positive")
      end)
    elseif k < 7 then
      it("case " .. i .. " tables", function()
        T.same({i, i + 1, {x = i}}, {i, i + 1, {x = i}})
      end)
    else
      it("case " .. i .. " errors", function()
        T.raises(function() error({code = i}) end, "table")
        T.raises(function() local t = nil; return t.x end, "attempt to index")
      end)
    end
  end
  return tests
end

function bench(n)
  local passed, failed, messages = run(suite(n))
  local sum = passed * 3 + failed
  for _, m in ipairs(messages) do sum = (sum + #m:gsub(": .-:%d+: ", ": ", 1)) % 1000000007 end
  return sum
end
