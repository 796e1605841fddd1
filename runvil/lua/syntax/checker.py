"""Lua-exact syntax errors: a recursive descent walk that mirrors lparser.c,
reduced to its checks and messages. The fast LALR path in syntax/parser.py runs it
only when a chunk fails to parse (or nests deeply), so the message, line and
`near` token read exactly as Lua 5.4 words them."""

from __future__ import annotations

import sys

from ..errors import LuaSyntaxError
from .lexer import LexError, count_lines, token_text, tokenize
from .limits import Func, Limits

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


class _Checker(Limits):
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
        self.fn = Func(None, 0, ("_ENV",))

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
        fn = self.fn
        names, nactive, nreg, labels = len(fn.names), fn.nactive, fn.nreg, len(fn.labels)
        while not self.block_follow(True):
            if self.tok[0] == "RETURN":
                self.statement()
                break
            self.statement()
        self.close_scope(names, nactive, nreg)
        del fn.labels[labels:]

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
            self.singlevar(self.checkname())
            while self.tok[0] == "DOT":
                self.next()
                self.checkname()
            method = self.testnext("COLON")
            if method:
                self.checkname()
            self.body(line, method)
        elif t == "LOCAL":
            self.next()
            if self.testnext("FUNCTION"):
                self.new_localvar(self.checkname())
                self.adjustlocalvars(1)
                self.body(self.line)
            else:
                self.localstat()
        elif t == "DBCOLON":
            self.next()
            name = self.checkname()
            self.checknext("DBCOLON")
            while self.tok[0] in ("SEMI", "DBCOLON"):  # (Lua skips the no-op statements after it first)
                self.statement()
            for seen, at in self.fn.labels:
                if seen == name:
                    self.semerror(f"label '{name}' already defined on line {at}")
            self.fn.labels.append((name, line))
        elif t == "RETURN":
            self.next()
            if not (self.block_follow(True) or self.tok[0] == "SEMI"):
                start = self.fn.free
                n = self.explist()
                if n > 1:
                    self.setfree(start + n)
            self.testnext("SEMI")
        elif t == "BREAK":
            self.next()
        elif t == "GOTO":
            self.next()
            self.checkname()
        else:
            self.exprstat()
        self.fn.free = self.fn.nreg
        self.level -= 1

    def test_then_block(self):
        self.next()
        self.expr()
        self.checknext("THEN")
        self.statlist()

    def forstat(self, line: int):
        fn = self.fn
        names, nactive, nreg = len(fn.names), fn.nactive, fn.nreg
        self.next()
        name = self.checkname()
        t = self.tok[0]
        start = fn.free
        if t == "ASSIGN":
            for _ in range(3):
                self.new_localvar("(for state)")
            self.new_localvar(name)
            self.next()
            self.expr()
            self.setfree(start + 1)
            self.checknext("COMMA")
            self.expr()
            self.setfree(start + 2)
            if self.testnext("COMMA"):
                self.expr()
            self.setfree(start + 3)
            nvars = 1
        elif t in ("COMMA", "IN"):
            for _ in range(4):
                self.new_localvar("(for state)")
            self.new_localvar(name)
            nvars = 1
            while self.testnext("COMMA"):
                self.new_localvar(self.checkname())
                nvars += 1
            self.checknext("IN")
            self.explist()
            self.setfree(start + 4)
        else:
            self.error("'=' or 'in' expected")
        self.adjustlocalvars(len(fn.names) - names - nvars)
        self.checknext("DO")
        self.adjustlocalvars(nvars)
        self.setfree(fn.nreg)
        self.statlist()
        self.check_match("END", "FOR", line)
        self.close_scope(names, nactive, nreg)

    def body(self, line: int, method: bool = False):
        self.fn = fn = Func(self.fn, line)
        if method:
            self.new_localvar("self")
        self.checknext("LPAREN")
        vararg = False
        if self.tok[0] != "RPAREN":
            while True:
                t = self.tok[0]
                if t == "NAME":
                    self.new_localvar(self.tok[1])
                    self.next()
                elif t == "DOTS":
                    self.next()
                    vararg = True
                else:
                    self.error("<name> or '...' expected")
                if vararg or not self.testnext("COMMA"):
                    break
        self.checknext("RPAREN")
        self.adjustlocalvars(len(fn.names))
        self.setfree(fn.nreg)
        self.varargs.append(vararg)
        self.statlist()
        self.check_match("END", "FUNCTION", line)
        self.varargs.pop()
        self.fn = fn.parent

    def localstat(self):
        toclose = False
        nvars = consts = 0
        while True:
            self.new_localvar(self.checkname())
            nvars += 1
            if self.testnext("LT"):
                attr = self.checkname()
                self.checknext("GT")
                if attr == "close":
                    if toclose:
                        self.semerror("multiple to-be-closed variables in local list")
                    toclose = True
                elif attr != "const":
                    self.semerror(f"unknown attribute '{attr}'")
                else:
                    consts += 1
            if not self.testnext("COMMA"):
                break
        start = self.fn.free
        if self.testnext("ASSIGN") and self.explist() == nvars and consts:
            self.fn.free = start
            self.adjustlocalvars(nvars, nvars - consts)  # constants hold no register
            return
        self.setfree(start + nvars)
        self.adjustlocalvars(nvars)

    def exprstat(self):
        kind = self.suffixedexp()
        if self.tok[0] in ("ASSIGN", "COMMA"):
            levels = 0
            while True:  # restassign, which counts a C level per target
                if kind != "var" and kind != "local":
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

    def explist(self) -> int:
        """An expression list; each value but the last goes to the next
        register (luaK_exp2nextreg). Returns the count."""
        start = self.fn.free
        n = 1
        self.expr()
        while self.testnext("COMMA"):
            self.setfree(start + n)
            self.fn.free = start + n
            self.expr()
            n += 1
        return n

    def expr(self) -> bool:
        return self.subexpr(0)

    def subexpr(self, limit: int) -> bool:
        """Returns whether the value needs no register of its own (a local
        or a numeral); registers it leaves in use stay counted in `free`."""
        self.enter()
        start = self.fn.free
        if self.tok[0] in _UNOPS:
            self.next()
            if not self.subexpr(_UNARY_PRIORITY):  # the operand goes to a register
                self.setfree(start + 1)
            self.fn.free, free = start, False
        else:
            free = self.simpleexp()
        op = _PRI.get(self.tok[0])
        while op is not None and op[0] > limit:
            self.next()
            concat = op[2] == ".."  # its operands go to consecutive registers
            held = start if free and not concat else start + 1  # the left operand goes to a register
            self.setfree(held)
            jump = op[2] == "and" or op[2] == "or"
            if jump:  # tested there, then jumped over
                self.fn.free = start
            if (not self.subexpr(op[1]) or concat) and not jump:
                self.setfree(held + 1)  # and so does the right one
            self.fn.free, free = start, False
            op = _PRI.get(self.tok[0])
        self.level -= 1
        return free

    def simpleexp(self) -> bool:
        t = self.tok[0]
        if t == "NUMBER":
            self.next()
            return True
        if t in ("STRING", "NIL", "TRUE", "FALSE"):
            self.next()
        elif t == "DOTS":
            if not self.varargs[-1]:
                self.error("cannot use '...' outside a vararg function")
            self.next()
        elif t == "LBRACE":
            self.constructor()
        elif t == "FUNCTION":
            self.next()
            start = self.fn.free
            self.body(self.line)
            self.setfree(start + 1)  # codeclosure: the closure goes to the next register
        else:
            return self.suffixedexp() == "local"
        return False

    def suffixedexp(self) -> str:
        """Returns "call", "var", "local" (a local's name alone) or "other"."""
        start = self.fn.free
        t = self.tok[0]
        if t == "LPAREN":
            line = self.line
            self.next()
            self.expr()
            self.check_match("RPAREN", "LPAREN", line)
            kind = "other"
        elif t == "NAME":
            name = self.tok[1]
            self.next()
            kind = "local" if self.singlevar(name) == "local" else "var"
        else:
            self.error("unexpected symbol")
        while True:
            t = self.tok[0]
            if t == "DOT":
                if kind != "local":
                    self.setfree(start + 1)
                self.next()
                self.checkname()
                kind = "var"
            elif t == "LBRACK":
                if kind != "local":
                    self.setfree(start + 1)
                self.next()
                self.expr()
                self.checknext("RBRACK")
                kind = "var"
            elif t == "COLON":
                self.next()
                self.checkname()
                self.setfree(start + 2)  # luaK_self: the method and the object
                self.funcargs(start, 2)
                kind = "call"
            elif t in ("LPAREN", "STRING", "LBRACE"):
                self.setfree(start + 1)
                self.fn.free = start + 1
                self.funcargs(start, 1)
                kind = "call"
            else:
                return kind

    def funcargs(self, base: int, held: int):
        """The arguments of a call whose function (and object) hold `held`
        registers from `base`."""
        line = self.line
        t = self.tok[0]
        if t == "LPAREN":
            self.next()
            if self.tok[0] != "RPAREN":
                n = self.explist()
                self.check_match("RPAREN", "LPAREN", line)
                self.setfree(base + held + n)  # the last argument is closed after the ')'
            else:
                self.check_match("RPAREN", "LPAREN", line)
        elif t == "LBRACE":
            self.constructor()
        elif t == "STRING":
            self.next()
        else:
            self.error("function arguments expected")
        self.fn.free = base + 1  # the call's result

    def constructor(self):
        line = self.line
        table = self.fn.free
        self.setfree(table + 1)
        self.checknext("LBRACE")
        pending = 0  # list items waiting in registers (flushed every 50)
        last = False  # the last field was a list item
        while self.tok[0] != "RBRACE":
            last = False
            if self.tok[0] == "NAME":
                if self.lookahead() != "ASSIGN":
                    self.expr()
                    pending += 1
                    last = True
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
                pending += 1
                last = True
            if not (self.testnext("COMMA") or self.testnext("SEMI")):
                break
            pending %= 50
            self.setfree(table + 1 + pending)
            self.fn.free = table + 1 + pending
            last = False
        self.check_match("RBRACE", "LBRACE", line)
        if last:  # lastlistfield: the last item goes to its register
            self.setfree(table + 1 + pending)
        self.fn.free = table + 1
