"""Generate the polynomial behind pabi-core's θ kernel (rust/pabi-core/src/special/theta.rs).

F(s) = erfcx(a(s)/√2) with a(s) = 2(c-1)/(1-s) - c maps a ∈ [-1, ∞) onto s ∈ [-1, 1).
F is analytic on [-1, 1] (at s → 1, a → ∞ and erfcx(a/√2) is a power series in 1/a ∝ (1-s)).
θ_{e^ε}(r) = φ(a)·√(π/2)·[F(s_a) - F(s_b)] and, because s_b - s_a = 2(c-1)·r/((a+c)(b+c)) is
formed without subtraction, the difference is (s_b - s_a)·(-DD) where DD is the divided difference
(F(s_a)-F(s_b))/(s_a-s_b) of the polynomial, evaluated by a Horner-like recurrence with no
cancellation. Interpolation at Chebyshev nodes at 60 digits, converted to monomials in s.

Usage: python3 tools/gen_theta_coeffs.py [c] [degree]   (prints Rust constants and the accuracy)
"""
import sys

import mpmath as mp

mp.mp.dps = 60


def fit(c, deg):
    c = mp.mpf(c)
    def F(s):
        if s == 1:
            return mp.mpf(0)
        a = 2 * (c - 1) / (1 - s) - c
        x = a / mp.sqrt(2)
        return mp.exp(x * x) * mp.erfc(x)
    m = deg + 1
    nodes = [mp.cos(mp.pi * (j + mp.mpf(1) / 2) / m) for j in range(m)]
    vals = [F(t) for t in nodes]
    cheb = []
    for k in range(m):
        s = mp.fsum(vals[j] * mp.cos(mp.pi * k * (j + mp.mpf(1) / 2) / m) for j in range(m))
        cheb.append(s / m if k == 0 else 2 * s / m)
    # Chebyshev -> monomial, exactly at 60 digits.
    T = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]
    for k in range(2, m):
        nxt = [mp.mpf(0)] + [2 * x for x in T[-1]]
        prev = T[-2] + [mp.mpf(0)] * (len(nxt) - len(T[-2]))
        T.append([x - y for x, y in zip(nxt, prev)])
    mono = [mp.mpf(0)] * m
    for k in range(m):
        for j, x in enumerate(T[k]):
            mono[j] += cheb[k] * x
    return [float(x) for x in mono], cheb


def dd_eval(coef, sa, sb):
    u, v = coef[-1], 0.0
    for ck in reversed(coef[:-1]):
        v = v * sa + u
        u = u * sb + ck
    return v


def check(coef, c, npts=400, seed=1):
    import random
    rnd = random.Random(seed)
    mp.mp.dps = 90
    worst = {}
    bands = {"a in [-1,0)": (-1, 0, False), "a in [0,12)": (0, 12, False),
             "a in [12,1e3)": (12, 1e3, True), "a in [1e3,1e9)": (1e3, 1e9, True)}
    for name, (lo, hi, logu) in bands.items():
        w = 0.0
        for _ in range(npts):
            a = 10 ** rnd.uniform(mp.log10(lo), mp.log10(hi)) if logu else rnd.uniform(lo, hi)
            a = float(a)
            r = float(10 ** rnd.uniform(-9, 3))
            am = mp.mpf(a)
            bm = am + mp.mpf(r)
            b = float(bm)
            sa = 1 - 2 * (c - 1) / (a + c)
            sb = 1 - 2 * (c - 1) / (b + c)
            val = -dd_eval(coef, sa, sb) * (c - 1) * r / ((a + c) * (b + c))
            R = lambda z: mp.exp(z * z / 2) * mp.erfc(z / mp.sqrt(2)) / 2
            ex = R(am) - R(bm)
            w = max(w, float(abs(val - ex) / ex))
        worst[name] = w
    mp.mp.dps = 60
    return worst


if __name__ == "__main__":
    c = float(sys.argv[1]) if len(sys.argv) > 1 else 6.0
    deg = int(sys.argv[2]) if len(sys.argv) > 2 else 34
    coef, cheb = fit(c, deg)
    print(f"// c = {c!r}, degree {deg}; last Chebyshev coefficients:",
          ", ".join(mp.nstr(abs(x), 2) for x in cheb[-4:]))
    print(f"const THETA_C: f64 = {c!r};")
    print(f"const THETA_POLY: [f64; {deg + 1}] = [")
    for x in coef:
        print(f"    {x!r},")
    print("];")
    for k, v in check(coef, c).items():
        print(f"// worst relative error of (R(a)-R(b))·φ-free part, {k}: {v:.3e}")
