"""Lua 5.4 source -> `ast.Chunk`.

Fast path: the LALR(1) table that lark builds for grammar/lua.lark (cached
on disk by lark) is run by `_drive`, a trimmed copy of lark's own parse
loop, over the plain-tuple tokens of the scanner in lexer.py.  The inline
transformer `_Builder` (given to lark as `transformer=`) makes the AST
nodes as rules are reduced: no parse tree is ever built.  `Lark.parse` with
the scanner as custom lexer (`LarkLuaLexer`) gives the same tree, slower.

Errors: when the fast path fails in any way, `_Checker`, a recursive
descent walk that mirrors lparser.c, reads the source again and raises the
error exactly as Lua 5.4 words it (message, line and "near" token).  It also
applies Lua's nesting limit ("C stack overflow"), which the fast path only
estimates: when a parse nests deeply the checker confirms it.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from lark import Lark
from lark.parsers.lalr_analysis import Shift

from . import ast
from .errors import LuaSyntaxError
from .lexer import LarkLuaLexer, LexError, count_lines, token_text, tokenize

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

_Name, _Index, _String, _Call, _MethodCall = ast.Name, ast.Index, ast.String, ast.Call, ast.MethodCall
_BinOp, _Block = ast.BinOp, ast.Block


class _Reject(Exception):
    """The fast path found source that Lua rejects; the checker says why."""


def _start(n):
    """The node holding the position of the first token of an expression."""
    while True:
        t = type(n)
        if t is _Call:
            n = n.func
        elif t is _MethodCall or t is _Index:
            n = n.obj
        elif t is _BinOp:
            n = n.left
        else:
            return n


def _dotted(n) -> str:
    if type(n) is _Name:
        return n.name
    return f"{_dotted(n.obj)}.{n.key.value}"


def _close(block, tok):
    block.end_line = tok[2]
    if not block.line:
        block.line, block.col = tok[2], tok[3]
    return block


def _leaf(cls):
    """A rule `X: TOKEN` making cls(line=, col=)."""
    return lambda self, c: cls(line=c[0][2], col=c[0][3])


def _valued(cls):
    """A rule `X: TOKEN` making cls(token value, line=, col=)."""
    return lambda self, c: cls(c[0][1], line=c[0][2], col=c[0][3])


def _keyword(cls, *picks):
    """A statement `KEYWORD ...` making cls(*children picked by index)."""
    return lambda self, c: cls(*[c[i] for i in picks], line=c[0][2], col=c[0][3])


class _Builder:
    """The inline transformer: one method per grammar alias; `c` is the list
    of the rule's children: tokens (tuples, see lexer.py) and built values."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.varargs = [True]  # is the function being parsed vararg?
        self.deep = False  # nesting that Lua may count beyond its limit
        self.labels = 0  # consecutive labels nest in lparser.c too

    def first(self, c):
        return c[0]

    def list_new(self, c):
        return c

    def list_add(self, c):
        c[0].append(c[2])
        return c[0]

    # -------------------------------------------------------- statements

    def block(self, c):
        stats = c[0]
        if stats:
            s = _start(stats[0])
            return _Block(stats, line=s.line, col=s.col)
        return _Block(stats)

    def block_ret(self, c):
        stats = c[0]
        stats.append(c[1])
        s = _start(stats[0])
        return _Block(stats, line=s.line, col=s.col)

    def stats_new(self, c):
        return []

    def stats_add(self, c):
        c[0].append(c[1])
        return c[0]

    ret = _keyword(ast.Return, 1)
    break_ = _leaf(ast.Break)

    def ret0(self, c):
        return ast.Return([], line=c[0][2], col=c[0][3])

    def goto(self, c):
        return ast.Goto(c[1][1], line=c[0][2], col=c[0][3])

    def assign(self, c):
        targets = c[0]
        if len(targets) > 150:
            self.deep = True
        s = _start(targets[0])
        return ast.Assign(targets, c[2], line=s.line, col=s.col)

    def callstat(self, c):
        e = c[0]
        t = type(e)
        if t is not _Call and t is not _MethodCall:
            raise _Reject  # `x` alone: Lua's "syntax error"
        s = _start(e)
        return ast.CallStat(e, line=s.line, col=s.col)

    def label(self, c):
        self.labels += 1
        if self.labels > 150:
            self.deep = True
        return ast.Label(c[1][1], line=c[0][2], col=c[0][3])

    def do(self, c):
        return ast.Do(_close(c[1], c[2]), line=c[0][2], col=c[0][3])

    def while_(self, c):
        return ast.While(c[1], _close(c[3], c[4]), line=c[0][2], col=c[0][3])

    def repeat(self, c):
        return ast.Repeat(_close(c[1], c[2]), c[3], line=c[0][2], col=c[0][3])

    def if_first(self, c):
        return (c[0], [(c[1], c[3])])

    def if_elif(self, c):
        tests = c[0][1]
        _close(tests[-1][1], c[1])
        tests.append((c[2], c[4]))
        return c[0]

    def if_(self, c):
        t, tests = c[0]
        _close(tests[-1][1], c[1])
        return ast.If(tests, None, line=t[2], col=t[3])

    def if_else(self, c):
        t, tests = c[0]
        _close(tests[-1][1], c[1])
        return ast.If(tests, _close(c[2], c[3]), line=t[2], col=t[3])

    def fornum(self, c):
        body = _close(c[7], c[8])
        return ast.NumericFor(c[1][1], c[3], c[5], None, body, line=c[0][2], col=c[0][3])

    def fornum_step(self, c):
        body = _close(c[9], c[10])
        return ast.NumericFor(c[1][1], c[3], c[5], c[7], body, line=c[0][2], col=c[0][3])

    def forin(self, c):
        return ast.GenericFor(c[1], c[3], _close(c[5], c[6]), line=c[0][2], col=c[0][3])

    def funcstat(self, c):
        t, f = c[0], c[2]
        f.name = _dotted(c[1])
        f.line, f.col = t[2], t[3]  # Lua's linedefined: the 'function' line
        return ast.FunctionStat(c[1], None, f, line=t[2], col=t[3])

    def methstat(self, c):
        t, f, method = c[0], c[4], c[3][1]
        f.name = f"{_dotted(c[1])}:{method}"
        f.line, f.col = t[2], t[3]
        f.params.insert(0, "self")
        return ast.FunctionStat(c[1], method, f, line=t[2], col=t[3])

    def localfunc(self, c):
        f = c[3]
        f.name = c[2][1]
        f.col = c[1][3]
        return ast.LocalFunction(c[2][1], f, line=c[0][2], col=c[0][3])

    def local(self, c, exprs=()):
        attnames = c[1]
        attribs = [a for _, a in attnames]
        if attribs.count("close") > 1:
            raise _Reject  # multiple to-be-closed variables
        names = [n for n, _ in attnames]
        return ast.Local(names, attribs, list(exprs), line=c[0][2], col=c[0][3])

    def local_assign(self, c):
        return self.local(c, c[3])

    def names_new(self, c):
        return [c[0][1]]

    def names_add(self, c):
        c[0].append(c[2][1])
        return c[0]

    def attname(self, c):
        return (c[0][1], None)

    def attname_attrib(self, c):
        a = c[2][1]
        if a != "const" and a != "close":
            raise _Reject  # unknown attribute
        return (c[0][1], a)

    def funcbody(self, c):
        params, is_vararg, t = c[0]
        self.varargs.pop()
        end = c[2]
        body = _close(c[1], end)
        return ast.Function(params, is_vararg, body, "anonymous", end[2], line=t[2], col=t[3])

    def _head(self, c, params, is_vararg):
        self.varargs.append(is_vararg)  # read by `vararg` in the body
        return (params, is_vararg, c[0])

    def head_none(self, c):
        return self._head(c, [], False)

    def head_names(self, c):
        return self._head(c, c[1], False)

    def head_names_va(self, c):
        return self._head(c, c[1], True)

    def head_va(self, c):
        return self._head(c, [], True)

    # ------------------------------------------------------- expressions

    def pow(self, c):
        t = c[1]
        return _BinOp("^", c[0], c[2], line=t[2], col=t[3])

    def unop(self, c):
        t = c[0]
        return ast.UnOp(t[1], c[1], line=t[2], col=t[3])

    def chain_new(self, c):
        return c

    def chain_add(self, c):
        chain = c[0]
        chain.append(c[1])
        chain.append(c[2])
        return chain

    def exp_chain(self, c):
        """Orders a flat `operand op operand ...` by Lua's priorities (what
        lparser.c's subexpr does by recursion, here with an operator stack)."""
        items = c[0]
        out = [items[0]]
        ops = []
        pri = _PRI
        for i in range(1, len(items), 2):
            tok = items[i]
            left = pri[tok[0]][0]
            while ops and pri[ops[-1][0]][1] >= left:
                o = ops.pop()
                b = out.pop()
                out[-1] = _BinOp(pri[o[0]][2], out[-1], b, line=o[2], col=o[3])
            ops.append(tok)
            out.append(items[i + 1])
            if len(ops) > 20:
                self.deep = True
        while ops:
            o = ops.pop()
            b = out.pop()
            out[-1] = _BinOp(pri[o[0]][2], out[-1], b, line=o[2], col=o[3])
        return out[0]

    nil = _leaf(ast.Nil)
    true = _leaf(ast.TrueLit)
    false = _leaf(ast.FalseLit)
    number = _valued(ast.Number)
    string = _valued(_String)
    name = _valued(_Name)
    paren = _keyword(ast.Paren, 1)
    table = _keyword(ast.Table, 1)
    keyeditem = _keyword(ast.KeyedItem, 1, 4)

    def table_empty(self, c):
        return ast.Table([], line=c[0][2], col=c[0][3])

    def nameditem(self, c):
        return ast.NamedItem(c[0][1], c[2], line=c[0][2], col=c[0][3])

    def vararg(self, c):
        if not self.varargs[-1]:
            raise _Reject  # "cannot use '...' outside a vararg function"
        return ast.Vararg(line=c[0][2], col=c[0][3])

    def funcexp(self, c):
        f = c[1]
        f.col = c[0][3]
        return f

    def index(self, c):
        s = _start(c[0])
        return _Index(c[0], c[2], line=s.line, col=s.col)

    def dot(self, c):
        s = _start(c[0])
        t = c[2]
        return _Index(c[0], _String(t[1], line=t[2], col=t[3]), line=s.line, col=s.col)

    def call(self, c):
        args, line, col = c[1]
        return _Call(c[0], args, line=line, col=col)

    def method(self, c):
        args, line, col = c[3]
        return _MethodCall(c[0], c[2][1], args, line=line, col=col)

    def args_none(self, c):
        return ([], c[0][2], c[0][3])

    def args(self, c):
        return (c[1], c[0][2], c[0][3])

    def args_table(self, c):
        return ([c[0]], c[0].line, c[0].col)

    def args_string(self, c):
        t = c[0]
        return ([_String(t[1], line=t[2], col=t[3])], t[2], t[3])

    def fields_add(self, c):
        c[0].append(c[2])
        return c[0]

    def listitem(self, c):
        s = _start(c[0])
        return ast.ListItem(c[0], line=s.line, col=s.col)


