"""Generate rust/pabi-core/tests/golden/composition_kov.csv: the exact k-fold composition of an
(ε0, δ0)-DP mechanism (Kairouz–Oh–Viswanath, docs/derivations/composition.md#kov) by pabi.reference
at 50 digits.

    python tools/gen_composition_golden.py
"""

from __future__ import annotations

import pathlib

import numpy as np

from pabi.reference import approx_dp_composition_delta

OUT = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden/composition_kov.csv"


def cases():
    rng = np.random.default_rng(5)
    fixed = [
        (0.5, 1e-4, 10, 0.0), (0.5, 1e-4, 10, 2.0), (0.3, 1e-6, 64, 3.0), (1.0, 1e-3, 100, 10.0),
        (0.01, 1e-8, 10_000, 1.5), (0.001, 1e-9, 1_000_000, 4.0), (0.002, 0.0, 1_000_000, 6.0),
        (800.0, 1e-5, 3, 1000.0), (5.0, 0.0, 20, 60.0), (0.05, 1e-7, 100_000, 20.0),
    ]
    for c in fixed:
        yield c
    for _ in range(40):
        k = int(10 ** rng.uniform(0, 4))
        e0 = float(10 ** rng.uniform(-2, 0.7))
        d0 = float(10 ** rng.uniform(-12, -2)) if rng.uniform() < 0.8 else 0.0
        # ε around the bulk of the PLRV: mean k·e0·tanh(e0/2) plus a few sd
        mean = k * e0 * np.tanh(e0 / 2)
        sd = e0 * np.sqrt(k)
        eps = float(max(0.0, mean + rng.uniform(-1, 4) * sd))
        yield (e0, d0, k, eps)


def main() -> None:
    rows = ["eps0,delta0,k,eps,delta"]
    for e0, d0, k, eps in cases():
        v = approx_dp_composition_delta(e0, d0, k, eps, dps=50)
        rows.append(f"{e0!r},{d0!r},{k},{eps!r},{float(v)!r}")
    OUT.write_text("\n".join(rows) + "\n")
    print(f"wrote {len(rows) - 1} rows to {OUT}")


if __name__ == "__main__":
    main()
