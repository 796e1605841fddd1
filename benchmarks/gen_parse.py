"""Generates a deterministic, realistic Lua 5.4 source file for the parse
benchmark: a module of functions, methods, table constructors, loops,
conditionals, closures, string literals (short, escaped, long), comments.

    python -m benchmarks.gen_parse [LINES]   # prints the source
"""

from __future__ import annotations

import random
import sys

NAMES = ["count", "total", "item", "value", "key", "node", "index", "result",
         "buffer", "offset", "width", "height", "name", "entry", "limit",
         "state", "queue", "parent", "child", "score", "delta", "line", "text"]
FIELDS = ["x", "y", "id", "name", "size", "next", "prev", "kind", "data",
          "left", "right", "tag", "weight", "color", "flags"]
STRINGS = ['"hello world"', "'single quoted'", '"tab\\tand\\nnewline"',
           '"escaped \\"quote\\""', '"unicode \\u{48}\\x41\\65"',
           "[[a long\nstring spanning lines]]", '"%d items, %s left"',
           '"path/to/file.lua"', "''", '"\\z\n      continued"']


class Gen:
    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.lines: list[str] = []
        self.fn_count = 0

    def name(self) -> str:
        return self.r.choice(NAMES)

    def number(self) -> str:
        r = self.r.random()
        if r < 0.6:
            return str(self.r.randint(0, 1000))
        if r < 0.75:
            return f"{self.r.uniform(0, 100):.3f}"
        if r < 0.85:
            return f"0x{self.r.randint(0, 65535):X}"
        return f"{self.r.randint(1, 9)}e{self.r.randint(-3, 6)}"

    def atom(self, locals_: list[str]) -> str:
        r = self.r.random()
        if r < 0.35 and locals_:
            return self.r.choice(locals_)
        if r < 0.6:
            return self.number()
        if r < 0.7:
            return self.r.choice(STRINGS[:2] + STRINGS[6:8])
        if r < 0.8 and locals_:
            return f"{self.r.choice(locals_)}.{self.r.choice(FIELDS)}"
        if r < 0.9 and locals_:
            return f"#{self.r.choice(locals_)}"
        return self.r.choice(["true", "false", "nil", "self"])

    def expr(self, locals_: list[str], depth: int = 0) -> str:
        r = self.r.random()
        if depth > 2 or r < 0.35:
            return self.atom(locals_)
        if r < 0.7:
            op = self.r.choice(["+", "-", "*", "/", "//", "%", "^", "..",
                                "==", "~=", "<", "<=", ">", ">=", "and", "or",
                                "&", "|", "<<", ">>"])
            return f"{self.expr(locals_, depth + 1)} {op} {self.expr(locals_, depth + 1)}"
        if r < 0.8:
            return f"({self.expr(locals_, depth + 1)})"
        if r < 0.87:
            return f"not {self.expr(locals_, depth + 1)}"
        if r < 0.95:
            fn = self.r.choice(["math.max", "math.floor", "tostring", "type",
                                "string.format", "select", "helper"])
            args = ", ".join(self.expr(locals_, depth + 1)
                             for _ in range(self.r.randint(0, 3)))
            return f"{fn}({args})"
        return f"-{self.atom(locals_)}"

    def table(self, locals_: list[str], ind: str) -> list[str]:
        out = ["{"]
        for _ in range(self.r.randint(2, 6)):
            r = self.r.random()
            if r < 0.5:
                out.append(f"{ind}  {self.r.choice(FIELDS)} = {self.expr(locals_)},")
            elif r < 0.75:
                out.append(f"{ind}  {self.expr(locals_)},")
            else:
                out.append(f"{ind}  [{self.r.choice(STRINGS[:2])}] = {self.atom(locals_)};")
        out.append(f"{ind}}}")
        return out

    def block(self, locals_: list[str], ind: str, depth: int, ret: bool = True) -> None:
        emit = self.lines.append
        for _ in range(self.r.randint(2, 6)):
            r = self.r.random()
            if r < 0.22:
                v = self.name()
                emit(f"{ind}local {v} = {self.expr(locals_)}")
                locals_ = locals_ + [v]
            elif r < 0.3:
                v = self.name()
                tbl = self.table(locals_, ind)
                emit(f"{ind}local {v} = {tbl[0]}")
                self.lines.extend(tbl[1:])
                locals_ = locals_ + [v]
            elif r < 0.42 and locals_:
                target = self.r.choice(locals_)
                if self.r.random() < 0.4:
                    target += f".{self.r.choice(FIELDS)}"
                emit(f"{ind}{target} = {self.expr(locals_)}")
            elif r < 0.5:
                emit(f"{ind}{self.r.choice(['print', 'helper', 'table.insert'])}"
                     f"({', '.join(self.expr(locals_) for _ in range(self.r.randint(1, 3)))})")
            elif r < 0.55 and locals_:
                obj = self.r.choice(locals_)
                emit(f"{ind}{obj}:{self.r.choice(['update', 'push', 'emit', 'reset'])}"
                     f"({self.expr(locals_)})")
            elif r < 0.6:
                emit(f"{ind}-- {self.r.choice(['TODO', 'NOTE', 'see above', 'fast path'])}: "
                     f"{' '.join(self.r.choice(NAMES) for _ in range(5))}")
            elif depth >= 3:
                emit(f"{ind}{self.r.choice(locals_ or ['x'])} = {self.expr(locals_)}")
            elif r < 0.7:
                emit(f"{ind}if {self.expr(locals_)} then")
                self.block(locals_, ind + "  ", depth + 1)
                if self.r.random() < 0.4:
                    emit(f"{ind}elseif {self.expr(locals_)} then")
                    self.block(locals_, ind + "  ", depth + 1)
                if self.r.random() < 0.5:
                    emit(f"{ind}else")
                    self.block(locals_, ind + "  ", depth + 1)
                emit(f"{ind}end")
            elif r < 0.78:
                v = self.r.choice(["i", "j", "k"])
                step = self.r.choice(["", ", 2", ", -1"])
                emit(f"{ind}for {v} = 1, {self.expr(locals_)}{step} do")
                self.block(locals_ + [v], ind + "  ", depth + 1)
                emit(f"{ind}end")
            elif r < 0.85:
                k, v = self.r.choice([("k", "v"), ("_", "item"), ("i", "node")])
                it = self.r.choice(["pairs", "ipairs"])
                emit(f"{ind}for {k}, {v} in {it}({self.r.choice(locals_ or ['t'])}) do")
                self.block(locals_ + [k, v], ind + "  ", depth + 1)
                emit(f"{ind}end")
            elif r < 0.9:
                emit(f"{ind}while {self.expr(locals_)} do")
                brk = self.r.random() < 0.5
                self.block(locals_, ind + "  ", depth + 1, ret=not brk)
                if brk:
                    emit(f"{ind}  break")
                emit(f"{ind}end")
            elif r < 0.94:
                emit(f"{ind}repeat")
                self.block(locals_, ind + "  ", depth + 1)
                emit(f"{ind}until {self.expr(locals_)}")
            else:
                v = self.name()
                emit(f"{ind}local {v} = function({', '.join(locals_[:2])})")
                self.block(locals_[:2], ind + "  ", depth + 1, ret=False)
                emit(f"{ind}  return {self.expr(locals_[:2])}")
                emit(f"{ind}end")
                locals_ = locals_ + [v]
        if ret and self.r.random() < 0.5:
            emit(f"{ind}return {self.expr(locals_)}")

    def function(self) -> None:
        self.fn_count += 1
        params = self.r.sample(NAMES, self.r.randint(0, 3))
        kind = self.r.random()
        if self.r.random() < 0.15:
            self.lines.append(f"--[[ {self.fn_count}: "
                              f"{' '.join(self.r.choice(NAMES) for _ in range(8))}")
            self.lines.append(f"     {' '.join(self.r.choice(FIELDS) for _ in range(6))} ]]")
        if kind < 0.4:
            head = f"local function f{self.fn_count}({', '.join(params)})"
        elif kind < 0.7:
            head = f"function M:method{self.fn_count}({', '.join(params)})"
        elif kind < 0.85:
            head = f"function M.util{self.fn_count}({', '.join(params + ['...'])})"
        else:
            head = f"M.handlers[{self.r.choice(STRINGS[:2])}] = function({', '.join(params)})"
        self.lines.append(head)
        self.block(params + ["self"] if "M:" in head else params, "  ", 0)
        self.lines.append("end")
        self.lines.append("")

    def module(self, target_lines: int) -> str:
        self.lines += ["-- generated by benchmarks/gen_parse.py (deterministic)",
                       "local M = {handlers = {}, version = \"1.0\"}",
                       "local helper = function(...) return ... end",
                       f"local banner = {STRINGS[5]}",
                       f"local msg = {STRINGS[2]} .. {STRINGS[3]} .. {STRINGS[4]}",
                       f"local cont = {STRINGS[9]}",
                       ""]
        while len(self.lines) < target_lines - 2:
            self.function()
        self.lines.append("return M")
        return "\n".join(self.lines) + "\n"


def generate(target_lines: int = 5000, seed: int = 2024) -> str:
    return Gen(seed).module(target_lines)


if __name__ == "__main__":
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 5000), end="")
