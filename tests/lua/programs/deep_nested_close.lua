-- 12 nested blocks with <close> variables; fine in real Lua
do local c1 <close> = nil do local c2 <close> = nil do local c3 <close> = nil do local c4 <close> = nil
do local c5 <close> = nil do local c6 <close> = nil do local c7 <close> = nil do local c8 <close> = nil
do local c9 <close> = nil do local c10 <close> = nil do local c11 <close> = nil do local c12 <close> = nil
print("nested close")
end end end end end end end end end end end end
