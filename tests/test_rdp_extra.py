"""Scalar RDP helpers: classical Gaussian mechanism and amplification
(docs/derivations/rdp.md#lp-per-instance), Thm 3.6, weak triangle / unlearning keep-rule
(docs/errata.md#r-t8), last iterate of cyclic
DP-SGD (Kong–Ribero, docs/errata.md#r-k1, #r-k3, #r-k4, #r-k11), ERM output perturbation
(paper 001, docs/derivations/rdp.md#erm)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import reference as ref


def rel(a, b) -> float:
    b = mp.mpf(b)
    return float(abs((mp.mpf(a) - b) / b)) if b != 0 else abs(a)


def test_gaussian_mechanism_validity_flag():
    c = pabi.gaussian_dp_constant(1e-5, 2.0)
    assert c == pytest.approx(math.sqrt(2 * math.log(1.25e5)) / 2.0, rel=1e-13)
    assert pabi.gaussian_mechanism_epsilon(1e-5, noise_scale=10.0, sensitivity=1.0) <= 1
    with pytest.raises(ValueError, match="only valid for eps <= 1"):
        pabi.gaussian_mechanism_epsilon(1e-5, noise_scale=0.5, sensitivity=1.0)
    e = pabi.gaussian_mechanism_epsilon(1e-5, noise_scale=0.4845, sensitivity=1.0, allow_invalid=True)
    assert e == pytest.approx(10.0, rel=1e-3)
    assert pabi.theta(e, 1 / 0.4845) > 1e-5  # C16: the classical calibration fails at eps = 10


def test_amplification_stable():
    e, d = pabi.amplify_by_sampling(1e-10, delta=1e-6, sample_rate=1e-8)  # C15: naive has the wrong sign
    assert e == pytest.approx(1e-18, rel=1e-9) and e > 0 and d == pytest.approx(1e-14)
    assert pabi.amplify_by_sampling(3.0, delta=0.0, sample_rate=1.0)[0] == pytest.approx(3.0, rel=1e-13)
    assert pabi.amplify_by_sampling(3.0, delta=0.0, sample_rate=0.0)[0] == 0.0
    big, _ = pabi.amplify_by_sampling(800.0, delta=0.0, sample_rate=0.5)
    assert big == pytest.approx(800 + math.log(0.5), rel=1e-13)


def test_lp_per_instance_against_reference_and_limit():
    sens = [0.01, 0.02, 0.05, 0.03]
    for p in (2.0, 10.0, 1e4):
        e, d = pabi.lp_per_instance_epsilon_delta(1e-6, 1e-6, sample_rate=0.01, lp_exponent=p, noise_scale=20.0, sensitivities=sens)
        er, dr = ref.lp_per_instance_epsilon_delta(0.01, p, 1e-6, 1e-6, 20.0, sens)
        assert mp.mpf(e) >= er and rel(e, er) < 1e-12 and rel(d, dr) < 1e-13
    # p -> inf tends to the classical amplified value for a constant sensitivity (C15)
    c = pabi.gaussian_dp_constant(1e-6, 20.0)
    classical = math.log1p(0.01 * math.expm1(c * 0.05))
    e_inf, _ = pabi.lp_per_instance_epsilon_delta(1e-6, 1e-6, sample_rate=0.01, lp_exponent=1e7, noise_scale=20.0, sensitivities=[0.05])
    assert classical <= e_inf <= classical * 1.01
    with pytest.raises(ValueError, match="calibration is not valid"):
        pabi.lp_per_instance_epsilon_delta(1e-5, 1e-6, sample_rate=0.01, lp_exponent=2.0, noise_scale=0.5, sensitivities=[1.0])
    with pytest.raises(ValueError, match=r"sensitivities.*index 1"):
        pabi.lp_per_instance_epsilon_delta(1e-5, 1e-6, sample_rate=0.01, lp_exponent=2.0, noise_scale=10.0, sensitivities=[0.1, -1.0])


def test_weak_triangle_and_keep_rule_t8():
    assert pabi.weak_triangle_bound(2.0, holder_exponent=2.0, divergence_pq=1.0, divergence_qr=0.5) == pytest.approx(2.0, rel=1e-13)
    # C18: at alpha = 1.5 the printed rule keeps an output with D = 6.75 > beta = 0.1
    assert pabi.unlearning_keep(1.5, threshold=0.1, divergence_previous=6.75, divergence_step=0.0, variant="as_published") is True
    assert pabi.unlearning_keep(1.5, threshold=0.1, divergence_previous=6.75, divergence_step=0.0) is False
    assert pabi.unlearning_keep(3.0, threshold=1.0, divergence_previous=0.2, divergence_step=0.5) is True  # 1.25*0.2 + 0.5 = 0.75 <= 1
    with pytest.raises(ValueError, match="undefined"):
        pabi.unlearning_keep(2.0, threshold=0.1, divergence_previous=0.0, divergence_step=0.0, variant="as_published")


@pytest.mark.parametrize("L,s", [(1.0, 7), (1.5, 1000), (0.7, 50), (1 + 1e-10, 10**6 // 1000), (2.0, 3)])
def test_theta_l_against_definition(L, s):
    v = pabi.shift_weight(s, step_lipschitz=L)
    e = ref.shift_weight(L, s)
    assert mp.mpf(v) >= e * (1 - mp.mpf(2) ** -52) and rel(v, e) < 1e-12


@pytest.mark.parametrize("L,s", [(0.11326443031205452, 18), (0.14820247125875277, 54), (0.3, 200),
                                 (0.05, 40), (0.9, 1000)])
def test_theta_l_from_small_l_is_an_upper_bound(L, s):
    """L < 1 given as L: never below the exact value (through κ = L² − 1 to nearest it was −3e-14
    at these first two points, found by tools/rdp_accuracy_report.py; κ ≈ −1 also lost 1e-16/L²
    of L²), and within 1e-12: the core carries u = ln L² = 2 ln L, rounded up."""
    v = pabi.shift_weight(s, step_lipschitz=L)
    e = ref.shift_weight(L, s)
    assert mp.mpf(v) >= e, (v, e)
    assert rel(v, e) <= 1e-12


def test_theta_l_kappa_near_one_and_properties():
    # C19: L rounds to 1 but kappa carries the information
    kap = 1e-17
    v = pabi.shift_weight(1000, kappa=kap)
    with mp.workdps(60):
        e = ref.shift_weight(mp.sqrt(1 + mp.mpf(kap)), 1000, dps=60)
    assert rel(v, e) < 1e-12
    assert pabi.shift_weight(1, step_lipschitz=3.0) == 1.0 and pabi.shift_weight(0, step_lipschitz=3.0) == 0.0
    vals = [pabi.shift_weight(s, step_lipschitz=1.3) for s in range(1, 60)]
    assert all(np.diff(vals[:30]) < 0) and all(np.diff(vals) < 1e-14) and vals[-1] >= 1 - 1.3**-2  # decreasing, limit 1 - L^-2
    assert pabi.cyclic_shift_weight_sum(17, batches_per_epoch=1, step_lipschitz=1.2) == pytest.approx(17.0)
    assert pabi.cyclic_shift_weight_sum(12, batches_per_epoch=5, step_lipschitz=1.0) == pytest.approx(2 / 5 + 1 / 2,
                                                                                                      rel=1e-13)


def test_l_lambda_models_k1():
    # eq. (12) remark values (C24): L(1/(2m); m, 0) = sqrt(3)
    k = pabi.clipped_step_kappa(0.5, weak_convexity=1.0, smoothness=0.0, contraction="as_published")
    assert math.sqrt(1 + k) == pytest.approx(math.sqrt(3), rel=1e-13)
    assert pabi.clipped_step_kappa(0.1, weak_convexity=0.0, smoothness=5.0, contraction="as_published") == 0.0
    # proven triangle constant 1 + lam*max(m, M) (default) is never smaller here
    kt = pabi.clipped_step_kappa(0.1, weak_convexity=0.0, smoothness=5.0)
    assert math.sqrt(1 + kt) == pytest.approx(1.5, rel=1e-13)


def test_last_iterate_regimes_k3_k4():
    # C27: L = 1, ell = 5, T = 5: (21) gives 0.8 vs 2.0 (units alpha (lam C/(b sigma))^2)
    a = 2.0
    pub = pabi.last_iterate_rdp_cyclic(a, lr=1.0, max_grad_norm=1.0, batch_size=1, noise_scale=1.0, steps=5,
                                       batches_per_epoch=5, weak_convexity=0.0, smoothness=0.0, variant="as_published")
    cor = pabi.last_iterate_rdp_cyclic(a, lr=1.0, max_grad_norm=1.0, batch_size=1, noise_scale=1.0, steps=5,
                                       batches_per_epoch=5, weak_convexity=0.0, smoothness=0.0)
    assert pub == pytest.approx(0.8 * a, rel=1e-12) and cor == pytest.approx(2.0 * a, rel=1e-12)
    # worst case over t* equals max of the t*-specific bounds
    ts = [pabi.last_iterate_rdp_cyclic(a, lr=0.1, max_grad_norm=1.0, batch_size=4, noise_scale=1.0, steps=23,
                                       batches_per_epoch=5, weak_convexity=0.5, smoothness=2.0, index=t) for t in range(1, 6)]
    worst = pabi.last_iterate_rdp_cyclic(a, lr=0.1, max_grad_norm=1.0, batch_size=4, noise_scale=1.0, steps=23,
                                         batches_per_epoch=5, weak_convexity=0.5, smoothness=2.0)
    assert worst == pytest.approx(max(ts), rel=1e-12) and worst >= max(ts)
    assert pabi.last_iterate_rdp_general(3.0, lr=0.1, max_grad_norm=2.0, noise_scale=0.5,
                                         steps=10) == pytest.approx(8 * 3 * 10 * 0.16, rel=1e-13)
    v = pabi.last_iterate_rdp_bounded(2.0, lr=0.1, max_grad_norm=1.0, batch_size=4, noise_scale=1.0, diameter=3.0,
                                      weak_convexity=0.0, smoothness=0.0)
    assert v == pytest.approx(2.0 / 2 * (3.0 + 0.05) ** 2, rel=1e-13)
    # Prop 2.2(a) with tau = 0 is (alpha sbar^2/(2 sigma^2)) Phi_L(T, ell) (C31)
    v = pabi.shifted_cycle_bound(2.0, noise_scale=1.0, steps=23, batches_per_epoch=5, map_difference=0.3,
                                 step_lipschitz=1.1)
    assert v == pytest.approx(2.0 * 0.09 / 2 * pabi.cyclic_shift_weight_sum(23, batches_per_epoch=5,
                                                                            step_lipschitz=1.1), rel=1e-12)
    # optimal residuals: sum of squares = (L tau + s)^2 theta_L(T) (Lemma A.2(c))
    r = pabi.optimal_shifts(40, initial_distance=0.5, map_difference=0.2, step_lipschitz=1.05)
    assert np.sum(r**2) == pytest.approx((1.05 * 0.5 + 0.2) ** 2 * pabi.shift_weight(40, step_lipschitz=1.05),
                                         rel=1e-12)


def test_calibration_k11():
    lam, ell, s_cor = pabi.cyclic_calibrate(8.0, rdp=1.0, weak_convexity=0.5, smoothness=2.0, max_grad_norm=1.0,
                                            batch_size=10, epochs=5)
    _, _, s_pub = pabi.cyclic_calibrate(8.0, rdp=1.0, weak_convexity=0.5, smoothness=2.0, max_grad_norm=1.0,
                                        batch_size=10, epochs=5, variant="as_published")
    assert s_cor / s_pub == pytest.approx(4 * 8.0, rel=1e-12)
    assert lam == pytest.approx(1 / 5.0) and ell == pytest.approx(math.log(2) / math.log1p(0.1), rel=1e-13)


_SME = ("lr", "strong_convexity", "smoothness", "max_grad_norm", "batch_size", "batches_per_epoch", "batch_index",
        "epochs")


def test_erm_output_perturbation():
    rho, gap = pabi.gd_contraction(2 / 11, strong_convexity=1.0, smoothness=10.0)  # optimum: (L - mu)/(L + mu)
    assert rho == pytest.approx(9 / 11, rel=1e-13) and gap == pytest.approx(2 / 11, rel=1e-13)
    _, gap = pabi.gd_contraction(1e-12, strong_convexity=1.0, smoothness=10.0)
    assert gap == pytest.approx(1e-12, rel=1e-13)  # stable 1 - rho (C19)
    for args in [(0.1, 1.0, 5.0, 2.0, 10.0, 4, 2, 3), (1e-9, 0.5, 2.0, 1.0, 32.0, 8, 8, None)]:
        v = pabi.sensitivity_multi_epoch(**dict(zip(_SME, args)))
        e = ref.sensitivity_multi_epoch(*args)
        assert mp.mpf(v) >= e and rel(v, e) < 1e-12
    # tiny results (ρ^378 ~ 1e-180: a uniform margin on 1 − ρ cost 1e-11 relative), ηL within
    # 1e-10 of 2 (1 − ρ = 2 − ηL cancels in doubles; exact from the FMA residual), ρ = 0
    for args in [(0.1924370903215534, 5.086555041954102, 6.9669344646060845, 2.419990080365463, 230, 584, 206),
                 (9.580171927976556, 0.06599680079182882, 0.10764448016533082, 0.9831447015647541, 241, 205, 134),
                 (0.2 - 1e-11, 1.0, 10.0, 1.0, 10.0, 50, 7, 4), (0.2 - 1e-11, 1.0, 10.0, 1.0, 10.0, 50, 7),
                 (1.0, 1.0, 1.0, 1.0, 1.0, 10, 10), (1.0, 0.5, 1.0, 1.0, 1.0, 10, 3, 2)]:
        v = pabi.sensitivity_multi_epoch(**dict(zip(_SME, args)))
        e = ref.sensitivity_multi_epoch(*args)
        assert mp.mpf(v) >= e and rel(v, e) < 1e-12, (args, v, e)
    eta = 0.2 - 1e-11
    rho, gap = pabi.gd_contraction(eta, strong_convexity=1.0, smoothness=10.0)  # 1 − ρ = 2 − ηL ≈ 1e-10 (η the double)
    with mp.workdps(50):
        exact = 2 - 10 * mp.mpf(eta)
    assert gap <= exact and rel(gap, exact) < 1e-15 and rho >= 1 - exact
    # full-batch optimum special case: 2R/(n mu)
    assert pabi.sensitivity_multi_epoch(lr=2 / 11, strong_convexity=1.0, smoothness=10.0, max_grad_norm=3.0, batch_size=50.0, batches_per_epoch=1, batch_index=1) == pytest.approx(
        2 * 3.0 / (50 * 1.0), rel=1e-12
    )
    sens = [0.1, 0.5, 1.0, 3.0]
    for alpha in (1 + 1e-9, 2.0, 50.0):
        v = pabi.averaged_rdp(alpha, noise_scale=1.0, sensitivities=sens)
        e = ref.averaged_rdp(alpha, 1.0, sens)
        assert mp.mpf(v) >= e and rel(v, e) < 1e-12
    assert pabi.gaussian_mechanism_rdp(4.0, sensitivity=1.0, noise_scale=2.0) == pytest.approx(0.5, rel=1e-13)
    with pytest.raises(ValueError, match="lr"):
        pabi.gd_contraction(0.3, strong_convexity=1.0, smoothness=10.0)


def test_fact34_p_choice_t4():
    """C13: p = 3n works for every n; the exact p_min is tight; p = n/10 blows the orders up."""
    for n in (1, 2, 7, 100, 5000):
        assert pabi.holder_orders(8.0, holder_exponent=3.0 * n, steps=n).max() <= 2 * 8.0
        pm = pabi.holder_min_exponent(8.0, steps=n)
        if n > 1:
            assert pabi.holder_orders(8.0, holder_exponent=pm, steps=n).max() <= 16.0 * (1 + 1e-12)
            assert pabi.holder_orders(8.0, holder_exponent=pm * (1 - 1e-6), steps=n).max() > 16.0
    assert pabi.holder_orders(8.0, holder_exponent=10.0, steps=100).max() == pytest.approx(2.4e5, rel=0.02)


def test_fact35_sample_size_t5():
    """C14: printed statement 4e-19 runs, the proof's own tail 2e23, corrected e^143."""
    args = dict(rdp=1.0, rdp_bound=2.0, tolerance=0.1, failure_prob=0.05)
    assert math.exp(pabi.hoeffding_sample_size(8, **args, variant="as_published", log=True)) == pytest.approx(4.27e-19, rel=1e-2)
    assert math.exp(pabi.hoeffding_sample_size(8, **args, variant="proof_consistent", log=True)) == pytest.approx(2.10e23, rel=1e-2)
    # the count itself: 1 run for the printed statement, ceil(2.10e23) for the proof's tail,
    # beyond the double range (ln l = 143 < 709: finite here) for the corrected one
    assert pabi.hoeffding_sample_size(8, **args, variant="as_published") == 1.0
    assert pabi.hoeffding_sample_size(8, **args, variant="proof_consistent") == pytest.approx(2.10e23, rel=1e-2)
    exact = mp.ceil(ref.hoeffding_sample_size(8, 1.0, 2.0, 0.1, 0.05))  # e^143.2173457463918
    assert pabi.hoeffding_sample_size(8, **args) == pytest.approx(float(exact), rel=1e-12)
    assert pabi.hoeffding_sample_size(8, **args, log=True) == pytest.approx(
        math.log(math.log(40)) + 2 * 90 - math.log(2) - 2 * math.log(0.1) - 42, rel=1e-12
    )


