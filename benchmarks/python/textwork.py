"""textwork: what a prompt program does with model replies, with regular
expressions (the same work as textwork.lua with Lua patterns)."""

import re

FIRST = ["ada", "alan", "grace", "edsger", "barbara", "ken", "dennis", "margaret"]
LAST = ["lovelace", "turing", "hopper", "dijkstra", "liskov", "thompson", "ritchie", "hamilton"]
WORDS = ["the", "model", "answered", "quickly", "with", "a", "list", "of", "steps", "and",
         "tool", "calls", "reply", "JSON"]
STATUS = ["open", "closed", "pending"]
TEMPLATE = "Dear {first} {last}, ticket {ticket} is {status} ({priority}); owner: {owner}."
SPACE = r"[\t\n\v\f\r ]"
LINE = re.compile(r"[^\n]+")
TRIM = re.compile(rf"{SPACE}*(.*?){SPACE}*\Z", re.S)
FIELD = re.compile(rf"([A-Za-z]+):{SPACE}*(.*)\Z", re.S)
JSON = re.compile(rf'"([A-Za-z0-9]+)":{SPACE}*"([^"]*)"')
EMAIL = re.compile(r"([A-Za-z0-9.]+)@([A-Za-z0-9.]+\.[A-Za-z]+)")
NAME = re.compile(rf"([A-Za-z]+){SPACE}+([A-Za-z]+)\Z")
VAR = re.compile(r"\{([A-Za-z0-9]+)\}")
WORD = re.compile(r"([A-Za-z])([A-Za-z]*)")
SPACES = re.compile(rf"{SPACE}+")
ALPHA = re.compile(r"[A-Za-z]+")


def make_replies(n):
    out = []
    seed = 11

    def rnd(k):
        nonlocal seed
        seed = (seed * 1103515245 + 12345) % 2147483648
        return (seed // 256) % k + 1

    for i in range(1, n + 1):
        first = FIRST[rnd(len(FIRST)) - 1]
        last = LAST[rnd(len(LAST)) - 1]
        domain = rnd(5)
        words = [WORDS[rnd(len(WORDS)) - 1] for _ in range(6 + rnd(10))]
        status = STATUS[rnd(3) - 1]
        priority = rnd(4)
        step = rnd(9)
        out.append(f"  Name: {first} {last}  \n"
                   f"Ticket: {1000 + i}\n"
                   f"Email: {first}.{last}@example{domain}.org\n"
                   f"Summary:   {'  '.join(words)} \t\n"
                   f'{{"status": "{status}", "priority": "p{priority}", "owner": "{last}"}}\n'
                   f"\n- step one\n- step {step}\n")
    return out


def bench(n):
    replies = make_replies(n)
    fields = words = emails = 0
    counts = {}
    out = []
    for i, reply in enumerate(replies, 1):
        rec = {}
        for m in LINE.finditer(reply):
            line = TRIM.match(m.group()).group(1)
            f = FIELD.match(line)
            if f:
                rec[f.group(1).lower()] = f.group(2)
                fields += 1
        for m in JSON.finditer(reply):
            rec[m.group(1)] = m.group(2)
            fields += 1
        for m in EMAIL.finditer(reply):
            emails += len(m.group(1)) + len(m.group(2))
        rec["first"], rec["last"] = NAME.match(rec["name"]).groups()
        letter = VAR.sub(lambda m: rec.get(m.group(1), m.group()), TEMPLATE)
        letter = WORD.sub(lambda m: m.group(1).upper() + m.group(2), letter)
        summary = SPACES.sub(" ", rec["summary"])
        for m in ALPHA.finditer(summary):
            w = m.group().lower()
            counts[w] = counts.get(w, 0) + 1
            words += 1
        redacted = EMAIL.sub("<email>", reply)
        out.append("%d|%s|%s|%d" % (i, letter, summary, len(redacted)))
    doc = "\n".join(out)
    return len(doc) + fields * 3 + words * 5 + len(counts) * 7 + emails + counts.get("the", 0)
