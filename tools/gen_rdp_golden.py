"""Generate rust/pabi-core/tests/golden/rdp_sgm.csv: sampled Gaussian RDP (Thudi et al. Thm 3.2)
at 50 significant digits with pabi.reference (mpmath), over orders up to 1e5, q down to 1e-9,
and rdp_sgm_frac.csv: the exact divergence at FRACTIONAL orders (numerical integration of the
Rényi divergence, pabi.reference.sampled_gaussian_rdp_quad, 50 digits).

    python tools/gen_rdp_golden.py          # integer orders: a few minutes (alpha = 1e5 dominates)
    python tools/gen_rdp_golden.py --frac   # fractional orders: ~10 minutes (quadrature)

Columns: alpha, q, r, rdp (the exact value of the formula for the double inputs, printed with
20 significant digits, enough for a 1e-15 relative comparison).
"""

from __future__ import annotations

import pathlib

import mpmath as mp

import sys

from pabi.reference import sampled_gaussian_rdp, sampled_gaussian_rdp_quad

OUT = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden/rdp_sgm.csv"
OUT_FRAC = OUT.with_name("rdp_sgm_frac.csv")

_FRAC_ORDERS = (1.01, 1.1, 1.25, 1.5, 1.75, 2.5, 3.7, 5.5, 10.5, 20.25, 64.5, 256.5)
_FRAC_Q = (1e-9, 1e-5, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.7, 0.99)
_FRAC_R = (0.01, 0.1, 0.5, 1.0, 2.0, 4.0)
FRAC_POINTS = [
    (a, q, _FRAC_R[(3 * i + 2 * j + k) % len(_FRAC_R)])
    for i, a in enumerate(_FRAC_ORDERS)
    for j, q in enumerate(_FRAC_Q)
    for k in range(2)
]

POINTS = [
    (a, q, r)
    for a in (2, 3, 5, 8, 11, 32, 64, 65, 128, 256, 1000, 3000)
    for q in (1e-9, 1e-5, 1e-3, 0.01, 0.2, 0.5, 0.99)
    for r in (1e-3, 0.1, 0.7, 1.0, 4.0)
]
POINTS += [(4096, 0.01, 1.0), (10000, 1e-3, 0.05), (20000, 0.01, 0.05), (20000, 1e-6, 0.01)]
POINTS += [(100000, 1e-9, 1e-3), (100000, 1e-4, 0.01)]


def write_quad_csv(points, out: pathlib.Path) -> None:
    """Write ``out`` (columns alpha, q, r, rdp): the divergence at each (α, q, r) of ``points`` by
    quadrature (``sampled_gaussian_rdp_quad``, 50 digits), printed with 20 significant digits.
    Also used by tools/gen_rdp_frac_corner.py."""
    rows = ["alpha,q,r,rdp"]
    for a, q, r in points:
        v = sampled_gaussian_rdp_quad(a, q, r, dps=50)
        rows.append(f"{a!r},{q!r},{r!r},{mp.nstr(v, 20, min_fixed=-1, max_fixed=-1)}")
    out.write_text("\n".join(rows) + "\n")
    print(f"wrote {len(rows) - 1} points to {out}")


def main_frac() -> None:
    write_quad_csv(FRAC_POINTS, OUT_FRAC)


def main() -> None:
    if "--frac" in sys.argv[1:]:
        main_frac()
        return
    OUT.parent.mkdir(parents=True, exist_ok=True)
    rows = ["alpha,q,r,rdp"]
    for a, q, r in POINTS:
        v = sampled_gaussian_rdp(a, q, r, dps=50 if a <= 3000 else 30)
        rows.append(f"{a},{q!r},{r!r},{mp.nstr(v, 20, min_fixed=-1, max_fixed=-1)}")
    OUT.write_text("\n".join(rows) + "\n")
    print(f"wrote {len(rows) - 1} points to {OUT}")


if __name__ == "__main__":
    main()