def test_lemma_c1_cor_c3_mixture():
    # C20: equality at the real threshold, bound at its ceiling
    for kap, xi in ((0.21, 1.5), (1e-6, 3.0), (2.0, 1.01)):
        s = pabi.shift_weight_min_steps(xi, kappa=kap)
        cap = xi * (1 - 1 / (1 + kap))
        assert pabi.shift_weight(s, kappa=kap) == pytest.approx(cap, rel=1e-9)
        assert pabi.shift_weight(math.ceil(s), kappa=kap) <= cap
    # Cor C.3 dominates (21) for lambda <= 1/sqrt(E) (C29), here E = 4, lambda = 0.1
    a, C, b, sig, ell, T = 2.0, 1.0, 4, 1.0, 5, 20
    c3 = pabi.last_iterate_rdp_small_step(a, max_grad_norm=C, batch_size=b, noise_scale=sig, batches_per_epoch=ell,
                                          lr=0.1, weak_convexity=0.5, smoothness=2.0, contraction="as_published")
    eq21 = pabi.last_iterate_rdp_cyclic(a, lr=0.1, max_grad_norm=C, batch_size=b, noise_scale=sig, steps=T,
                                        batches_per_epoch=ell, weak_convexity=0.5, smoothness=2.0, variant="as_published", contraction="as_published")
    assert eq21 <= c3
    # mixture bound (001 Lemma 3)
    v = pabi.mixture_rdp_bound(3.0, weights=[0.25, 0.75], rdp=[0.2, 1.0])
    e = mp.log(0.25 * mp.exp(2 * mp.mpf(0.2)) + 0.75 * mp.exp(2 * mp.mpf(1.0))) / 2
    assert mp.mpf(v) >= e and rel(v, e) < 1e-12
    with pytest.raises(ValueError, match="weights"):
        pabi.mixture_rdp_bound(3.0, weights=[0.5, 0.6], rdp=[0.2, 1.0])


