local s1 = "plain", 'single', "", ''
local s2 = "esc \a\b\f\n\r\t\v\\\"\'"
local s3 = "\x41\x62\x7A\xff \65\066\0067\255\0 \u{41}\u{E9}\u{20AC}\u{10FFFF}\u{7FFFFFFF}"
local s4 = "line\
continued", "zap\z
       ped"
local s5 = [[
first newline skipped]], [==[a]]b]=]c]==], [=[
]=], [[]]
local s6 = "café", 'é'
local n1 = 0, 1, 123, 9223372036854775807, 9223372036854775808, 18446744073709551616
local n2 = 0x10, 0xff, 0x7fffffffffffffff, 0xffffffffffffffff, 0x10000000000000001
local n3 = 1.5, .5, 3., 1e10, 1E-3, 1e+2, 2.5e-3, 1e400, 0.1
local n4 = 0x1p4, 0x.8, 0xA.8p1, 0x1P-2, 0xa.bp+3, 0x1.
--[==[ a long
comment ]] still ]==] local after = 1 -- short comment
--[ not long
return s1
