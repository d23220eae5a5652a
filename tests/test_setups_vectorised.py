"""The setups without Python loops (issue 14) and their array questions: the RDP conversion over
an array of ε (or δ) in one core call, bit-identical to the scalar call per element; the setups'
profiles through it; ``least_noise(eps, delta)`` (the calibrated field over broadcast targets,
each element the scalar ``calibrate``'s); and ``pabi.bounds`` for the newer setups."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi.reference import _calibrate as rc
from pabi.reference import _rdp as ref_rdp

ORDERS = pabi.DEFAULT_ORDERS


def _bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.uint64)


# ------------------------------------------------------------------ the array conversions


@pytest.mark.parametrize("conversion", ["tight", "classical"])
def test_array_conversion_is_the_scalar_call(conversion):
    rdp = np.linspace(0.002, 3.0, ORDERS.size) ** 1.5
    rdp[3] = math.inf
    eps = np.array([[0.0, 1e-300, 0.1, 0.5], [1.0, 3.0, 40.0, math.inf]])
    d = pabi.rdp_to_dp_delta(eps, orders=ORDERS, rdp=rdp, conversion=conversion)
    assert d.delta.shape == d.order.shape == eps.shape
    for idx in np.ndindex(eps.shape):
        s = pabi.rdp_to_dp_delta(float(eps[idx]), orders=ORDERS, rdp=rdp, conversion=conversion)
        assert (_bits(d.delta[idx]), _bits(d.order[idx])) == (_bits(s.delta), _bits(s.order)), idx
    delta = np.array([1e-300, 1e-10, 1e-5, 0.3, 0.999])
    e = pabi.rdp_to_dp_epsilon(delta, orders=ORDERS, rdp=rdp, conversion=conversion)
    for i, dl in enumerate(delta):
        s2 = pabi.rdp_to_dp_epsilon(float(dl), orders=ORDERS, rdp=rdp, conversion=conversion)
        assert (_bits(e.eps[i]), _bits(e.order[i])) == (_bits(s2.eps), _bits(s2.order))
    # a list and a 1-element array are arrays too; a scalar stays a float
    assert isinstance(pabi.rdp_to_dp_delta([1.0], orders=ORDERS, rdp=rdp).delta, np.ndarray)
    assert type(pabi.rdp_to_dp_delta(1.0, orders=ORDERS, rdp=rdp).delta) is float


def test_array_conversion_against_the_reference():
    """One element of each direction against the exact tight conversion (mpmath): δ above the
    exact value within 1e-12, ε at or above the exact inverse within 1e-12."""
    rdp = 0.02 * ORDERS  # a Gaussian mechanism's curve α/(2σ²), σ = 5
    d = pabi.rdp_to_dp_delta(np.array([0.5, 1.0]), orders=ORDERS, rdp=rdp).delta
    exact = ref_rdp.rdp_to_dp_delta([float(a) for a in ORDERS], [float(r) for r in rdp], 1.0, dps=40)[0]
    assert exact <= d[1] <= exact * (1 + 1e-12)
    e = pabi.rdp_to_dp_epsilon(np.array([1e-5, 1e-8]), orders=ORDERS, rdp=rdp).eps
    exact = ref_rdp.rdp_to_dp_epsilon([float(a) for a in ORDERS], [float(r) for r in rdp], 1e-8, dps=40)[0]
    assert exact <= e[1] <= exact * (1 + 1e-12)


def test_array_conversion_errors_name_the_index():
    with pytest.raises(pabi.DomainError) as err:
        pabi.rdp_to_dp_delta([[0.5, 1.0], [-1.0, 2.0]], orders=[2.0, 4.0], rdp=[0.5, 1.0])
    assert (err.value.param, err.value.index) == ("eps", (1, 0))
    with pytest.raises(pabi.DomainError) as err:
        pabi.rdp_to_dp_epsilon([1e-5, math.nan], orders=[2.0, 4.0], rdp=[0.5, 1.0])
    assert (err.value.param, err.value.index) == ("delta", 1)
    with pytest.raises(pabi.DomainError) as err:  # the curve first
        pabi.rdp_to_dp_epsilon([-1.0], orders=[2.0, 0.5], rdp=[0.5, 1.0])
    assert (err.value.param, err.value.index) == ("orders", 1)
    assert pabi.rdp_to_dp_delta(np.zeros((0, 2)), orders=[2.0], rdp=[0.5]).delta.shape == (0, 2)


def _rdp_setups():
    return [
        pabi.LastIterateSGD(theorem="general", lr=0.1, max_grad_norm=1.0, noise_scale=3.0, steps=100),
        pabi.ERMGradientDescent(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0, batch_size=10,
                                batches_per_epoch=10, noise_scale=1.0),
        pabi.CyclicDPSGD(records=1000, batch_size=10, epochs=2, lr=0.1, max_grad_norm=1.0, noise_multiplier=4.0,
                         smoothness=1.0),
    ]


@pytest.mark.parametrize("k", range(3))
def test_rdp_setup_profiles_are_the_scalar_questions(k):
    """The RDP setups' δ over an array of ε (one core call per curve) is, element by element, the
    setup's δ at that ε, and the conversion of its curve(s) by the flat function."""
    s = _rdp_setups()[k]
    eps = np.array([0.0, 0.25, 1.0, 2.5, 8.0])
    prof = s.profile(eps)
    assert [_bits(v) for v in prof] == [_bits(s.delta(float(e))) for e in eps]
    curves = [c for _, c in s._curves()] if isinstance(s, pabi.CyclicDPSGD) else [s.rdp()]
    flat = [min(pabi.rdp_to_dp_delta(float(e), orders=ORDERS, rdp=c).delta for c in curves) for e in eps]
    assert [_bits(v) for v in prof] == [_bits(v) for v in flat]
