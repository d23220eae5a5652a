#!/usr/bin/env python3
"""Generate the polynomial coefficients of rust/pabi-core/src/num/vmath.rs (mpmath, 50 digits).

Prints Rust constants on stdout; paste them into vmath.rs.  Usage: python3 tools/gen_vmath_coeffs.py

* EXP_Q:   q(r) = (e^r - 1 - r - r^2/2) / r^3 on |r| <= ln2/2 (+margin), Chebyshev interpolation.
* LN_P:    P(z) = (2 atanh(sqrt z)/sqrt z - 2) / z on 0 <= z <= s_max^2, s = f/(2+f),
           f in [sqrt(1/2)-1, sqrt(2)-1]  (so ln(1+f) = f - f^2/2 + s (f^2/2 + z P(z))).
* ERFCX_A: Shepherd-Laframboise form g(t) = (1+2x) erfcx(x), t = (x-K)/(x+K), K = 3.75, t in [-1, 1].
           Chebyshev interpolation at 80 nodes, truncated to degree 26, converted to monomials; the
           monomial coefficients are then rounded to double from the highest degree down, each rounding
           error delta*t^n being re-absorbed into the lower coefficients through
           t^n = 2^(1-n) T_n(t) + (degree n-2), so that only delta*2^(1-n)*T_n is left over.
           The constant term is kept as a double-double (hi, lo).
* ERFCX_D: degree-6 Chebyshev interpolant of g'(t), used to correct for the rounding error of t.
* ERFCX_GOLDEN: golden values of erfcx at 17 significant digits for the unit tests.
* EXP_M44: exp(-44) as a double-double (test oracle for subnormal exp results).
"""
import mpmath as mp

mp.mp.dps = 50


def chebfit_mono(f, a, b, deg, nodes=None):
    """Chebyshev interpolation of f on [a,b]; returns monomial coefficients in the variable
    u = x (not mapped), lowest degree first, plus the max error on a dense grid."""
    n = nodes or (deg + 1)
    xs = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    vals = [f((b - a) / 2 * t + (a + b) / 2) for t in xs]
    c = [2 * mp.fsum(vals[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / n) for k in range(n)) / n
         for j in range(n)]
    c[0] /= 2
    c = c[: deg + 1]
    mono_t = cheb2mono_only(c)  # in t = (2x - a - b)/(b - a)
    # substitute t = alpha*x + beta
    alpha = 2 / (b - a)
    beta = -(a + b) / (b - a)
    res = [mp.mpf(0)] * (deg + 1)
    for k, ck in enumerate(mono_t):
        # (alpha x + beta)^k
        for j in range(k + 1):
            res[j] += ck * mp.binomial(k, j) * alpha ** j * beta ** (k - j)
    return c, res


def cheb2mono(c):
    n = len(c)
    T = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]
    for k in range(2, n):
        a = [mp.mpf(0)] + [2 * v for v in T[k - 1]]
        b = T[k - 2] + [mp.mpf(0)] * (len(a) - len(T[k - 2]))
        T.append([a[i] - b[i] for i in range(len(a))])
    m = [mp.mpf(0)] * n
    for k in range(n):
        for i, v in enumerate(T[k]):
            m[i] += c[k] * v
    return m, T


def cheb2mono_only(c):
    return cheb2mono(c)[0]


def polyval(m, x):
    acc = mp.mpf(0)
    for v in reversed(m):
        acc = acc * x + v
    return acc


def d(v):
    """round to double, return repr with 17 significant digits (round-trip)"""
    return float(v)


def fmt(v):
    return repr(float(v))


def emit(name, vals):
    print(f"const {name}: [f64; {len(vals)}] = [")
    for v in vals:
        print(f"    {fmt(v)},")
    print("];")


def round_absorb(m):
    """Round monomial coefficients m (degree D, lowest first) to doubles from the top down,
    absorbing each rounding error into lower coefficients via t^n - 2^(1-n) T_n(t)."""
    m = list(m)
    D = len(m) - 1
    _, T = cheb2mono([mp.mpf(0)] * (D + 1))
    for n in range(D, 0, -1):
        r = mp.mpf(float(m[n]))
        delta = m[n] - r
        m[n] = r
        if n >= 2:
            # t^n = 2^(1-n) T_n + q(t) with deg q <= n-2 ; q = t^n - 2^(1-n) T_n
            for i in range(n - 1):
                m[i] += delta * (-(mp.mpf(2) ** (1 - n)) * T[n][i])
    return m


