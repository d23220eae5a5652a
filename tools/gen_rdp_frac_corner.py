"""Generate rust/pabi-core/tests/golden/rdp_sgm_frac_corner.csv: the sampled Gaussian Rényi
divergence at fractional orders in the regime where the Mironov–Talwar–Zhang series cancels
(q near ½ with small r, and α near 1), by numerical integration of the divergence
(pabi.reference.sampled_gaussian_rdp_quad, 50 digits; its integrand is ≥ 0, no cancellation).

    python tools/gen_rdp_frac_corner.py     # ~10 minutes (one quadrature per point)

Columns: alpha, q, r, rdp (the exact value for the double inputs, 20 significant digits).
"""

from __future__ import annotations

import pathlib

from gen_rdp_golden import write_quad_csv  # tools/ (the script's folder is on sys.path)

OUT = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden/rdp_sgm_frac_corner.csv"

# q within 0.25 of ½, r ≤ 0.1, α ∈ [1.001, 3)
_CORNER_ORDERS = (1.001, 1.01, 1.05, 1.2, 1.5, 2.5, 2.99)
_CORNER_Q = (0.25, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.75)
_CORNER_R = (1e-3, 3e-3, 0.01, 0.03, 0.1)
# α → 1 at every q and r
_NEAR1_ORDERS = (1.0001, 1.001, 1.01, 1.1)
_NEAR1_Q = (1e-9, 1e-6, 1e-3, 0.01, 0.1)
_NEAR1_R = (0.01, 0.1, 0.5, 1.0, 2.0, 4.0)

POINTS = [(a, q, r) for a in _CORNER_ORDERS for q in _CORNER_Q for r in _CORNER_R]
POINTS += [(a, q, r) for a in _NEAR1_ORDERS for q in _NEAR1_Q for r in _NEAR1_R]


def main() -> None:
    write_quad_csv(POINTS, OUT)


if __name__ == "__main__":
    main()
