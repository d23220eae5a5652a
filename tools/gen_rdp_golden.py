"""Generate rust/pabi-core/tests/golden/rdp_sgm.csv: sampled Gaussian RDP (Thudi et al. Thm 3.2)
at 50 significant digits with pabi.reference (mpmath), over orders up to 1e5, q down to 1e-9.

    python tools/gen_rdp_golden.py     # a few minutes (the alpha = 1e5 points dominate)

Columns: alpha, q, r, rdp (the exact value of the formula for the double inputs, printed with
20 significant digits, enough for a 1e-15 relative comparison).
"""

from __future__ import annotations

import pathlib

import mpmath as mp

from pabi.reference import sampled_gaussian_rdp

OUT = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden/rdp_sgm.csv"

POINTS = [
    (a, q, r)
    for a in (2, 3, 5, 8, 11, 32, 64, 65, 128, 256, 1000, 3000)
    for q in (1e-9, 1e-5, 1e-3, 0.01, 0.2, 0.5, 0.99)
    for r in (1e-3, 0.1, 0.7, 1.0, 4.0)
]
POINTS += [(4096, 0.01, 1.0), (10000, 1e-3, 0.05), (20000, 0.01, 0.05), (20000, 1e-6, 0.01)]
POINTS += [(100000, 1e-9, 1e-3), (100000, 1e-4, 0.01)]


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    rows = ["alpha,q,r,rdp"]
    for a, q, r in POINTS:
        v = sampled_gaussian_rdp(a, q, r, dps=50 if a <= 3000 else 30)
        rows.append(f"{a},{q!r},{r!r},{mp.nstr(v, 20, min_fixed=-1, max_fixed=-1)}")
    OUT.write_text("\n".join(rows) + "\n")
    print(f"wrote {len(rows) - 1} points to {OUT}")


if __name__ == "__main__":
    main()
