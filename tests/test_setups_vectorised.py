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


# ------------------------------------------------------------------ least_noise (vectorised calibrate)


def _all_setups():
    return {
        "PNSGD": pabi.PNSGD(records=1000, lr=0.05, noise_scale=4.0, max_grad_norm=1.0, diameter=1.0,
                            smoothness=10.0, convex=True),
        "PNSGD_epochs": pabi.PNSGD(records=100, lr=0.05, noise_scale=4.0, max_grad_norm=1.0, diameter=1.0,
                                   smoothness=10.0, convex=True, epochs=2),
        "DPSGD": pabi.DPSGD(sample_rate=0.5, noise_multiplier=1.0, steps=2, grid_step=1e-3),
        "CyclicDPSGD": _rdp_setups()[2],
        "ScheduledPNSGD": pabi.ScheduledPNSGD(steps=10**6, lr=0.1, max_grad_norm=10.0, diameter=1.0, c1=1e5,
                                              c2=100.0),
        "StepwisePNSGD": pabi.StepwisePNSGD(noise_scale=1.0, max_grad_norm=1.0, lr=[0.5, 0.1], diameter=1.0,
                                            run_lengths=[50, 50]),
        "OnlinePNSGD": pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=100.0,
                                        decay=1.5, steps=1000),
        "LastIterateSGD": _rdp_setups()[0],
        "ERMGradientDescent": _rdp_setups()[1],
    }


FIELDS = {"PNSGD": "noise_scale", "PNSGD_epochs": "noise_scale", "DPSGD": "noise_multiplier",
          "CyclicDPSGD": "noise_multiplier", "ScheduledPNSGD": "c1", "StepwisePNSGD": "noise_factor",
          "OnlinePNSGD": "c1", "LastIterateSGD": "noise_scale", "ERMGradientDescent": "noise_scale"}


@pytest.mark.parametrize("name", list(FIELDS))
def test_least_noise_is_the_scalar_calibration(name):
    """Each element of least_noise over broadcast targets is, to the bit, the scalar calibrate's
    field; a repeated target gives the same value; two scalars give a 0-d array."""
    s = _all_setups()[name]
    assert type(s).calibrated_field == FIELDS[name]
    if name in ("PNSGD", "ScheduledPNSGD", "StepwisePNSGD", "LastIterateSGD"):
        eps, delta = np.array([[1.0], [2.0]]), np.array([1e-5, 2e-5])
    else:  # the slower calibrations: two targets, one repeated
        eps, delta = np.array([[1.5, 1.5]]), np.array([1e-3])
    got = s.least_noise(eps, delta)
    assert got.shape == np.broadcast_shapes(eps.shape, delta.shape) and got.dtype == np.float64
    e, d = np.broadcast_arrays(eps, delta)
    want = {}
    for idx in np.ndindex(got.shape):
        key = (float(e[idx]), float(d[idx]))
        if key not in want:
            want[key] = getattr(s.calibrate(*key), FIELDS[name])
        assert _bits(got[idx]) == _bits(want[key]), (idx, got[idx], want[key])
    zero_d = s.least_noise(float(eps.flat[0]), float(delta.flat[0]))
    assert zero_d.shape == () and _bits(zero_d) == _bits(got.flat[0])


def test_least_noise_against_the_exact_inverse():
    """One element of least_noise against the reference's exact calibration: the last-iterate
    setup's noise meets the target under the exact (mpmath) ε and is within 1e-9 of the exact
    least noise; the per-step PNSGD's factor likewise under the exact δ."""
    s = _all_setups()["LastIterateSGD"]
    x = s.least_noise([0.5, 1.0], 1e-5)[1]
    exact = rc.setup_calibration(s, 1.0, 1e-5, dps=20, rel=1e-12)
    assert exact * (1 - 1e-12) <= x <= exact * (1 + 1e-9)
    assert rc.setup_forward(s, x, 1e-5, dps=20) <= 1.0
    st = _all_setups()["StepwisePNSGD"]
    c = st.least_noise(1.0, [1e-5, 1e-7])[0]
    f = rc._forward_fn(st, 1.0, 20)
    assert f(c) <= 1e-5 < f(mp.mpf(c) * (1 - 1e-9))


