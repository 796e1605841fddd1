"""Lua 5.4 source -> `ast.Chunk`.

Fast path: the LALR(1) table that lark builds for grammar/lua.lark (cached
on disk by lark) is run by `_drive`, a trimmed copy of lark's own parse
loop, over the plain-tuple tokens of the scanner in syntax/lexer.py.  The inline
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

import threading
from pathlib import Path

from lark import Lark
from lark.parsers.lalr_analysis import Shift

from . import ast
from ..errors import LuaSyntaxError
from .lexer import LarkLuaLexer, LexError, count_lines, tokenize
from .checker import _PRI, _Checker, _fallback_message


_Name, _Index, _String, _Call, _MethodCall = ast.Name, ast.Index, ast.String, ast.Call, ast.MethodCall
_BinOp, _Block = ast.BinOp, ast.Block


class _Reject(Exception):
    """The fast path found source that Lua rejects; the checker says why."""


def _start(n):
    """The node holding the position of the first token of an expression.
    Memoized per parse (`_starts`, by node id): every suffix of a chain
    `t.a.a.a...` asks for the same start, which would walk the chain again
    each time (quadratic in its length)."""
    seen = []
    while True:
        memo = _starts.get(id(n))
        if memo is not None:
            found = memo[1]
            break
        t = type(n)
        if t is _Call:
            seen.append(n)
            n = n.func
        elif t is _MethodCall or t is _Index:
            seen.append(n)
            n = n.obj
        elif t is _BinOp:
            seen.append(n)
            n = n.left
        else:
            found = n
            break
    for node in seen:
        _starts[id(node)] = (node, found)
    return found


#: `_start`'s memo for the parse under way, id -> (node, start), cleared by
#: `parse`; holding the node keeps its id from being reused
_starts: dict = {}


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
    of the rule's children: tokens (tuples, see syntax/lexer.py) and built values."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.varargs = [True]  # is the function being parsed vararg?
        self.deep = False  # nesting that Lua may count beyond its limit
        self.labels = 0  # consecutive labels nest in lparser.c too
        # Lua's limits on locals, upvalues and registers (the checker's):
        # the locals declared, and the longest list of values
        self.locals = 0
        self.widest = 0

    def near_limits(self) -> bool:
        """Could the chunk pass one of lparser.c's limits (200 locals in a
        function, 255 upvalues or registers)? Then the checker decides."""
        return self.locals >= 200 or self.locals + self.widest >= 250

    def _values(self, exprs: list) -> list:
        self.widest = max(self.widest, len(exprs))
        return exprs

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

    def ret(self, c):
        return ast.Return(self._values(c[1]), line=c[0][2], col=c[0][3])
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
        return ast.Assign(targets, self._values(c[2]), line=s.line, col=s.col, end_line=_last[0][2])

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
        self.locals += 4  # its three hidden ones and its variable
        body = _close(c[7], c[8])
        # its checks are forprep's, on the line of 'do' (as Lua gives them)
        return ast.NumericFor(c[1][1], c[3], c[5], None, body, line=c[6][2], col=c[0][3])

    def fornum_step(self, c):
        self.locals += 4
        body = _close(c[9], c[10])
        return ast.NumericFor(c[1][1], c[3], c[5], c[7], body, line=c[8][2], col=c[0][3])

    def forin(self, c):
        self.locals += 4  # its hidden ones (its names are a namelist)
        # Lua gives the loop (its iterator calls) the line of the token after 'in'
        start = _start(c[3][0])
        return ast.GenericFor(c[1], c[3], _close(c[5], c[6]), line=start.line, col=c[0][3])

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
        self.locals += 1
        return ast.LocalFunction(c[2][1], f, line=c[0][2], col=c[0][3])

    def local(self, c, exprs=()):
        attnames = c[1]
        attribs = [a for _, a in attnames]
        if attribs.count("close") > 1:
            raise _Reject  # multiple to-be-closed variables
        names = [n for n, _ in attnames]
        self.locals += len(names)
        return ast.Local(names, attribs, list(exprs), line=c[0][2], col=c[0][3])

    def local_assign(self, c):
        return self.local(c, self._values(c[3]))

    def names_new(self, c):
        self.locals += 1  # a for loop's or a function's
        return [c[0][1]]

    def names_add(self, c):
        self.locals += 1
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
        args, _, col = c[3]
        # Lua gives a call the line where its chain starts (suffixedexp)
        return _MethodCall(c[0], c[2][1], args, line=_start(c[0]).line, col=col)

    def args_none(self, c):
        return ([], c[0][2], c[0][3])

    def args(self, c):
        return (self._values(c[1]), c[0][2], c[0][3])

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
    pkg = Path(__file__).resolve().parents[2]
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
    """The Lark LALR parser for grammar/lua.lark, with the scanner as custom
    lexer and `_builder` as transformer. Built only when our own table cache
    misses (syntax/tables.py), so lark's cache file in the shared temporary
    folder is neither written nor read: a run never depends on it."""
    global _lark
    if _lark is None:
        _lark = Lark.open(
            str(_grammar_path()),
            parser="lalr",
            lexer=LarkLuaLexer,
            transformer=_builder,
            maybe_placeholders=False,
        )
    return _lark


def _get_table():
    """Lark's LALR table recast for `_drive`: state -> {symbol: action} where
    an action is a next state (int: shift or goto) or, for a reduction, a
    tuple (rule length, rule's nonterminal, lark's callback for the rule);
    the callback is None for a unit rule that passes its child on (`first`).
    Read from the disk cache when it is there (syntax/tables.py)."""
    global _table
    if _table is None:
        from . import tables as parsetables

        _table = parsetables.load(str(_grammar_path()), _builder)
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
            return (len(arg.expansion), str(arg.origin.name), callback)

        # str(): lark's names are its Token objects when it built the table
        # itself; the table holds plain data only, so that it can be stored
        states = {}
        for state, actions in pt.states.items():
            states[state] = {str(sym): action(*act) for sym, act in actions.items()}
        _table = (states, pt.start_states["start"], pt.end_states["start"])
        parsetables.store(str(_grammar_path()), _table, _builder)
    return _table


_last = [None]  # the token _drive shifted last (read by reductions)


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
                _last[0] = tok  # the last token shifted: where a statement ends
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


#: tokens between two calls of a parse's `progress`
TOKENS_PER_PROGRESS = 4096


def _reported(tokens, progress):
    """The tokens, with a call of progress("tokens", n) every n of them."""
    k = TOKENS_PER_PROGRESS
    for tok in tokens:
        yield tok
        k -= 1
        if not k:
            k = TOKENS_PER_PROGRESS
            progress("tokens", TOKENS_PER_PROGRESS)


def parse(source: str, chunkname: str, progress=None) -> ast.Chunk:
    """Parses a chunk; raises LuaSyntaxError with Lua 5.4's message.
    `progress("tokens", n)`, if given, is called every TOKENS_PER_PROGRESS
    tokens (codegen.compile_chunk's)."""
    with _lock:
        states, start, end = _get_table()
        _builder.reset()
        _starts.clear()
        try:
            tokens = tokenize(source) if progress is None else _reported(tokenize(source), progress)
            block, deepest = _drive(tokens, states, start, end)
        except (LexError, _Reject) as e:
            failure = e
        else:
            failure = None
        finally:
            _starts.clear()
        deep = _builder.deep or (failure is None and (deepest > 60 or _builder.near_limits()))
    if failure is not None:
        _Checker(source, chunkname).run()  # raises Lua's own message
        raise LuaSyntaxError(_fallback_message(failure, chunkname))
    if deep:
        _Checker(source, chunkname).run()
    block.end_line = count_lines(source)[0] + 1
    if not block.line:
        block.line, block.col = block.end_line, 1
    return ast.Chunk(block, chunkname, line=0, col=0)
