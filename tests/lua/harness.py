"""Runs the same Lua program on runvil's Lua and on real Lua 5.4 (lupa),
capturing what it prints and how it ends, so tests can compare the two."""

from __future__ import annotations

import functools

from runvil.lua import LuaError, LuaState, LuaSyntaxError
from runvil.host.luacmd import error_message


def ours(code: str, chunkname: str = "=input") -> str:
    """Everything the program prints, then `error: <message>` if it fails."""
    out: list[str] = []
    st = LuaState(libs=available_libs(), stdout=out.append, allow_load=True)
    try:
        fn = st.load(code, chunkname)
        st.call(fn)
    except LuaSyntaxError as e:
        out.append(f"syntax: {e.value}\n")
    except LuaError as e:
        out.append(f"error: {error_message(e.value)}\n")
    finally:
        st.close()
    return "".join(out)


@functools.lru_cache(maxsize=1)
def _lupa_runner():
    from lupa import lua54

    L = lua54.LuaRuntime(encoding=None)
    return L.eval(
        rb"""
function(code, name)
  local out = {}
  local env = setmetatable({}, {__index = _G})
  env.print = function(...)
    local n = select('#', ...)
    local parts = {}
    for i = 1, n do parts[i] = tostring((select(i, ...))) end
    out[#out + 1] = table.concat(parts, '\t') .. '\n'
  end
  env._G = env
  local f, e = load(code, name, 't', env)
  if not f then return 'syntax: ' .. e .. '\n' end
  local ok, err = pcall(f)
  if not ok then
    if type(err) == 'string' or type(err) == 'number' then
      out[#out + 1] = 'error: ' .. tostring(err) .. '\n'
    else
      local mt = getmetatable(err)
      if mt and mt.__tostring then out[#out + 1] = 'error: ' .. tostring(err) .. '\n'
      else out[#out + 1] = 'error: (error object is a ' .. type(err) .. ' value)\n' end
    end
  end
  return table.concat(out)
end
"""
    )


def real(code: str, chunkname: str = "=input") -> str:
    """The same as `ours`, on real Lua 5.4 (load with an env table, so the
    program's globals do not leak between runs)."""
    r = _lupa_runner()(code.encode("latin-1"), chunkname.encode("latin-1"))
    return r.decode("latin-1")


def available_libs() -> tuple:
    """The libraries written so far (the others are being built)."""
    import importlib.util

    from runvil.lua.stdlib import LIBRARIES

    return tuple(n for n in LIBRARIES if importlib.util.find_spec(f"runvil.lua.stdlib.{n}") is not None)
