"""Regression tests of the sampled Gaussian RDP margins (hunt 24).

Exact values: pabi.reference at 60 digits (integer orders, binomial sum with r = 1/z at 70
digits) and the reference quadrature at 40 and 50 digits (fractional order).
"""

from __future__ import annotations

import numpy as np
import pytest

import pabi

# (order, sample_rate, noise_multiplier, exact, previous value / defect)
INTEGER = [
    # direct path: exp(ln pmf) carried 2u|ln pmf| (ln pmf ~ -590): 3.201299877363823e-05 was
    # 8.2e-14 BELOW the exact value
    (56.0, 2.8930373144352032e-05, 1.6310298823724922, 0.00003201299877364083706125372),
    (22.0, 2.0263293496114372e-11, 0.6547427595121699, 0.002716336511257501027248526),
    # log path: the proven per-term bound plus up_order's 2^-46 (1 + log2 a): +1.93e-13
    (2094.0, 2.460583827666919e-07, 526.3666198292863, 2.287953092864197456414477e-16),
]


@pytest.mark.parametrize(("order", "q", "z", "exact"), INTEGER)
def test_integer_order_tight_upper_bound(order, q, z, exact):
    for v in (
        pabi.sampled_gaussian_rdp(order, sample_rate=q, noise_multiplier=z),
        pabi.sampled_gaussian_rdp(np.array([order, 2.0]), sample_rate=q, noise_multiplier=z)[0],
    ):
        assert v >= exact, (v, exact)
        assert (v - exact) / exact <= 1e-13, (v, exact, (v - exact) / exact)


def test_fractional_order_large_alpha():
    """alpha = 238.5, q = 3.7e-6: the series' bound (~3.3e-12: i ln q ~ -2975 against
    c i(i - 1) ~ 2956) and the inflation c(1 + 4u) (4u c alpha^2 ~ 1.2e-12) gave
    3.60785861450877e-08, +4.4e-12 relative. Now the quadrature (the nodes' exponent
    alpha ln(1 + y) - c x^2 as a double-double, applicable where w > 709) at the exact
    double-double c."""
    exact = 3.607858614492668291051259e-8
    v = pabi.sampled_gaussian_rdp(238.5, sample_rate=3.7080591829673833e-06, noise_multiplier=3.0876390044579916)
    assert v >= exact
    assert (v - exact) / exact <= 1e-12, (v - exact) / exact


def test_exactly_monotone_across_order_46():
    """The fractional path's lower clamp at floor(alpha) now uses the same double-double c as
    the integer order (it dropped c's low part: 166.78562060365084 at the next double of 46
    against 166.78562060365087 at 46)."""
    q, z = 0.92650306242204, 0.3712641731578402

    def f(a):
        return pabi.sampled_gaussian_rdp(a, sample_rate=q, noise_multiplier=z)

    lo, hi = np.nextafter(46.0, 0.0), np.nextafter(46.0, 99.0)
    assert f(lo) <= f(46.0) <= f(hi) <= f(46.5) <= f(47.0)
