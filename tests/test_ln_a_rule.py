"""ln A of the PNSGD bounds has one rule (`pnsgd/ab_factors.rs`, `log_a_up`): the smaller of
the engine's direct logarithm and ln of the rounded-up factor, for both noises and every path.

Regression pins (issue 14): the Laplace ln A had two rules (the constant bound's ln of the
rounded-up A alone, the per-step bound's minimum, the online kernel's direct ln alone); the
online kernel's direct ln was 9 times the exact δ where ε − r is tiny (its input margin
dominates there), the closed form's ln is tight.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import reference as ref

_ONLINE = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=np.array([2.0, 2.0, 2.0]),
               index=2, noise="laplace", smoothness=2.0, strong_convexity=0.5)


@pytest.mark.parametrize("eps, mgn", [(0.9999999999999999, 1.0), (1.0, 1.0000000000000002)])
def test_online_laplace_delta_near_eps_equal_radius(eps, mgn):
    # ε − r_A = −2^-53 (resp. −2^-52), exact: A ≈ 2^-54; was 4.25e-16 (resp. 4.72e-16), 9 (5)
    # times the exact 4.719e-17 (9.438e-17)
    kw = dict(_ONLINE, max_grad_norm=mgn)
    got = pabi.online_delta(eps, **kw)
    exact = ref.online_delta(eps, mgn, kw["lr"], kw["diameter"], list(kw["noise_scale"]), 2,
                             noise="laplace", smoothness=2.0, strong_convexity=0.5)
    assert mp.mpf(got) >= exact
    assert float((got - exact) / exact) < 1e-13
    lgot = pabi.online_delta(eps, **kw, log=True)
    assert mp.mpf(lgot) >= mp.log(exact)
    assert abs(float((lgot - mp.log(exact)) / mp.log(exact))) < 1e-13


@pytest.mark.parametrize("ordering", ["fixed", "shuffled"])
@pytest.mark.parametrize("sigma", [0.5, 1.0])
@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_pnsgd_laplace_log_delta_is_tight_upper_bound(ordering, sigma, eps):
    # the constant bound's Laplace ln A now takes the minimum of the two upper bounds (it took
    # ln of the rounded-up A alone): fixed, σ = 0.5, ε = 0.1: ln δ −0.1534720376986008 (9.3e-14
    # relative) -> −0.15347203769861475 (2.1e-15), exact −0.15347203769861508
    kw = dict(noise="laplace", noise_scale=sigma, max_grad_norm=1.0, lr=0.5, diameter=10.0, steps=10,
              ordering=ordering, index=None if ordering == "shuffled" else 3, smoothness=2.0,
              strong_convexity=0.5)
    got = pabi.pnsgd_delta(eps, **kw, log=True)
    exact = ref.pnsgd_delta(eps, **kw, log=True)
    assert mp.mpf(got) >= exact
    assert abs(float((got - exact) / exact)) < 1e-14


def test_pnsgd_laplace_log_delta_random_stop():
    # −1.5058742134365029 (2.0e-14 relative) -> −1.5058742134365166, exact −1.5058742134365328
    kw = dict(noise="laplace", noise_scale=0.5, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=10,
              ordering="random_stop", index=3, smoothness=2.0, strong_convexity=0.5,
              variant="as_published")
    got = pabi.pnsgd_delta(1.0, **kw, log=True)
    exact = ref.pnsgd_delta(1.0, **kw, log=True)
    assert mp.mpf(got) >= exact
    assert abs(float((got - exact) / exact)) < 1.5e-14


def test_stepwise_laplace_ln_a_is_the_constant_bounds():
    # the per-step bound takes its factors (ln A included) from the constant bound's one rule:
    # a schedule of two different pieces agrees with the composition of the reference
    kw = dict(noise="laplace", max_grad_norm=1.0, lr=0.5, diameter=1.0, smoothness=2.0,
              strong_convexity=0.5)
    got = pabi.pnsgd_stepwise_delta(1.0, noise_scale=[0.5, 0.7, 0.5], ordering="fixed", index=1, **kw,
                                    log=True)
    exact = ref.pnsgd_stepwise_delta(1.0, noise_scale=[0.5, 0.7, 0.5], ordering="fixed", index=1,
                                     **kw, log=True)
    assert mp.mpf(got) >= exact
    assert abs(float((got - exact) / exact)) < 1e-13


@pytest.mark.parametrize("steps", [2, 1000])
def test_pnsgd_laplace_ln_b_near_eps_equal_radius(steps):
    # ln B = ln(1 − e^{(ε − r_B)/2}) at ε − r_B = −2^-53 (exact): the factor's input was moved
    # down by 2^-52·(ε + r)/2 although ε − r is exact there, so B came out ~5 times 2^-54 and
    # ln δ = ln A + (n − 1) ln B was off by (n − 1)·ln 5: −36,322 against the exact −37,429.95
    # at n = 1000 (3 % relative); now within 1e-14
    kw = dict(noise="laplace", noise_scale=2.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=steps,
              ordering="fixed", index=1)
    got = pabi.pnsgd_delta(0.9999999999999999, **kw, log=True)
    exact = ref.pnsgd_delta(0.9999999999999999, **kw, log=True)
    assert mp.mpf(got) >= exact
    assert abs(float((got - exact) / exact)) < 1e-14
