"""Hypothesis properties of the engine (identities, monotonicity, limits, no NaN)."""

import math

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

import pabi
from _engine_fns import log_theta, log_theta_complement

eps_st = st.floats(min_value=0.0, max_value=700.0, allow_nan=False)
r_st = st.floats(min_value=1e-7, max_value=1e3, allow_nan=False)
any_nonneg = st.floats(min_value=0.0, allow_nan=False, allow_infinity=True)
REL = 1e-13


@given(st.floats(min_value=-40, max_value=40, allow_nan=False))
def test_tail_symmetry(t):
    assert abs(pabi.gaussian_tail(t) + pabi.gaussian_tail(-t) - 1.0) <= 4 * 2.0**-53


@given(eps_st, r_st)
@example(10.0, 10.0)  # a = -4 = -c: theta came out as 1 (CI, fixed in the kernel)
def test_theta_in_unit_interval_and_complement_sums_to_one(e, r):
    th, co = pabi.theta(e, r), pabi.theta_complement(e, r)
    assert 0.0 <= th <= 1.0 and 0.0 <= co <= 1.0
    # theta is rounded up and the complement down, each by at most ~2e-14 relative
    assert abs(th + co - 1.0) <= 3e-14


@given(eps_st, eps_st, r_st)
def test_theta_decreasing_in_eps(e1, e2, r):
    lo, hi = min(e1, e2), max(e1, e2)
    assert pabi.theta(hi, r) <= pabi.theta(lo, r) * (1 + REL)
    assert pabi.theta(hi, r, log=True) <= pabi.theta(lo, r, log=True) + REL * max(1.0, abs(pabi.theta(lo, r, log=True)))


@given(eps_st, r_st, r_st)
def test_theta_increasing_in_r(e, r1, r2):
    lo, hi = min(r1, r2), max(r1, r2)
    assert pabi.theta(e, lo) <= pabi.theta(e, hi) * (1 + REL)
    assert pabi.theta_complement(e, hi) <= pabi.theta_complement(e, lo) * (1 + REL)


@given(r_st)
def test_theta_at_eps_zero_is_total_variation(r):
    # theta_1(r) = TV(N(r,1), N(0,1)) = 1 - 2 Q(r/2)
    tv = 1.0 - 2.0 * pabi.gaussian_tail(r / 2)
    assert abs(pabi.theta(0.0, r) - tv) <= 3e-14 * tv + 4e-16


@given(eps_st, r_st)
def test_log_theta_consistent_with_theta(e, r):
    th = pabi.theta(e, r)
    if th > 1e-300:
        assert abs(math.log(th) - pabi.theta(e, r, log=True)) <= 1e-13 * max(1.0, abs(math.log(th)))


@settings(max_examples=300)
@given(any_nonneg, any_nonneg)
def test_never_nan_for_valid_input(e, r):
    if math.isinf(e) and math.isinf(r):
        return
    for f in (pabi.theta, log_theta, pabi.theta_complement, log_theta_complement,
              pabi.laplace_theta, pabi.laplace_theta_complement):
        v = f(e, r)
        assert not math.isnan(v), (f.__name__, e, r)


@given(st.floats(min_value=-0.36787944117144233, max_value=1e300, allow_nan=False))
def test_lambertw_inverts_w_exp_w(x):
    w = pabi.lambertw(x)
    assert w >= -1.0
    if w < 700:  # w e^w representable; exp(w) of a rounded w costs ~(1 + w) ulp
        back = w * math.exp(w)
        assert abs(back - x) <= (4 + 2 * abs(w)) * 2.0**-52 * abs(x) + 1e-300
    else:  # compare logs: ln w + w = ln x
        assert abs(math.log(w) + w - math.log(x)) <= 1e-14 * math.log(x)


@given(st.floats(min_value=-700, max_value=1e300, allow_nan=False))
def test_wright_omega_solves_w_plus_log_w(x):
    w = pabi.wright_omega(x)
    assert w > 0
    assert abs(w + math.log(w) - x) <= 1e-14 * max(1.0, abs(x)) + 2e-16 * w


def test_vectorized_equals_scalar_calls():
    rng = np.random.default_rng(5)
    e, r = rng.uniform(0, 20, 64), 10 ** rng.uniform(-5, 2, 64)
    arr = pabi.theta(e, r, log=True)
    assert [pabi.theta(float(a), float(b), log=True) for a, b in zip(e, r)] == arr.tolist()