# ------------------------------------------------------------------ broadcasting and bad input

# (function, scalar arguments): every helper broadcasts like a ufunc; element i of the array
# result equals the scalar call, scalar in → float out.
def weak_triangle_bound(order, holder_exponent, divergence_pq, divergence_qr):
    return pabi.weak_triangle_bound(order, holder_exponent=holder_exponent, divergence_pq=divergence_pq,
                                    divergence_qr=divergence_qr)


def holder_min_exponent(steps, order):
    return pabi.holder_min_exponent(order, steps=steps)


def hoeffding_sample_size(order, rdp, rdp_bound, tolerance, failure_prob):
    return pabi.hoeffding_sample_size(order, rdp=rdp, rdp_bound=rdp_bound, tolerance=tolerance,
                                      failure_prob=failure_prob)


def hoeffding_sample_size_log(order, rdp, rdp_bound, tolerance, failure_prob):
    return pabi.hoeffding_sample_size(order, rdp=rdp, rdp_bound=rdp_bound, tolerance=tolerance,
                                      failure_prob=failure_prob, log=True)


BROADCAST = [
    (pabi.gaussian_dp_constant, (1e-5, 2.0), {}),
    (weak_triangle_bound, (3.0, 2.0, 0.1, 0.2), {}),
    (pabi.shift_weight, (7, 1.1), {}),
    (pabi.cyclic_shift_weight_sum, (23,), dict(batches_per_epoch=5, step_lipschitz=1.1)),
    (pabi.clipped_step_kappa, (0.1,), dict(weak_convexity=0.5, smoothness=2.0)),
    (pabi.last_iterate_rdp_general, (2.0,), dict(lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100)),
    (pabi.last_iterate_rdp_bounded, (2.0,), dict(lr=0.1, max_grad_norm=1.0, batch_size=4, noise_scale=1.0,
                                                 diameter=3.0, weak_convexity=0.5, smoothness=2.0)),
    (pabi.last_iterate_rdp_cyclic, (2.0,), dict(lr=0.1, max_grad_norm=1.0, batch_size=4, noise_scale=1.0, steps=23,
                                                batches_per_epoch=5, weak_convexity=0.5, smoothness=2.0)),
    (pabi.shifted_cycle_bound, (2.0,), dict(noise_scale=1.0, steps=23, batches_per_epoch=5, map_difference=0.3,
                                            initial_distance=0.1, step_lipschitz=1.1)),
    (pabi.shifted_drift_bound, (2.0,), dict(noise_scale=1.0, drift=0.3, steps=23, batches_per_epoch=5)),
    (pabi.sensitivity_multi_epoch, (), dict(lr=0.1, strong_convexity=1.0, smoothness=5.0, max_grad_norm=2.0,
                                            batch_size=10.0, batches_per_epoch=4, batch_index=2, epochs=3)),
    (pabi.gaussian_mechanism_rdp, (4.0,), dict(sensitivity=1.0, noise_scale=2.0)),
    (holder_min_exponent, (100, 8.0), {}),
    (hoeffding_sample_size_log, (8, 1.0, 2.0, 0.1, 0.05), {}),
    (hoeffding_sample_size, (4, 0.1, 0.2, 0.1, 0.05), {}),
    (pabi.shift_weight_min_steps, (1.5, 1.1), {}),
    (pabi.last_iterate_rdp_small_step, (2.0,), dict(lr=0.1, max_grad_norm=1.0, batch_size=4, noise_scale=1.0,
                                                    batches_per_epoch=5, weak_convexity=0.5, smoothness=2.0)),
]


