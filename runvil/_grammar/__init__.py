"""The Lua grammar as package data: lua.lark links to <repo>/grammar/lua.lark."""
