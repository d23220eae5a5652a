"""Fixed-order PNSGD bound δ = A·B^(n−i) at large condition numbers |(n−i)·ln B|
(docs/derivations/pnsgd.md#fixed-order, check docs/errata.md#p-c08): within 1e-12 relative of the
50-digit reference and never below it, for
every condition up to 745 (where δ is still a double), both noises; and ln δ (no underflow
limit) within a few ulp plus 2e-13 absolute.

Run as a script for the table of the worst error per condition range:

    python tests/test_pnsgd_fixed_precise.py
"""

from __future__ import annotations

import math
import random
from typing import Iterator

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import reference as ref

CONDITIONS = [1, 5, 15, 19, 21, 30, 60, 100, 150, 200, 270, 350, 450, 550, 650, 700, 740]


def _b_and_lnb(eps: float, kw: dict) -> tuple[float, float]:
    """B and ln B (double precision; only used to choose n)."""
    _, b, u = pabi.pnsgd_factors(eps, **kw)
    return b, (math.log1p(-u) if u < 0.5 else math.log(b))


def _geometry(rnd: random.Random, noise: str, regime: str) -> tuple[float, dict]:
    """(ε, keyword arguments without n / index) with B near 1 (regime "near_one": 1 − B from
    ~1e-12 to 1e-3 via a large r_B) or B in [1e-3, ½] (regime "moderate")."""
    while True:
        eps = rnd.uniform(0.0, 3.0)
        kw: dict = dict(noise=noise, noise_scale=1.0, max_grad_norm=10 ** rnd.uniform(-1, 0.5),
                        lr=10 ** rnd.uniform(-2, 0))
        if rnd.random() < 0.35:  # strongly convex: M < 1 carried in double-double
            beta = 10 ** rnd.uniform(-1, 1)
            rho = beta * rnd.uniform(0.01, 1)
            kw.update(smoothness=beta, strong_convexity=rho,
                      lr=min(kw["lr"], 1.99 / (beta + rho)))
        if regime == "near_one":
            u = 10 ** rnd.uniform(-12, -3)
            # radius with 1 − B ≈ u: Gaussian 1 − θ ≈ Φ(ε/r − r/2) → r/2 ≈ Φ^{-1}(1 − u);
            # Laplace e^{(ε − r)/2} = u
            r = (2 * float(mp.sqrt(2) * mp.erfinv(1 - 2 * u)) + 1.0 if noise == "gaussian"
                 else eps - 2 * math.log(u))
        else:
            r = 10 ** rnd.uniform(-1.5, 0.6) if noise == "gaussian" else eps + rnd.uniform(0.05, 2)
        kw["noise_scale"] = 10 ** rnd.uniform(-0.5, 0.5)
        m, _ = ref.pnsgd_contraction(kw["lr"], kw.get("smoothness"), kw.get("strong_convexity", 0.0))
        kw["diameter"] = r * kw["lr"] * kw["noise_scale"] / float(m)
        a, b, _ = pabi.pnsgd_factors(eps, **kw)
        if a < 1e-6:
            continue
        if regime == "near_one" and 1e-13 < 1 - b < 2e-3:
            return eps, kw
        if regime == "moderate" and 1e-3 <= b <= 0.5:
            return eps, kw


def cases(seed: int, per_condition: int, conditions=CONDITIONS) -> Iterator[tuple[float, dict, float]]:
    """(ε, kwargs, target condition) with n − i ≈ condition/|ln B| (n ≤ 1e15)."""
    rnd = random.Random(seed)
    for cond in conditions:
        for noise in ["gaussian", "laplace"]:
            for regime in ["near_one", "moderate"]:
                for _ in range(per_condition):
                    eps, kw = _geometry(rnd, noise, regime)
                    _, lb = _b_and_lnb(eps, kw)
                    k = max(1, round(cond / -lb))
                    if k > 10**15:
                        continue
                    i = rnd.randint(1, 1000)
                    yield eps, dict(kw, ordering="fixed", steps=k + i, index=i), cond


TINY_ABS = 6 * 5e-324  # subnormal δ: the outward TINY = 4·2^-1074 plus the rounding


def errors(eps: float, kw: dict) -> tuple[float, float, float]:
    """(error of δ: relative where δ is a normal double, in units of 1e-12·TINY_ABS/1e-12
    below (i.e. (δ − exact)/TINY_ABS·1e-12); error of ln δ; exact |k ln B|) against the
    reference."""
    exact = ref.pnsgd_delta(eps, **kw)
    _, b, _ = ref.pnsgd_factors(eps, **{k: v for k, v in kw.items()
                                         if k not in ("steps", "index", "ordering")}, dps=30)
    cond = float(abs((kw["steps"] - kw["index"]) * mp.log(b)))
    got = pabi.pnsgd_delta(eps, **kw)
    lgot = pabi.pnsgd_delta(eps, **kw, log=True)
    diff = mp.mpf(got) - exact
    e = diff / exact if exact >= 2.2250738585072014e-308 else 1e-12 * diff / TINY_ABS
    return float(e), float(lgot - mp.log(exact)), cond