@pytest.mark.parametrize("fn,args,kw", BROADCAST, ids=[f.__name__ for f, _, _ in BROADCAST])
def test_helpers_broadcast(fn, args, kw):
    base = fn(*args, **kw)
    assert isinstance(base, float)
    col = lambda x: np.array([x, x, x]).reshape(3, 1)  # noqa: E731
    for k, x in enumerate(args):
        arr = list(args)
        arr[k] = col(x)
        out = fn(*arr, **kw)
        assert isinstance(out, np.ndarray) and out.shape == (3, 1)
        assert np.all(out == base)
    for name, x in kw.items():
        out = fn(*args, **dict(kw, **{name: col(x)}))
        assert isinstance(out, np.ndarray) and out.shape == (3, 1)
        assert np.all(out == base)


def test_tuple_and_sample_axis_helpers_broadcast():
    e, d = pabi.amplify_by_sampling([0.1, 1.0], delta=1e-6, sample_rate=[[0.01], [0.1]])
    assert e.shape == d.shape == (2, 2)
    assert e[1, 0] == pabi.amplify_by_sampling(0.1, delta=1e-6, sample_rate=0.1)[0]
    rho, gap = pabi.gd_contraction([0.1, 0.2], strong_convexity=1.0, smoothness=5.0)
    assert rho[1] == pabi.gd_contraction(0.2, strong_convexity=1.0, smoothness=5.0)[0] and gap.shape == (2,)
    lam, ell, sig = pabi.cyclic_calibrate(8.0, rdp=[0.5, 1.0], weak_convexity=0.5, smoothness=2.0, max_grad_norm=1.0,
                                          batch_size=10, epochs=5)
    assert sig[1] == pabi.cyclic_calibrate(8.0, rdp=1.0, weak_convexity=0.5, smoothness=2.0, max_grad_norm=1.0,
                                           batch_size=10, epochs=5)[2]
    # sample axis last: three records × four batches, p per column of a (2, 3) grid
    sens = np.array([[0.01, 0.02, 0.05, 0.03], [0.0, 0.0, 0.01, 0.0], [0.05, 0.05, 0.05, 0.05]])
    e, d = pabi.lp_per_instance_epsilon_delta(1e-6, 1e-6, sample_rate=0.01, lp_exponent=[[2.0], [10.0]], noise_scale=20.0, sensitivities=sens)
    assert e.shape == (2, 3)
    assert e[1, 2] == pabi.lp_per_instance_epsilon_delta(1e-6, 1e-6, sample_rate=0.01, lp_exponent=10.0, noise_scale=20.0, sensitivities=sens[2])[0]
    curve = pabi.averaged_rdp(np.array([1.5, 2.0, 8.0]), noise_scale=1.0, sensitivities=[0.1, 0.5])  # an RDP curve
    assert curve.shape == (3,) and curve[1] == pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=[0.1, 0.5])
    m = pabi.mixture_rdp_bound([2.0, 3.0], weights=[0.25, 0.75], rdp=[[0.2, 1.0], [0.3, 1.5]])
    assert m[1] == pabi.mixture_rdp_bound(3.0, weights=[0.25, 0.75], rdp=[0.3, 1.5])
    keep = pabi.unlearning_keep([1.5, 3.0], threshold=0.1, divergence_previous=0.0, divergence_step=[0.05, 0.2])
    assert keep.dtype == bool and list(keep) == [True, False]



