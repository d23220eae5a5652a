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
    # exact conversion of this curve at the optimal order 3: 7.972921510380654)
    assert rdp_epsilon(0.1, 1.0, 100, 1e-5)[0] == 7.972921510380658  # was 7.972921510380659
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
    prof = lambda e: pabi.pnsgd_delta(e, ordering="shuffled", noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
    r = pabi.multi_epoch_epsilon(1e-5, profile=prof, epochs=100, grid_step=0.05, eps_max=120.0, orders=[2.0, 4.0, 8.0, 16.0, 32.0])
    assert r.rdp == 62.22391071222602  # was 62.223910712226015 (100·ε rounded to nearest)


@pytest.mark.parametrize("k", [0, -1, 1.5, 2**53 + 2])
def test_domain_k(k):
    with pytest.raises(pabi.DomainError) as info:
        rdp_scale([0.1], k, "steps")
    assert info.value.param == "steps"


def test_domain_curve():
    with pytest.raises(pabi.DomainError) as info:
        rdp_scale([0.1, np.nan, -1.0], 2)
    assert (info.value.param, info.value.index) == ("curve", 1)
