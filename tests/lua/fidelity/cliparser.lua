-- a command-line parser in the shape of argparse/lapp: `arg`, io.stderr, os.exit
local function usage(msg)
  io.stderr:write("error: ", msg, "\n", "usage: ", arg[0], " [-v] [--name=NAME] [-n N] FILE...\n")
  os.exit(2)
end

local opts = {verbose = 0, name = "world", n = 1, files = {}}
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "-v" then
    opts.verbose = opts.verbose + 1
  elseif a:match("^%-%-name=") then
    opts.name = a:match("^%-%-name=(.*)$")
  elseif a == "-n" then
    i = i + 1
    opts.n = tonumber(arg[i]) or usage("-n needs a number, got " .. tostring(arg[i]))
  elseif a == "--" then
    for j = i + 1, #arg do opts.files[#opts.files + 1] = arg[j] end
    break
  elseif a:sub(1, 1) == "-" then
    usage("unknown option " .. a)
  else
    opts.files[#opts.files + 1] = a
  end
  i = i + 1
end
if #opts.files == 0 then usage("no FILE") end
for _ = 1, opts.n do io.write("hello, ", opts.name, "\n") end
io.write("verbose=", opts.verbose, " files=", table.concat(opts.files, "|"), " #arg=", #arg, " arg[-1]~=nil:", tostring(arg[-1] ~= nil), "\n")
print(select("#", ...), ...)