def main():
    # ---------------- exp: q(r) = (e^r - 1 - r - r^2/2)/r^3
    def q3(r):
        if abs(r) < mp.mpf(10) ** -10:
            return mp.mpf(1) / 6 + r / 24 + r * r / 120
        return (mp.exp(r) - 1 - r - r * r / 2) / r ** 3

    R = mp.log(2) / 2 * mp.mpf("1.0001")
    _, eq = chebfit_mono(q3, -R, R, 10, nodes=11)
    eq = [mp.mpf(float(v)) for v in eq]
    err = max(abs(polyval(eq, x) - q3(x)) * x ** 3 for x in mp.linspace(-R, R, 2001))
    print(f"// exp: q3 degree {len(eq)-1}, max |r^3 (q - q3)| = {mp.nstr(err, 3)}")
    emit("EXP_Q", eq)

    # ---------------- ln: P(z)
    smax = (mp.sqrt(2) - 1) / (mp.sqrt(2) + 1) * mp.mpf("1.0001")
    zmax = smax ** 2

    def P(z):
        if z < mp.mpf(10) ** -30:
            return mp.mpf(2) / 3 + 2 * z / 5
        s = mp.sqrt(z)
        return (2 * mp.atanh(s) / s - 2) / z

    _, lp = chebfit_mono(P, mp.mpf(0), zmax, 8, nodes=9)
    lp = [mp.mpf(float(v)) for v in lp]
    err = max(abs(polyval(lp, z) - P(z)) * z * mp.sqrt(z) for z in mp.linspace(0, zmax, 2001))
    print(f"// ln: P degree {len(lp)-1}, max |s z (P - Pexact)| = {mp.nstr(err, 3)}")
    emit("LN_P", lp)

    # ---------------- erfcx
    K = mp.mpf("3.75")

    def g(t):
        if t == 1:
            return 2 / mp.sqrt(mp.pi)
        x = K * (1 + t) / (1 - t)
        return (1 + 2 * x) * mp.exp(x * x) * mp.erfc(x)

    N = 80
    D = 26
    xs = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / N) for k in range(N)]
    vals = [g(t) for t in xs]
    c = [2 * mp.fsum(vals[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / N) for k in range(N)) / N
         for j in range(N)]
    c[0] /= 2
    mono = cheb2mono_only(c[: D + 1])
    mono_r = round_absorb(mono)
    a0 = mono_r[0]
    a0_hi = mp.mpf(float(a0))
    a0_lo = mp.mpf(float(a0 - a0_hi))
    mono_r[0] = a0_hi + a0_lo
    grid = [mp.mpf(-1) + 2 * mp.mpf(k) / 4000 for k in range(4001)]
    err = max(abs(polyval(mono_r, t) - g(t)) / g(t) for t in grid)
    print(f"// erfcx: K = {K}, degree {D}, tail |c_{D+1}|.. = {mp.nstr(abs(c[D+1]) + abs(c[D+2]), 3)}, "
          f"max rel err of rounded poly on [-1,1] = {mp.nstr(err, 3)} (2^{mp.nstr(mp.log(err, 2), 4)})")
    print(f"const ERFCX_K: f64 = {fmt(K)};")
    print(f"const ERFCX_A0_HI: f64 = {fmt(a0_hi)};")
    print(f"const ERFCX_A0_LO: f64 = {fmt(a0_lo)};")
    # A[0] unused slot omitted: emit a1..aD
    emit("ERFCX_A", mono_r[1:])
    # derivative g'(t) (low accuracy is enough: it only multiplies the rounding error of t)
    dm = [n * mono_r[n] for n in range(1, D + 1)]
    _, dp = chebfit_mono(lambda t: polyval(dm, t), mp.mpf(-1), mp.mpf(1), 6)
    err = max(abs(polyval(dp, t) - polyval(dm, t)) for t in mp.linspace(-1, 1, 801))
    print(f"// erfcx: g'(t) degree 6, max abs err {mp.nstr(err, 3)}")
    emit("ERFCX_D", dp)

    c44 = mp.exp(-44)
    print(f"const EXP_M44: (f64, f64) = ({fmt(c44)}, {fmt(c44 - mp.mpf(float(c44)))});")
    # ---------------- golden values
    print("// golden erfcx values (mpmath, 17 significant digits)")
    print("const ERFCX_GOLDEN: [(f64, f64); 14] = [")
    for xs_ in ["0", "1e-10", "0.3", "0.5", "1", "2", "3.75", "5", "10", "30", "1000", "1e10", "1e100", "1e300"]:
        x = mp.mpf(float(mp.mpf(xs_)))  # exact double input
        v = mp.exp(x * x) * mp.erfc(x) if x < 1e8 else erfcx_asym(x)
        print(f"    ({fmt(x)}, {mp.nstr(v, 17, min_fixed=-1, max_fixed=-1) if False else mp.nstr(v, 17)}),")
    print("];")


def erfcx_asym(x):
    # asymptotic series, exact far beyond double precision for x >= 1e8
    s = mp.mpf(1)
    term = mp.mpf(1)
    for n in range(1, 8):
        term *= -(2 * n - 1) / (2 * x * x)
        s += term
    return s / (x * mp.sqrt(mp.pi))


if __name__ == "__main__":
    main()