def test_fixed_order_relative_error_every_condition_up_to_745():
    """0 ≤ (δ − δ_exact)/δ_exact ≤ 1e-12 for conditions 1..740 (δ − δ_exact ≤ 6 subnormal ulps
    where δ is subnormal, |k ln B| ≳ 708), B near 1 (1 − B down to 1e-12, n − i up to 1e15)
    and B ∈ [1e-3, ½], Gaussian and Laplace noise, convex and strongly convex; ln δ within
    1e-12 absolute."""
    worst = 0.0
    count = 0
    for eps, kw, target in cases(20261122, 1):
        e, le, cond = errors(eps, kw)
        assert 0.0 <= e <= 1e-12, (e, cond, eps, kw)
        assert 0.0 <= le <= 1e-12, (le, cond, eps, kw)
        assert abs(cond - target) <= 0.01 * target + 7.0  # the intended condition (k ≥ 1, |ln B| ≤ 6.9)
        worst = max(worst, e)
        count += 1
    assert count >= 60
    print(f"worst relative error over {count} cases: {worst:.2e}")


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_log_delta_absolute_error_at_huge_conditions(noise):
    """ln δ for |(n − i) ln B| from 1e3 to ~1e12 (δ far below the double range): never below
    the exact value, and above it by at most 2e-13 + 1e-15·|ln δ| (a few ulp of ln δ)."""
    rnd = random.Random(7 if noise == "gaussian" else 8)
    for regime in ["near_one", "moderate"]:
        for _ in range(4):
            eps, kw = _geometry(rnd, noise, regime)
            for n in [10**6, 10**9, 10**15]:
                kk = dict(kw, ordering="fixed", steps=n, index=rnd.randint(1, 100))
                exact = ref.pnsgd_delta(eps, **kk, log=True)
                got = pabi.pnsgd_delta(eps, **kk, log=True)
                err = float(got - exact)
                assert 0.0 <= err <= 2e-13 + 1e-15 * float(abs(exact)), (err, exact, eps, kk)


def test_array_path_equals_scalar_path_with_precise_lanes():
    """Arrays mixing lanes below and above the threshold (|k ln B| = 20) give the scalar values
    bitwise, for both noises (the precise path is per lane), and δ is non-increasing in n."""
    for noise, d in [("gaussian", 0.7), ("laplace", 20.0)]:
        kw = dict(noise=noise, noise_scale=1.0, max_grad_norm=1.0, lr=0.05, diameter=d)
        n = np.unique(np.round(np.logspace(0.5, 13, 300)))
        vec = pabi.pnsgd_delta(0.5, steps=n, index=1, ordering="fixed", **kw)
        lvec = pabi.pnsgd_delta(0.5, steps=n, index=1, ordering="fixed", **kw, log=True)
        for j in range(0, len(n), 7):
            assert vec[j] == pabi.pnsgd_delta(0.5, steps=n[j], index=1, ordering="fixed", **kw)
            assert lvec[j] == pabi.pnsgd_delta(0.5, steps=n[j], index=1, ordering="fixed", **kw, log=True)
        assert np.all(np.diff(vec) <= 0) and np.all(np.diff(lvec) <= 0)
        # σ varying per lane: the radius differs per lane
        s = np.linspace(0.8, 1.2, 50)
        vs = pabi.pnsgd_delta(0.5, steps=10**6, index=1, ordering="fixed", **dict(kw, noise_scale=s))
        for j in range(0, 50, 9):
            assert vs[j] == pabi.pnsgd_delta(0.5, steps=10**6, index=1, ordering="fixed",
                                             **dict(kw, noise_scale=float(s[j])))


def test_epsilon_inversion_consistent_with_precise_delta():
    """pnsgd_epsilon in the precise regime (target δ ≪ A): δ(ε) ≤ target and δ(ε⁻) > target
    (ε⁻ the next smaller double), both evaluated by pnsgd_delta."""
    for noise, d in [("gaussian", 0.5), ("laplace", 6.0)]:
        kw = dict(noise=noise, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=d, ordering="fixed",
                  steps=200, index=1)
        for target in [1e-12, 1e-40, 1e-200]:
            e = pabi.pnsgd_epsilon(target, **kw)
            assert pabi.pnsgd_delta(e, **kw) <= target
            assert pabi.pnsgd_delta(float(np.nextafter(e, 0)), **kw) > target


if __name__ == "__main__":
    import sys

    bins = [(0, 20), (20, 100), (100, 270), (270, 500), (500, 700), (700, 745)]
    worst = {b: [0.0, 0.0] for b in bins}
    below = 0
    for eps, kw, _ in cases(int(sys.argv[1]) if len(sys.argv) > 1 else 20261122, 1):
        e, le, cond = errors(eps, kw)
        below += e < 0
        for b in bins:
            if b[0] <= cond < b[1]:
                worst[b][0] = max(worst[b][0], abs(e))
                worst[b][1] = max(worst[b][1], abs(le))
    print("(delta subnormal, |k ln B| > ~708: error in units of 1e-12 * 6 subnormal ulps)")
    print("|k ln B| range   worst rel. error of delta   worst abs. error of ln delta")
    for b in bins:
        print(f"[{b[0]:4d}, {b[1]:4d})     {worst[b][0]:.2e}                    {worst[b][1]:.2e}")
    print("values below the exact bound:", below)
