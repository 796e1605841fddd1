"""json: a JSON encoder and decoder hand-written in Python, round-tripping
a generated catalog document (the same algorithm as json.lua)."""

import re

ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
UNESCAPES = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
NEEDS_ESCAPE = re.compile(r'[\x00-\x1f\x7f"\\]')
NON_SPACE = re.compile(r"[^ \t\r\n]")
STRING_STOP = re.compile(r'["\\]')
INTEGER = re.compile(r"-?\d+")


def escape_char(m):
    c = m.group(0)
    return ESCAPES.get(c) or "\\u%04x" % ord(c)


def encode_string(s):
    return '"' + NEEDS_ESCAPE.sub(escape_char, s) + '"'


def encode_value(v, buf):
    if v is None:
        buf.append("null")
    elif isinstance(v, bool):
        buf.append("true" if v else "false")
    elif isinstance(v, str):
        buf.append(encode_string(v))
    elif isinstance(v, int):
        buf.append("%d" % v)
    elif isinstance(v, list):
        buf.append("[")
        for i, x in enumerate(v):
            if i:
                buf.append(",")
            encode_value(x, buf)
        buf.append("]")
    else:
        buf.append("{")
        for i, k in enumerate(sorted(v)):
            if i:
                buf.append(",")
            buf.append(encode_string(k))
            buf.append(":")
            encode_value(v[k], buf)
        buf.append("}")


def encode(v):
    buf = []
    encode_value(v, buf)
    return "".join(buf)


def skip(s, i):
    m = NON_SPACE.search(s, i)
    return m.start() if m else len(s)


def decode_string(s, i):
    buf = []
    j = i + 1
    while True:
        c = s[j]
        if c == '"':
            break
        if c == "\\":
            e = s[j + 1]
            if e == "u":
                buf.append(chr(int(s[j + 2:j + 6], 16)))
                j += 6
            else:
                buf.append(UNESCAPES[e])
                j += 2
        else:
            k = STRING_STOP.search(s, j).start()
            buf.append(s[j:k])
            j = k
    return "".join(buf), j + 1


def decode_object(s, i):
    obj = {}
    i = skip(s, i + 1)
    if s[i] == "}":
        return obj, i + 1
    while True:
        key, i = decode_string(s, skip(s, i))
        i = skip(s, i)
        val, i = decode_value(s, i + 1)
        obj[key] = val
        i = skip(s, i)
        d = s[i]
        i += 1
        if d == "}":
            return obj, i


def decode_array(s, i):
    arr = []
    i = skip(s, i + 1)
    if s[i] == "]":
        return arr, i + 1
    while True:
        val, i = decode_value(s, i)
        arr.append(val)
        i = skip(s, i)
        d = s[i]
        i += 1
        if d == "]":
            return arr, i


def decode_value(s, i):
    i = skip(s, i)
    c = s[i]
    if c == "{":
        return decode_object(s, i)
    if c == "[":
        return decode_array(s, i)
    if c == '"':
        return decode_string(s, i)
    if c == "t":
        return True, i + 4
    if c == "f":
        return False, i + 5
    if c == "n":
        return None, i + 4
    num = INTEGER.match(s, i).group(0)
    return int(num), i + len(num)


def make_doc(n):
    items = []
    seed = 42
    for i in range(1, n + 1):
        seed = (seed * 1103515245 + 12345) % 2147483648
        owner = None
        if seed % 5 != 0:
            owner = {"name": "user%d" % (seed % 97), "level": seed % 4}
        items.append({
            "id": i,
            "name": 'item "%d"\n' % i,
            "score": seed % 1000,
            "active": seed % 3 == 0,
            "tags": ["t%d" % (seed % 7), "t%d" % (seed % 11)],
            "owner": owner,
        })
    return {"version": 1, "title": "catalog\twith\ttabs", "items": items}


def bench(n):
    text = encode(make_doc(n))
    doc, _ = decode_value(text, 0)
    again = encode(doc)
    total = sum(item["id"] + item["score"] for item in doc["items"])
    return len(text) + len(again) + total + (1 if text == again else 0)
