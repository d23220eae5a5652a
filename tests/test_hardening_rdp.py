"""Hardening of the Rényi-DP family: every input is validated in the core (DomainError naming
the parameter, with the first bad index for arrays), no size is allocated before it is checked,
no NaN comes back, and the two RDP → DP conversions agree with each other to the last ulp.

Each test pins the exact example of the issue it fixes (regression tests), and checks values
against ``pabi.reference`` (mpmath) or exact values where a value is returned.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import _core
from pabi import reference as ref

INF = math.inf


def domain(param, fn, *args, index=None, **kw):
    """Assert that ``fn(*args, **kw)`` raises DomainError naming ``param`` (and ``index``)."""
    with pytest.raises(pabi.DomainError) as ei:
        fn(*args, **kw)
    assert ei.value.param == param, (str(ei.value), param)
    if index is not None:
        assert ei.value.index == index, (str(ei.value), index)
    return ei.value


def upper(got, exact, rel=1e-12):
    """``got`` is an upper bound of ``exact`` within ``rel`` relative."""
    exact = float(exact)
    assert got >= exact, (got, exact)
    assert got <= exact + rel * abs(exact) + 1e-300, (got, exact)


# ---------------------------------------------------------------- 1. sizes checked before allocation


@pytest.mark.parametrize("n", [10**12, 2**63, 2**64 - 1, 2**26 + 1])
def test_holder_orders_size_cap(n):
    # 10**12 aborted the process ("memory allocation of 8000000000000 bytes failed"), 2**63
    # panicked ("capacity overflow")
    domain("steps", pabi.holder_orders, 2.0, holder_exponent=2.0, steps=n)
    domain("steps", _core.holder_orders, 2.0, 2.0, n, False)


def test_holder_orders_values_and_integer_n():
    b = pabi.holder_orders(2.0, holder_exponent=2.0, steps=4)
    got = [float(x) for x in ref.holder_orders(2.0, 2.0, 4)]
    np.testing.assert_allclose(b, got, rtol=1e-15)
    assert pabi.holder_orders(2.0, holder_exponent=2.0, steps=0).shape == (0,)
    assert pabi.holder_orders(2.0, holder_exponent=2.0, steps=3.0).tolist() == [2.0, 3.0, 5.0]  # an integral float is fine
    # 2.7 was truncated to 2
    for bad in (2.7, -1, math.nan, math.inf, 2**64):
        domain("steps", pabi.holder_orders, 2, holder_exponent=2, steps=bad)
    with pytest.raises(TypeError) as ei:  # a bool is not a count (the conversion rule)
        pabi.holder_orders(2, holder_exponent=2, steps=True)
    assert ei.value.param == "steps"


def test_optimal_residuals_size_cap():
    domain("steps", pabi.optimal_shifts, 10**12, initial_distance=0.1, map_difference=1.0, step_lipschitz=1.2)
    domain("steps", pabi.optimal_shifts, 2**63, initial_distance=0.1, map_difference=1.0, step_lipschitz=1.2)
    domain("steps", pabi.optimal_shifts, 0, initial_distance=0.1, map_difference=1.0, step_lipschitz=1.2)
    domain("steps", pabi.optimal_shifts, 2.5, initial_distance=0.1, map_difference=1.0, step_lipschitz=1.2)


# ---------------------------------------------------------------- 2. every core function validates


def test_core_holder_orders_validates():
    # _core.holder_orders(0.5, 0.5, 3, False) returned NaNs
    domain("order", _core.holder_orders, 0.5, 0.5, 3, False)
    domain("holder_exponent", _core.holder_orders, 2.0, 0.5, 3, False)
    domain("holder_exponent", _core.holder_orders, 2.0, INF, 3, True)  # the printed map's (p − 1)/p was NaN
    domain("order", _core.holder_orders, INF, 2.0, 3, False)
    domain("order", _core.holder_orders, math.nan, 2.0, 3, False)


# ---------------------------------------------------------------- 3. NaN returned / invalid accepted


def test_rdp_compose_inf_is_no_guarantee():
    # [[0.1, 0.2], [inf, 0.4]] gave [nan, 0.6]
    out = pabi.rdp_compose([[0.1, 0.2], [INF, 0.4]])
    assert out[0] == INF
    upper(out[1], ref.rdp_compose([[0.2], [0.4]])[0])
    # finite values whose sum overflows: +inf, not NaN (Neumaier's compensation gave NaN)
    assert pabi.rdp_compose([[1e308], [1e308]])[0] == INF
    domain("rdp", pabi.rdp_compose, [[0.1, 0.2], [math.nan, 0.4]], index=(1, 0))
    domain("rdp", pabi.rdp_compose, [[0.1, -0.2], [0.3, 0.4]], index=(0, 1))


def test_sum_terms_overflow_is_inf():
    assert _core.sum_terms_up(np.array([1e308, 1e308])) == INF


@pytest.mark.parametrize("T", [1, 2, 5])
def test_optimal_residuals_at_l_zero(T):
    # optimal_shifts(5, 1, 1, L=0.0) returned NaNs: L = 0 is the limit of the formula
    got = pabi.optimal_shifts(T, initial_distance=1.0, map_difference=1.0, step_lipschitz=0.0)
    exact = [float(v) for v in ref.optimal_shifts(T, 1.0, 1.0, step_lipschitz=0.0)]
    assert got.tolist() == exact
    assert exact == ([1.0] if T == 1 else [0.0] * T)


def test_optimal_residuals_large_l_no_overflow():
    # Lτ overflowed while a_t for t ≥ 2 is finite
    L, T = 1e300, 3
    got = pabi.optimal_shifts(T, initial_distance=1e10, map_difference=1.0, step_lipschitz=L)
    exact = ref.optimal_shifts(T, 1e10, 1.0, step_lipschitz=L)
    assert got[0] == INF and mp.mpf(exact[0]) > mp.mpf('1.8e308')
    for g, e in zip(got[1:], exact[1:]):
        assert abs(g - float(e)) <= 1e-12 * float(e)


def test_cyclic_calibration_overflow():
    # cyclic_calibrate(8, 1, weak_convexity=1e308, smoothness=2, ...) returned (0.0, inf, nan)
    domain("weak_convexity", pabi.cyclic_calibrate, 8, 1, weak_convexity=1e308, smoothness=2, max_grad_norm=1,
           batch_size=10, epochs=5)
    domain("smoothness", pabi.cyclic_calibrate, 8, 1, weak_convexity=1.0, smoothness=1e308, max_grad_norm=1,
           batch_size=10, epochs=5)
    # ρλ̄ underflows: ℓ̄ would be inf
    domain("weak_convexity", pabi.cyclic_calibrate, 8, 1, weak_convexity=5e-324, smoothness=1.0, max_grad_norm=1,
           batch_size=10, epochs=5)
    # σ̄ overflows (α/ε = inf)
    domain("rdp", pabi.cyclic_calibrate, 1e300, 1e-320, weak_convexity=1.0, smoothness=1.0, max_grad_norm=1.0,
           batch_size=1, epochs=5)
    # near the largest accepted M + ρ the values are finite and right
    for args in [(8.0, 1.0, 1e307, 2.0, 1.0, 10, 5), (8.0, 1.0, 0.5, 2.0, 1.0, 10, 10**15)]:
        kw = dict(zip(("weak_convexity", "smoothness", "max_grad_norm", "batch_size", "epochs"), args[2:]))
        lam, ell, sig = pabi.cyclic_calibrate(*args[:2], **kw)
        rl, re, rs = ref.cyclic_calibrate(*args)
        assert abs(lam - float(rl)) <= 1e-15 * float(rl)
        upper(ell, re)
        upper(sig, rs)


def test_hoeffding_tiny_j():
    # hoeffding_sample_size_ln(8, 1, 2, .1, 5e-324) returned NaN (2/J overflowed)
    got = pabi.hoeffding_sample_size(8, rdp=1, rdp_bound=2, tolerance=0.1, failure_prob=5e-324, log=True)
    exact = ref.hoeffding_sample_size(8, 1, 2, 0.1, 5e-324, log=True)
    assert got >= float(exact) and got - float(exact) <= 1e-12 * abs(float(exact))
    domain("rdp", pabi.hoeffding_sample_size, 1e308, rdp=1e308, rdp_bound=1.0, tolerance=0.1, failure_prob=0.05, log=True)
    domain("rdp_bound", pabi.hoeffding_sample_size, 1e300, rdp=1.0, rdp_bound=1e10, tolerance=0.1, failure_prob=0.05)


def test_general_update_rdp_sigma_and_alpha():
    inner = [[[[1.0], [1.0], [1.0]]]]
    # sigma = 5e-324 returned NaN (2σ² = 0)
    domain("noise_scale", pabi.general_update_rdp, 3, noise_scale=5e-324, updates_second=[[0.0]], updates_first=inner)
    domain("noise_scale", pabi.general_update_rdp, 3, noise_scale=1e300, updates_second=[[0.0]], updates_first=inner)
    # α = 3.7 was truncated to 3
    domain("order", pabi.general_update_rdp, 3.7, noise_scale=1.0, updates_second=[[0.0]], updates_first=inner)
    domain("order", pabi.general_update_rdp, 1, noise_scale=1.0, updates_second=[[0.0]], updates_first=[[[[1.0]]]])
    # differences beyond the squares' range: +inf (no finite bound), never NaN
    assert pabi.general_update_rdp(3, noise_scale=1.0, updates_second=[[-1e300]], updates_first=[[[[1e300], [1e300], [1e300]]]]) == INF
    got = pabi.general_update_rdp(3, noise_scale=1.0, updates_second=[[0.0]], updates_first=inner)
    upper(got, ref.general_update_rdp(3, 1.0, [[0.0]], inner))


def test_general_update_rdp_core_shape_overflow():
    # B·J·α·d overflowed usize (a wrapped product could match the array length)
    with pytest.raises(ValueError):
        _core.general_update_rdp(2**62, 1.0, np.zeros(1), np.zeros(4), 1, 4, 1)


def test_dpsgd_per_instance_p_and_ucb():
    s = np.full((3, 2), 0.5)
    domain("holder_exponent", pabi.dpsgd_per_instance_rdp, 8, sample_rate=0.01, noise_scale=1, sensitivities=s, holder_exponent=INF)
    domain("holder_exponent", pabi.dpsgd_per_instance_rdp, 8, sample_rate=0.01, noise_scale=1, sensitivities=s, holder_exponent=math.nan)
    # max_sensitivity=nan without confidence was silently ignored
    domain("max_sensitivity", pabi.dpsgd_per_instance_rdp, 8, sample_rate=0.01, noise_scale=1, sensitivities=s, max_sensitivity=math.nan)
    domain("max_sensitivity", pabi.dpsgd_per_instance_rdp, 8, sample_rate=0.01, noise_scale=1, sensitivities=s, max_sensitivity=1.0)
    domain("failure_prob", pabi.dpsgd_per_instance_rdp, 8, sample_rate=0.01, noise_scale=1, sensitivities=s, failure_prob=0.1)
    domain("max_sensitivity", pabi.dpsgd_per_instance_rdp, 8, sample_rate=0.01, noise_scale=1, sensitivities=s, failure_prob=0.1, max_sensitivity=math.nan)
    v = pabi.dpsgd_per_instance_rdp(8, sample_rate=0.01, noise_scale=1, sensitivities=s, failure_prob=0.1, max_sensitivity=1.0)
    assert math.isfinite(v) and v >= pabi.dpsgd_per_instance_rdp(8, sample_rate=0.01, noise_scale=1, sensitivities=s)


def test_dpsgd_table_memory_is_capped():
    # orders spread over [2, 1e5] across 1e5 steps asked for ~8e8 binomial-table entries
    # (6.5 GB) before computing anything: refused up front with an explanation
    with pytest.raises(ValueError, match="binomial-table entries"):
        pabi.dpsgd_per_instance_rdp(2.0, sample_rate=0.01, noise_scale=1.0, sensitivities=np.full((100000, 1), 0.5), holder_exponent=8700.0)


def test_dpsgd_core_shape_overflow():
    with pytest.raises(ValueError):
        _core.dpsgd_per_instance_terms(8.0, 0.01, 1.0, np.zeros(2), 2**63, 2, 3.0, False)


def test_holder_composition_alpha_inf():
    # holder_composition_bound(alpha=inf) returned NaN
    domain("order", pabi.holder_composition_bound, INF, holder_exponent=2.0, divergences=[[0.5], [0.5]])
    domain("holder_exponent", pabi.holder_composition_bound, 2.0, holder_exponent=INF, divergences=[[0.5], [0.5]])
    # an order map overflowing the doubles (t = p(β − 1) = inf): an error, not NaN
    with pytest.raises(ValueError, match="order map"):
        pabi.holder_composition_bound(2.0, holder_exponent=1.0 + 1e-15, divergences=np.full((3000, 1), 0.5))
    assert pabi.holder_composition_bound(2.0, holder_exponent=2.0, divergences=[[INF], [0.5]]) == INF
    upper(pabi.holder_composition_bound(2.0, holder_exponent=2.0, divergences=[[0.5], [0.5]]), ref.holder_composition_bound(2.0, 2.0, [[0.5], [0.5]]))


def test_profile_to_rdp_domain():
    domain("order", pabi.profile_to_rdp, INF, eps=[0.0, 1.0], delta=[0.5, 0.0])
    domain("order", pabi.profile_to_rdp, math.nan, eps=[0.0, 1.0], delta=[0.5, 0.0])
    domain("delta", pabi.profile_to_rdp, 2.0, eps=[0.0, 1.0], delta=[math.nan, 0.0], index=0)
    domain("delta", pabi.profile_to_rdp, 2.0, eps=[0.0, 1.0, 2.0], delta=[0.5, 0.6, 0.0], index=1)
    domain("eps", pabi.profile_to_rdp, 2.0, eps=[0.0, INF], delta=[0.5, 0.0], index=1)
    # huge α: ln(α(α − 1)) as a sum of logs (α(α − 1) overflowed to a spurious +inf)
    v = pabi.profile_to_rdp(1e200, eps=[0.0, 1e-300], delta=[1e-10, 0.0])
    assert math.isfinite(v)


def test_profile_to_rdp_tiny_cells_are_counted():
    # (α − 1)h underflowed to 0 and log_expm1(0) = −inf dropped the cell: below the exact value
    a, h, d = 1.0 + 2.0**-52, 1e-300, 0.5
    got = pabi.profile_to_rdp(a, eps=[0.0, h], delta=[d, 0.0])
    with mp.workdps(60):
        am1, aa, hh = mp.mpf(a) - 1, mp.mpf(a), mp.mpf(h)
        integral = d * (mp.expm1(am1 * hh) / am1 + -mp.expm1(-aa * hh) / aa)
        exact = mp.log1p(aa * am1 * integral) / am1
    assert got >= exact and got <= exact * (1 + 1e-9)


def test_rdp_to_dp_domain():
    domain("orders", pabi.rdp_to_dp_epsilon, orders=[2.0, INF], rdp=[0.1, 0.2], delta=1e-5, index=1)
    domain("orders", pabi.rdp_to_dp_delta, orders=[1.0, 2.0], rdp=[0.1, 0.2], eps=1.0, index=0)
    domain("rdp", pabi.rdp_to_dp_delta, orders=[2.0, 3.0], rdp=[0.1, math.nan], eps=1.0, index=1)
    domain("rdp", pabi.rdp_to_dp_epsilon, orders=[2.0, 3.0], rdp=[-0.1, 0.2], delta=1e-5, index=0)
    # eps = +inf is in the domain: delta(inf) = 0 at any order with a finite RDP value, else 1
    assert pabi.rdp_to_dp_delta(INF, orders=[2.0], rdp=[0.1]) == (0.0, 2.0)
    assert pabi.rdp_to_dp_delta(INF, orders=[2.0, 3.0], rdp=[INF, INF]) == (1.0, 2.0)
    domain("eps", pabi.rdp_to_dp_delta, orders=[2.0], rdp=[0.1], eps=-1.0)
    domain("delta", pabi.rdp_to_dp_epsilon, orders=[2.0], rdp=[0.1], delta=0.0)
    domain("delta", pabi.rdp_to_dp_epsilon, orders=[2.0], rdp=[0.1], delta=1.0)
    # +inf RDP is "no guarantee" at that order: skipped; all +inf: ε = inf, δ = 1
    for m in ("tight", "classical"):
        assert pabi.rdp_to_dp_epsilon(1e-5, orders=[2.0, 3.0], rdp=[INF, INF], conversion=m)[0] == INF
        assert pabi.rdp_to_dp_delta(1.0, orders=[2.0, 3.0], rdp=[INF, INF], conversion=m)[0] == 1.0
        assert pabi.rdp_to_dp_epsilon(1e-5, orders=[2.0, 3.0], rdp=[INF, 0.5], conversion=m) == pabi.rdp_to_dp_epsilon(1e-5, orders=[3.0], rdp=[0.5], conversion=m)


def test_holder_orders_integer_required():
    # holder_orders(2, 2, 2.7) returned 2 orders
    domain("steps", pabi.holder_orders, 2, holder_exponent=2, steps=2.7)


def test_other_underflow_nans():
    # σ² underflowed: α/(2σ²) = inf met a zero bracket (inf·0 = NaN); now the exact 0
    assert pabi.gaussian_mechanism_rdp(2.0, sensitivity=0.0, noise_scale=1e-170) == 0.0
    assert pabi.averaged_rdp(2.0, noise_scale=1e-170, sensitivities=[0.0, 0.0]) == 0.0
    assert pabi.shifted_drift_bound(2.0, noise_scale=1e-170, drift=0.0, steps=10, batches_per_epoch=5,
                                    map_difference=0.0) == 0.0
    assert pabi.last_iterate_rdp_bounded(2.0, lr=0.1, max_grad_norm=0.0, batch_size=10, noise_scale=1e-170,
                                         diameter=0.0, weak_convexity=0.0, smoothness=0.0) == 0.0
    assert pabi.shifted_cycle_bound(2.0, noise_scale=1e-170, steps=10, batches_per_epoch=5, map_difference=0.0,
                                    step_lipschitz=1.0) == 0.0
    # ... and a positive value that underflows is not 0 (an upper bound must stay above it)
    assert pabi.gaussian_mechanism_rdp(2.0, sensitivity=1e-200, noise_scale=1.0) > 0.0
    assert pabi.last_iterate_rdp_general(2.0, lr=1e-100, max_grad_norm=1e-100, noise_scale=1.0, steps=10) > 0.0
    # C_{δ,σ} = inf (σ tiny) times a zero sensitivity: ε = 0, valid
    assert pabi.gaussian_mechanism_epsilon(1e-5, noise_scale=5e-324, sensitivity=0.0) == 0.0
    # 1.25/δ overflowed for tiny δ: C was +inf
    got = pabi.gaussian_dp_constant(5e-324, 1.0)
    upper(got, ref.gaussian_dp_constant(5e-324, 1.0), 1e-13)
    # the gap ημ underflows: (1 − ρ^{km})/(1 − ρ^m) was 0/0 = NaN; the bound is k·(2ηR/|B|)
    v = pabi.sensitivity_multi_epoch(lr=1e-200, strong_convexity=1e-200, smoothness=1e-200, max_grad_norm=1.0,
                                     batch_size=1.0, batches_per_epoch=2, batch_index=1, epochs=3)
    assert v >= 3 * 2e-200 and v <= 3 * 2e-200 * (1 + 1e-12)
    # k·m ≥ 2^64 overflowed the u64 product
    v = pabi.sensitivity_multi_epoch(lr=0.5, strong_convexity=1.0, smoothness=1.0, max_grad_norm=1.0, batch_size=1.0,
                                     batches_per_epoch=2**40, batch_index=1, epochs=2**40)
    assert math.isfinite(v)


def test_sampled_gaussian_sigma_finite():
    # sensitivity = sigma = inf gave r = NaN, silently read as ε = 0
    domain("noise_scale", pabi.sampled_gaussian_rdp_per_instance, 2, sample_rate=0.5, sensitivity=INF, noise_scale=INF)
    domain("noise_scale", pabi.sampled_gaussian_rdp_per_instance, [2, 2], sample_rate=0.5, sensitivity=1.0, noise_scale=[1.0, INF], index=1)
    domain("noise_multiplier", pabi.sampled_gaussian_rdp, 2, sample_rate=0.5, noise_multiplier=INF)
    assert pabi.sampled_gaussian_rdp_per_instance(2, sample_rate=0.5, sensitivity=INF, noise_scale=1.0) == INF


def test_closed_forms_extreme_factors():
    # α·T overflowed and met a zero clip / ζ (inf·0 = NaN), found by fuzzing the family
    assert pabi.last_iterate_rdp_general(1e300, lr=1.5, max_grad_norm=0.0, noise_scale=0.5, steps=2**40) == 0.0
    assert pabi.shifted_drift_bound(1.7e308, noise_scale=1.5, drift=0.0, steps=2**40, variant="as_published") == 0.0
    assert pabi.last_iterate_rdp_general(1.7e308, lr=3.0, max_grad_norm=1e-300, noise_scale=1.7e308, steps=10,
                                         batch_size=2, batches_per_epoch=1) >= 0.0
    # b·σ overflowed in the divisor: the value is computed from logarithms instead
    got = pabi.last_iterate_rdp_cyclic(1.5, lr=1e10, max_grad_norm=2.0, batch_size=2**40, noise_scale=1.7e308,
                                       steps=2**40, batches_per_epoch=2**40, weak_convexity=5e-324, smoothness=5e-324)
    with mp.workdps(40):
        x = mp.mpf(1e10) * 2 / (mp.mpf(2**40) * mp.mpf(1.7e308))
        unit = mp.mpf(1.5) * x**2
    assert math.isfinite(got) and got >= unit * 2  # 2α(λC/(bσ))²Φ with Φ ≥ 1
    # a value below the double range is not returned as 0 (an upper bound must stay above it)
    v = pabi.gaussian_mechanism_rdp(1e300, sensitivity=1e-200, noise_scale=1.0)
    upper(v, ref.gaussian_mechanism_rdp(1e300, 1e-200, 1.0), 1e-12)
    v = pabi.last_iterate_rdp_general(1e300, lr=1e-100, max_grad_norm=1e-100, noise_scale=1.0, steps=10**6)
    upper(v, ref.last_iterate_rdp_general(1e300, 1e-100, 1e-100, 1.0, 10**6), 1e-12)
    # the Hoeffding term of the upper-confidence composition was log_add_exp(inf, inf) = NaN
    v = pabi.dpsgd_per_instance_rdp(2.0, sample_rate=0.5, noise_scale=5e-324, sensitivities=[[1e-300], [0.5]], failure_prob=0.1, max_sensitivity=1.0)
    assert v == INF


def test_theta_subnormal_u():
    # u = log1p(κ) subnormal: the quotient of two subnormal expm1 values was off by up to 25%
    # (θ at s = 2.6 came out below the exact value)
    for s in (2.6, 3.0, 7.5):
        got = pabi.shift_weight(s, kappa=5e-324)
        with mp.workdps(60):
            exact = 1 / mp.mpf(s)  # u ~ 5e-324: θ = (1/s)(1 + O(u))
        assert got >= exact and got <= exact * (1 + 1e-13)


# ---------------------------------------------------------------- 4. theorem conditions and names


def test_l_lambda_kappa_step_condition():
    domain("lr", pabi.clipped_step_kappa, 1.0, weak_convexity=1.0, smoothness=2.0)
    domain("lr", pabi.clipped_step_kappa, 0.3, weak_convexity=0.0, smoothness=2.0, contraction="as_published")
    # the double 1/(2(m + M)) itself is accepted (a caller's λ̄), and m = M = 0 allows any λ
    for lam, m, M in [(1 / (2 * 3.0), 1.0, 2.0), (0.1, 1.0, 4.0), (5.0, 0.0, 0.0)]:
        for model in ("triangle", "as_published"):
            upper(pabi.clipped_step_kappa(lam, weak_convexity=m, smoothness=M, contraction=model),
                  ref.clipped_step_kappa(lam, m, M, contraction=model), 1e-13)
    # array input: first bad index
    domain("lr", pabi.clipped_step_kappa, [0.1, 0.2, 0.1], weak_convexity=1.0, smoothness=2.0, index=1)


def test_theta_min_steps_names_l():
    # shift_weight_min_steps(L=huge) failed with a message about kappa
    got = pabi.shift_weight_min_steps(2.0, step_lipschitz=1e200)
    upper(got, ref.shift_weight_min_steps(2.0, step_lipschitz=1e200), 1e-13)
    got = pabi.shift_weight_min_steps(2.0, step_lipschitz=1.5)
    upper(got, ref.shift_weight_min_steps(2.0, step_lipschitz=1.5), 1e-13)
    e = domain("step_lipschitz", pabi.shift_weight_min_steps, 2.0, step_lipschitz=1.0)
    assert "kappa" not in str(e)
    domain("step_lipschitz", pabi.shift_weight_min_steps, 2.0, step_lipschitz=INF)
    domain("step_lipschitz", pabi.shift_weight_min_steps, 2.0, step_lipschitz=[2.0, 0.5], index=1)
    domain("kappa", pabi.shift_weight_min_steps, 2.0, kappa=0.0)
    upper(pabi.shift_weight_min_steps(2.0, kappa=3.0), ref.shift_weight_min_steps(2.0, kappa=3.0), 1e-13)


def test_parameter_names():
    domain("batch_size", pabi.sensitivity_multi_epoch, lr=0.5, strong_convexity=1.0, smoothness=1.0, max_grad_norm=1.0,
           batch_size=0.0, batches_per_epoch=1, batch_index=1)
    domain("batches_per_epoch", pabi.sensitivity_multi_epoch, lr=0.5, strong_convexity=1.0, smoothness=1.0,
           max_grad_norm=1.0, batch_size=1.0, batches_per_epoch=0, batch_index=1)
    domain("batches_per_epoch", pabi.shifted_cycle_bound, 2.0, noise_scale=1.0, steps=10, batches_per_epoch=0,
           map_difference=1.0, step_lipschitz=1.0)
    domain("batches_per_epoch", pabi.last_iterate_rdp_small_step, 2.0, max_grad_norm=1.0, batch_size=1,
           noise_scale=1.0, batches_per_epoch=0, lr=0.1, weak_convexity=0.0, smoothness=0.0)
    domain("batches_per_epoch", pabi.last_iterate_rdp_general, 2.0, lr=0.1, max_grad_norm=1.0, noise_scale=1.0,
           steps=100, batch_size=10, batches_per_epoch=0)


def test_mixture_index():
    # a bad element had no index
    domain("rdp", pabi.mixture_rdp_bound, 2.0, weights=[0.5, 0.5], rdp=[0.0, -1.0], index=1)
    domain("rdp", pabi.mixture_rdp_bound, 2.0, weights=[[0.5, 0.5], [0.5, 0.5]], rdp=[[0.0, 1.0], [0.0, math.nan]],
           index=(1, 1))
    domain("weights", pabi.mixture_rdp_bound, 2.0, weights=[0.5, 1.5], rdp=[0.0, 1.0], index=1)
    upper(pabi.mixture_rdp_bound(2.0, weights=[0.5, 0.5], rdp=[0.0, 1.0]),
          ref.mixture_rdp_bound(2.0, [0.5, 0.5], [0.0, 1.0]))


def test_optional_integer_index_is_int_for_1d():
    # "index (2,)" for 1-D input
    e = domain("epochs", pabi.sensitivity_multi_epoch, lr=0.5, strong_convexity=1, smoothness=1, max_grad_norm=1,
               batch_size=1, batches_per_epoch=1, batch_index=1, epochs=[1, 2, math.nan], index=2)
    assert "(2,)" not in str(e)
    gen = dict(lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100, batch_size=10, batches_per_epoch=10)
    first_use = lambda t: (lambda: pabi.last_iterate_rdp_general(2.0, **gen, index=t))  # noqa: E731
    e = domain("index", first_use([1, 2, math.nan]), index=2)
    assert "(2,)" not in str(e)
    domain("index", first_use([1, 2, 0]), index=2)
    domain("index", first_use([[1, 2], [math.nan, 1]]), index=(1, 0))


# ---------------------------------------------------------------- 5. the conversions agree


ORDERS = [1.5, 2.0, 3.0, 8.0, 32.0]


@pytest.mark.parametrize("method", ["tight", "classical"])
def test_zero_curve_means_equal_distributions(method):
    # δ was 1 at ε = 0 while the inversion gave ε = 0 (1.2e-15 after rounding)
    zero = np.zeros(len(ORDERS))
    for eps in (0.0, 5e-324, 1e-10, 1.0, 100.0):
        assert pabi.rdp_to_dp_delta(eps, orders=ORDERS, rdp=zero, conversion=method)[0] == 0.0
    for delta in (5e-324, 1e-10, 0.5, 0.999):
        assert pabi.rdp_to_dp_epsilon(delta, orders=ORDERS, rdp=zero, conversion=method)[0] == 0.0
    # one zero order is enough: D_α = 0 means P = Q
    curve = [0.3, 0.0, 1.0, 2.0, 5.0]
    assert pabi.rdp_to_dp_delta(0.0, orders=ORDERS, rdp=curve, conversion=method) == (0.0, 2.0)
    assert pabi.rdp_to_dp_epsilon(1e-9, orders=ORDERS, rdp=curve, conversion=method) == (0.0, 2.0)


def _random_curve(rng):
    k = int(rng.integers(1, 8))
    orders = np.sort(1 + np.exp(rng.uniform(-5, 6, k)))
    rdp = np.exp(rng.uniform(-12, 4, k))
    if rng.random() < 0.15:
        rdp[-1] = INF
    return orders, rdp


@pytest.mark.parametrize("method", ["tight", "classical"])
def test_conversions_consistent_and_monotone(method):
    rng = np.random.default_rng(20261126)
    for _ in range(150):
        orders, rdp = _random_curve(rng)
        delta = float(np.exp(rng.uniform(-40, -0.01)))
        e, a = pabi.rdp_to_dp_epsilon(delta, orders=orders, rdp=rdp, conversion=method)
        er, _ = ref.rdp_to_dp_epsilon(list(orders), list(rdp), delta, conversion=method)
        if math.isinf(er):
            assert e == INF
        else:
            assert e >= float(er) and e - float(er) <= 1e-12 * float(er) + 1e-300
        if math.isfinite(e):
            # δ(ε(δ)) ≤ δ, and ε(δ) is the smallest such double
            assert pabi.rdp_to_dp_delta(e, orders=orders, rdp=rdp, conversion=method)[0] <= delta
            if e > 0:
                assert pabi.rdp_to_dp_delta(float(np.nextafter(e, 0)), orders=orders, rdp=rdp, conversion=method)[0] > delta
        eps = float(np.exp(rng.uniform(-8, 3)))
        d, _ = pabi.rdp_to_dp_delta(eps, orders=orders, rdp=rdp, conversion=method)
        dr, _ = ref.rdp_to_dp_delta(list(orders), list(rdp), eps, conversion=method)
        assert d >= float(dr) and d - float(dr) <= 1e-12 * float(dr) + 1e-300
        # non-increasing in ε on consecutive doubles
        x, prev = eps, d
        for _ in range(40):
            x = float(np.nextafter(x, INF))
            dn = pabi.rdp_to_dp_delta(x, orders=orders, rdp=rdp, conversion=method)[0]
            assert dn <= prev, (orders, rdp, x, dn, prev)
            prev = dn
        # and ε(δ) non-increasing in δ on consecutive doubles
        y, prev_e = delta, e
        for _ in range(10):
            y = float(np.nextafter(y, 1.0))
            en = pabi.rdp_to_dp_epsilon(y, orders=orders, rdp=rdp, conversion=method)[0]
            assert en <= prev_e
            prev_e = en


@pytest.mark.parametrize("method", ["tight", "classical"])
def test_delta_monotone_near_kl_switch_and_zero(method):
    # ε = 0 and its neighbours (the KL rule is flat, the CKS branch decreasing)
    rng = np.random.default_rng(7)
    for _ in range(50):
        orders, rdp = _random_curve(rng)
        x, prev = 0.0, pabi.rdp_to_dp_delta(0.0, orders=orders, rdp=rdp, conversion=method)[0]
        for _ in range(30):
            x = float(np.nextafter(x, INF))
            dn = pabi.rdp_to_dp_delta(x, orders=orders, rdp=rdp, conversion=method)[0]
            assert dn <= prev
            prev = dn
