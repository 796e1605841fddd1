-- string: building strings with table.concat, `..` in a loop, string.format.
function bench(n)
  local parts = {}
  for i = 1, n do
    parts[#parts + 1] = "item" .. i
  end
  local joined = table.concat(parts, ",")
  local total = #joined
  for i = 1, n do
    local line = "key_" .. i .. " = " .. (i * 3) .. ";"
    total = total + #line
  end
  local acc = ""
  for i = 1, n // 20 do
    acc = acc .. "ab"
  end
  total = total + #acc
  for i = 1, n // 4 do
    local s = string.format("%s-%d", "row", i)
    total = total + #s + string.byte(s, -1)
  end
  local upper = string.upper(string.sub(joined, 1, 1000))
  total = total + string.byte(upper, 3) + #string.rep("xy", 100)
  return total
end
