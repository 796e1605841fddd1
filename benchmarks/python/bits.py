"""bits: SHA-256 of n bytes written out with integer bit operations (not hashlib)."""

import struct

K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]


def rotr(x, n):
    return ((x >> n) | (x << (32 - n))) & 0xFFFFFFFF


def digest(msg: bytes) -> str:
    n = len(msg)
    msg = msg + b"\x80" + b"\0" * ((55 - n) % 64) + struct.pack(">Q", n * 8)
    h0, h1, h2, h3 = 0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A
    h4, h5, h6, h7 = 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19
    for chunk in range(0, len(msg), 64):
        w = list(struct.unpack(">16I", msg[chunk:chunk + 64])) + [0] * 48
        for i in range(16, 64):
            v15, v2 = w[i - 15], w[i - 2]
            s0 = rotr(v15, 7) ^ rotr(v15, 18) ^ (v15 >> 3)
            s1 = rotr(v2, 17) ^ rotr(v2, 19) ^ (v2 >> 10)
            w[i] = (w[i - 16] + s0 + w[i - 7] + s1) & 0xFFFFFFFF
        a, b, c, d, e, f, g, h = h0, h1, h2, h3, h4, h5, h6, h7
        for i in range(64):
            S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            ch = (e & f) ^ (~e & g)
            t1 = (h + S1 + ch + K[i] + w[i]) & 0xFFFFFFFF
            S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            maj = (a & b) ^ (a & c) ^ (b & c)
            t2 = (S0 + maj) & 0xFFFFFFFF
            h, g, f, e = g, f, e, (d + t1) & 0xFFFFFFFF
            d, c, b, a = c, b, a, (t1 + t2) & 0xFFFFFFFF
        h0, h1, h2, h3 = (h0 + a) & 0xFFFFFFFF, (h1 + b) & 0xFFFFFFFF, (h2 + c) & 0xFFFFFFFF, (h3 + d) & 0xFFFFFFFF
        h4, h5, h6, h7 = (h4 + e) & 0xFFFFFFFF, (h5 + f) & 0xFFFFFFFF, (h6 + g) & 0xFFFFFFFF, (h7 + h) & 0xFFFFFFFF
    return "%08x%08x%08x%08x%08x%08x%08x%08x" % (h0, h1, h2, h3, h4, h5, h6, h7)


def bench(n):
    hexd = digest(bytes(i % 251 for i in range(1, n + 1)))
    total = 0
    for i in range(0, len(hexd), 8):
        total = (total + int(hexd[i:i + 8], 16)) % 1000000007
    return total
