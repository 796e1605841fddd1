-- while: the same sum with a while loop, a comparison and a modulo per step.
function bench(n)
  local s, i = 0, 0
  while i < n do
    i = i + 1
    if i % 3 == 0 then
      s = s + i
    else
      s = s - 1
    end
  end
  return s
end
