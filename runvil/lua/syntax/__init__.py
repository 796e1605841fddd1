"""Stage 1: Lua source to a syntax tree (lexer, grammar driver, parse tables, Lua-exact syntax errors)."""