def test_sample_axis_results_match_their_overloads():
    """Issue 15: averaged_rdp and mixture_rdp_bound are typed like every other function: one row
    of samples with scalar arguments gives a float, an order array or several rows an array (the
    runtime types tests/typing/user_script_rdp.py reveals statically)."""
    a = pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=[0.0, 1.0])
    assert type(a) is float and a == pytest.approx(math.log((1 + math.e) / 2), rel=1e-13)
    assert type(pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=np.array([0.0, 1.0]))) is float
    rows = pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=np.full((10, 4), 0.5))
    assert isinstance(rows, np.ndarray) and rows.dtype == np.float64 and rows.shape == (10,)
    m = pabi.mixture_rdp_bound(2.0, weights=[0.5, 0.5], rdp=[0.0, 1.0])
    assert type(m) is float and m == pytest.approx(a, rel=1e-13)  # the same log-mean-exp
    ms = pabi.mixture_rdp_bound(2.0, weights=[[0.5, 0.5]], rdp=[[0.0, 1.0]])
    assert isinstance(ms, np.ndarray) and ms.dtype == np.float64 and ms.shape == (1,) and ms[0] == m

_CYC = dict(lr=0.1, max_grad_norm=1.0, batch_size=4, noise_scale=1.0, steps=23, batches_per_epoch=5,
            weak_convexity=0.5, smoothness=2.0)

