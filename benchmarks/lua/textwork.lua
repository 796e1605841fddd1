-- textwork: what a prompt program does with model replies: split a reply
-- into lines and "Key: value" fields, trim them, pull JSON-ish fields and
-- e-mail addresses out, fill a template from a table, title-case it with
-- a function, collapse whitespace, count words, redact addresses, and
-- join a report with string.format and table.concat.
local FIRST = {"ada", "alan", "grace", "edsger", "barbara", "ken", "dennis", "margaret"}
local LAST = {"lovelace", "turing", "hopper", "dijkstra", "liskov", "thompson", "ritchie", "hamilton"}
local WORDS = {"the", "model", "answered", "quickly", "with", "a", "list", "of", "steps", "and",
               "tool", "calls", "reply", "JSON"}
local STATUS = {"open", "closed", "pending"}
local TEMPLATE = "Dear {first} {last}, ticket {ticket} is {status} ({priority}); owner: {owner}."

local function make_replies(n)
  local out, seed = {}, 11
  local function rnd(k)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return (seed // 256) % k + 1
  end
  for i = 1, n do
    local first = FIRST[rnd(#FIRST)]
    local last = LAST[rnd(#LAST)]
    local domain = rnd(5)
    local words = {}
    for w = 1, 6 + rnd(10) do words[w] = WORDS[rnd(#WORDS)] end
    local status = STATUS[rnd(3)]
    local priority = rnd(4)
    local step = rnd(9)
    out[i] = "  Name: " .. first .. " " .. last .. "  \n"
      .. "Ticket: " .. (1000 + i) .. "\n"
      .. "Email: " .. first .. "." .. last .. "@example" .. domain .. ".org\n"
      .. "Summary:   " .. table.concat(words, "  ") .. " \t\n"
      .. '{"status": "' .. status .. '", "priority": "p' .. priority .. '", "owner": "' .. last .. '"}\n'
      .. "\n- step one\n- step " .. step .. "\n"
  end
  return out
end

local function capitalize(a, b)
  return a:upper() .. b
end

function bench(n)
  local replies = make_replies(n)
  local fields, words, emails = 0, 0, 0
  local counts, out = {}, {}
  for i, reply in ipairs(replies) do
    local rec = {}
    for line in reply:gmatch("[^\n]+") do
      line = line:match("^%s*(.-)%s*$")
      local k, v = line:match("^(%a+):%s*(.*)$")
      if k then
        rec[k:lower()] = v
        fields = fields + 1
      end
    end
    for k, v in reply:gmatch('"(%w+)":%s*"([^"]*)"') do
      rec[k] = v
      fields = fields + 1
    end
    for user, host in reply:gmatch("([%w%.]+)@([%w%.]+%.%a+)") do
      emails = emails + #user + #host
    end
    rec.first, rec.last = rec.name:match("^(%a+)%s+(%a+)$")
    local letter = TEMPLATE:gsub("{(%w+)}", rec)
    letter = letter:gsub("(%a)(%a*)", capitalize)
    local summary = rec.summary:gsub("%s+", " ")
    for w in summary:gmatch("%a+") do
      w = w:lower()
      counts[w] = (counts[w] or 0) + 1
      words = words + 1
    end
    local redacted = reply:gsub("[%w%.]+@[%w%.]+%.%a+", "<email>")
    out[#out + 1] = string.format("%d|%s|%s|%d", i, letter, summary, #redacted)
  end
  local doc = table.concat(out, "\n")
  local distinct = 0
  for _ in pairs(counts) do distinct = distinct + 1 end
  return #doc + fields * 3 + words * 5 + distinct * 7 + emails + (counts.the or 0)
end
