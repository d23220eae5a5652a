"""Regressions of the bug hunt: sampled Gaussian RDP below its exact value at integer orders
(log path), and the (eps, delta) trade-off curve above its exact value for delta near 1.

Exact values: ``pabi.reference`` at mp.dps = 50 (sampled_gaussian_rdp with r = 1/z as an exact
mpf; tradeoff_eps_delta), confirmed at dps 80-120 and, for the RDP, by a direct 100-digit
binomial sum.
"""

import pytest

import pabi

# (order, sample_rate, noise_multiplier, exact)
SGM = [
    (90.0, 1.559697088527563e-06, 1.8255693331767324, 0.001947866829598673013073661),
    (146.0, 6.059737049586916e-08, 2.09696311753038, 3.1953988375395057496e-11),
    (239.0, 3.7080591829673833e-06, 3.0876390044579916, 1.8383812880486502751e-05),
]

# (type1_error, eps, delta, exact)
TRADEOFF = [
    (2.2204460492503106e-16, 0.0, 0.9999999999999998, 2.4651903288156618919e-31),
    (0.052080263459848196, 2.383120580376e-10, 0.9479197365401517, 9.0205620729296881784e-17),
    (1.5e-07, 0.0, 0.9992887363527239, 0.00071111364727613911),
    # found by the before/after sample of the fix (old value 5.5e-6 relative above)
    (2.4023878050857122e-14, 0.0, 0.9999999999921125, 7.86344457809611e-12),
]


@pytest.mark.parametrize(("order", "q", "z", "exact"), SGM)
def test_sampled_gaussian_rdp_integer_order_is_an_upper_bound(order, q, z, exact):
    for v in (
        pabi.sampled_gaussian_rdp(order, sample_rate=q, noise_multiplier=z),
        pabi.sampled_gaussian_rdp(order, sample_rate=q, noise_multiplier=z, fractional="ceil"),
        pabi.sampled_gaussian_rdp([order, order], sample_rate=q, noise_multiplier=z)[1],
    ):
        assert exact <= v <= exact * (1 + 1e-12), (v, exact)


@pytest.mark.parametrize(("alpha", "eps", "delta", "exact"), TRADEOFF)
def test_tradeoff_is_a_lower_bound_near_delta_one(alpha, eps, delta, exact):
    for v in (
        pabi.tradeoff_eps_delta(alpha, eps, delta),
        pabi.tradeoff_from_profile(alpha, [eps], [delta]),
    ):
        v = float(v)
        assert exact * (1 - 1e-12) <= v <= exact, (v, exact)


def test_tradeoff_exact_zero_stays_below():
    # 1 - delta - alpha = 0 exactly: the curve is 0 (max with 0), never positive
    assert pabi.tradeoff_eps_delta(0.25, 0.0, 0.75) == 0.0