BAD = [
    # (call, parameter named in the message)
    (lambda: pabi.sampled_gaussian_rdp([2.0, 1.0], sample_rate=0.1, noise_multiplier=1.0), r"order.*> 1.*index 1"),
    (lambda: pabi.sampled_gaussian_rdp(2.5, sample_rate=[0.1, 1.5], noise_multiplier=1.0), r"sample_rate.*\[0, 1\].*index 1"),
    (lambda: pabi.sampled_gaussian_rdp(2.5, sample_rate=-0.1, noise_multiplier=1.0), r"sample_rate must be in \[0, 1\]"),
    (lambda: pabi.sampled_gaussian_rdp(2.5, sample_rate=0.1, noise_multiplier=[1.0, -1.0]), r"noise_multiplier.*> 0.*index 1"),
    (lambda: pabi.sampled_gaussian_rdp_per_instance(2.5, sample_rate=0.1, sensitivity=[0.1, np.nan], noise_scale=1.0), r"sensitivity.*index 1"),
    (lambda: pabi.sampled_gaussian_rdp_per_instance(2.5, sample_rate=0.1, sensitivity=1.0, noise_scale=0.0), r"noise_scale must be > 0"),
    (lambda: pabi.sampled_gaussian_rdp(2.5, sample_rate=0.1, noise_multiplier=1.0, fractional="floor"), r"fractional"),
    (lambda: pabi.holder_composition_bound(1.0, holder_exponent=2.0, divergences=[[0.1]]), r"order must be > 1"),
    (lambda: pabi.holder_composition_bound(2.0, holder_exponent=1.0, divergences=[[0.1]]), r"holder_exponent must be > 1"),
    (lambda: pabi.holder_composition_bound(2.0, holder_exponent=2.0, divergences=[[0.1], [-0.2]]), r"divergences.*\(1, 0\)"),
    (lambda: pabi.holder_composition_bound(2.0, holder_exponent=2.0, divergences=np.ones((0, 2))), r"non-empty"),
    (lambda: pabi.weak_triangle_bound(2.0, holder_exponent=[2.0, 1.0], divergence_pq=0.1, divergence_qr=0.1), r"holder_exponent must be > 1.*index 1"),
    (lambda: pabi.weak_triangle_bound(1.0, holder_exponent=2.0, divergence_pq=0.1, divergence_qr=0.1), r"order must be > 1"),
    (lambda: pabi.holder_min_exponent(0.5, steps=10), r"order must be > 1"),
    (lambda: pabi.lp_per_instance_epsilon_delta(1e-5, 1e-6, sample_rate=0.01, lp_exponent=1.0, noise_scale=10.0, sensitivities=[0.1]), r"lp_exponent must be > 1"),
    (lambda: pabi.lp_per_instance_epsilon_delta(1e-5, 1e-6, sample_rate=[0.01, 1.2], lp_exponent=2.0, noise_scale=10.0, sensitivities=[0.1]), r"sample_rate.*index 1"),
    (lambda: pabi.lp_per_instance_epsilon_delta(1e-5, 1e-6, sample_rate=0.01, lp_exponent=2.0, noise_scale=10.0, sensitivities=[[0.1, 0.2], [0.1, np.nan]]),
     r"sensitivities.*\(1, 1\)"),
    (lambda: pabi.lp_per_instance_epsilon_delta(1e-5, 1e-6, sample_rate=0.01, lp_exponent=2.0, noise_scale=10.0, sensitivities=[]), r"non-empty"),
    (lambda: pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=np.ones((3, 0))), r"non-empty"),
    (lambda: pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=[0.1, -0.1]), r"sensitivities.*index 1"),
    (lambda: pabi.averaged_rdp([2.0, 1.0], noise_scale=1.0, sensitivities=[0.1]), r"order.*index 1"),
    (lambda: pabi.shift_weight([1, 2, 0.5], step_lipschitz=1.1), r"steps must be.*index 2"),
    (lambda: pabi.shift_weight(2, step_lipschitz=[1.0, -1.0]), r"step_lipschitz must be >= 0.*index 1"),
    (lambda: pabi.cyclic_shift_weight_sum([10, 10.5], batches_per_epoch=5, step_lipschitz=1.0),
     r"steps must be a non-negative integer.*index 1"),
    (lambda: pabi.last_iterate_rdp_general(2.0, lr=0.1, max_grad_norm=1.0, noise_scale=[1.0, 0.0], steps=10),
     r"noise_scale.*index 1"),
    (lambda: pabi.last_iterate_rdp_general(2.0, lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=10, batch_size=0,
                                           batches_per_epoch=5), r"batch_size must be"),
    (lambda: pabi.last_iterate_rdp_general(2.0, lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=10, batch_size=2),
     r"both batch_size and batches_per_epoch"),
    (lambda: pabi.last_iterate_rdp_cyclic(2.0, **_CYC, index=[1, 6]), r"index must be.*at index 1"),
    (lambda: pabi.last_iterate_rdp_cyclic(2.0, **_CYC, index=np.nan), r"index must be"),
    (lambda: pabi.shifted_drift_bound(2.0, noise_scale=1.0, drift=-0.1, steps=10), r"drift"),
    (lambda: pabi.shifted_drift_bound(2.0, noise_scale=1.0, drift=0.1, steps=10, batches_per_epoch=11),
     r"batches_per_epoch"),
    (lambda: pabi.cyclic_calibrate(8.0, [1.0, 0.0], weak_convexity=0.5, smoothness=2.0, max_grad_norm=1.0,
                                   batch_size=10, epochs=5), r"rdp.*index 1"),
    (lambda: pabi.sensitivity_multi_epoch(lr=0.1, strong_convexity=1.0, smoothness=5.0, max_grad_norm=2.0,
                                          batch_size=10.0, batches_per_epoch=4, batch_index=[2, 5], epochs=3),
     r"batch_index must be.*index 1"),
    (lambda: pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=np.ones((3000, 1)), holder_exponent=1.001), r"holder_exponent must be such that the order map"),
    (lambda: pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=np.ones((3, 0))), r"non-empty"),
    (lambda: pabi.rdp_to_dp_epsilon(1e-5, orders=[], rdp=[]), r"orders must be non-empty"),
    (lambda: pabi.rdp_to_dp_epsilon(1e-5, orders=[2.0, 0.5], rdp=[0.1, 0.1]), r"orders.*index 1"),
    (lambda: pabi.rdp_to_dp_epsilon(1e-5, orders=[2.0], rdp=[np.nan]), r"rdp"),
]


