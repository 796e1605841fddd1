"""hashes: MD5 and SHA-1 of n bytes written out with integer bit operations
(not hashlib): 32-bit words, left rotations, hex digests."""

import math
import struct

M32 = 0xFFFFFFFF
S = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
K = [int(abs(math.sin(i + 1)) * 2**32) & M32 for i in range(64)]


def rol(x, n):
    return ((x << n) | (x >> (32 - n))) & M32


def pad(msg: bytes, order: str) -> bytes:
    n = len(msg)
    return msg + b"\x80" + b"\0" * ((55 - n) % 64) + struct.pack(order + "Q", n * 8)


def md5(msg: bytes) -> str:
    msg = pad(msg, "<")
    a0, b0, c0, d0 = 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476
    for chunk in range(0, len(msg), 64):
        x = struct.unpack("<16I", msg[chunk:chunk + 64])
        a, b, c, d = a0, b0, c0, d0
        for i in range(64):
            if i < 16:
                f, g = (b & c) | (~b & d), i
            elif i < 32:
                f, g = (d & b) | (~d & c), (5 * i + 1) % 16
            elif i < 48:
                f, g = b ^ c ^ d, (3 * i + 5) % 16
            else:
                f, g = c ^ (b | ~d), (7 * i) % 16
            f = (f + a + K[i] + x[g]) & M32
            a, d, c = d, c, b
            b = (b + rol(f, S[i])) & M32
        a0, b0, c0, d0 = (a0 + a) & M32, (b0 + b) & M32, (c0 + c) & M32, (d0 + d) & M32
    return struct.pack("<4I", a0, b0, c0, d0).hex()


def sha1(msg: bytes) -> str:
    msg = pad(msg, ">")
    h0, h1, h2, h3, h4 = 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0
    for chunk in range(0, len(msg), 64):
        w = list(struct.unpack(">16I", msg[chunk:chunk + 64])) + [0] * 64
        for j in range(16, 80):
            w[j] = rol(w[j - 3] ^ w[j - 8] ^ w[j - 14] ^ w[j - 16], 1)
        a, b, c, d, e = h0, h1, h2, h3, h4
        for j in range(80):
            if j < 20:
                f, k = (b & c) | (~b & d), 0x5A827999
            elif j < 40:
                f, k = b ^ c ^ d, 0x6ED9EBA1
            elif j < 60:
                f, k = (b & c) | (b & d) | (c & d), 0x8F1BBCDC
            else:
                f, k = b ^ c ^ d, 0xCA62C1D6
            t = (rol(a, 5) + (f & M32) + e + k + w[j]) & M32
            e, d, c, b, a = d, c, rol(b, 30), a, t
        h0, h1, h2 = (h0 + a) & M32, (h1 + b) & M32, (h2 + c) & M32
        h3, h4 = (h3 + d) & M32, (h4 + e) & M32
    return "%08x%08x%08x%08x%08x" % (h0, h1, h2, h3, h4)


def bench(n):
    msg = bytes(i % 251 for i in range(1, n + 1))
    total = 0
    for hexd in (md5(msg), sha1(msg)):
        for i in range(0, len(hexd), 8):
            total = (total + int(hexd[i:i + 8], 16)) % 1000000007
    return total
