"""Accuracy table of the engine against pabi.reference (mpmath, 40 digits), by function and region.

    python3 tools/accuracy_report.py [points_per_region]

Prints, for each function and region, the worst relative error (logs: absolute error divided
by max(1, |value|), the issue's contract) and the number of results on the wrong side of the
exact value (θ, log θ must never be below it; complements never above). Deterministic seed.
"""

import math
import sys

import mpmath as mp
import numpy as np

import pabi
from pabi import reference as ref

NORMAL = 2.2250738585072014e-308


def regions(rng, n):
    def a_band(lo, hi):  # points with a = eps/r - r/2 in [lo, hi), r log-uniform, eps >= 0
        r = 10 ** rng.uniform(-7, 3, 4 * n)
        a = rng.uniform(lo, hi, 4 * n)
        e = r * (a + r / 2)
        ok = (e >= 0) & (e <= 700)
        return e[ok][:n], r[ok][:n]

    yield "bench: eps~U[0,10], r~10^U[-2,1]", rng.uniform(0, 10, n), 10 ** rng.uniform(-2, 1, n)
    yield "full: eps~U[0,700], r~10^U[-7,3]", rng.uniform(0, 700, n), 10 ** rng.uniform(-7, 3, n)
    yield "small eps: 10^U[-12,0]", 10 ** rng.uniform(-12, 0, n), 10 ** rng.uniform(-7, 3, n)
    yield "a in [-40,-1) (theta near 1)", *a_band(-40, -1)
    yield "a in [-1,0)", *a_band(-1, 0)
    yield "a in [0,12)", *a_band(0, 12)
    yield "a in [12,38) (tiny theta)", *a_band(12, 38)
    # nice inputs: integer / dyadic eps and r, a exactly on a lattice (a = -4 = -c is where the
    # near complement lanes once divided by zero: theta(10, 10) was 1)
    r = rng.choice(np.arange(1, 161) / 8, 4 * n)
    a = rng.integers(-64, 17, 4 * n) / 8
    e = r * (a + r / 2)
    ok = (e >= 0) & (e <= 700)
    yield "a on eighths in [-8,2], r on eighths", e[ok][:n], r[ok][:n]
    yield "eps, r small integers", rng.integers(0, 41, n).astype(float), rng.integers(1, 41, n).astype(float)


def err(v, exact, log):
    if log:
        return float((mp.mpf(v) - exact) / max(1, abs(exact)))
    if abs(exact) < NORMAL:
        return 0.0
    return float((mp.mpf(v) - exact) / abs(exact))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = np.random.default_rng(2026)
    funcs = [("theta", +1, False), ("log_theta", +1, True), ("theta_complement", -1, False),
             ("log_theta_complement", -1, True)]
    print(f"{'region':<36} " + " ".join(f"{f:>22}" for f, _, _ in funcs))
    for name, eps, r in regions(rng, n):
        cells = []
        for f, sign, log in funcs:
            got = getattr(pabi, f.removeprefix("log_"))(eps, r, log=log)
            worst, wrong = 0.0, 0
            for e, x, g in zip(eps, r, got):
                ex = getattr(ref, f.removeprefix("log_"))(float(e), float(x), dps=40, log=log)
                d = err(g, ex, log)
                worst = max(worst, abs(d))
                wrong += sign * d < 0
            cells.append(f"{worst:9.2e} ({wrong} wrong)")
        print(f"{name:<36} " + " ".join(f"{c:>22}" for c in cells))
    print()
    ulp = 2.0**-52
    for fname, xs in [("gaussian_tail", [("t in [-40,0]", rng.uniform(-40, 0, n)), ("t in [0,37.5]", rng.uniform(0, 37.5, n))]),
                      ("log_gaussian_tail", [("t in [-40,37.5]", rng.uniform(-40, 37.5, n)), ("t in [37.5,1e4]", 10 ** rng.uniform(math.log10(37.5), 4, n))]),
                      ("lambertw", [("x in [-1/e,0)", rng.uniform(-0.36787944117144233, 0, n)), ("x 10^U[-300,308]", 10 ** rng.uniform(-300, 308, n))]),
                      ("wright_omega", [("x in [-745,1]", rng.uniform(-745, 1, n)), ("x 10^U[0,300]", 10 ** rng.uniform(0, 300, n))])]:
        for region, x in xs:
            base, kw = (fname[4:], {"log": True}) if fname == "log_gaussian_tail" else (fname, {})
            got = getattr(pabi, base)(x, **kw)
            worst = 0.0
            for xi, g in zip(x, got):
                ex = getattr(ref, base)(float(xi), dps=40, **kw)
                if abs(ex) < NORMAL:
                    continue
                worst = max(worst, abs(float((mp.mpf(g) - ex) / abs(ex))))
            print(f"{fname:<20} {region:<20} worst {worst:9.2e} = {worst / ulp:5.2f} ulp (of 2^-52)")


if __name__ == "__main__":
    main()