def _grammar_path() -> Path:
    """grammar/lua.lark: in a wheel it is the package data of runvil._grammar
    (pyproject maps <repo>/grammar there); in a source tree it is read from
    <repo>/grammar directly."""
    pkg = Path(__file__).resolve().parents[1]
    for p in (pkg / "_grammar" / "lua.lark", pkg.parent / "grammar" / "lua.lark"):
        if p.is_file():
            return p
    try:  # an editable install that maps runvil._grammar elsewhere
        from importlib.resources import files

        p = Path(str(files("runvil._grammar") / "lua.lark"))
        if p.is_file():
            return p
    except (ImportError, TypeError, ValueError):
        pass
    raise FileNotFoundError("lua.lark: neither runvil/_grammar/ nor <repo>/grammar/ has it")


_lock = threading.Lock()
_builder = _Builder()
_lark: Lark | None = None
_table = None


def _get_lark() -> Lark:
    """The Lark LALR parser for grammar/lua.lark (analysis cached on disk by
    lark), with the scanner as custom lexer and `_builder` as transformer."""
    global _lark
    if _lark is None:
        _lark = Lark.open(
            str(_grammar_path()),
            parser="lalr",
            lexer=LarkLuaLexer,
            transformer=_builder,
            maybe_placeholders=False,
            cache=True,
        )
    return _lark


