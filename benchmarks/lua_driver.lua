-- Runs one benchmark in the stand-alone lua5.4 binary, timing inside Lua
-- with os.clock (process CPU time) so interpreter startup and loading are
-- excluded. No wall time: os.time has one-second resolution.
--   lua5.4 lua_driver.lua MODE PATH N REPS BUDGET
-- Speaks the same line protocol as benchmarks/child.py.
local mode, path, n, reps, budget = arg[1], arg[2], tonumber(arg[3]), tonumber(arg[4]), tonumber(arg[5])
local TAG = "@@BENCH "

local f = assert(io.open(path, "rb"))
local source = f:read("a")
f:close()

local t0 = os.clock()
local run
if mode == "bench" then
  local chunk, err = load(source, "=bench")
  if not chunk then
    io.write(TAG, "ERROR load: ", (tostring(err):gsub("\n", "\\n")), "\n")
    os.exit(1)
  end
  chunk()
  run = bench
else
  run = function()
    local chunk, err = load(source, "=bench")
    if not chunk then error(err) end
    return chunk
  end
end
io.write(TAG, "LOADED ", string.format("%.6f", os.clock() - t0), "\n")
io.flush()

local spent = 0
for _ = 1, reps do
  collectgarbage()
  collectgarbage()
  local start = os.clock()
  local ok, result = pcall(run, n)
  local dt = os.clock() - start
  if not ok then
    io.write(TAG, "ERROR ", (tostring(result):gsub("\n", "\\n")), "\n")
    os.exit(1)
  end
  local checksum = mode == "parse" and "-" or tostring(result)
  io.write(TAG, "RUN ", string.format("%.6f", dt), " - ", checksum, "\n")
  io.flush()
  spent = spent + dt
  if spent + dt > budget then break end
end