@pytest.mark.parametrize("call,match", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_input_names_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_type_errors():
    with pytest.raises(TypeError):
        pabi.shift_weight("a", step_lipschitz=1.0)
    with pytest.raises(TypeError):
        pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=["x"])


def test_last_iterate_step_size_condition_enforced():
    """Thms 4.4/4.5 and Cor. C.3 assume lr <= 1/(2(m + M)): beyond it pabi raises (naming lr
    and the limit) instead of returning a number that is not a bound; at the limit it computes."""
    m, M = 0.5, 2.5
    lam_max = 1.0 / (2.0 * (m + M))
    calls = [
        lambda lam: pabi.last_iterate_rdp_bounded(2.0, lr=lam, max_grad_norm=1.0, batch_size=10, noise_scale=1.0,
                                                  diameter=1.0, weak_convexity=m, smoothness=M),
        lambda lam: pabi.last_iterate_rdp_cyclic(2.0, lr=lam, max_grad_norm=1.0, batch_size=10, noise_scale=1.0,
                                                 steps=20, batches_per_epoch=5, weak_convexity=m, smoothness=M),
        lambda lam: pabi.last_iterate_rdp_small_step(2.0, max_grad_norm=1.0, batch_size=10, noise_scale=1.0,
                                                     batches_per_epoch=5, lr=lam, weak_convexity=m, smoothness=M),
    ]
    for f in calls:
        assert f(lam_max) > 0
        with pytest.raises(ValueError, match=r"lr.*1/\(2\(weak_convexity \+ smoothness\)\)"):
            f(math.nextafter(lam_max, 1.0))
        # arrays: the first bad index is reported
        with pytest.raises(ValueError, match=r"at index 1"):
            f(np.array([lam_max / 2, 2 * lam_max]))
    # m = M = 0: no condition
    assert pabi.last_iterate_rdp_bounded(2.0, lr=10.0, max_grad_norm=1.0, batch_size=10, noise_scale=1.0, diameter=1.0,
                                         weak_convexity=0.0, smoothness=0.0) > 0


def test_named_results():
    """Issue 15: the functions returning more than one number return named tuples (unpacking
    still works), with the same bits in each field as the plain tuple had."""
    r = pabi.rdp_to_dp_epsilon(1e-5, orders=[2.0, 4.0], rdp=[0.5, 1.0], conversion="classical")
    assert isinstance(r, pabi.EpsilonAtOrder) and r.order == 4.0 and (r.eps, r.order) == tuple(r)
    eps, order = r
    d = pabi.rdp_to_dp_delta(eps, orders=[2.0, 4.0], rdp=[0.5, 1.0], conversion="classical")
    assert isinstance(d, pabi.DeltaAtOrder) and d.delta <= 1e-5 and d._fields == ("delta", "order")
    a = pabi.amplify_by_sampling([0.1, 1.0], 1e-6, sample_rate=0.01)
    assert isinstance(a, pabi.AmplifiedGuarantee) and a.eps.shape == (2,) and a.delta == pytest.approx(1e-8)
    g = pabi.lp_per_instance_epsilon_delta(1e-5, 1e-6, sample_rate=0.01, lp_exponent=100.0, noise_scale=10.0,
                                           sensitivities=[0.1, 0.5])
    assert isinstance(g, pabi.PerInstanceGuarantee) and g.delta == pytest.approx(1.1e-6, rel=1e-12)
    s = np.full((5, 2), 0.5)
    t = pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=s, return_terms=True)
    assert isinstance(t, pabi.RdpWithTerms) and t.terms.shape == (5,)
    assert t.rdp == pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=s)
    h = pabi.holder_composition_bound(2.0, holder_exponent=2.0, divergences=[[0.5], [0.5]], return_terms=True)
    assert isinstance(h, pabi.RdpWithTerms) and h.rdp == pytest.approx(1.0, rel=1e-12)


