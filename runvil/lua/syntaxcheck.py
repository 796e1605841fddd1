"""Lua-exact syntax errors: a recursive descent walk that mirrors lparser.c,
reduced to its checks and messages. The fast LALR path in parser.py runs it
only when a chunk fails to parse (or nests deeply), so the message, line and
`near` token read exactly as Lua 5.4 words them."""

from __future__ import annotations

import sys

from .errors import LuaSyntaxError
from .lexer import LexError, count_lines, token_text, tokenize

# (left, right) priorities of the binary operators, from lparser.c
_PRI = {
    "OR": (1, 1, "or"), "AND": (2, 2, "and"),
    "LT": (3, 3, "<"), "GT": (3, 3, ">"), "LE": (3, 3, "<="), "GE": (3, 3, ">="),
    "NE": (3, 3, "~="), "EQ": (3, 3, "=="),
    "PIPE": (4, 4, "|"), "TILDE": (5, 5, "~"), "AMP": (6, 6, "&"),
    "SHL": (7, 7, "<<"), "SHR": (7, 7, ">>"), "CONCAT": (9, 8, ".."),
    "PLUS": (10, 10, "+"), "MINUS": (10, 10, "-"),
    "STAR": (11, 11, "*"), "SLASH": (11, 11, "/"), "DSLASH": (11, 11, "//"),
    "PERCENT": (11, 11, "%"), "CARET": (14, 13, "^"),
}  # fmt: skip
_UNARY_PRIORITY = 12
#: Lua counts nesting ("C levels") in statement() and subexpr(); with the one
#: level a call to `load` itself takes, the 199th level overflows.
_MAX_LEVELS = 199

def _fallback_message(e, chunkname) -> str:
    """Only if the checker and the grammar disagree (a bug): a plain message."""
    if isinstance(e, LexError):
        return f"{chunkname}:{e.line}: {e.msg}"
    return f"{chunkname}: syntax error"


# --------------------------------------------------------------- the checker

_TOKSTR = {"NAME": "<name>", "EOF": "<eof>", "STRING": "<string>", "NUMBER": "<number>"}
_UNOPS = frozenset(("NOT", "MINUS", "TILDE", "HASH"))
_BLOCK_END = frozenset(("ELSE", "ELSEIF", "END", "EOF"))
_KEYWORD_TEXT = {  # terminal name -> how Lua's messages quote it
    "LPAREN": "(", "RPAREN": ")", "LBRACE": "{", "RBRACE": "}", "RBRACK": "]",
    "ASSIGN": "=", "COMMA": ",", "DBCOLON": "::", "GT": ">",
}  # fmt: skip


def _tokstr(t: str) -> str:
    if t in _TOKSTR:
        return _TOKSTR[t]
    return f"'{_KEYWORD_TEXT.get(t) or t.lower()}'"


