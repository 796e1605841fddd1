-- format: string.format with %d, %s and %5.2f.
function bench(n)
  local total = 0
  for i = 1, n do
    local s = string.format("%d %s %5.2f", i, "item", i / 7)
    total = total + #s + string.byte(s, -1)
  end
  return total
end
