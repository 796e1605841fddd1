"""Coroutines as generator twins (runvil.lua.runtime.generators, compiler/generators.py; issue
13: "a resume/yield pair <= 3 us", whole programs within 10x of Python):
the same results, messages, positions and levels as real Lua 5.4 wherever
a twin runs its code, yields and errors at every depth, and the escalated
calls (metamethods, builtins that call back) that keep the rest exact.
tests/engine/test_contexts.py runs the coroutine tests again with twins off.
"""

from __future__ import annotations

import pytest

from runvil.lua import LuaState
from runvil.lua.runtime import contexts
from runvil.lua.runtime import generators as T
from runvil.lua.stdlib import coroutine as coroutine_lib

from .harness import ours, real

pytestmark = pytest.mark.skipif(not coroutine_lib.TWINS, reason="twins are off (RUNVIL_TWINS=0)")

PROGRAMS = {
    "generator and ping-pong": """
        local function gen(n) return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end) end
        local s = 0
        for v in gen(10) do s = s + v end
        local co = coroutine.create(function(a) while true do a = coroutine.yield(a * 2) end end)
        for i = 1, 3 do print(coroutine.resume(co, i)) end
        print(s, coroutine.status(co))
    """,
    "yield at depth through Lua calls": """
        local function leaf(x) return coroutine.yield(x) + 1 end
        local function mid(x) local y = leaf(x) * 10; return y, leaf(y) end
        local co = coroutine.wrap(function(a) local p, q = mid(a); return 'done', p, q end)
        print(co(1)); print(co(2)); print(co(3)); print(pcall(co))
    """,
    "values passed both ways": """
        local co = coroutine.create(function(...)
          print('start', select('#', ...), ...)
          local a, b, c = coroutine.yield(1, nil, 3)
          print('got', a, b, c)
          return select('#', coroutine.yield()), 'end'
        end)
        print(coroutine.resume(co, 'x', nil))
        print(coroutine.resume(co, 4, 5))
        print(coroutine.resume(co, nil, nil, nil))
        print(coroutine.resume(co))
    """,
    "yield inside metamethods": """
        local mt = {
          __add = function(a, b) coroutine.yield('add'); return a.v + b.v end,
          __lt = function(a, b) coroutine.yield('lt'); return a.v < b.v end,
          __eq = function(a, b) coroutine.yield('eq'); return a.v == b.v end,
          __index = function(t, k) coroutine.yield('idx'); return k .. '!' end,
          __newindex = function(t, k, v) coroutine.yield('nidx'); rawset(t, k, v * 2) end,
          __concat = function(a, b) coroutine.yield('cat'); return 'C' end,
          __len = function(a) coroutine.yield('len'); return 42 end,
          __call = function(self, x) coroutine.yield('call'); return x + 1 end,
        }
        local a, b = setmetatable({v = 1}, mt), setmetatable({v = 2}, mt)
        local co = coroutine.wrap(function()
          local r = {a + b, a < b, a == b, a.zz, #a, a .. 'x', a(5)}
          a.w = 21
          return table.concat({tostring(r[1]), tostring(r[2]), tostring(r[3]), r[4], r[5], r[6], r[7], rawget(a, 'w')}, ' ')
        end)
        local steps = {}
        while true do
          local v = co()
          steps[#steps + 1] = v
          if v:find(' ') then break end
        end
        print(table.concat(steps, ','))
    """,
    "yield inside pcall and error after": """
        local co = coroutine.wrap(function()
          local ok, e = pcall(function() coroutine.yield('in pcall'); error('boom') end)
          coroutine.yield(tostring(ok) .. ' ' .. e)
          local ok2, e2 = pcall(error, {code = 7})
          return type(e2), e2.code
        end)
        print(co()); print(co()); print(co())
    """,
    "pcall and xpcall inside a twin": """
        local co = coroutine.wrap(function()
          print(pcall(function() error('e1') end))
          print(pcall(function() error('e2', 2) end))
          print(pcall(error, 'e3', 1))
          print(pcall(nil))
          print(pcall(setmetatable({}, {__call = function(self, a) return 'called', a end}), 5))
          print(pcall(pcall))
          print(select('#', pcall(function() return end)), pcall(function() return 1, nil, 3 end))
          print(xpcall(function() error({}) end, function(e) return type(e) end))
          print(xpcall(function() error('x') end, function(e) error('again') end))
          print(xpcall(function(a, b) return a + b end, print, 2, 3))
          print(pcall(xpcall, print))
          print(pcall(function() local ok, e = pcall(coroutine.yield, 'inside'); return ok, e end))
          local function rec(n) return pcall(rec, n + 1) end
          print(rec(1))
          return 'done'
        end)
        print(co()); print(co('back')); print(pcall(co))
    """,
    "error positions and levels": """
        local function lvl2() error('two', 2) end
        local co = coroutine.create(function()
          local t = nil
          coroutine.yield(pcall(function() return t.x end))
          coroutine.yield(pcall(lvl2))
          coroutine.yield(pcall(string.rep))
          coroutine.yield(pcall(table.insert, nil, 1))
          coroutine.yield(pcall(setmetatable, 1, 2))
          error('top level')
        end)
        for i = 1, 6 do print(coroutine.resume(co)) end
        local w = coroutine.wrap(function() local x = nil; return x.y end)
        print(pcall(w))
        local w2 = coroutine.wrap(function() error('lvl', 2) end)
        print(pcall(w2))
        local w3 = coroutine.wrap(function() local s = ('x'):rep(2); return s + 1 end)
        print(pcall(w3))
    """,
    "a callable value as a generic for's iterator": """
        local it = setmetatable({}, {__call = function(self, s, i)
          i = (i or 0) + 1
          if i <= 3 then coroutine.yield(i) return i end
        end})
        local co = coroutine.wrap(function() local n = 0 for x in it do n = n + x end return 'sum', n end)
        print(co()); print(co()); print(co()); print(co())
        print(pcall(coroutine.wrap(function() for x in {} do end end)))
        print(pcall(coroutine.wrap(function() for x in nil do end end)))
    """,
    "bad arguments name the call site": """
        local co = coroutine.wrap(function()
          local fmt, ins = string.format, table.insert
          print(pcall(function() return fmt('%d', 'x') end))
          print(pcall(function() ins(1, 2) end))
          print(pcall(function() return ('x'):rep({}) end))
          print(pcall(function() return math.floor('a') end))
          coroutine.yield()
        end)
        co()
    """,
    "yield across a C-call boundary is refused": """
        local co = coroutine.wrap(function()
          local t = {3, 1, 2}
          print(pcall(table.sort, t, function(a, b) coroutine.yield(); return a < b end))
          print(pcall(string.gsub, 'abc', '%w', function(c) coroutine.yield(c) end))
          return 'after'
        end)
        print(co())
    """,
    "proper tail calls in a coroutine": """
        local function count(n, acc) if n == 0 then return acc end return count(n - 1, acc + 1) end
        local co = coroutine.wrap(function() coroutine.yield(count(300000, 0)); return count(1000000, 0) end)
        print(co(), co())
        local function loop(n) if n == 0 then return coroutine.yield('bottom') end return loop(n - 1) end
        local c2 = coroutine.wrap(function() return loop(200000) end)
        print(c2(), c2('back'))
    """,
    "generic for with iterators that yield": """
        local function iter(s, i) if i < 3 then coroutine.yield('it' .. i); return i + 1 end end
        local co = coroutine.wrap(function()
          local seen = {}
          for i in iter, nil, 0 do seen[#seen + 1] = i end
          for k, v in pairs({a = 1}) do seen[#seen + 1] = k .. v end
          for i, v in ipairs({'p', 'q'}) do seen[#seen + 1] = i .. v end
          for w in ('a b'):gmatch('%a') do seen[#seen + 1] = w end
          return table.concat(seen, ' ')
        end)
        for i = 1, 5 do print(co()) end
    """,
    "to-be-closed values and coroutine.close": """
        local log = {}
        local function closer(name) return setmetatable({}, {__close = function(_, e) log[#log + 1] = name .. ':' .. tostring(e) end}) end
        local co = coroutine.create(function()
          local a <close> = closer('a')
          for i in function(s, c) if c < 2 then return c + 1 end end, nil, 0, closer('for') do
            local b <close> = closer('b' .. i)
            coroutine.yield(i)
          end
          local function deep() local c <close> = closer('c'); coroutine.yield('deep') end
          deep()
        end)
        print(coroutine.resume(co)); print(coroutine.resume(co)); print(coroutine.resume(co))
        print(coroutine.close(co), coroutine.status(co))
        print(table.concat(log, ' '))
        local c2 = coroutine.create(function()
          local x <close> = setmetatable({}, {__close = function() error('in close') end})
          coroutine.yield()
        end)
        coroutine.resume(c2)
        print(coroutine.close(c2))
    """,
    "string arithmetic's fallback metamethod is a C call": """
        -- lstrlib's trymt calls the other operand's __add with lua_call: no yield there
        local m = setmetatable({}, {__add = function(a, b) coroutine.yield('add') return 7 end})
        print(coroutine.resume(coroutine.create(function() return '10' + m end)))
        print(coroutine.resume(coroutine.create(function() return m + '10' end)))
        print(pcall(function() return '10' + setmetatable({}, {__add = function() return 8 end}) end))
    """,
    "a builtin replaced before the first coroutine": """
        -- the twins are set up at the first coroutine: they know the builtins as opened
        local real_tostring, real_rep = tostring, string.rep
        tostring = function(x) coroutine.yield('t') return 'T' .. real_tostring(x) end
        string.rep = function(s, n) coroutine.yield('r') return s end
        local co = coroutine.wrap(function() return tostring(1) .. string.rep('x', 3) end)
        print(co(), co(), co())
        string.rep = real_rep  -- the reference Lua state is shared by the tests
    """,
    "pcall and xpcall as a coroutine's function, and a yield in a message handler": """
        local co = coroutine.wrap(pcall)
        print(co(function(a) local b = coroutine.yield(a + 1) error(b) end, 1))
        print(co('boom'))
        local co2 = coroutine.wrap(xpcall)
        print(co2(function() coroutine.yield('x') return 'done' end, function(m) return 'h:' .. m end))
        print(co2())
        local c3 = coroutine.create(pcall)
        print(coroutine.resume(c3, coroutine.yield, 'a', 'b'))
        print(coroutine.resume(c3, 'v'))
        print(coroutine.status(c3))
        local c4 = coroutine.wrap(function() return pcall(pcall, coroutine.yield, 1) end)
        print(c4()) print(c4(2, 3))
        -- the handler is called as luaD_callnoyield calls it: a yield there fails
        local c5 = coroutine.wrap(xpcall)
        print(c5(function() error({}) end, function(e) coroutine.yield('in handler') return 'h' end))
        local c6 = coroutine.wrap(function()
          return xpcall(function() error('e') end, function(e) return coroutine.yield('y') end)
        end)
        print(c6())
        print(xpcall(function() error('x') end, function(e) return coroutine.yield('y') end))
        local c7 = coroutine.wrap(function()
          return xpcall(function() return setmetatable({}, {__index = function() error('deep') end}).x end,
                        function(e) return 'H:' .. e end)
        end)
        print(c7())
    """,
    "status, running and isyieldable inside": """
        local co
        co = coroutine.create(function()
          local me, ismain = coroutine.running()
          print(me == co, ismain, coroutine.status(co), coroutine.isyieldable())
          local inner = coroutine.wrap(function() print(coroutine.status(co)); coroutine.yield() end)
          inner()
          coroutine.yield()
        end)
        coroutine.resume(co)
        print(coroutine.status(co), coroutine.isyieldable())
        print(coroutine.resume(co)); print(coroutine.resume(co)); print(coroutine.status(co))
    """,
    "wraps inside wraps (a pipeline)": """
        local function numbers(n) return coroutine.wrap(function() for i = 1, n do coroutine.yield(i) end end) end
        local function filter(p, g) return coroutine.wrap(function() for x in g do if p(x) then coroutine.yield(x) end end end) end
        local function map(f, g) return coroutine.wrap(function() for x in g do coroutine.yield(f(x)) end end) end
        local t = 0
        for x in map(function(x) return x * x end, filter(function(x) return x % 2 == 0 end, numbers(20))) do t = t + x end
        print(t)
    """,
    "a generic for over coroutine.wrap functions": """
        local function gen(t) return coroutine.wrap(function(s, c) for _, v in ipairs(t) do s, c = coroutine.yield(v, s, c) end return 'last', 'x' end) end
        print(pcall(function() for v, s, c in gen({1, 2}) do print(v, s, c) end end))
        print(pcall(function() for v in gen({1}) do end end))
        local bad = coroutine.wrap(function() coroutine.yield(1); error('in gen') end)
        print(pcall(function() for v in bad do print(v) end end))
        local bad2 = coroutine.wrap(function() coroutine.yield(1); error({}) end)
        print(type(select(2, pcall(function() for v in bad2 do end end))))
        local outer = coroutine.wrap(function()
          for v in coroutine.wrap(function() coroutine.yield(3); coroutine.yield(4) end) do coroutine.yield(v * 10) end
          for v in bad do end
        end)
        print(outer(), outer(), outer(), pcall(outer))
    """,
    "goto, varargs and globals in a coroutine": """
        g = 0
        local co = coroutine.wrap(function(...)
          local n = select('#', ...)
          local i = 1
          ::top::
          if i <= n then g = g + (select(i, ...)); coroutine.yield(g); i = i + 1; goto top end
          return 'sum', g
        end)
        print(co(1, 2, 3)); print(co()); print(co()); print(co())
    """,
    "resuming the running or a dead coroutine": """
        local co
        co = coroutine.create(function() print(coroutine.resume(co)); return 1 end)
        print(coroutine.resume(co)); print(coroutine.resume(co))
        local w = coroutine.wrap(function() return 1 end)
        w(); print(pcall(w))
    """,
    "stack overflow inside a coroutine": """
        local function inf(n) return 1 + inf(n + 1) end
        local co = coroutine.create(function() return inf(1) end)
        local ok, e = coroutine.resume(co)
        print(ok, e:match('stack overflow') ~= nil)
        local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
        print(coroutine.wrap(function() return depth(5000) end)())
    """,
    "call sites: argument counts, order and yields among the arguments": """
        local log = {}
        local function note(x) log[#log + 1] = type(x) == 'table' and 't' or tostring(x); return x end
        local function three(a, b, c) return a, b, c end
        local function none() return end
        local t = {f = function(...) return select('#', ...), ... end}
        local co = coroutine.wrap(function()
          print(none())
          print(three(1, nil, 3))
          print(three(note('a'), note('b'), note('c')))
          print((note(t).f)(note(1), note(2)))
          print(three(three(4, 5, 6)))
          print(three(0, three(7, 8, 9)))
          print(t.f(coroutine.yield('first'), coroutine.yield('second')))
          print(select('#', three()), select('#', none()))
          local f = note
          print(f(coroutine.yield('third')))
          return table.concat(log, ' ')
        end)
        print(co()); print(co('x')); print(co('y', 'z')); print(co('w'))
    """,
    "coroutine.yield replaced, shadowed or reached through __index": """
        local real_yield = coroutine.yield
        local wrap = coroutine.wrap
        local function run(f) local co = wrap(f); return co(), co() end
        print(run(function() coroutine.yield('a', nil) return 'b' end))
        coroutine.yield = function(...) return 'not a yield', ... end  -- (put back at once: real Lua's is shared)
        local ok, e = pcall(coroutine.wrap(function() print(coroutine.yield('c')) return 'd' end))
        coroutine.yield = real_yield
        print(ok, e)
        local saved = coroutine
        coroutine = setmetatable({}, {__index = saved})  -- no raw 'yield': read through __index
        print(run(function() local x, y = coroutine.yield('e', 1) return x end))
        coroutine = {yield = real_yield}  -- another table holding the real yield
        print(run(function() return coroutine.yield('f') end))
        coroutine = saved
        do local coroutine = {yield = function(v) return 'local ' .. v end}
          print(wrap(function() return coroutine.yield('g') end)())
        end
        local co = coroutine.wrap(function() local a, b = coroutine.yield(1); print('resumed with', a, b) end)
        co(); co(nil, 'z')
        for x in coroutine.wrap(function() for i = 1, 3 do print(coroutine.yield(i)) end end) do end
    """,
    "coroutine.yield as a statement, its table or field gone between yields": """
        local real_co, real_yield = coroutine, coroutine.yield
        local function steps() for i = 1, 3 do coroutine.yield(i) end return 'end' end
        local co = real_co.wrap(steps)
        print(co())
        coroutine = false  -- another value: indexing a boolean
        print(pcall(co))
        coroutine = real_co
        co = coroutine.wrap(steps)
        print(co())
        coroutine.yield = nil  -- the field gone: calling nil
        print(pcall(co))
        coroutine.yield = print  -- another function: called, no yield
        co = coroutine.wrap(steps)
        print(co())
        coroutine.yield = real_yield
        co = coroutine.wrap(steps)
        print(co(), co(), co(), co())
    """,
    "coroutine.yield written by a computed key, rawset or an alias, between yields": """
        local real_co, real_yield = coroutine, coroutine.yield
        local function steps() for i = 1, 3 do coroutine.yield(i) end return 'end' end
        local co = coroutine.wrap(steps)
        print(co())
        local k = 'yi' .. 'eld'
        coroutine[k] = function(...) return 'no yield', ... end  -- (put back at once: real Lua's is shared)
        local ok, e = pcall(co)
        local ok2, e2 = pcall(co)
        rawset(coroutine, k, real_yield)
        print(ok, e, ok2, e2)
        co = coroutine.wrap(steps)
        print(co())
        local alias = coroutine
        rawset(_G, 'corou' .. 'tine', {yield = print})
        ok, e = pcall(co)
        ok2, e2 = pcall(co)
        _G.coroutine = alias
        print(ok, e, ok2, e2)
        co = coroutine.wrap(steps)
        print(co(), co(), co(), co())
        alias.yield = nil
        print(pcall(coroutine.wrap(steps)))
        alias.yield = real_yield
        print(coroutine.wrap(steps)())
    """,
    "a callee's __call is looked up after its arguments (OP_CALL), in and out of a coroutine": """
        local function calls()
          local t, log = {}, {}
          log[#log + 1] = select(2, pcall(function() return t(setmetatable(t, {__call = function() return 'set' end})) end))
          local u = setmetatable({}, {__call = function() return 'old' end})
          log[#log + 1] = u(setmetatable(u, {__call = function() return 'new' end}))
          local v = setmetatable({}, {__call = function() return 'old tail' end})
          log[#log + 1] = (function() return v(setmetatable(v, {__call = function() return 'new tail' end})) end)()
          local o = {m = setmetatable({}, {__call = function() return 'old method' end})}
          log[#log + 1] = o:m(setmetatable(o.m, {__call = function() return 'new method' end}))
          local f
          log[#log + 1] = select(2, pcall(function() return f(error('the argument first', 0)) end))
          log[#log + 1] = select(2, pcall(function() local r = f(1); return r end))
          local w = {}
          log[#log + 1] = select(2, pcall(function() return w(setmetatable(w, {__call = 1})) end))
          return table.concat(log, ' | ')
        end
        print(calls())
        print(coroutine.wrap(calls)())
        print(coroutine.wrap(function() coroutine.yield(calls()) end)())
    """,
    # a call site in a loop keeps its last callee's kind: the callee changes
    # from item to item (a numeric leaf, a leaf, a function that yields, a
    # builtin, a closure no twin has called yet, a callable table, nil)
    "a call site in a loop with changing callees": """
        local fresh = {}
        for i = 1, 3 do fresh[i] = function(x) return coroutine.yield('fresh' .. i .. ':' .. tostring(x)) end end
        local callees = {
          function(x) return x % 3 end, function(x) return x % 3 end, function(x) return 'leaf' end,
          function(x) return coroutine.yield(x) end, tostring, fresh[1], fresh[1], fresh[2],
          setmetatable({}, {__call = function(_, x) return 'table ' .. x end}), fresh[3], nil, math.abs,
        }
        local co = coroutine.wrap(function()
          local out = {}
          for i = 1, 12 do
            local ok, v = pcall(function() return callees[i](i) end)
            out[#out + 1] = tostring(ok) .. ':' .. tostring(v)
            local f = callees[i]
            if type(f) == 'function' then out[#out + 1] = tostring(f(-i)) end
          end
          return table.concat(out, ' ')
        end)
        local r = co()
        while type(r) ~= 'string' or r:sub(1, 5) == 'fresh' or tonumber(r) do r = co(r) end
        print(r)
    """,
    # a generic for resumes a wrap function's coroutine with its status left
    # "suspended" written (runvil/lua/stdlib/coroutine.py, walk_wrapped):
    # inside, it is running, to itself and to everything that asks
    "the status of a coroutine a generic for resumes": """
        local self_co, gen
        local inner = coroutine.create(function()
          coroutine.yield(coroutine.status(self_co), coroutine.resume(self_co))
          coroutine.yield(pcall(gen))
          coroutine.yield(pcall(coroutine.close, self_co))
        end)
        gen = coroutine.wrap(function()
          self_co = coroutine.running()
          coroutine.yield(coroutine.status(self_co))
          coroutine.yield(select(2, pcall(gen)))
          coroutine.yield(coroutine.isyieldable(), select(2, coroutine.resume(inner)))
          coroutine.yield(select(2, coroutine.resume(inner)))
          coroutine.yield(select(3, coroutine.resume(inner)))
          coroutine.yield(select(2, pcall(coroutine.close, self_co)))
          for x in gen do coroutine.yield('never', x) end
        end)
        local n = 0
        local ok, e = pcall(function()
          for a, b, c in gen do n = n + 1; print(n, a, b, c, coroutine.status(self_co)) end
        end)
        print(ok, e)
        print(coroutine.status(self_co), pcall(gen))
    """,
    # a for of one variable resumes a wrap function's coroutine natively; a
    # for of more calls the function, the same values, errors and positions
    "fors of one, two and three variables over a wrap function": """
        local function pairs_of(n, fail)
          return coroutine.wrap(function(s, c)
            for i = 1, n do
              local s2, c2 = coroutine.yield(i, i * i, s, c)
              s, c = s2, c2
            end
            if fail then error(fail) end
          end)
        end
        local out = {}
        for a in pairs_of(3) do out[#out + 1] = tostring(a) end
        for a, b in pairs_of(3) do out[#out + 1] = a .. ':' .. b end
        for a, b, c in pairs_of(2), 'state', 'first' do out[#out + 1] = table.concat({a, b, tostring(c)}, ',') end
        print(table.concat(out, ' '))
        print(pcall(function() for a, b in pairs_of(2, 'bad') do end end))
        print(type(select(2, pcall(function() for a in pairs_of(2, {}) do end end))))
        local g = pairs_of(3)
        for a, b in g do if a == 2 then break end end
        for a in g do print('rest', a) end
        print(pcall(function() for a, b in g do end end))
        local co = coroutine.wrap(function()
          for a, b in pairs_of(2) do coroutine.yield(a + b) end
          return 'end'
        end)
        print(co(), co(), co())
    """,
    # the fast path of a call site in a loop (a local callee, arguments that
    # are locals or number constants): the last leaf it called as it is is
    # called again only on numbers; a table with a yielding metamethod, a
    # string, another function under the same local, each takes its branch
    "the fast path of a call site in a loop": """
        local mt = {__mod = function(a, b) return coroutine.yield('mod') end,
                    __lt = function(a, b) coroutine.yield('lt'); return true end}
        local co = coroutine.wrap(function()
          local odd = function(x) return x % 3 ~= 0 end
          local less = function(x, y) return x < y end
          local leaf = function(x) return 'leaf' end
          local out = {}
          local args = {1, 2, 2.5, setmetatable({}, mt), '7', 4, 5, 6}
          for i = 1, #args do
            local a = args[i]
            local ok, r = pcall(odd, a)
            local b = tonumber(a) or a
            out[#out + 1] = tostring(r)
            out[#out + 1] = tostring(odd(a)) .. tostring(odd(i)) .. tostring(less(b, 3.5)) .. tostring(less(i, 2))
            if i == 5 then odd = leaf end
            if i == 6 then odd = function(x) return x * 2 end end
          end
          local div = function(x, y) return x // y end
          local ok, e = pcall(function()
            for j = 3, 0, -1 do local z = j - 1; out[#out + 1] = div(j, z) .. ':' .. div(j, 2, 7, j) end
          end)
          out[#out + 1] = e
          return table.concat(out, ' ')
        end)
        local r = co()
        while r == 'mod' or r == 'lt' do r = co(r == 'mod' and 1 or nil) end
        print(r)
    """,
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_twins_behave_as_real_lua(name):
    code = PROGRAMS[name]
    assert ours(code) == real(code)


def test_a_coroutine_on_a_function_with_a_twin_runs_as_one():
    st = LuaState(stdout=lambda s: None)
    co, = st.execute("return coroutine.create(function(a) return coroutine.yield(a) end)")
    assert co.twin
    assert st.execute("local co = ... ; return coroutine.resume(co, 5)", "=t", co) == (True, 5)
    st.close()


def test_a_function_too_nested_for_a_twin_runs_on_a_context():
    # 30 nested loops are hoisted into local Python functions (compile_nesting):
    # the coroutine runs on a context of its own, with the same results
    loops = "".join(f"for i{k} = 1, 1 do " for k in range(30)) + "coroutine.yield(i0 + i29)" + " end" * 30
    code = f"local co = coroutine.wrap(function() {loops} return 'end' end)\nprint(co(), co())"
    st = LuaState(stdout=lambda s: None)
    co, = st.execute(f"return coroutine.create(function() {loops} end)")
    if contexts.INLINE:  # no context to run it on: it runs directly, where it may not yield
        assert co.twin
        st.close()
        assert "attempt to yield across a C-call boundary" in ours(code)
        return
    assert not co.twin
    st.close()
    assert ours(code) == real(code) == "2\tend\n"


def test_twins_are_made_from_a_chunk_read_from_the_disk_cache(tmp_path, monkeypatch):
    from runvil.lua.compiler.chunkcache import compile_lua

    monkeypatch.setenv("RUNVIL_CACHE_DIR", str(tmp_path))
    src = "local s = 'c1_1' .. 'x'\nreturn coroutine.wrap(function() coroutine.yield(s) return s .. '!' end)"
    first = compile_lua(src, "cached", cache=True)
    again = compile_lua(src, "cached", cache=True)  # a hit: renamed identifiers, same constants
    assert again.code.co_filename != first.code.co_filename
    st = LuaState(stdout=lambda s: None)
    wrapped, = st.call(st.instantiate(again))
    assert st.call(wrapped) == ("c1_1x",)
    assert st.call(wrapped) == ("c1_1x!",)
    st.close()


def test_a_leaf_function_is_called_as_it_is():
    st = LuaState(stdout=lambda s: None)
    leaf, = st.execute("local function leaf(a, b) return a end\n"
                       "coroutine.wrap(function() coroutine.yield(leaf(1, 2)) end)()\nreturn leaf")
    assert T.is_leaf(leaf.__code__)
    st.close()


def test_a_yield_statement_after_its_global_table_is_gone():
    # (not compared with real Lua: its harness's globals fall back to _G)
    st = LuaState(stdout=lambda s: None)
    co, = st.execute("return coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end)", "=t")
    assert st.call(co) == (1,)
    assert st.execute("coroutine = nil\nreturn pcall(...)", "=u", co) == (
        False, "t:1: attempt to index a nil value (global 'coroutine')")
    st.close()


def test_a_leaf_is_marked_on_its_first_call_from_a_twin():
    # marked, its next calls are direct at the call site's first test; it
    # still has no twin of its own
    st = LuaState(stdout=lambda s: None)
    fresh, seen = st.execute("local function make() return function(a) return a end end\n"
                             "local seen = make()\n"
                             "coroutine.wrap(function() seen(1) end)()\n"
                             "return make(), seen")
    assert getattr(fresh, "lua_twin", None) is None and seen.lua_twin is T.LEAF_TWIN
    run, = st.execute("local f = ...\nreturn function() return coroutine.wrap(function() return f(7) end)() end",
                      "=t", fresh)
    assert st.call(run) == (7,) and fresh.lua_twin is T.LEAF_TWIN  # a closure of a known leaf's code
    assert st.twin_of(fresh) is None and st.has_twin(fresh)
    st.close()


def test_a_twin_calls_a_known_leaf_at_its_call_site():
    # once a leaf is known (its first call), its calls from twins, of any
    # closure of its code, are direct: no gcall
    st = LuaState(stdout=lambda s: None)
    run, = st.execute("local function make() return function(a, b) return a end end\n"
                      "coroutine.wrap(function() return make()(1) end)()\n"
                      "return function(n) return coroutine.wrap(function()\n"
                      "  local f, s = make(), 0\n"
                      "  for i = 1, n do s = s + f(i, 0) end\n"
                      "  coroutine.yield(s) end)() end")
    calls = []
    gcall = st.ns["_gcall"]
    st.ns["_gcall"] = lambda f, a: calls.append(f) or gcall(f, a)
    assert st.call(run, 10) == (55,)
    assert calls == []
    st.close()


NUMERIC_LEAVES = """
    local function odd(x) return x % 3 ~= 0 end
    local function square(x, y) local s = x * x; for i = 1, 2 do s = s + (y or 0) end; return s % 1000, s < 0 end
    local mt = {__mod = function(a, b) return coroutine.yield('mod') end,
                __mul = function(a, b) coroutine.yield('mul'); return 7 end}
    local t = setmetatable({}, mt)
    local co = coroutine.wrap(function()
      print(odd(4), odd(3), odd(4.5), square(3), square(2.5, 1))
      print(odd(t))           -- a metamethod: the twin, where it yields
      print(square(t, 1))
      print(pcall(odd, 'x'))  -- a string's arithmetic: its metatable, in the twin
      print(pcall(odd, nil), pcall(square, {}))
      return 'end'
    end)
    local r = {co()}
    while r[1] ~= 'end' do print('yielded', r[1]); r = {co(r[1] == 'mod' and 1 or nil)} end
"""


def test_a_numeric_leaf_runs_as_real_lua():
    assert ours(NUMERIC_LEAVES) == real(NUMERIC_LEAVES)


def test_a_numeric_leaf_is_called_as_it_is_on_numbers_and_as_its_twin_on_anything_else():
    # a function of numbers with arithmetic and comparisons only: a twin
    # calls it directly when its arguments are numbers (no metamethod can be
    # reached), else runs its twin, where a metamethod may yield
    st = LuaState(stdout=lambda s: None)
    run, odd = st.execute("local function odd(x) return x % 3 ~= 0 end\n"
                          "local mt = {__mod = function() return coroutine.yield('mod') end}\n"
                          "return function(v) return coroutine.wrap(function()\n"
                          "  local n = 0\n"
                          "  for i = 1, 6 do if odd(v or i) then n = n + 1 end end\n"
                          "  return n end)() end, odd")
    assert st.call(run) == (4,)  # its first call, through gcall, marks it
    assert odd.lua_twin is T.NUMERIC_TWIN
    twins = []
    gcall = st.ns["_gcall"]
    st.ns["_gcall"] = lambda f, a: twins.append(f) or gcall(f, a)
    assert st.call(run) == (4,) and st.call(run, 1.5) == (6,)
    assert twins == []
    assert st.execute("local run = ... ; return pcall(run, 'x')", "=t", run)[0] is False
    assert twins == [odd] * 1  # a string: its twin (the error ends the loop at once)
    st.close()


@pytest.mark.parametrize("body, numeric", [
    ("return x % 3 ~= 0", True),
    ("local s = 0; for i = 1, x do s = s + i * y end; return s, s // 2 < x", True),
    ("return -x ^ 2 & 1 | y << 2, x == y, x <= y", True),
    ("return x .. y", False),  # a string: its metatable is Lua's to change
    ("return x + '1'", False),
    ("return #x", False),
    ("return x.y", False),  # a table read
    ("return x + g", False),  # a global
    ("return x + up", False),  # an upvalue
    ("return f(x)", False),  # a call
    ("local t = {x}; return t", False),
])
def test_which_functions_are_numeric_leaves(body, numeric):
    from runvil.lua.compiler import generators as G

    st = LuaState(stdout=lambda s: None)
    f, = st.execute(f"local up = 1\nlocal function f(x, y) {body} end\n"
                    "coroutine.wrap(function() pcall(f, 1, 2) end)()\nreturn f")
    twin = st.twin_of(f)
    assert (twin is not None and G.numeric_leaf(twin.__code__)) is numeric
    st.close()


METAMETHODS_IN_A_COROUTINE = """
    local log = {}
    local function y(tag) log[#log + 1] = tag; return coroutine.yield(tag) end
    local mt = {}
    mt.__index = function(t, k) y('index') return k .. '!' end
    mt.__newindex = function(t, k, v) y('newindex') rawset(t, k, v * 2) end
    mt.__add = function(a, b) y('add') return 40 end
    mt.__lt = function(a, b) y('lt') return 1 end
    mt.__le = function(a, b) y('le') return nil end
    mt.__eq = function(a, b) y('eq') return 'yes' end
    mt.__len = function(a) y('len') return 7, 8 end
    mt.__concat = function(a, b) y('concat') return 'cc' end
    mt.__unm = function(a) y('unm') end
    local a, b = setmetatable({}, mt), setmetatable({}, mt)
    local co = coroutine.wrap(function()
      a.x = 5
      return a.key, a + 1, 2 + a, a < b, a <= b, a == b, #a, a .. 's', -a, rawget(a, 'x')
    end)
    local r
    repeat r = table.pack(co()) until #r > 1 or r[1] == nil
    print(table.concat(log, ' '))
    print(table.unpack(r, 1, r.n))
"""


def test_a_metamethod_runs_in_the_twin_that_reached_it():
    # an operator's metamethod, its last step, runs as a call of a twin
    # (it may yield), with no escalation to the coroutine's worker context
    assert ours(METAMETHODS_IN_A_COROUTINE) == real(METAMETHODS_IN_A_COROUTINE)
    st = LuaState(stdout=lambda s: None)
    co, = st.execute("local mt = {__index = function(t, k) return coroutine.yield(k) end, "
                     "__add = function(a, b) return coroutine.yield('+') end}\n"
                     "local t = setmetatable({}, mt)\n"
                     "return coroutine.create(function() return t.a + (t + 1) end)")
    assert st.execute("local co = ... ; return coroutine.resume(co)", "=t", co) == (True, "a")
    assert st.execute("local co = ... ; return coroutine.resume(co, 1)", "=t", co) == (True, "+")
    assert st.execute("local co = ... ; return coroutine.resume(co, 2)", "=t", co) == (True, 3)
    assert co.worker is None
    from runvil.lua.runtime.calldepth import REFUSAL

    assert REFUSAL.__traceback__ is None  # raised again and again: it must not keep its frames
    st.close()


def test_a_metamethod_in_a_twin_costs_the_steps_it_costs_elsewhere(monkeypatch):
    code = ("local mt = {__index = function(t, k) return k end, __add = function(a, b) return 1 end}\n"
            "local t = setmetatable({}, mt)\n"
            "local co = coroutine.wrap(function() local s = 0 for i = 1, 300 do s = s + t[i] + (t + i) end "
            "return s end)\nreturn co()")

    def steps(twins: bool):
        monkeypatch.setattr(coroutine_lib, "TWINS", twins)
        st = LuaState(stdout=lambda s: None)
        st.reset_limits()
        r = st.execute(code)
        st._tick()  # accounts the steps not counted yet
        used = st.steps_used
        st.close()
        return r, used

    assert steps(True) == steps(False)


def _function_codes(code):
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            yield c
            yield from _function_codes(c)


@pytest.mark.tier
def test_every_function_of_the_lua_programs_gets_a_twin_or_none():
    """The twin transform over every shape of generated code in the Lua
    programs of the suite: each function's twin compiles (or the function
    has none), and no generated name is left that a twin cannot call."""
    from pathlib import Path

    from runvil.lua.compiler.generators import LEAF, twin_code
    from runvil.lua.compiler.chunkcache import compile_lua
    from runvil.lua.errors import LuaSyntaxError

    root = Path(__file__).resolve().parents[2]
    files = sorted((root / "tests" / "lua" / "programs").glob("*.lua")) + sorted((root / "benchmarks" / "lua").glob("*.lua"))
    shared = root.parent / "shared" / "lua-testes-5.4.4"
    if shared.is_dir():  # Lua's own tests of closures, coroutines and goto: the most varied shapes
        files += [shared / n for n in ("coroutine.lua", "closure.lua", "goto.lua", "locals.lua")]
    kinds = {"twin": 0, "leaf": 0, "none": 0}
    for path in files:
        try:
            compiled = compile_lua(path.read_text("latin-1"), "@" + path.name)
        except LuaSyntaxError:
            continue
        for code in _function_codes(compiled.code):
            if ".<locals>." not in code.co_qualname or code.co_name.startswith("_deep"):
                continue
            made = twin_code(code)
            kinds["leaf" if made is LEAF else "none" if made is None else "twin"] += 1
    assert kinds["twin"] > 100 and kinds["leaf"] > 5, kinds


def test_a_call_of_coroutine_yield_is_known_at_once():
    """`coroutine.yield(...)` read from the global table yields after one
    test of a flag (`_GYOK`); a local `coroutine`, or any other field, takes
    the general call path."""
    from runvil.lua.compiler.generators import twin_code
    from runvil.lua.compiler.chunkcache import compile_lua

    src = ("local function a(x) coroutine.yield(x) end\n"
           "local function b(x) local y = coroutine.yield(x, 2) return y end\n"
           "local function c(x) coroutine.wrap(x) coroutine.yield2(x) end\n"
           "local function d(x) local coroutine = coroutine coroutine.yield(x) end\n"
           "return a, b, c, d")
    compiled = compile_lua(src, "=known")
    codes = {c.co_name: c for c in _function_codes(compiled.code) if ".<locals>." in c.co_qualname}
    assert compiled.info.source
    fast = {}
    for name, code in codes.items():
        made = twin_code(code)
        if made is not None and not isinstance(made, str):
            fast[name.split("_")[1]] = "_GYOK" in made.co_names
    assert fast == {"a": True, "b": True, "c": False, "d": False}, fast


def test_the_known_yield_flag_follows_every_write_of_its_two_keys():
    """_GYOK is true exactly while the global table's raw `coroutine` is the
    library and the library's raw `yield` is the state's, whichever way they
    are written: a global assignment, a field, a computed key, rawset, the
    host, a nil (and a new key after the sweep of tombstones)."""
    st = LuaState(stdout=lambda s: None)
    st.execute("coroutine.wrap(function() end)()")  # the first coroutine: twins installed
    ns = st.ns
    writes = [
        ("coroutine.yield = print", False), ("coroutine.yield = real_yield", True),
        ("coroutine = {yield = real_yield}", False), ("coroutine = real_co", True),
        ("local k = 'yi' .. 'eld'; coroutine[k] = 1", False), ("rawset(real_co, 'yield', real_yield)", True),
        ("_G['corou' .. 'tine'] = nil", False), ("rawset(_G, 'coroutine', real_co)", True),
        ("local t = coroutine; t.yield = nil", False), ("real_co.yield = real_yield", True),
        ("coroutine.running = print; coroutine.other = 1; _G.other = 2", True),
        ("local co = coroutine; coroutine = nil; for i = 1, 40 do _G['g' .. i] = i end; coroutine = co", True),
    ]
    st.execute("real_co, real_yield = coroutine, coroutine.yield")
    for code, expected in writes:
        st.execute(code)
        assert ns["_GYOK"] is expected, code
        if expected:  # (the other cases' behaviour: the programs compared with real Lua above)
            assert st.execute("return coroutine.wrap(function() coroutine.yield('y') return 'r' end)()") == ("y",)
    st.set_global("coroutine", None)
    assert ns["_GYOK"] is False
    st.set_global("coroutine", st.execute("return real_co")[0])
    assert ns["_GYOK"] is True
    st.close()


# -------------------------------------------- generated programs in twins

from hypothesis import given
from hypothesis import strategies as st

from .test_differential import ATOMS, PRELUDE, exprs, same

#: `m`: a table whose metamethods yield before they answer
YIELDING = PRELUDE + """local mt = {}
for _, e in ipairs({'add', 'sub', 'mul', 'div', 'mod', 'pow', 'unm', 'idiv', 'band', 'bor', 'bxor', 'shl', 'shr',
                    'bnot', 'concat', 'len', 'eq', 'lt', 'le'}) do
  mt['__' .. e] = function(a, b) coroutine.yield(e) return e == 'concat' and 'c' or (e == 'eq' or e == 'lt' or e == 'le') or 7 end
end
mt.__index = function(t, k) coroutine.yield('index') return k end
local m = setmetatable({}, mt)
local function drive(f)
  local co = coroutine.create(f)
  local out = {}
  while true do
    local r = table.pack(coroutine.resume(co))
    if coroutine.status(co) == 'dead' then
      print(table.concat(out, ','), show(table.unpack(r, 1, r.n)))
      return
    end
    out[#out + 1] = tostring(r[2])
  end
end
"""


@given(exprs(atoms=st.one_of(ATOMS, st.just("m"), st.just("m.k"))))
def test_generated_expressions_in_a_coroutine(expr):
    # every operator of the expression may yield (through m's metamethods)
    same(YIELDING + f"drive(function() coroutine.yield('start') return {expr} end)\n"
                    f"drive(function() local v = {expr} coroutine.yield('v') return v, ({expr}) end)\n")


STATEMENTS = [
    "a = a + 1", "coroutine.yield(a)", "t[#t + 1] = a", "for i = 1, 2 do coroutine.yield(i) end",
    "for _, v in ipairs(t) do a = a + v end", "for k in pairs({x = 1}) do coroutine.yield(k) end",
    "local ok, e = pcall(function() coroutine.yield('p'); error('x') end); coroutine.yield(tostring(ok) .. e)",
    "a = (function(...) return select('#', ...) end)(a, coroutine.yield('arg'))",
    "do local c <close> = setmetatable({}, {__close = function() coroutine.yield('close') end}) end",
    "a = m + a", "if a > 3 then coroutine.yield('big') else a = a * 2 end", "a = tostring(a):len() + a",
    "b = {coroutine.yield('tbl'), a}", "a = a + #b", "local f = function() return coroutine.yield('f') end; f()",
    "string.gsub('ab', '.', function(c) a = a + 1 end)", "a = m.key and a", "while a > 100 do a = a // 2 end",
    "local s = ''; for w in ('x y'):gmatch('%a') do s = s .. w end; coroutine.yield(s)",
    "goto skip; a = -1; ::skip::", "a = select(2, xpcall(coroutine.yield, print, 'xp')) or a",
    "table.sort(t, function(x, y) return x > y end)", "a = (a < m) and 1 or 2",
]


@given(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=8, unique=True))  # one label each
def test_generated_statements_in_a_coroutine(stmts):
    body = "\n".join(stmts)
    same(YIELDING + f"drive(function() local a, b, t = 1, {{}}, {{}}\n{body}\nreturn a, #t end)\n"
                    f"drive(function() local a, b, t = 2, {{}}, {{3}}\nlocal function inner() {body}\n return a end\n"
                    f"return inner(), #t end)\n")


