"""Soundness cases found by the 2026-11-28 bug hunt in the given-distribution divergences,
the mixture RDP bound and amplification by sampling (exact values: mpmath at 80 digits and more;
each was below the exact value before its fix).

* hockey_stick_divergence: the relative margin on e^ε·q was applied as a factor 1 − 2^-95, which
  rounds to 1 (no margin at all), while exp_dd's error grows with ε (~2^-96 at ε = 594); after a
  cancellation of p − e^ε·q the result fell below the exact value (−1.2e-9). The margin is now
  (ε + 8)·2^-102, subtracted in double-double (none at ε = 0, the only exact tie).
* mixture_rdp_bound: (α − 1)·ε_j in the subnormal range lost its digits (1e-308 → 0), and the
  weights' exact sum above 1 by less than an ulp was dropped (1 + 1e-33 → 0). Below 2^-60 the
  bound is taken to first order from the exact weight sum (see rdp/erm.rs).
* amplify_by_sampling above ε = 700: x + ln(q + (1 − q)e^{−x}) cancelled (6.7e-12 below) and
  summed a subnormal e^{−x} (2e-323 for an exact 9.0e-16); now from y = ε + ln q in
  double-double.
"""

from __future__ import annotations

import mpmath as mp
import pytest

import pabi
from pabi import reference as ref


def test_hockey_stick_after_heavy_cancellation():
    got = pabi.hockey_stick_divergence([0.10919184769463983], [1.4487462128984724e-259], eps=593.7841917105679)
    exact = mp.mpf("2.453086274470289271679016e-22")  # mpmath at 80, 200 and 300 digits
    assert got >= exact and got <= exact * (1 + 1e-5)  # condition number p/(p − γq) = 4.5e20
    got = pabi.hockey_stick_divergence([0.7662719572126713], [2.869709639919226e-16], eps=35.520932497285095)
    exact = mp.mpf("1.260019304807870077e-16")
    assert exact <= got <= exact * (1 + 1e-13)


def test_hockey_stick_near_cancellation_never_below_reference():
    # q one ulp below p·e^{−ε}: the worst case of the cancellation, ε over four decades
    import numpy as np
    rng = np.random.default_rng(20261128)
    below = 0
    for _ in range(300):
        eps = float(10 ** rng.uniform(-3, 2.8))
        p = float(rng.uniform(0.01, 1.0))
        q = float(np.nextafter(p * np.exp(-eps), 0.0))
        got = pabi.hockey_stick_divergence([p], [q], eps=eps)
        with mp.workdps(80):
            exact = max(mp.mpf(p) - mp.e ** mp.mpf(eps) * mp.mpf(q), 0)
        below += got < exact
    assert below == 0


def test_hockey_stick_identical_distributions_at_eps_zero():
    assert pabi.hockey_stick_divergence([0.3, 0.7], [0.3, 0.7], eps=0.0) == 0.0


@pytest.mark.parametrize("alpha, rdp, exact", [
    (1 + 1e-12, 1e-300, "1e-300"),
    (1.0000000000000002, 1e-300, "1e-300"),
    (1.0000000000000002, 1e-308, "1e-308"),
    (1.0000043558555536, 1.0185306467176e-311, "1.0185306467176268e-311"),
])
def test_mixture_rdp_bound_with_subnormal_products(alpha, rdp, exact):
    # a single component of weight 1: the bound is the component's RDP itself
    got = pabi.mixture_rdp_bound(alpha, weights=[1.0], rdp=[rdp])
    ex = mp.mpf(exact)
    assert ex <= got <= ex * (1 + 1e-13) + 1e-322


@pytest.mark.parametrize("alpha, weights, exact", [
    (2.0, [1e-33, 0.3257964863613815, 0.23661700534065394, 0.4375865082979646], "1.0000000000000001e-33"),
    (1 + 1e-12, [1e-33, 0.3257964863613815, 0.23661700534065394, 0.4375865082979646], "9.9991110732027004e-22"),
    (2.0, [1.542009451734796e-83, 0.038014774136261476, 0.1559049818029095, 0.7559255667863775,
           0.05015467727445158], "1.5420094517347959e-83"),
])
def test_mixture_rdp_bound_keeps_the_exact_weight_excess(alpha, weights, exact):
    # rdp = 0 everywhere: the exact value is ln(Σ q_j)/(α − 1) with the weights' exact sum
    got = pabi.mixture_rdp_bound(alpha, weights=weights, rdp=[0.0] * len(weights))
    from fractions import Fraction
    excess = sum(Fraction(w) for w in weights) - 1  # exact
    with mp.workdps(60):
        ex = mp.log1p(mp.mpf(excess.numerator) / excess.denominator) / (mp.mpf(alpha) - 1)
        assert mp.almosteq(ex, mp.mpf(exact), rel_eps=1e-15)  # (the hunt's value, 17 digits)
        assert ex <= got <= ex * (1 + 1e-13)


def test_mixture_rdp_bound_matches_reference_near_order_one():
    import numpy as np
    rng = np.random.default_rng(7)
    for _ in range(60):
        alpha = 1 + float(10 ** rng.uniform(-15, -3))
        k = int(rng.integers(1, 5))
        w = rng.dirichlet(np.ones(k))
        eps = 10 ** rng.uniform(-310, -5, size=k)
        got = pabi.mixture_rdp_bound(alpha, weights=list(map(float, w)), rdp=list(map(float, eps)))
        exact = ref.mixture_rdp_bound(alpha, list(map(float, w)), list(map(float, eps)), dps=60)
        assert got >= exact, (alpha, w, eps, got, exact)
        assert got <= max(exact, 0) * (1 + 1e-12) + 1e-320, (alpha, w, eps, got, exact)


@pytest.mark.parametrize("eps, q, exact", [
    (709.8, 5e-324, "9.0366593621598781e-16"),  # was 2e-323 (the sum q + e^{-x} subnormal)
    (700.4145971221042, 1.2934190167827302e-307, "0.001983823194463796"),  # was 6.7e-12 below
    (750.0, 1e-320, "13.17276101073042"),
    (710.0, 1e-310, "0.02209406627837094"),
])
def test_amplify_by_sampling_above_exp_range(eps, q, exact):
    # ln(1 + q(e^eps - 1)) with e^eps beyond or near the double range: formed from
    # y = eps + ln q in double-double (exact values: mpmath at 80 digits)
    got = pabi.amplify_by_sampling(eps, 0.0, sample_rate=q).eps
    ex = mp.mpf(exact)
    assert ex <= got <= ex * (1 + 2e-14)


def test_amplify_by_sampling_never_below_exact_near_the_switch():
    import numpy as np
    rng = np.random.default_rng(11)
    for _ in range(300):
        e, q = float(rng.uniform(690, 760)), float(10 ** rng.uniform(-323.5, 0))
        got = pabi.amplify_by_sampling(e, 0.0, sample_rate=q).eps
        with mp.workdps(80):
            ex = mp.log(1 + mp.mpf(q) * mp.expm1(mp.mpf(e)))
        assert got >= ex and (ex < 1e-300 or got <= ex * (1 + 2e-14)), (e, q, got)
