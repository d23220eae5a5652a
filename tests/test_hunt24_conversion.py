"""Regressions of the 2026-11-28 hunt on the RDP → DP conversions and the PNSGD RDP comparison
bound (Asoodeh–Diaz–Calmon Prop. 1): each value is checked against mpmath (80 digits, the
spec formula evaluated directly) to be an upper bound within the stated relative tolerance.
Every case failed on the former code (its value in the comment)."""

from __future__ import annotations

import math

import mpmath as mp
import pytest

import pabi
from pabi import reference as ref


def _check_upper(got: float, exact: mp.mpf, tol: float) -> None:
    exact = mp.mpf(exact)
    rel = (mp.mpf(got) - exact) / exact
    assert rel >= 0, (got, mp.nstr(exact, 25))
    assert rel <= tol, (got, mp.nstr(exact, 25), float(rel))


# k = n − i = 0: c = 2L²/σ² ≈ 7.49e9 exactly; (ε − c)² / (4c) ≈ 240. The double c (~10 ulps up)
# cost ρ·√(c·ln(1/δ)) ≈ 2.8e-9 relative: was 7.358274727712209e-105.
_KW_BIG_C = dict(noise_scale=0.0013735605710785718, max_grad_norm=84.06869452314757, steps=1,
                 index=1, smoothness=521.4150556909059, strong_convexity=521.4150556909059,
                 lr=0.0019178579311925324)


def test_pnsgd_rdp_delta_large_slope_uses_the_double_double_slope():
    eps = 7494770362.220244
    with mp.workdps(80):
        c = 2 * mp.mpf(_KW_BIG_C["max_grad_norm"]) ** 2 / mp.mpf(_KW_BIG_C["noise_scale"]) ** 2
        exact = mp.exp(-(eps - c) ** 2 / (4 * c))
        # 7.358274706884692544322344e-105 (mpmath, 80 digits)
        assert abs(exact / mp.mpf("7.358274706884692544322344e-105") - 1) < 1e-20
        _check_upper(pabi.pnsgd_rdp_delta(eps, **_KW_BIG_C), exact, 1e-12)
        lx = -(eps - c) ** 2 / (4 * c)
        got = pabi.pnsgd_rdp_delta(eps, log=True, **_KW_BIG_C)
        assert got >= lx and (got - lx) / abs(lx) < 1e-15
        # the inverse at that δ: within 1e-15 of the exact ε (was ~1e-12 looser through c)
        d = float(exact)
        e = pabi.pnsgd_rdp_epsilon(d, **_KW_BIG_C)
        _check_upper(e, c + 2 * mp.sqrt(c * mp.log(1 / mp.mpf(d))), 1e-14)


def _profile_exact(a, eps, delta):
    """(1/(α−1)) ln(1 + α(α−1) Σ_j δ_j ∫_{ε_j}^{ε_{j+1}} (e^{(α−1)t} + e^{−αt}) dt), 80 digits."""
    with mp.workdps(80):
        a = mp.mpf(a)
        total = mp.mpf(0)
        for j in range(len(eps) - 1):
            lo, hi = mp.mpf(eps[j]), mp.mpf(eps[j + 1])
            w = (mp.exp((a - 1) * hi) - mp.exp((a - 1) * lo)) / (a - 1)
            w += (mp.exp(-a * lo) - mp.exp(-a * hi)) / a
            total += mp.mpf(delta[j]) * w
        return mp.log1p(a * (a - 1) * total) / (a - 1)


@pytest.mark.parametrize(
    "alpha, eps, delta, exact_str",
    [
        # α − 1 = 4e-10, cells of ~20: ln ∫ e^{(α−1)t} took ln h + x (x/2 too large);
        # was 3.7013267282099425e-09 (3.6e-9 above)
        (1.0000000004037977,
         [0.0, 19.961823085261532, 39.15464200556107, 40.330397850980916, 42.793986471622304],
         [8.987797229270643e-11, 8.321235838023446e-11, 6.768298234120255e-11,
          5.709644022525663e-11, 0.0],
         "3.701326714700473574476891e-9"),
        # a cell of 9e-10 at α = 10.5: ln ∫ e^{−αt} took ln h (y/2 too large);
        # was 1.2980176441831008e-108 (4.6e-9 above)
        (10.463318289407702, [0.0, 9.262036528376966e-10], [6.696913236274018e-101, 0.0],
         "1.298017638193607103910939e-108"),
    ],
)
def test_profile_to_rdp_small_exponent_cells(alpha, eps, delta, exact_str):
    exact = _profile_exact(alpha, eps, delta)
    assert abs(exact / mp.mpf(exact_str) - 1) < 1e-20
    # (the remaining excess is the final up_order margin, ~3e-13)
    _check_upper(pabi.profile_to_rdp(alpha, eps=eps, delta=delta), exact, 1e-12)