def test_a_state_without_coroutines_imports_no_twins():
    import subprocess
    import sys

    code = ("import sys\nfrom runvil.lua import LuaState\nst = LuaState(stdout=lambda s: None)\n"
            "st.execute('return 1')\nprint('runvil.lua.runtime.generators' in sys.modules)\n"
            "st.execute('return coroutine.wrap(function() end)()')\nprint('runvil.lua.runtime.generators' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


# the C calls a coroutine's twin holds when it yields (a pcall, a
# metamethod, a call escalated to a context) are counted as its twins enter
# and leave them (runtime/generators.held), not from the machine at each
# yield: a generic for's resume (walk_wrapped) and coroutine.resume's see
# the same depths, from any depth they resume it at. (Lua 5.4 counts the
# generic for's own call of its iterator too, and forgets the calls a
# coroutine holds once it is resumed: docs/DECISIONS.md.)
HELD_CALLS = """
local function room()
  local n = 0
  local function dive() n = n + 1; pcall(dive) end
  pcall(dive)
  return n
end
local function at(depth, f)
  if depth == 0 then f(); return end
  pcall(at, depth - 1, f)
end
local nested = load("local room = ... ; " .. string.rep("for i = 1, 1 do ", 30) .. "coroutine.yield(room())"
                    .. string.rep(" end", 30))
local function body()
  for cycle = 1, 2 do
    coroutine.yield(room())
    pcall(function()
      coroutine.yield(room())
      pcall(function() coroutine.yield(room()) end)
      coroutine.yield(room())
    end)
    local t = setmetatable({}, {__index = function(t, k) coroutine.yield(room()); return k end})
    local x = t.x
    nested(room)
    pcall(nested, room)
    coroutine.yield(room())
  end
end
local co, gen = coroutine.create(body), coroutine.wrap(body)
local by_resume, by_for = {}, {}
for i = 1, 8 do by_resume[i] = select(2, coroutine.resume(co)) end
for v in gen do by_for[#by_for + 1] = v; if #by_for == 8 then break end end
at(20, function()
  for i = 9, 16 do by_resume[i] = select(2, coroutine.resume(co)) end
  for v in gen do by_for[#by_for + 1] = v end
end)
print(table.concat(by_resume, ' '))
print(table.concat(by_for, ' '))
"""


def test_a_for_and_coroutine_resume_count_the_calls_a_twin_holds_alike():
    if contexts.INLINE:  # (the escalated function cannot yield inline)
        pytest.skip("no context to escalate to")
    by_resume, by_for = ours(HELD_CALLS).splitlines()
    assert by_resume == by_for
    first, second = [int(v) for v in by_for.split()[:8]], [int(v) for v in by_for.split()[8:]]
    assert len(second) == 8 and len(set(a - b for a, b in zip(first, second))) == 1  # each 20 pcalls deeper alike


def test_a_numeric_leaf_is_called_without_its_extra_arguments_catch_all_when_the_arguments_fit():
    st = LuaState(stdout=lambda s: None)
    f, = st.execute("return function(x, y) return x * (y or 2) end")
    e = T.exact(f, 2)
    assert e is not f and T.exact(f, 1) is e and f.lua_exact is e  # made once, kept on f
    assert not e.__code__.co_flags & 0x04 and f.__code__.co_flags & 0x04  # no `*_` (CO_VARARGS)
    assert e(3) == f(3) == 6 and e(3, 5) == f(3, 5) == 15
    assert T.exact(f, 3) is f  # a third argument: only f takes it
    g, = st.execute("return function(...) return ... end")
    assert T.exact(g, 1) is g  # its `...` is no catch-all
    st.close()


def test_a_twin_of_constants_compiles_without_python_warnings():
    """A Lua constant can give generated tests such as `(-0.0) is False`,
    which CPython's compiler warns about: the twin is compiled as quietly
    as the chunk (with warnings as errors, this was an internal error)."""
    import warnings

    src = """
        local co = coroutine.wrap(function(x) local y = coroutine.yield(x) return (not -0.0) == y, -0.0 == false end)
        return co(1), co(2)
    """
    st = LuaState()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert st.execute(src, "=twin") == (1, False, False)
