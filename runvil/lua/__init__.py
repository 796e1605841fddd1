"""runvil.lua: a Lua 5.4 subset in pure Python — parse, resolve, compile,
run — with the sandboxed standard library. It knows nothing of prompts."""

from .compiled import Compiled, compile_lua
from .errors import LimitExceeded, LuaError, LuaSyntaxError
from .state import Limits, LuaState
from .table import LuaTable
from .values import EMPTY, Multi, Userdata

__all__ = ["Compiled", "compile_lua", "EMPTY", "Limits", "LimitExceeded", "LuaError", "LuaState", "LuaSyntaxError", "LuaTable", "Multi", "Userdata"]
