"""Regressions of the noise-schedule / online-noise soundness hunt (exact values: pabi.reference
at mp.dps 80 unless stated; each upper bound must be >= exact and within the stated tolerance)."""

import math

import pytest

import pabi
import pabi.reference as R


def test_laplace_schedule_delta_argument_next_to_one():
    # n/C1 + C2 = 1 + 1.1e-16: the rounding of n/C1 was 10 % of ln z (returned 4.80e-19, -5 %)
    kw = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=52.0, c1=519.9999999999994, c2=0.9)
    exact = 5.058412597404564528e-19  # R.laplace_schedule_delta(0.0, dps=80, **kw)
    v = pabi.laplace_schedule_delta(0.0, **kw)
    assert exact <= v <= exact * (1 + 1e-12)


def test_laplace_schedule_epsilon_argument_next_to_one():
    kw = dict(max_grad_norm=0.14240522985052825, lr=0.024250565230858036, diameter=9.413594216226862,
              steps=52.0, c1=519.9999999999994, c2=0.9)
    # exact δ(0) = 1.8556949310e-21 > 1.8e-21: ε = 0 (returned before) does not meet the target
    eps = pabi.laplace_schedule_epsilon(1.8e-21, **kw)
    assert eps > 0.0
    assert R.laplace_schedule_delta(eps, dps=40, **kw) <= 1.8e-21


def test_laplace_schedule_exact_domain():
    # 52/C1 + 0.9 - 1 > 0 exactly although it rounds to 1.0: accepted; a C1 one ulp further is not
    pabi.laplace_schedule_delta(0.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=52.0, c1=520.0, c2=0.9 + 2**-52)
    with pytest.raises(pabi.DomainError, match="steps"):
        pabi.laplace_schedule_delta(0.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=52.0, c1=520.0, c2=0.9 - 2**-53)


ONLINE = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=2, index=1, c1=1e14, c2=1.0, decay=1.5)


def test_online_laplace_delta_huge_c1():
    exact = 5.6568542494921865681e-29  # R.online_laplace_delta(0.0, dps=80, **ONLINE)
    v = pabi.online_laplace_delta(0.0, **ONLINE)
    assert exact <= v <= exact * (1 + 1e-12)
    lv = pabi.online_laplace_delta(0.0, log=True, **ONLINE)
    assert math.log(exact) <= lv <= math.log(exact) + 1e-12


def test_online_laplace_delta_huge_c1_long():
    kw = dict(ONLINE, steps=105, index=100, c1=1.765422236314326e+17, max_grad_norm=7.6835095349713445,
              lr=0.023547194408435473, diameter=0.4545442358966263)
    exact = R.online_laplace_delta(0.0, dps=60, **kw)
    v = pabi.online_laplace_delta(0.0, **kw)
    assert exact <= v <= exact * (1 + 1e-12)


def test_online_laplace_noise_scale_huge_c1():
    exact = 500000000000002.47224  # R.online_laplace_noise_scale(1, 1e14, 1.0, 1.5, 0.1, 1.0)
    v = pabi.online_laplace_noise_scale(1, c1=1e14, c2=1.0, decay=1.5, lr=0.1, diameter=1.0)
    assert abs(v / exact - 1) < 4e-16


def test_online_laplace_epsilon_huge_c1():
    eps = pabi.online_laplace_epsilon(5.6e-29, **ONLINE)
    assert eps > 0.0
    assert R.online_laplace_delta(eps, dps=40, **ONLINE) <= 5.6e-29


def test_online_laplace_delta_limit_log_huge_c1():
    kw = {k: v for k, v in ONLINE.items() if k != "steps"}
    exact = -7815424526.2408842549  # R.online_schedule_log_delta_limit("laplace", 0.0, ...), dps 80
    v = pabi.online_laplace_delta_limit(0.0, log=True, **kw)
    assert exact <= v <= exact + 1e-12 * abs(exact)
    lo = pabi.online_laplace_delta_limit_lower(0.0, log=True, **kw)
    assert math.isfinite(lo) and lo <= exact
    assert pabi.online_laplace_delta_limit_upper(0.0, log=True, **kw) >= exact


def test_online_laplace_invalid_index_rejected():
    # 1 + C1·C2 − C1·e^{ε/2} < 0 exactly (B_t < 0) though the rounded logs say otherwise
    with pytest.raises(pabi.DomainError, match="index"):
        pabi.online_laplace_delta(0.07160318692272215, max_grad_norm=1.304429366923463, lr=0.09030751502090024,
                                  diameter=0.1082309259796753, steps=2, index=1, c1=1.3013513269561915e+306,
                                  c2=1.036450187595371, decay=2.0)