def test_rdp_to_dp_epsilon_near_delta_one():
    # 1 − δ = 3.6e-12: each double of looseness in the certified δ is 3e-5 of ln(1/δ); the
    # δ near 1 is now e^{ld} rounded up to the least double above it. Was 67.7857179508786
    # (1.5e-5 above).
    d, a, r = 0.9999999999964028, 1.000000000000053, 0.00015309720016315362
    with mp.workdps(80):
        exact = mp.mpf(r) - mp.log(mp.mpf(d)) / (mp.mpf(a) - 1)
    assert abs(exact / mp.mpf("67.78467192577396437389987") - 1) < 1e-20
    got = pabi.rdp_to_dp_epsilon(d, orders=[a], rdp=[r], conversion="classical").eps
    _check_upper(got, exact, 1e-13)
    # the two conversions agree to the last ulp
    assert pabi.rdp_to_dp_delta(got, orders=[a], rdp=[r], conversion="classical").delta <= d
    below = math.nextafter(got, 0.0)
    assert pabi.rdp_to_dp_delta(below, orders=[a], rdp=[r], conversion="classical").delta > d


@pytest.mark.parametrize("delta", [1 - 5e-15, 1 - 1e-14, 1 - 1e-9, 0.9])
def test_rdp_to_dp_epsilon_tight_near_delta_one(delta):
    # α − 1 = 1e-13: one double of δ near 1 is 7e-4 of ε (the KL rule gives ε = 0 from
    # δ = 1 − 8.6e-16 on, at the first order)
    orders, rdp = [1.0000000000001, 3.0, 64.0], [34.0, 45.0, 50.0]
    assert pabi.rdp_to_dp_epsilon(1 - 2**-53, orders=orders, rdp=rdp).eps == 0.0
    got = pabi.rdp_to_dp_epsilon(delta, orders=orders, rdp=rdp).eps
    exact = ref.rdp_to_dp_epsilon(orders, rdp, delta, "tight", dps=80)[0]
    _check_upper(got, exact, 1e-13)


# c ≈ 2.6e-82: at δ = 1 − 2^-53 the exact ε = c + 2√(c·ln(1/δ)) ≈ 3.38e-49; the former 2^-46
# margin of the certified δ (128 doubles below 1) needed ln(1/δ_B) ≈ 129·2^-53: was
# 3.862644515632053e-48 (10.4 times the exact value).
_KW_TINY_C = dict(noise_scale=581.834503377606, max_grad_norm=0.06732592644902521, steps=6,
                  index=1, smoothness=25.050257247005433, strong_convexity=25.050255260309193,
                  lr=0.03991975131408091)


def test_pnsgd_rdp_epsilon_near_delta_one():
    d = 1 - 2**-53
    exact = ref.pnsgd_rdp_epsilon(d, dps=70, **_KW_TINY_C)
    assert abs(exact / mp.mpf("3.381267151685420835795504e-49") - 1) < 1e-20
    _check_upper(pabi.pnsgd_rdp_epsilon(d, **_KW_TINY_C), exact, 1e-12)
    # δ_B just below 1 is the least double above e^{ln δ_B}
    e = pabi.pnsgd_rdp_epsilon(d, **_KW_TINY_C)
    assert pabi.pnsgd_rdp_delta(e, **_KW_TINY_C) <= d


def test_reference_kl_rule_uses_expm1():
    # √(1 − e^{−r}) at r = 1e-60: 1 − exp(−r) is 0 at 50 digits (the former reference gave δ = 0)
    r = 1e-60
    exact = mp.sqrt(-mp.expm1(-mp.mpf(r)))
    got_ref, order = ref.rdp_to_dp_delta([2.0], [r], 0.0, "tight")
    assert order == 2.0
    assert abs(got_ref / exact - 1) < mp.mpf(10) ** -40
    got = pabi.rdp_to_dp_delta(0.0, orders=[2.0], rdp=[r]).delta
    _check_upper(got, exact, 1e-12)