class _Checker:
    """lparser.c's recursive descent, reduced to its checks and messages."""

    def __init__(self, source: str, chunkname: str):
        self.src = source
        self.chunk = chunkname
        self.gen = tokenize(source)
        self.ahead = None
        self.line = 1  # Lua's ls->linenumber: where the scanner is
        self.level = 0
        self.varargs = [True]
        self.tok = None

    def run(self):
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 6000))
        try:
            self.next()
            self.statlist()
            self.check("EOF")
        except LexError as e:
            raise LuaSyntaxError(f"{self.chunk}:{e.line}: {e.msg}") from None
        finally:
            sys.setrecursionlimit(old)

    # ------------------------------------------------------------ tokens

    def _scan(self) -> tuple:
        try:
            tok = next(self.gen)
        except StopIteration as stop:
            self.line = stop.value
            return ("EOF", "<eof>", stop.value, 0, len(self.src), len(self.src))
        self.line = tok[2]
        if tok[0] == "STRING":
            self.line += count_lines(self.src[tok[4] : tok[5]])[0]
        return tok

    def next(self):
        if self.ahead is not None:
            self.tok, self.ahead = self.ahead, None
        else:
            self.tok = self._scan()

    def lookahead(self) -> str:
        self.ahead = self._scan()
        return self.ahead[0]

    def error(self, msg: str):
        near = token_text(self.tok, self.src)
        raise LuaSyntaxError(f"{self.chunk}:{self.line}: {msg} near {near}")

    def semerror(self, msg: str):
        raise LuaSyntaxError(f"{self.chunk}:{self.line}: {msg}")

    def check(self, t: str):
        if self.tok[0] != t:
            self.error(f"{_tokstr(t)} expected")

    def checknext(self, t: str):
        self.check(t)
        self.next()

    def testnext(self, t: str) -> bool:
        if self.tok[0] == t:
            self.next()
            return True
        return False

    def check_match(self, what: str, who: str, where: int):
        if not self.testnext(what):
            if where == self.line:
                self.error(f"{_tokstr(what)} expected")
            self.error(f"{_tokstr(what)} expected (to close {_tokstr(who)} at line {where})")

    def checkname(self) -> str:
        self.check("NAME")
        v = self.tok[1]
        self.next()
        return v

    def enter(self):
        self.level += 1
        if self.level >= _MAX_LEVELS:
            raise LuaSyntaxError("C stack overflow")

    # -------------------------------------------------------- statements

    def block_follow(self, withuntil: bool) -> bool:
        t = self.tok[0]
        return t in _BLOCK_END or (withuntil and t == "UNTIL")

    def statlist(self):
        while not self.block_follow(True):
            if self.tok[0] == "RETURN":
                self.statement()
                return
            self.statement()

    def statement(self):
        line = self.line
        self.enter()
        t = self.tok[0]
        if t == "SEMI":
            self.next()
        elif t == "IF":
            self.test_then_block()
            while self.tok[0] == "ELSEIF":
                self.test_then_block()
            if self.testnext("ELSE"):
                self.statlist()
            self.check_match("END", "IF", line)
        elif t == "WHILE":
            self.next()
            self.expr()
            self.checknext("DO")
            self.statlist()
            self.check_match("END", "WHILE", line)
        elif t == "DO":
            self.next()
            self.statlist()
            self.check_match("END", "DO", line)
        elif t == "FOR":
            self.forstat(line)
        elif t == "REPEAT":
            self.next()
            self.statlist()
            self.check_match("UNTIL", "REPEAT", line)
            self.expr()
        elif t == "FUNCTION":
            self.next()
            self.checkname()
            while self.tok[0] == "DOT":
                self.next()
                self.checkname()
            if self.testnext("COLON"):
                self.checkname()
            self.body(line)
        elif t == "LOCAL":
            self.next()
            if self.testnext("FUNCTION"):
                self.checkname()
                self.body(self.line)
            else:
                self.localstat()
        elif t == "DBCOLON":
            self.next()
            self.checkname()
            self.checknext("DBCOLON")
            while self.tok[0] in ("SEMI", "DBCOLON"):
                self.statement()
        elif t == "RETURN":
            self.next()
            if not (self.block_follow(True) or self.tok[0] == "SEMI"):
                self.explist()
            self.testnext("SEMI")
        elif t == "BREAK":
            self.next()
        elif t == "GOTO":
            self.next()
            self.checkname()
        else:
            self.exprstat()
        self.level -= 1

    def test_then_block(self):
        self.next()
        self.expr()
        self.checknext("THEN")
        self.statlist()

    def forstat(self, line: int):
        self.next()
        self.checkname()
        t = self.tok[0]
        if t == "ASSIGN":
            self.next()
            self.expr()
            self.checknext("COMMA")
            self.expr()
            if self.testnext("COMMA"):
                self.expr()
        elif t in ("COMMA", "IN"):
            while self.testnext("COMMA"):
                self.checkname()
            self.checknext("IN")
            self.explist()
        else:
            self.error("'=' or 'in' expected")
        self.checknext("DO")
        self.statlist()
        self.check_match("END", "FOR", line)

    def body(self, line: int):
        self.checknext("LPAREN")
        vararg = False
        if self.tok[0] != "RPAREN":
            while True:
                t = self.tok[0]
                if t == "NAME":
                    self.next()
                elif t == "DOTS":
                    self.next()
                    vararg = True
                else:
                    self.error("<name> or '...' expected")
                if vararg or not self.testnext("COMMA"):
                    break
        self.checknext("RPAREN")
        self.varargs.append(vararg)
        self.statlist()
        self.check_match("END", "FUNCTION", line)
        self.varargs.pop()

    def localstat(self):
        toclose = False
        while True:
            self.checkname()
            if self.testnext("LT"):
                attr = self.checkname()
                self.checknext("GT")
                if attr == "close":
                    if toclose:
                        self.semerror("multiple to-be-closed variables in local list")
                    toclose = True
                elif attr != "const":
                    self.semerror(f"unknown attribute '{attr}'")
            if not self.testnext("COMMA"):
                break
        if self.testnext("ASSIGN"):
            self.explist()

    def exprstat(self):
        kind = self.suffixedexp()
        if self.tok[0] in ("ASSIGN", "COMMA"):
            levels = 0
            while True:  # restassign, which counts a C level per target
                if kind != "var":
                    self.error("syntax error")
                if not self.testnext("COMMA"):
                    break
                kind = self.suffixedexp()
                self.enter()
                levels += 1
            self.checknext("ASSIGN")
            self.explist()
            self.level -= levels
        elif kind != "call":
            self.error("syntax error")

    # ------------------------------------------------------- expressions

    def explist(self):
        self.expr()
        while self.testnext("COMMA"):
            self.expr()

    def expr(self):
        self.subexpr(0)

    def subexpr(self, limit: int):
        self.enter()
        if self.tok[0] in _UNOPS:
            self.next()
            self.subexpr(_UNARY_PRIORITY)
        else:
            self.simpleexp()
        op = _PRI.get(self.tok[0])
        while op is not None and op[0] > limit:
            self.next()
            self.subexpr(op[1])
            op = _PRI.get(self.tok[0])
        self.level -= 1

    def simpleexp(self):
        t = self.tok[0]
        if t in ("NUMBER", "STRING", "NIL", "TRUE", "FALSE"):
            self.next()
        elif t == "DOTS":
            if not self.varargs[-1]:
                self.error("cannot use '...' outside a vararg function")
            self.next()
        elif t == "LBRACE":
            self.constructor()
        elif t == "FUNCTION":
            self.next()
            self.body(self.line)
        else:
            self.suffixedexp()

    def suffixedexp(self) -> str:
        t = self.tok[0]
        if t == "LPAREN":
            line = self.line
            self.next()
            self.expr()
            self.check_match("RPAREN", "LPAREN", line)
            kind = "other"
        elif t == "NAME":
            self.next()
            kind = "var"
        else:
            self.error("unexpected symbol")
        while True:
            t = self.tok[0]
            if t == "DOT":
                self.next()
                self.checkname()
                kind = "var"
            elif t == "LBRACK":
                self.next()
                self.expr()
                self.checknext("RBRACK")
                kind = "var"
            elif t == "COLON":
                self.next()
                self.checkname()
                self.funcargs()
                kind = "call"
            elif t in ("LPAREN", "STRING", "LBRACE"):
                self.funcargs()
                kind = "call"
            else:
                return kind

    def funcargs(self):
        line = self.line
        t = self.tok[0]
        if t == "LPAREN":
            self.next()
            if self.tok[0] != "RPAREN":
                self.explist()
            self.check_match("RPAREN", "LPAREN", line)
        elif t == "LBRACE":
            self.constructor()
        elif t == "STRING":
            self.next()
        else:
            self.error("function arguments expected")

    def constructor(self):
        line = self.line
        self.checknext("LBRACE")
        while self.tok[0] != "RBRACE":
            if self.tok[0] == "NAME":
                if self.lookahead() != "ASSIGN":
                    self.expr()
                else:
                    self.next()
                    self.checknext("ASSIGN")
                    self.expr()
            elif self.tok[0] == "LBRACK":
                self.next()
                self.expr()
                self.checknext("RBRACK")
                self.checknext("ASSIGN")
                self.expr()
            else:
                self.expr()
            if not (self.testnext("COMMA") or self.testnext("SEMI")):
                break
        self.check_match("RBRACE", "LBRACE", line)
