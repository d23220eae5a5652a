#!/usr/bin/env python3
"""Golden data for rust/pabi-core/src/special/lambertw.rs.

Writes rust/pabi-core/src/special/lambertw_golden.csv with columns ``kind,x,w``:

* ``kind`` is ``lambertw0`` (w = W0(x)) or ``wright_omega`` (w = W0(e^x)).
* ``x`` is an exact double input, printed with ``repr`` (shortest round-trip form).
* ``w`` is the exact value correctly rounded to the nearest double (subnormals
  rounded on the subnormal grid directly, no double rounding), printed with ``repr``.

Reference values come from mpmath: ``mpmath.lambertw`` evaluated at the exact
double input, at two working precisions (60 and 120 digits; the rounded doubles
must agree), then checked by the residual w e^w - x (or w + ln w - y). For
wright_omega with large y, w + ln w = y is solved by Newton's method at
log10(y) + 60 digits so that y - ln y is resolved exactly.

Convention: the double nearest to -1/e, -0.36787944117144233, is slightly *below*
the true -1/e (1 + e*x = -3.4e-17 there), so W0 is not real at it. It is treated
as the branch point and its golden value is -1 (as in Boost and SciPy).

Deterministic (fixed seed). Usage: python3 tools/gen_lambertw_golden.py
"""
import math
import os
import random

import mpmath as mp

NEG_INV_E = -0.36787944117144233  # double nearest to -1/e (below the true -1/e)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rust", "pabi-core", "src",
                   "special", "lambertw_golden.csv")


def round_double(v):
    """Round an mpf to the nearest double (ties to even), subnormals included."""
    v = mp.mpf(v)
    if v == 0:
        return 0.0
    tiny = mp.ldexp(1, -1022)
    if abs(v) < tiny:
        n = mp.nint(mp.ldexp(v, 1074))  # nint rounds half to even
        return math.ldexp(float(n), -1074)
    with mp.workprec(53):
        r = +v  # rounds to 53 bits, nearest
    f = float(r)
    assert mp.mpf(f) == r
    return f


def w0_at(x, dps):
    with mp.workdps(dps):
        X = mp.mpf(x)
        if x == NEG_INV_E:
            return mp.mpf(-1)
        if X == 0:
            return mp.mpf(0)
        w = mp.lambertw(X)
        assert mp.im(w) == 0, x
        w = mp.re(w)
        # residual check
        res = w * mp.exp(w) - X
        assert abs(res) <= abs(X) * mp.mpf(10) ** (-dps + 8), (x, res)
        return w


def omega_at(y, dps):
    with mp.workdps(dps + max(0, int(math.log10(abs(y)))) if y > 1 else dps):
        Y = mp.mpf(y)
        if y <= 40:
            w = mp.re(mp.lambertw(mp.exp(Y)))
        else:
            w = Y - mp.log(Y)
            for _ in range(200):
                f = w + mp.log(w) - Y
                step = f / (1 + 1 / w)
                w -= step
                if abs(step) <= abs(w) * mp.mpf(10) ** (-mp.mp.dps + 3):
                    break
            else:
                raise RuntimeError(y)
        res = w + mp.log(w) - Y
        assert abs(res) <= (1 + abs(Y)) * mp.mpf(10) ** (-mp.mp.dps + 8), (y, res)
        return w


def golden(kind, x):
    f = w0_at if kind == "lambertw0" else omega_at
    a = round_double(f(x, 60))
    b = round_double(f(x, 120))
    assert a == b, (kind, x, a, b)
    return a


def loguniform(rng, lo, hi):
    return 10.0 ** rng.uniform(lo, hi)


def main():
    rng = random.Random(20240611)
    rows = []

    def add(kind, x):
        x = float(x)
        if kind == "lambertw0" and x < NEG_INV_E:
            return
        rows.append((kind, x))

    # --- lambertw0 -------------------------------------------------------------
    # branch point: -1/e_double + k ulp
    x = NEG_INV_E
    for k in range(0, 64):
        add("lambertw0", x)
        x = math.nextafter(x, 0.0)
    for j in range(6, 50):
        add("lambertw0", NEG_INV_E + (1 << j) * 2.0 ** -54)
        add("lambertw0", NEG_INV_E + rng.randrange(1 << j, 1 << (j + 1)) * 2.0 ** -54)
    # -1/e + 10^-j (rounded from the exact value)
    for j in range(1, 17):
        for m in (1.0, 2.5, 5.0):
            with mp.workdps(60):
                add("lambertw0", round_double(-1 / mp.e + m * mp.mpf(10) ** (-j)))
    # the branch band and the region just above it
    for _ in range(150):
        add("lambertw0", rng.uniform(NEG_INV_E, -0.25))
    # tiny negative and positive x, log-uniform down to 1e-300, and subnormals
    for _ in range(250):
        add("lambertw0", -loguniform(rng, -300, math.log10(0.25)))
        add("lambertw0", loguniform(rng, -300, 0))
    for _ in range(20):
        s = rng.randrange(1, 1 << 52) * 2.0 ** -1074
        add("lambertw0", s)
        add("lambertw0", -s)
    for s in (5e-324, -5e-324, 2.2250738585072014e-308, -2.2250738585072014e-308):
        add("lambertw0", s)
    # around 0..10
    for _ in range(300):
        add("lambertw0", rng.uniform(-0.3, 10.0))
    for v in (-0.3, -0.25, -0.1, 1e-4, -1e-4, 0.5, 1.0, 2.0, math.e, 3.0, 10.0):
        add("lambertw0", v)
    # log-uniform up to 1e308 and the largest double
    for _ in range(450):
        add("lambertw0", loguniform(rng, 1, 308))
    for v in (1e308, 1.7976931348623157e308, 1e100, 1e15, 1e30):
        add("lambertw0", v)

    # --- wright_omega ----------------------------------------------------------
    for _ in range(350):
        add("wright_omega", -loguniform(rng, -300, math.log10(745.0)))
    for _ in range(150):
        add("wright_omega", rng.uniform(-745.0, -1.0))
    for _ in range(300):
        add("wright_omega", rng.uniform(-5.0, 5.0))
    for _ in range(150):
        add("wright_omega", rng.uniform(1.0, 100.0))
    for _ in range(500):
        add("wright_omega", loguniform(rng, 0, 300))
    for v in (-745.0, -745.1332191019411, -744.0, -708.4, -40.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0,
              10.0, 1e6, 1e15, 1e16, 1e17, 1e100, 1e300, 1.7976931348623157e308):
        add("wright_omega", v)

    with open(OUT, "w") as fh:
        fh.write("kind,x,w\n")
        for kind, x in rows:
            w = golden(kind, x)
            fh.write(f"{kind},{x!r},{w!r}\n")
    print(f"wrote {len(rows)} rows to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