def test_setup_is_keyword_only():
    """Convention 1 of issue 15: the question positional, the setup keyword-only."""
    with pytest.raises(TypeError):
        pabi.sampled_gaussian_rdp(8.0, 0.01, 1.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        pabi.rdp_to_dp_epsilon([2.0], [0.5], 1e-5)  # type: ignore[misc]
    with pytest.raises(TypeError):
        pabi.dpsgd_per_instance_rdp(8.0, 0.01, 1.0, np.ones((2, 2)))  # type: ignore[misc]


def test_named_results_and_keyword_only_setup():
    """Issue 15: the two tuple results are NamedTuples (fields named for the quantities, tuple
    unpacking unchanged, exported), the setup of the last-iterate and ERM bounds is keyword-only
    with the glossary's names, and shifted_drift_bound's default variant is "corrected"."""
    setup = dict(weak_convexity=0.5, smoothness=2.0, max_grad_norm=1.0, batch_size=10, epochs=5)
    cal = pabi.cyclic_calibrate(8.0, 1.0, **setup)
    assert isinstance(cal, pabi.CyclicCalibration) and cal._fields == ("lr", "batches_per_epoch", "noise_scale")
    lr, ell, sigma = cal
    assert (lr, ell, sigma) == (cal.lr, cal.batches_per_epoch, cal.noise_scale)
    rl, re, rs = ref.cyclic_calibrate(8.0, 1.0, 0.5, 2.0, 1.0, 10, 5)
    # lr: the greatest double <= 1/(2(M + rho)) = 1/5, decided exactly (the double 0.2 is above 1/5)
    assert lr <= rl < math.nextafter(lr, math.inf) and lr == 0.19999999999999998
    assert ell >= re and sigma >= rs and rel(sigma, rs) < 1e-13
    arr = pabi.cyclic_calibrate([4.0, 8.0], 1.0, **setup)
    assert isinstance(arr, pabi.CyclicCalibration) and arr.noise_scale.shape == (2,) and arr.noise_scale[1] == sigma
    gd = pabi.gd_contraction(0.5, strong_convexity=1.0, smoothness=3.0)
    assert isinstance(gd, pabi.GdContraction) and gd._fields == ("rho", "gap")
    assert (gd.rho, gd.gap) == tuple(gd)
    # exact ρ = max(|1 − ημ|, |1 − ηM|) = 1/2 and gap 1 − ρ = 1/2 (reference: (0.5, 0.5)); pabi's
    # are rounded outward (0.5000000000000002, 0.4999999999999999), within 1e-15
    rho, gap = ref.gd_contraction(0.5, 1.0, 3.0)
    assert rho == gap == 0.5 and rho <= gd.rho <= rho * (1 + 1e-15) and gap * (1 - 1e-15) <= gd.gap <= gap
    assert {"CyclicCalibration", "GdContraction"} <= set(pabi.__all__)
    # positional setup is refused (it was the source of mixed-up arguments)
    with pytest.raises(TypeError):
        pabi.last_iterate_rdp_cyclic(2.0, 0.1, 1.0, 4, 1.0, 23, 5, 0.5, 2.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        pabi.sensitivity_multi_epoch(0.5, 1.0, 1.0, 1.0, 1.0, 4, 2)  # type: ignore[misc]
    # "exact" was shifted_drift_bound's name for the corrected form
    drift = dict(noise_scale=1.0, drift=1.0, steps=10, batches_per_epoch=5)
    assert pabi.shifted_drift_bound(2.0, **drift) == pabi.shifted_drift_bound(2.0, **drift, variant="corrected")
    # (α/(2σ²))Σ(ζ + s_t)² with s̄ = ζ = 1 at steps 1 and 6: 8·1 + 2·4 = 16 (pabi 16.000000000000455)
    assert ref.shifted_drift_bound(2.0, 1.0, 1.0, 10, 5) == 16
    assert 16 <= pabi.shifted_drift_bound(2.0, **drift) <= 16 * (1 + 1e-13)
    with pytest.raises(ValueError, match="variant"):
        pabi.shifted_drift_bound(2.0, **drift, variant="exact")
    # errors name the public parameter
    with pytest.raises(pabi.DomainError) as ei:
        pabi.last_iterate_rdp_cyclic(2.0, lr=0.1, max_grad_norm=1.0, batch_size=4, noise_scale=1.0, steps=23,
                                     batches_per_epoch=5, weak_convexity=0.5, smoothness=2.0, index=6)
    assert ei.value.param == "index"
    with pytest.raises(pabi.DomainError) as ei:
        pabi.gaussian_mechanism_rdp(1.0, sensitivity=1.0, noise_scale=1.0)
    assert ei.value.param == "order"
