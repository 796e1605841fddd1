"""pattern: re.finditer / re.subn / str.find over a generated text."""

import re

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
_KV = re.compile(r"([A-Za-z]+)[0-9]+=([0-9]+)")
_DIGITS = re.compile(r"[0-9]+")
_WORDNUM = re.compile(r"([A-Za-z]+)([0-9]+)")
_WORD = re.compile(r"[A-Za-z]+")
_ZETA = re.compile(r"zeta[0-9]+=9[0-9][0-9]")


def bench(n):
    parts = []
    for i in range(1, n + 1):
        parts.append(WORDS[i % 6] + str(i) + "=" + str(i * 7 % 1000))
    text = " ".join(parts)
    total = 0
    for m in _KV.finditer(text):
        total = total + len(m.group(1)) + int(m.group(2))
    r1, c1 = _DIGITS.subn("#", text)
    r2, c2 = _WORDNUM.subn(r"\2\1", text, count=n // 2)
    total = total + len(r1) + c1 + len(r2) + c2
    r3 = _WORD.sub(lambda m: m.group(0).upper(), text[: len(text) // 4])
    total = total + ord(r3[0]) + len(r3)
    pos, found = 0, 0
    while True:
        s = text.find("gamma", pos)
        if s < 0:
            break
        found = found + 1
        pos = s + 5
    m = _ZETA.search(text)
    if m:
        total = total + found + m.start() + 1 + m.end()
    else:
        total = total + found
    return total
