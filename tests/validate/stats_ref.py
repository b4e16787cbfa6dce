#!/usr/bin/env python3
"""tests/validate/stats_ref.py: an independent reference (Python, exact integers) of the
statistics that docs/statistics.md specifies, written from the published algorithms and not
from kinesift's C code. It prints the expected values hard-coded in test_rng.c, test_mwu.c
and test_bootstrap.c; run it to check or regenerate them: python3 stats_ref.py"""
import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache

M = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return x, z ^ (z >> 31)


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M


class Xoshiro256ss:
    def __init__(self, seed):
        self.s = []
        for _ in range(4):
            seed, z = splitmix64(seed)
            self.s.append(z)

    def next(self):
        s = self.s
        r = (rotl((s[1] * 5) & M, 7) * 9) & M
        t = (s[1] << 17) & M
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return r

    def below(self, n):  # Lemire: multiply-shift, reject low products under 2^64 mod n
        m = self.next() * n
        if (m & M) < n:
            t = (1 << 64) % n
            while (m & M) < t:
                m = self.next() * n
        return m >> 64


def q7(xs, p):
    xs = sorted(xs)
    h = (len(xs) - 1) * p
    j = math.floor(h)
    if j + 1 >= len(xs):
        return xs[j]
    return xs[j] + (h - j) * (xs[j + 1] - xs[j])


def bootstrap(a, b, resamples, seed, level=0.95):
    sa, sb, r, reps = sorted(a), sorted(b), Xoshiro256ss(seed), []
    for _ in range(resamples):
        ma = q7([sa[r.below(len(sa))] for _ in sa], 0.5)
        mb = q7([sb[r.below(len(sb))] for _ in sb], 0.5)
        reps.append(mb / ma if ma else (1 if mb == 0 else math.inf))
    t = (1 - level) / 2
    return q7(reps, t), q7(reps, 1 - t)


@lru_cache(None)
def arrangements(m, n):  # number of orderings with U = u, u = 0 .. m*n
    if m == 0 or n == 0:
        return (1,)
    res = [0] * (m * n + 1)
    for u, c in enumerate(arrangements(m - 1, n)):
        res[u + n] += c
    for u, c in enumerate(arrangements(m, n - 1)):
        res[u] += c
    return tuple(res)


def u_stat(a, b):
    return sum((x > y) + 0.5 * (x == y) for x in a for y in b)


def mwu_exact(a, b):
    ua = u_stat(a, b)
    u = int(min(ua, len(a) * len(b) - ua))
    c = arrangements(len(a), len(b))
    return ua, min(Fraction(1), Fraction(2 * sum(c[: u + 1]), sum(c)))


def mwu_normal(a, b):
    m, n = len(a), len(b)
    N, ua = m + n, u_stat(a, b)
    ties = sum(t ** 3 - t for t in Counter(a + b).values())
    var = m * n / 12 * ((N + 1) - ties / (N * (N - 1)))
    z = max(abs(ua - m * n / 2) - 0.5, 0) / math.sqrt(var)
    return ua, z, min(1.0, math.erfc(z / math.sqrt(2)))


if __name__ == "__main__":
    x, out = 1234567, []
    for _ in range(4):
        x, z = splitmix64(x)
        out.append(z)
    print("splitmix64(1234567):", out)
    r = Xoshiro256ss(0)
    print("xoshiro256** seed 0:", [r.next() for _ in range(4)])
    r = Xoshiro256ss(0x6B696E6573696674)
    print("xoshiro256** default seed:", [r.next() for _ in range(2)])
    r = Xoshiro256ss(42)
    print("below(10), seed 42:", [r.below(10) for _ in range(10)])
    r = Xoshiro256ss(42)
    print("below(2^63+1), seed 42:", [r.below((1 << 63) + 1) for _ in range(3)])
    A = [10.0, 10.4, 9.8, 10.1, 10.3, 9.9, 10.2, 10.6, 9.7]
    B = [8.1, 8.3, 7.9, 8.0, 8.4, 8.2, 7.8, 8.6, 8.05, 8.15]
    print("bootstrap 1000, seed 7:", repr(bootstrap(A, B, 1000, 7)))
    print("bootstrap 2000, default seed:", repr(bootstrap(A, B, 2000, 0x6B696E6573696674)))
    ua, p = mwu_exact([19, 22, 16, 29, 24], [20, 11, 17, 12])
    print("males/females exact:", ua, p, float(p))
    a12 = [62.29, 74.179, 79.519, 94.245, 73.99, 92.232, 2.901, 46.562, 94.336, 64.897, 90.09,
           11.321]
    b15 = [66.907, 44.657, 74.376, 77.394, 21.311, 41.673, 47.948, 111.635, 96.573, 35.96,
           99.715, 33.877, 81.745, 32.67, 20.177]
    ua, p = mwu_exact(a12, b15)
    print("12 vs 15 exact:", ua, float(p))
    hw_x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30]
    hw_y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29]
    print("Hollander-Wolfe normal:", mwu_normal(hw_x, hw_y))
    print("ties normal:", mwu_normal([1, 2, 2, 3, 3, 3, 4, 5], [3, 4, 4, 5, 5, 6, 7, 7, 8]))
    print("min p 30 + 30:", 2 / math.comb(60, 30))
