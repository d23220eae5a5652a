"""Regression tests of the per-instance RDP family (hunt 24): the L_p per-instance (ε, δ) at
subnormal and tiny sampling rates, the per-step c = (Δ/σ)²/2 of the DP-SGD composition carried
as a double-double, and the reference's Thm 3.3 near α = 1. Exact values are computed here in
mpmath at >= 60 digits (4000 bits for the L_p formula) from the spec formulas."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import reference as ref


def _lp_exact(q, p, dl, dpp, sg, sens):
    """Cor. 3.1, stable form, at 4000 bits: (ε', δ'')."""
    with mp.workprec(4000):
        Q, P, DL, DP = (mp.mpf(x) for x in (q, p, dl, dpp))
        C = mp.sqrt(2 * mp.log(mp.mpf(1.25) / DL)) / mp.mpf(sg)
        k = mp.log(mp.fsum(mp.exp(P * C * mp.mpf(d)) for d in sens) / len(sens))
        eta = (mp.log(Q) + k - mp.log(DP)) / (P - 1)
        return mp.log1p(Q * mp.expm1(eta)), Q * DL + DP


def _check_up(v, exact, tol):
    assert mp.mpf(v) >= exact, (v, mp.nstr(exact, 20))
    assert mp.mpf(v) - exact <= tol * abs(exact), (v, mp.nstr(exact, 20), mp.nstr((v - exact) / exact, 5))


def test_lp_eps_below_smallest_subnormal_is_tiny_not_zero():
    # exact ε' = 6.5498564869214989e-325 > 0: was 0.0
    args = (1.6232845041134043e-78, 5e-324)
    kw = dict(sample_rate=5e-324, lp_exponent=324.8549491838548, noise_scale=1.565886138444581,
              sensitivities=[0.01043769296442888, 0.005357569947269675])
    e, d = pabi.lp_per_instance_epsilon_delta(*args, **kw)
    ex, dx = _lp_exact(5e-324, kw["lp_exponent"], *args, kw["noise_scale"], kw["sensitivities"])
    assert ex > 0 and mp.mpf(e) >= ex and 0 < e <= 2e-323
    assert mp.mpf(d) >= dx


@pytest.mark.parametrize(
    "args, old",
    [
        # q = δ' = 5e-324: η(p − 1) = K alone; the margin 128u(|ln q| + |ln δ'|)/(p − 1) was
        # 8e-7 relative (old 1.507325071959133e-161, exact 1.5073238723867028e-161)
        ((3.6178367770276646e-128, 5e-324, 5e-324, 1.0000266051443694, 18.191873607395955,
          [0.007471632209207704]), 1.507325071959133e-161),
        ((2.739869654659357e-32, 5e-324, 5e-324, 1.0000639442533348, 1.417879455815758,
          [0.002663230961095932]), 5.503147974497723e-170),
        # several samples (K's log-mean-exp in double-double)
        ((4.699839356311403e-229, 5e-324, 5e-324, 1.0008990509101487, 8.662298615013437,
          [0.24917089977215018, 0.005545461181305181, 0.14042936360475794]), None),
        ((1.4640509706899211e-238, 5e-324, 1.9597855e-317, 1.0253147818360777, 5.271236553946483,
          [0.03864464331615569, 0.12902033539682817, 0.032133210325373675]), None),
    ],
)
def test_lp_eps_tiny_sample_rate_within_1e12(args, old):
    dl, dpp, q, p, sg, sens = args
    e, _ = pabi.lp_per_instance_epsilon_delta(dl, dpp, sample_rate=q, lp_exponent=p, noise_scale=sg,
                                              sensitivities=sens)
    ex, _ = _lp_exact(q, p, dl, dpp, sg, sens)
    _check_up(e, ex, 1e-12)
    if old is not None:
        assert (old - ex) / ex > 1e-8  # the old value was outside the tolerance


def test_lp_random_tiny_rates_sound_and_tight():
    rng = np.random.default_rng(24)
    for _ in range(150):
        q = float(rng.choice([5e-324, 10 ** rng.uniform(-320, -1)]))
        p = float(1 + 10 ** rng.uniform(-6, 0)) if rng.random() < 0.6 else float(10 ** rng.uniform(0.1, 3))
        dl = float(10 ** rng.uniform(-300, -1))
        dpp = float(rng.choice([5e-324, 10 ** rng.uniform(-320, -1)]))
        sg = float(10 ** rng.uniform(0, 2))
        cc = np.sqrt(2 * np.log(1.25 / dl)) / sg
        sens = list(rng.random(int(rng.integers(1, 4))) / cc * 0.999)
        e, d = pabi.lp_per_instance_epsilon_delta(dl, dpp, sample_rate=q, lp_exponent=p, noise_scale=sg,
                                                  sensitivities=sens)
        ex, dx = _lp_exact(q, p, dl, dpp, sg, sens)
        assert mp.mpf(e) >= ex and mp.mpf(d) >= dx
        if abs(ex) > 2.3e-308:
            assert mp.mpf(e) - ex <= 1e-12 * abs(ex), (dl, dpp, q, p, sg, sens, e, mp.nstr(ex, 17))


@pytest.mark.parametrize(
    "alpha, q, sigma, s, old",
    [
        # ln A cancels (q tiny, c α(α − 1) ≈ −α ln q): D ~ 1300× the relative error of c, and
        # c = 0.5·fl(s/σ)² was 3u low: old 0.00021886064207099097 (−3.2e-13)
        (52.0, 4.4946134843075505e-12, 1.2392941647773654, 1.2523906852179743, 0.00021886064207099097),
        (54.0, 1.1376114733202931e-12, 15.727311018987955, 15.869348900011568, 1.1244471611388144e-14),
        (47.0, 1.1887859316132916e-11, 0.1352003779584483, 0.1404567467585672, 3.578464328665012e-09),
    ],
)
def test_dpsgd_single_step_carries_low_part_of_c(alpha, q, sigma, s, old):
    v = pabi.dpsgd_per_instance_rdp(alpha, sample_rate=q, noise_scale=sigma, sensitivities=np.array([[s]]))
    ex = ref.sampled_gaussian_rdp_per_instance(alpha, q, s, sigma, dps=60)
    assert old < ex  # the old value was below the exact one
    _check_up(v, ex, 1e-12)


def test_reference_dpsgd_near_order_one_matches_120_digits():
    # Thm 3.3 (weighted form, ceil orders) at α = 1 + 2^-52 computed independently at 120
    # digits: 2.389322963649886078367664e-16; the former reference (ln mean e^{tD} with
    # t·D ~ 1e-31 at 40 digits) gave 2.3893229636658353298e-16 (+6.7e-12)
    a, q, sg, sens = 1 + 2.0**-52, 1e-8, 1.0, [[0.5, 1.0], [0.3, 0.9]]
    with mp.workdps(40):
        v = ref.dpsgd_per_instance_rdp(a, q, sg, sens, fractional="ceil")
        exact = mp.mpf("2.389322963649886078367664e-16")
        assert abs((v - exact) / exact) < 1e-24
        # the exact-order (quadrature) form agrees with itself at raised precision
        v1 = ref.dpsgd_per_instance_rdp(a, q, sg, sens, fractional="exact")
        v2 = ref.dpsgd_per_instance_rdp(a, q, sg, sens, fractional="exact", dps=60)
        assert abs((v1 - v2) / v2) < 1e-25
