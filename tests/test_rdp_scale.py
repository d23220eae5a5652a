"""k-fold composition of one RDP curve (k training steps, k epochs) is done in the core and
rounded up: the composed value is the smallest double >= the exact k·ε(α), never below the
round-to-nearest product the Python layer formed before (issue 14, phase 2)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import pabi
from pabi.rdp._conversions import _rdp_scale as rdp_scale


def test_pinned_values():
    # 10 x 0.1 is 1.0 to nearest, below the exact product 10 x 0x1.999999999999ap-4
    assert float(rdp_scale([0.1], 10)[0]) == 1.0000000000000002
    # exact products and products rounded up by round-to-nearest are kept
    assert [float(v) for v in rdp_scale([0.25, 0.0, 0.1, np.inf], 3)] == [0.75, 0.0, 0.30000000000000004, np.inf]
    # the DP-SGD RDP route of the CLI at q = 0.1, z = 1, 100 steps: one ulp above the old value
    from pabi.cli.dpsgd import rdp_epsilon

    # (7.97292151038066 until the conversion's e^x became exp_up_1ulp, one double tighter;
    # 7.972921510380658 until 2026-11-28, when the integer orders' margin became a proven
    # per-term bound and the conversion's last exponential the least double above e^l)
    assert rdp_epsilon(0.1, 1.0, 100, 1e-5)[0] == 7.972921510380549
    # and against the exact value (mpmath: the exact curve 100·ε(α) over the same orders, tight
    # conversion, 7.97292151038053800 at α = 3): above it, within 1e-12 (a composed bound)
    from pabi.reference import _rdp as ref_rdp

    orders = [float(a) for a in pabi.DEFAULT_ORDERS]
    curve = [100 * ref_rdp.sampled_gaussian_rdp(a, 0.1, 1.0, dps=20) for a in orders]
    exact = ref_rdp.rdp_to_dp_epsilon(orders, curve, 1e-5, dps=20)[0]
    assert exact <= 7.972921510380658 <= exact * (1 + 1e-12)


@settings(max_examples=300, deadline=None)
@given(st.floats(0, 1e300, allow_nan=False), st.integers(1, 2**53 - 1))
def test_ceiling_of_the_exact_product(e, k):
    v = float(rdp_scale([e], k)[0])
    exact = Fraction(k) * Fraction(e)
    if v == np.inf:
        assert exact > Fraction(np.finfo(float).max)
        return
    assert Fraction(v) >= exact
    assert v >= k * e  # never below the round-to-nearest product
    assert Fraction(np.nextafter(v, 0.0)) < exact or v == 0.0  # the smallest such double


def test_multi_epoch_rdp_route_uses_it():
    kw = dict(ordering="shuffled", noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
    prof = lambda e: pabi.pnsgd_delta(e, **kw)
    orders = [2.0, 4.0, 8.0, 16.0, 32.0]
    r = pabi.multi_epoch_epsilon(1e-5, profile=prof, epochs=100, grid_step=0.05, eps_max=120.0, orders=orders)
    grid = np.arange(2401) * 0.05  # the route's profile grid 0, h, ..., eps_max
    # the route is the classical conversion of the 100-fold curve scaled by rdp_scale (rounded up;
    # 100·ε rounded to nearest gave 62.223910712226015, one ulp lower)
    samples = prof(grid)
    samples[-1] = 0.0
    curve = [pabi.profile_to_rdp(a, eps=grid, delta=samples) for a in orders]
    assert r.rdp == pabi.rdp_to_dp_epsilon(1e-5, orders=orders, rdp=rdp_scale(curve, 100), conversion="classical")[0]
    # Independent value (pabi 62.22391071222602): the same certified quadrature (on each cell
    # [ε_k, ε_k+1] the profile is bounded by its left end; docs/derivations/composition.md
    # #profile-to-rdp) with the mpmath profile (pabi.reference) and the weights integrated in
    # mpmath, the cells up to ε = 30 (fewer cells: a smaller sum, so a lower bound; the cells
    # beyond add < 1e-30 relative at the best order α = 2), composed 100 times and converted
    # (Mironov) by the reference: 62.22391071220970. pabi's route is never below it and within
    # 1e-12 of it (a composed bound).
    import mpmath as mp
    from pabi import reference as ref

    with mp.workdps(30):
        e = [mp.mpf(float(x)) for x in grid[:601]]
        d = [ref.pnsgd_delta(x, **kw, dps=20) for x in e[:-1]]
        exact_curve = []
        for a in map(mp.mpf, orders):
            cells = mp.fsum(dk * ((mp.exp((a - 1) * e1) - mp.exp((a - 1) * e0)) / (a - 1)
                                  + (mp.exp(-a * e0) - mp.exp(-a * e1)) / a) for dk, e0, e1 in zip(d, e, e[1:]))
            exact_curve.append(mp.log1p(a * (a - 1) * cells) / (a - 1))
        exact, best = ref.rdp_to_dp_epsilon(orders, [100 * c for c in exact_curve], 1e-5, "classical", dps=30)
    assert best == 2 and exact <= r.rdp <= exact * (1 + 1e-12)


@pytest.mark.parametrize("k", [0, -1, 1.5, 2**53 + 2])
def test_domain_k(k):
    with pytest.raises(pabi.DomainError) as info:
        rdp_scale([0.1], k, "steps")
    assert info.value.param == "steps"


def test_domain_curve():
    with pytest.raises(pabi.DomainError) as info:
        rdp_scale([0.1, np.nan, -1.0], 2)
    assert (info.value.param, info.value.index) == ("curve", 1)
