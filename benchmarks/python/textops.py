"""textops: the text operations of issue 28 with regular expressions (the
same work as textops.lua with Lua patterns)."""

import re

WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Lorem", "ipsum",
         "dolor", "sit", "amet", "runvil", "prompt", "model", "tool", "answer", "reply", "of"]
ALPHA = re.compile(r"[A-Za-z]+")
DIGITS = re.compile(r"[0-9]+")
WORD = re.compile(r"([A-Za-z])([A-Za-z]*)")
EMAIL = re.compile(r"([A-Za-z0-9.]+)@([A-Za-z0-9.]+\.[A-Za-z]+)")
SPACES = re.compile(r"[\t\n\v\f\r ]+")


def make_text(n):
    lines, seed = [], 5
    for i in range(1, n + 1):
        words = []
        for _ in range(10):
            seed = (seed * 1103515245 + 12345) % 2147483648
            r = seed // 256
            word = WORDS[r % len(WORDS)]
            if r % 23 == 0:
                word = word + "." + WORDS[(r // 32) % len(WORDS)] + "@mail" + str(r % 7) + ".example.org"
            elif r % 11 == 0:
                word = str(r % 100000)
            words.append(word)
        lines.append(("  " if i % 3 == 0 else " ").join(words) + (" \t" if i % 4 == 0 else ""))
    return "\n".join(lines)


def bench(n):
    text = make_text(n)
    words = 0
    for _ in ALPHA.finditer(text):
        words += 1
    hashed, digits = DIGITS.subn("#", text)
    titled, titles = WORD.subn(lambda m: m.group(1).upper() + m.group(2), text)
    emails = 0
    for m in EMAIL.finditer(text):
        emails += len(m.group(1)) + len(m.group(2))
    squeezed, blanks = SPACES.subn(" ", text)
    return words + len(hashed) + digits + len(titled) + titles + emails + len(squeezed) + blanks