def test_least_noise_errors():
    s = _all_setups()["LastIterateSGD"]
    with pytest.raises(pabi.DomainError) as err:  # every target is checked first
        s.least_noise([[1.0, 2.0], [math.inf, -1.0]], 1e-5)
    assert (err.value.param, err.value.index) == ("eps", (1, 0))
    with pytest.raises(pabi.DomainError) as err:
        s.least_noise(1.0, [1e-5, 1.0])
    assert (err.value.param, err.value.index) == ("delta", 1)
    with pytest.raises(pabi.DomainError) as err:
        s.least_noise(0.0, 1e-5)
    assert (err.value.param, err.value.index) == ("eps", None)
    with pytest.raises(ValueError):  # shapes that do not broadcast
        s.least_noise([1.0, 2.0], [1e-5, 1e-6, 1e-7])
    with pytest.raises(TypeError):
        s.least_noise("1.0", 1e-5)
    # an unreachable target: the scalar calibrate's error, at its index in the broadcast shape
    lap = pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=100.0, decay=1.5,
                           steps=1000, noise="laplace")
    with pytest.raises(pabi.DomainError) as err:
        lap.least_noise([[1.0], [1.0]], [1e-3, 1e-10])
    assert (err.value.param, err.value.index, err.value.value) == ("c1", (0, 1), math.inf)


# ------------------------------------------------------------------ pabi.bounds for the newer setups


def _newer_setups():
    erm = dict(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0, batch_size=10, batches_per_epoch=10,
               noise_scale=1.0)
    return [
        pabi.StepwisePNSGD(noise_scale=[1.0, 2.0], max_grad_norm=1.0, lr=[0.5, 0.1], diameter=1.0,
                           run_lengths=[50, 50], noise_factor=1.5),
        pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=30.0, c2=100.0, decay=1.5,
                         steps=1000),
        pabi.LastIterateSGD(theorem="general", lr=0.1, max_grad_norm=1.0, noise_scale=3.0, steps=100),
        pabi.LastIterateSGD(theorem="cyclic", lr=0.1, max_grad_norm=1.0, noise_scale=2.0, steps=50, batch_size=5,
                            batches_per_epoch=10, smoothness=1.0),
        pabi.ERMGradientDescent(**erm),
        pabi.ERMGradientDescent(**erm, batch_order="fixed", batch_index=3, epochs=2),
    ]


@pytest.mark.parametrize("k", range(6))
def test_bounds_rank_the_newer_setups(k):
    """The best valid bound of each newer setup is its own ε(δ) (or below it where another bound
    applies too; here it is its own), checked against the exact (mpmath) value of the setup's
    bound, every applicable bound's repro evaluates to its ε, and under add/remove neighbours
    none of these replace-one bounds is valid."""
    s = _newer_setups()[k]
    delta = 1e-5
    bs = pabi.bounds(s, delta)
    valid = [b for b in bs if b.valid]
    assert valid and valid[0].rank == 1
    own = s.epsilon(delta)
    assert valid[0].epsilon <= own
    assert any(b.epsilon == own for b in valid)  # the setup's primary bound is among them
    # the best bound against the reference (mpmath): here it is the setup's primary bound
    best = valid[0].epsilon
    assert best == own
    field, question = rc.setup_question(s)
    x = getattr(s, field)
    if question == "epsilon":  # an RDP curve's ε(δ), a composed bound: above the exact, within 1e-12
        exact = rc.setup_forward(s, x, delta, dps=30)
        assert exact <= best <= exact * (1 + 1e-12), (best, exact)
    else:  # ε(δ) by inverting a certified δ(ε): on the safe side of the exact inverse, within 1e-9
        # (15 digits: the online δ is within 4e-17 of its 30-digit value, its margin below δ 9e-14;
        # 8 digits: within 6e-11, the margin above δ 4e-9)
        assert rc.setup_forward(s, x, best, dps=15) <= delta
        assert rc.setup_forward(s, x, best * (1 - 1e-9), dps=8) > delta
    for b in bs:
        if b.applicable:
            assert eval(b.repro, {"pabi": pabi, "np": np}) == b.epsilon, b.id  # noqa: S307 - the contract
    if isinstance(s, pabi.LastIterateSGD) and s.theorem == "cyclic":
        # the printed Thm 4.3 applies to any run with a step count: ranked after the cyclic theorem
        assert [b.id for b in valid] == ["last_iterate_sgd", "last_iterate_sgd_general_printed"]
    if isinstance(s, pabi.ERMGradientDescent) and s.batch_order == "random":
        # the worst fixed batch (largest sensitivity) bounds a random partition too, less tightly
        ids = {b.id: b.epsilon for b in valid}
        assert ids["erm_random_batch"] == own < ids["erm_fixed_batch"]
        worst = max(s.replace(batch_order="fixed", batch_index=j).epsilon(delta) for j in (1, 5, 10))
        assert ids["erm_fixed_batch"] >= worst
    other = pabi.bounds(s.replace(neighboring="add_remove"), delta)
    assert not any(b.valid for b in other)
    with pytest.raises(TypeError):
        pabi.bounds(object(), delta)  # type: ignore[arg-type]