def _get_table():
    """Lark's LALR table recast for `_drive`: state -> {symbol: action} where
    an action is a next state (int: shift or goto) or, for a reduction, a
    tuple (rule length, rule's nonterminal, lark's callback for the rule);
    the callback is None for a unit rule that passes its child on (`first`)."""
    global _table
    if _table is None:
        lalr = _get_lark().parser.parser.parser
        pt, callbacks = lalr.parse_table, lalr.callbacks
        first = _builder.first

        def action(act, arg):
            if act is Shift:
                return arg
            callback = callbacks[arg]
            if len(arg.expansion) == 1 and callback == first:
                callback = None
            return (len(arg.expansion), arg.origin.name, callback)

        states = {}
        for state, actions in pt.states.items():
            states[state] = {sym: action(*act) for sym, act in actions.items()}
        _table = (states, pt.start_states["start"], pt.end_states["start"])
    return _table


def _drive(tokens, states, state, end):
    """lark's LALR loop (lalr_parser_state.py), trimmed: no Token objects,
    no per-reduction Rule hashing.  Returns (result, deepest stack)."""
    stack = [state]
    values = []
    deepest = 0
    for tok in tokens:
        typ = tok[0]
        while True:
            try:
                act = states[stack[-1]][typ]
            except KeyError:
                raise _Reject from None
            if act.__class__ is int:
                stack.append(act)
                values.append(tok)
                break
            size, origin, callback = act
            if callback is None:  # X -> Y: same value, new state
                del stack[-1]
                stack.append(states[stack[-1]][origin])
                continue
            if size:
                value = callback(values[-size:])
                del stack[-size:]
                del values[-size:]
            else:
                value = callback([])
            stack.append(states[stack[-1]][origin])
            values.append(value)
        if len(stack) > deepest:
            deepest = len(stack)
    while True:
        try:
            size, origin, callback = states[stack[-1]]["$END"]
        except KeyError:
            raise _Reject from None
        if callback is None:
            value = values.pop()
            del stack[-1]
        elif size:
            value = callback(values[-size:])
            del stack[-size:]
            del values[-size:]
        else:
            value = callback([])
        goto = states[stack[-1]][origin]
        if goto == end:
            return value, deepest
        stack.append(goto)
        values.append(value)


def parse(source: str, chunkname: str) -> ast.Chunk:
    """Parses a chunk; raises LuaSyntaxError with Lua 5.4's message."""
    if source[:1] == "#":  # a first line "#..." is skipped (shebang)
        cut = source.find("\n")
        source = source[cut:] if cut >= 0 else ""
    with _lock:
        states, start, end = _get_table()
        _builder.reset()
        try:
            block, deepest = _drive(tokenize(source), states, start, end)
        except (LexError, _Reject) as e:
            failure = e
        else:
            failure = None
        deep = _builder.deep or (failure is None and deepest > 60)
    if failure is not None:
        _Checker(source, chunkname).run()  # raises Lua's own message
        raise LuaSyntaxError(_fallback_message(failure, chunkname))
    if deep:
        _Checker(source, chunkname).run()
    block.end_line = count_lines(source)[0] + 1
    if not block.line:
        block.line, block.col = block.end_line, 1
    return ast.Chunk(block, chunkname, line=0, col=0)


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
