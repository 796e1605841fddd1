"""textproc: text processing with regular expressions (the same work as
textproc.lua with Lua patterns)."""

import re

WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Lorem",
         "ipsum", "dolor", "sit", "amet", "runvil", "prompt", "model", "tool"]
ALPHA = re.compile(r"[A-Za-z]+")
EMAIL = re.compile(r"([A-Za-z0-9]+)@([A-Za-z0-9.]*[A-Za-z])")
LINE = re.compile(r"[^\n]+")
TRIM = re.compile(r"^\s*(.*?)\s*$", re.S)
NUMBER = re.compile(r"\((\d+)\)$")
WORD = re.compile(r"([A-Za-z])([A-Za-z]*)")
SPACES = re.compile(r"\s+")


def make_text(n):
    lines, seed = [], 3
    for i in range(1, n + 1):
        words = []
        for _ in range(12):
            seed = (seed * 1103515245 + 12345) % 2147483648
            word = WORDS[seed % len(WORDS)]
            if seed % 29 == 0:
                word += "@example.org"
            if seed % 31 == 0:
                word += ","
            words.append(word)
        lines.append("  " + " ".join(words) + ". (%d)  " % i)
    return "\n".join(lines)


def bench(n):
    text = make_text(n)
    counts = {}
    for m in ALPHA.finditer(text):
        word = m.group(0).lower()
        counts[word] = counts.get(word, 0) + 1
    emails = sum(len(m.group(1)) + len(m.group(2)) for m in EMAIL.finditer(text))
    trimmed = numbers = 0
    for m in LINE.finditer(text):
        body = TRIM.match(m.group(0)).group(1)
        trimmed += len(body)
        numbers += int(NUMBER.search(body).group(1))
    titled, changes = WORD.subn(lambda m: m.group(1).upper() + m.group(2), text)
    squeezed = SPACES.sub(" ", titled)
    first = squeezed.find("Runvil Prompt") + 1
    return len(counts) + counts["the"] * 7 + emails + trimmed + numbers + changes + len(squeezed) + first
