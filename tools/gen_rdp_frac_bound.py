"""Generate rust/pabi-core/tests/golden/rdp_sgm_frac_bound.csv: exact A_α − 1 of the sampled
Gaussian mechanism at fractional orders, for checking that the error bound b of the
Mironov–Talwar–Zhang series in rust/pabi-core/src/rdp/fractional.rs (``series_am1``) is a proven
bound: |series − exact| ≤ b at every point (the Rust test ``series_error_bound_holds``).

A_α − 1 = E_{N(0,1)}[(1 + q(L − 1))^α − 1 − αq(L − 1)] (integrand ≥ 0, no cancellation) by
mpmath tanh-sinh quadrature at 30 digits (+15 guard digits; 30 vs 50 digits agree to < 1e-40
relative on this grid's kind of points), split at 0, the crossing point and integers like
pabi.reference.sampled_gaussian_rdp_quad. The input of the Rust series is c = fl(0.5·r·r)
(a double), so the reference is evaluated at exactly that c (r = √(2c) in mpmath).

Points (deterministic, seed 20261122):
* 200 in the cancellation corner: α − 1 log-uniform in [5e-4, 0.2], q uniform in [0.5, 0.8],
  r log-uniform in [1e-3, 0.1];
* 40 just above an integer k ∈ {2, 3, 4, 6} (α − k log-uniform in [5e-4, 0.05]: the exponent
  c·j(j − 1) of the upper side at j = α − k + 1 ≈ 1), q ∈ [0.5, 0.95], r ∈ [1e-3, 1];
* 40 across the domain: α − 1 log-uniform in [5e-4, 50], q log-uniform in [1e-6, 0.99],
  r log-uniform in [0.01, 2].

    python tools/gen_rdp_frac_bound.py     # ~3-4 minutes (one quadrature per point)

Columns: alpha, q, c (the doubles given to the series), lnam1_hi, lnam1_lo (ln(A − 1) as a
double-double, so that A − 1 beyond the double range is representable), rdp (ε(α) =
log1p(A − 1)/(α − 1), 20 significant digits).
"""

from __future__ import annotations

import math
import pathlib
import random

import mpmath as mp

from pabi.reference._rdp import sampled_gaussian_am1_quad

OUT = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden/rdp_sgm_frac_bound.csv"
DPS = 30


def am1_exact(alpha: float, q: float, c: float, dps: int = DPS) -> mp.mpf:
    """A_α − 1 at the double inputs (α, q, c) by quadrature (see the module docstring)."""
    with mp.workdps(dps + 15):
        return sampled_gaussian_am1_quad(alpha, q, mp.sqrt(2 * mp.mpf(c)))


def _round(x: float, digits: int = 6) -> float:
    return float(f"{x:.{digits}g}")


def _loguniform(rng: random.Random, lo: float, hi: float) -> float:
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def points() -> list[tuple[float, float, float]]:
    rng = random.Random(20261122)
    pts = []
    for _ in range(200):
        a = 1.0 + _round(_loguniform(rng, 5e-4, 0.2))
        pts.append((a, _round(rng.uniform(0.5, 0.8)), _round(_loguniform(rng, 1e-3, 0.1))))
    for _ in range(40):
        a = rng.choice((2, 3, 4, 6)) + _round(_loguniform(rng, 5e-4, 0.05))
        pts.append((a, _round(rng.uniform(0.5, 0.95)), _round(_loguniform(rng, 1e-3, 1.0))))
    for _ in range(40):
        a = 1.0 + _round(_loguniform(rng, 5e-4, 50.0))
        if a == math.floor(a):
            a += 0.5
        pts.append((a, _round(_loguniform(rng, 1e-6, 0.99)), _round(_loguniform(rng, 0.01, 2.0))))
    return pts


def main() -> None:
    rows = ["alpha,q,c,lnam1_hi,lnam1_lo,rdp"]
    for a, q, r in points():
        c = 0.5 * r * r  # the same double as the Rust callers' 0.5 * r * r
        v = am1_exact(a, q, c)
        with mp.workdps(DPS + 15):
            la = mp.log(v)
            hi = float(la)
            lo = float(la - hi)
            rdp = mp.log1p(v) / (mp.mpf(a) - 1)
        rows.append(f"{a!r},{q!r},{c!r},{hi!r},{lo!r},{mp.nstr(rdp, 20, min_fixed=-1, max_fixed=-1)}")
    OUT.write_text("\n".join(rows) + "\n")
    print(f"wrote {len(rows) - 1} points to {OUT}")


if __name__ == "__main__":
    main()
