-- a realistic program: bank simulation with classes, string formatting, sorting
local Account = {}
Account.__index = Account
local nextId = 1
function Account.new(owner, balance)
  local a = setmetatable({id = nextId, owner = owner, balance = balance or 0, history = {}}, Account)
  nextId = nextId + 1
  return a
end
function Account:deposit(v)
  if v <= 0 then error("invalid deposit amount: " .. v, 2) end
  self.balance = self.balance + v
  self.history[#self.history + 1] = {"deposit", v}
end
function Account:withdraw(v)
  if v > self.balance then error(string.format("insufficient funds in account %d (%.2f < %.2f)", self.id, self.balance, v)) end
  self.balance = self.balance - v
  self.history[#self.history + 1] = {"withdraw", v}
end
function Account:__tostring() return string.format("Account#%d[%s: %.2f]", self.id, self.owner, self.balance) end
Account.__lt = function(a, b) return a.balance < b.balance end
Account.__eq = function(a, b) return a.id == b.id end
local accts = {Account.new("alice", 100), Account.new("bob", 50.5), Account.new("carol"), Account.new("dave", 1e3)}
accts[1]:deposit(25)
accts[2]:withdraw(20.25)
accts[3]:deposit(10)
print(pcall(accts[3].withdraw, accts[3], 100))
print(pcall(accts[3].deposit, accts[3], -5))
print(pcall(function() accts[3]:deposit(0) end))
table.sort(accts)
for _, a in ipairs(accts) do print(tostring(a)) end
table.sort(accts, function(a, b) return a.owner > b.owner end)
for i, a in ipairs(accts) do print(i, a.owner, a.balance, #a.history) end
print(accts[1] == accts[1], accts[1] == accts[2], accts[1] < accts[2], accts[2] < accts[1])
local total = 0
for _, a in ipairs(accts) do total = total + a.balance end
print(string.format("total=%.3f avg=%g", total, total / #accts))
local report = {}
for _, a in ipairs(accts) do
  for _, h in ipairs(a.history) do report[#report + 1] = string.format("%-6s %-8s %8.2f", a.owner, h[1], h[2]) end
end
print(table.concat(report, "\n"))
print(pcall(function() return accts[1] < 5 end))
