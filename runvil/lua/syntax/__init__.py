"""Stage 1: Lua source to a syntax tree (lexer, grammar driver, parse tables, Lua-exact syntax errors)."""


def parse(source: str, chunkname: str):
    """Lua source (one char per byte) to its syntax tree (syntax/ast.py);
    raises LuaSyntaxError with Lua's message. The parser (lark) is imported
    at the first call."""
    from .parser import parse as parse_chunk

    return parse_chunk(source, chunkname)
