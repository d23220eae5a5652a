"""Calibration for the remaining setups (issue 16): per-step PNSGD (``StepwisePNSGD``: the
factor c of the noise sequence c·σ_t⁰), online decaying noise (``OnlinePNSGD``: the schedule
constant C1, at a horizon and in the limit), the last-iterate theorems (``LastIterateSGD``) and
ERM with output perturbation (``ERMGradientDescent``: the output noise σ).

For each family, on at least 200 random setups and targets: the calibrated value x meets the
target under the exact (mpmath, pabi.reference._calibrate) forward value of the setup's bound
(never on the wrong side), the exact value at x·(1 − 1e-9) misses it (x is within 1e-9 relative
of the exact inverse, the forward value being monotone in x), and the certified bound one double
below x misses it (x is the least double the certified bound accepts). A few points are checked
against the exact inverse taken by bisection on the reference's forward value. Plus: the
examples run, DomainError before any work, unreachable targets, monotonicity in the target."""

from __future__ import annotations

import doctest
import math

import mpmath as mp
import numpy as np
import pytest

import pabi
import pabi._setups_more
from pabi.reference import _calibrate as rc
from pabi.reference import _schedules as rs

REL = 1e-9
POINTS = 200


def _certified_met(setup, eps, delta) -> bool:
    _, q = rc.setup_question(setup)
    return setup.delta(eps) <= delta if q == "delta" else setup.epsilon(delta) <= eps


def _check(setup, eps, delta, dps=20):
    """The calibration of ``setup`` for (eps, delta) against the reference."""
    field, q = rc.setup_question(setup)
    out = setup.calibrate(eps, delta)
    assert type(out) is type(setup)
    x = getattr(out, field)
    assert _certified_met(out, eps, delta)
    assert not _certified_met(setup.replace(**{field: math.nextafter(x, 0.0)}), eps, delta)
    f = rc._forward_fn(setup, eps if q == "delta" else delta, dps)
    goal = delta if q == "delta" else eps
    assert f(x) <= goal, (setup, eps, delta, x)  # never on the wrong side
    assert f(mp.mpf(x) * (1 - REL)) > goal, (setup, eps, delta, x)  # within 1e-9 of the exact inverse
    return out


def _stepwise_points(rng):
    while True:
        k = int(rng.integers(1, 4))
        runs = [int(m) for m in rng.integers(1, 40, size=k)]
        n = sum(runs)
        ordering = str(rng.choice(["shuffled", "fixed", "random_stop", "random_stop_index"]))
        index = None
        if ordering == "fixed" or ordering == "random_stop_index":
            index = int(rng.integers(1, n + 1))
            ordering = "fixed" if ordering == "fixed" else "random_stop"
        s = pabi.StepwisePNSGD(noise_scale=rng.uniform(0.5, 3.0, size=k), max_grad_norm=rng.uniform(0.5, 2.0, size=k),
                               lr=rng.uniform(0.01, 0.5, size=k), diameter=float(rng.uniform(0.5, 2.0)),
                               run_lengths=runs, ordering=ordering, index=index,
                               noise=str(rng.choice(["gaussian", "gaussian", "laplace"])))
        eps = float(rng.uniform(0.2, 3.0))
        delta = float(s.replace(noise_factor=float(10 ** rng.uniform(-0.5, 1.0))).delta(eps))
        if 1e-250 < delta < 0.5:
            yield s.replace(noise_factor=float(10 ** rng.uniform(-1, 1))), eps, delta


def _online_points(rng):
    while True:
        index = int(rng.integers(1, 30))
        try:
            s = pabi.OnlinePNSGD(index=index, steps=index + int(rng.integers(0, 30)), lr=float(rng.uniform(0.01, 0.1)),
                                 max_grad_norm=float(rng.uniform(1.0, 10.0)), diameter=1.0,
                                 c1=float(10 ** rng.uniform(0, 3)), c2=float(rng.uniform(0.0, 2.0)),
                                 decay=float(rng.uniform(1.1, 2.0)), noise=str(rng.choice(["gaussian", "laplace"])))
            eps = float(rng.uniform(0.2, 3.0))
            delta = float(s.delta(eps))
        except pabi.DomainError:  # outside the Laplace schedule's domain
            continue
        if 1e-250 < delta < 0.5:
            try:
                yield s.replace(c1=s.c1 * float(10 ** rng.uniform(-1, 1))), eps, delta
            except pabi.DomainError:  # a start outside the Laplace schedule's domain
                continue


def _last_iterate_points(rng):
    while True:
        th = str(rng.choice(["general", "general_exact", "bounded", "cyclic"]))
        lr = float(rng.uniform(0.01, 0.5))
        kw: dict = dict(lr=lr, max_grad_norm=float(rng.uniform(0.5, 2.0)), noise_scale=float(10 ** rng.uniform(-1, 1)))
        b, ell = int(rng.integers(1, 11)), int(rng.integers(1, 11))
        if th.startswith("general"):
            kw["steps"] = int(rng.integers(ell, 150))
            if th == "general_exact":
                kw.update(batch_size=b, batches_per_epoch=ell)
            th = "general"
        else:
            m = float(rng.uniform(0.0, 1.0))
            big = 1 / (2 * lr) - m  # lr <= 1/(2(m + M))
            if big <= 0:
                continue
            kw.update(batch_size=b, weak_convexity=m, smoothness=float(rng.uniform(0.0, big)))
            if th == "bounded":
                kw["diameter"] = float(rng.uniform(0.0, 2.0))
            else:
                kw.update(steps=int(rng.integers(ell, 150)), batches_per_epoch=ell)
        yield (pabi.LastIterateSGD(theorem=th, **kw), float(rng.uniform(0.2, 5.0)),
               float(10 ** rng.uniform(-10, -2)))


def _erm_points(rng):
    while True:
        L = float(rng.uniform(0.5, 5.0))
        mu = float(rng.uniform(0.01, 1.0)) * L
        order = str(rng.choice(["fixed", "random"]))
        m = int(rng.integers(1, 11))
        s = pabi.ERMGradientDescent(lr=float(rng.uniform(0.01, 1.99)) / L, strong_convexity=mu, smoothness=L,
                                    max_grad_norm=float(rng.uniform(0.5, 2.0)), batch_size=int(rng.integers(1, 50)),
                                    batches_per_epoch=m, noise_scale=float(10 ** rng.uniform(-1, 1)),
                                    epochs=None if rng.uniform() < 0.3 else int(rng.integers(1, 6)),
                                    batch_order=order,
                                    batch_index=int(rng.integers(1, m + 1)) if order == "fixed" and rng.uniform() < 0.5
                                    else None)
        yield s, float(rng.uniform(0.2, 5.0)), float(10 ** rng.uniform(-10, -2))


FAMILIES = {"stepwise": _stepwise_points, "online": _online_points, "last_iterate": _last_iterate_points,
            "erm": _erm_points}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_against_the_reference(family):
    rng = np.random.default_rng(16)
    gen = FAMILIES[family](rng)
    for _ in range(POINTS):
        _check(*next(gen))


@pytest.mark.parametrize("family", list(FAMILIES))
def test_exact_inverse_by_bisection(family):
    """The calibrated x is above the exact inverse (bisection on the reference's forward value)
    and within 1e-9 relative of it."""
    rng = np.random.default_rng(160)
    gen = FAMILIES[family](rng)
    for _ in range(3):
        s, eps, delta = next(gen)
        field, _ = rc.setup_question(s)
        x = getattr(s.calibrate(eps, delta), field)
        exact = rc.setup_calibration(s, eps, delta)
        assert exact * (1 - 1e-12) <= x <= exact * (1 + REL)


def test_online_flat_in_c1_stays_safe():
    """Where δ barely depends on C1 (|d ln δ/d ln C1| ≈ 7e-7: one step, C2 ≈ 1.14, the noise near
    its floor), the bound's 3e-14 relative excess moves the least certified C1 5.6e-8 above the
    exact inverse: still on the safe side, and within excess/elasticity of it
    (docs/derivations/schedules.md#online-calibration)."""
    s = pabi.OnlinePNSGD(index=1, lr=0.05049698945363808, max_grad_norm=2.627177868642363, diameter=1.0,
                         c1=3039.9583107767744, c2=1.1359528801749552, decay=1.8377051868322463, steps=1.0)
    eps, delta = 0.23191929034236655, 0.08341728069937258
    x = s.calibrate(eps, delta).c1
    exact = rc.setup_calibration(s, eps, delta, rel=1e-15)
    assert exact <= x <= exact * (1 + 1e-6)
    assert rc.setup_forward(s, x, eps) <= delta


def test_online_limit():
    """steps=None: the limit δ_∞ (certified upper bound), its ε by the exact search, and C1 for
    a limit target, against the reference limit."""
    s = pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=0.5, decay=1.5,
                         noise="laplace")
    assert s.delta(0.0) < 1e-9  # the infinite product of B_t < 1 is small even at ε = 0
    target = s.replace(c1=50.0).delta(1.0)
    out = _check(s, 1.0, target)
    assert out.c1 <= 50.0 and abs(out.c1 / 50.0 - 1) < 1e-9


def test_online_limit_epsilon():
    """ε(δ) of the limit: the smallest double whose certified δ_∞ meets δ (Gaussian schedule), on
    the safe side of the exact (mpmath) inverse and within 1e-9 of it. The reference's δ_∞ (direct
    sum over 200 steps, Euler–Maclaurin tail) at 15 digits is 9.99999999999409536e-26 at this ε,
    its 30-digit value to 5e-15 relative, far inside the margin (5.9e-13 below δ); at 8 digits
    it is within 2e-10 of exact, far inside the other margin (3.4e-8 above δ at ε·(1 − 1e-9))."""
    kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    s = pabi.OnlinePNSGD(**kw)
    e = s.epsilon(1e-25)
    assert e > 0 and s.delta(e) <= 1e-25 < s.delta(math.nextafter(e, 0.0))
    assert s.delta(e) == pabi.online_gaussian_delta_limit_upper(e, **kw)
    exact = lambda x, dps: rs.online_schedule_delta_limit("gaussian", x, dps=dps, T=200, **kw)  # noqa: E731
    assert exact(e, 15) <= mp.mpf(1e-25)  # the safe side: e at least the exact inverse
    assert exact(e * (1 - 1e-9), 8) > mp.mpf(1e-25)  # and less than 1e-9 above it


def test_smallest_eps_search():
    """The limit's ε search: exact smallest double; with a domain that ends above (the Laplace
    schedule), +inf when no ε of the domain meets δ, and never an ε outside the domain."""
    from pabi._lockstep import _smallest_eps

    def f(e):
        return math.exp(-e)

    e = _smallest_eps(f, 0.01, False)
    assert f(e) <= 0.01 < f(math.nextafter(e, 0.0))

    def g(e):
        if e >= 3.0:
            raise pabi.DomainError("outside")
        return math.exp(-e)

    e = _smallest_eps(g, 0.1, True)
    assert g(e) <= 0.1 < g(math.nextafter(e, 0.0))
    assert _smallest_eps(g, 0.01, True) == math.inf  # e^{-ε} reaches 0.01 only at ε ≈ 4.6 > 3
    assert _smallest_eps(g, 2.0, True) == 0.0


def test_smallest_eps_against_the_reference_search():
    """The setups' ε search (``pabi.setups._smallest_eps``, on doubles) against its independent
    mpmath counterpart (``pabi.reference._calibrate.smallest_eps``, bisection on the exact δ):
    a Gaussian mechanism's profile (σ = 2) with δ(ε) computed in mpmath and rounded up, so the
    double found is the exact inverse's upper neighbour; and the same with a domain that ends
    at ε = 1.5 (the Laplace schedule's case): +inf on both sides when the target lies beyond."""
    from pabi._lockstep import _smallest_eps

    def exact(e):
        e, mu = mp.mpf(e), mp.mpf(0.5)
        return mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu)

    def up(e):  # the exact δ rounded up to a double: a certified, non-increasing δ
        with mp.workdps(40):
            v = exact(e)
            f = float(v)
        return f if f >= v else math.nextafter(f, math.inf)

    def ended(e):
        if e >= 1.5:
            raise pabi.DomainError("outside")
        return up(e)

    for target in (0.1, 1e-3, 1e-6):
        got = _smallest_eps(up, target, False)
        with mp.workdps(40):
            ref = rc.smallest_eps(exact, target, dps=30, rel=1e-20)
        assert up(got) <= target < up(math.nextafter(got, 0.0))  # the least double of the certified δ
        assert ref <= got <= ref * (1 + 1e-13)
        bounded = _smallest_eps(ended, target, True)
        ref_b = rc.smallest_eps(exact, target, end=1.5, dps=30, rel=1e-20)
        assert (bounded == math.inf) == (ref_b == mp.inf) == (ref > 1.5)
        if bounded < math.inf:
            assert bounded == got


def test_docstring_examples():
    result = doctest.testmod(pabi._setups_more, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0


def test_constant_noise_matches_pnsgd():
    """A constant run (one piece, noise_scale = 1) calibrates to the noise of the flat PNSGD
    calibration within 1e-9 (both certified: its ε at the factor meets the target)."""
    kw = dict(max_grad_norm=1.0, lr=0.05, diameter=1.0)
    s = pabi.StepwisePNSGD(noise_scale=1.0, run_lengths=[200], **kw)
    c = s.calibrate(1.0, 1e-5).noise_factor
    flat = pabi.pnsgd_calibrate_noise_scale(1.0, 1e-5, steps=200, **kw)
    assert abs(c / flat - 1) < REL
    assert pabi.pnsgd_epsilon(1e-5, noise_scale=c, steps=200, **kw) <= 1.0


def test_stepwise_warmup_example():
    """Warm-up then decay of the learning rate, constant noise: the calibrated noise meets the
    target, and a run whose lr is larger at every step needs no more noise (without a
    smoothness, the step contraction is M = 1 and each B_t = h(ε, D/(η_t σ_t)) falls as η_t
    grows: the noise on the iterate, η_t σ_t, is larger)."""
    s = pabi.StepwisePNSGD(noise_scale=1.0, max_grad_norm=1.0, diameter=1.0, lr=[0.01, 0.1, 0.02],
                           run_lengths=[10, 80, 10])
    c = _check(s, 1.0, 1e-5).noise_factor
    assert s.replace(lr=[0.02, 0.2, 0.04]).calibrate(1.0, 1e-5).noise_factor <= c
    # the per-step noise is c·σ_t⁰, each product rounded to nearest (checked with mpmath)
    base = [1.0, 3.0, 0.1]
    got = s.replace(noise_scale=base, noise_factor=c).noise_scales
    assert [float(v) for v in got] == [float(mp.mpf(c) * mp.mpf(b)) for b in base]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_monotone_in_the_target(family):
    s, eps, delta = next(FAMILIES[family](np.random.default_rng(3)))
    field, q = rc.setup_question(s)
    # a looser target (larger ε at the same δ, or larger δ at the same ε) needs no more noise
    # (the targets are looser than a reachable one: every one is reachable)
    xs = [getattr(s.calibrate(eps * f, delta), field) for f in (4.0, 2.0, 1.0)]
    assert xs[0] <= xs[1] <= xs[2]
    ys = [getattr(s.calibrate(eps, min(delta * f, 0.9)), field) for f in (4.0, 2.0, 1.0)]
    assert ys[0] <= ys[1] <= ys[2]


def test_errors_before_any_work():
    step = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0)
    online = dict(index=10, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=1.0, decay=1.5)
    li = dict(lr=0.1, max_grad_norm=1.0, noise_scale=1.0)
    erm = dict(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0, batch_size=10, batches_per_epoch=10,
               noise_scale=1.0)
    cases = [
        (lambda: pabi.StepwisePNSGD(**{**step, "noise_scale": [1.0, -1.0]}), "noise_scale", 1),
        (lambda: pabi.StepwisePNSGD(**step, noise_factor=0.0), "noise_factor", None),
        (lambda: pabi.StepwisePNSGD(**step, ordering="nope"), "ordering", None),
        (lambda: pabi.OnlinePNSGD(**{**online, "decay": 1.0}), "decay", None),
        (lambda: pabi.OnlinePNSGD(**online, steps=5), "steps", None),
        (lambda: pabi.OnlinePNSGD(**{**online, "c1": -1.0}), "c1", None),
        (lambda: pabi.LastIterateSGD(theorem="bounded", batch_size=10, **li), "diameter", None),
        (lambda: pabi.LastIterateSGD(theorem="general", **li), "steps", None),
        (lambda: pabi.LastIterateSGD(theorem="general", steps=10, batch_size=2, **li), "batches_per_epoch", None),
        (lambda: pabi.LastIterateSGD(theorem="other", steps=10, **li), "theorem", None),
        (lambda: pabi.LastIterateSGD(theorem="bounded", batch_size=10, diameter=1.0, steps=10, **li), "steps", None),
        (lambda: pabi.LastIterateSGD(theorem="general", steps=10, index=2, **li), "index", None),
        (lambda: pabi.LastIterateSGD(theorem="cyclic", steps=10, batch_size=2, batches_per_epoch=20, **li),
         "steps", None),
        (lambda: pabi.LastIterateSGD(theorem="general", steps=10, **{**li, "noise_scale": math.nan}),
         "noise_scale", None),
        (lambda: pabi.ERMGradientDescent(**{**erm, "lr": 1.0}), "lr", None),
        (lambda: pabi.ERMGradientDescent(**erm, batch_index=3), "batch_index", None),
        (lambda: pabi.ERMGradientDescent(**erm, batch_order="fixed", batch_index=11), "batch_index", None),
        (lambda: pabi.ERMGradientDescent(**{**erm, "noise_scale": 0.0}), "noise_scale", None),
    ]
    for make, param, index in cases:
        with pytest.raises(pabi.DomainError) as e:
            make()
        assert e.value.param == param, (param, e.value)
        if index is not None:
            assert e.value.index == index
    setups = [pabi.StepwisePNSGD(**step), pabi.OnlinePNSGD(**online, steps=20),
              pabi.LastIterateSGD(theorem="general", steps=10, **li), pabi.ERMGradientDescent(**erm)]
    for s in setups:
        for eps, delta, param in ((0.0, 1e-5, "eps"), (math.inf, 1e-5, "eps"), (1.0, 0.0, "delta"),
                                  (1.0, 1.0, "delta"), (1.0, math.nan, "delta")):
            with pytest.raises(pabi.DomainError) as e:
                s.calibrate(eps, delta)
            assert e.value.param == param
        with pytest.raises(pabi.DomainError):
            s.replace(neighboring="add_remove").calibrate(1.0, 1e-5)


def test_unreachable_target_names_the_field():
    """The online Laplace schedule with C2 = 100: the noise stays bounded as C1 grows, δ has a
    floor (≈ 1.09e-7 at ε = 1 here), and a target below it is the setups' unreachable error."""
    s = pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=100.0, decay=1.5,
                         steps=1000, noise="laplace")
    with pytest.raises(pabi.DomainError) as e:
        s.calibrate(1.0, 1e-10)
    assert e.value.param == "c1" and e.value.value == math.inf
    assert s.calibrate(1.0, 2e-7).delta(1.0) <= 2e-7


def test_rdp_setups_match_their_flat_functions():
    """LastIterateSGD and ERMGradientDescent answer with the flat functions' curves."""
    s = pabi.LastIterateSGD(theorem="cyclic", lr=0.1, max_grad_norm=1.0, noise_scale=2.0, steps=50, batch_size=5,
                            batches_per_epoch=10, smoothness=1.0)
    curve = pabi.last_iterate_rdp_cyclic(pabi.DEFAULT_ORDERS, lr=0.1, max_grad_norm=1.0, batch_size=5,
                                         noise_scale=2.0, steps=50, batches_per_epoch=10, weak_convexity=0.0,
                                         smoothness=1.0)
    assert np.array_equal(s.rdp(), curve)
    assert s.epsilon(1e-5) == pabi.rdp_to_dp_epsilon(1e-5, orders=pabi.DEFAULT_ORDERS, rdp=curve).eps
    e = pabi.ERMGradientDescent(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0, batch_size=10,
                                batches_per_epoch=4, noise_scale=1.0, epochs=2)
    d = pabi.sensitivity_multi_epoch(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0,
                                     batch_size=10.0, batches_per_epoch=4, batch_index=np.arange(1.0, 5.0), epochs=2)
    assert np.array_equal(e.sensitivities(), d)
    assert np.array_equal(e.rdp(), pabi.averaged_rdp(pabi.DEFAULT_ORDERS, noise_scale=1.0, sensitivities=d))
    # the delta question goes through rdp_to_dp_delta, and is consistent with epsilon
    assert e.delta(e.epsilon(1e-6)) <= 1e-6 * (1 + 1e-12)


def test_rdp_setups_against_the_reference():
    """The same two setups against pabi.reference (mpmath), independently of the flat functions:
    the curve at a few orders is at or above the exact RDP within 1e-12, the sensitivities at or
    above the exact Δ_j, and ε(δ) at or above the exact conversion of the exact curve within
    1e-12 (it is the least double whose certified δ meets the target)."""
    from pabi.reference import _last_iterate as rl
    from pabi.reference import _rdp as rr

    orders = [float(a) for a in pabi.DEFAULT_ORDERS]
    s = pabi.LastIterateSGD(theorem="cyclic", lr=0.1, max_grad_norm=1.0, noise_scale=2.0, steps=50, batch_size=5,
                            batches_per_epoch=10, smoothness=1.0)
    curve = s.rdp()
    exact = [rl.last_iterate_rdp_cyclic(a, 0.1, 1.0, 5, 2.0, 50, 10, 0.0, 1.0, dps=30) for a in orders]
    for k in (0, 9, 40, len(orders) - 1):
        assert exact[k] <= curve[k] <= exact[k] * (1 + 1e-12), orders[k]
    eps_exact = rr.rdp_to_dp_epsilon(orders, exact, 1e-5, dps=30)[0]
    assert eps_exact <= s.epsilon(1e-5) <= eps_exact * (1 + 1e-12)
    e = pabi.ERMGradientDescent(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0, batch_size=10,
                                batches_per_epoch=4, noise_scale=1.0, epochs=2)
    sens = [rr.sensitivity_multi_epoch(0.5, 1.0, 2.0, 1.0, 10, 4, j, 2, dps=30) for j in range(1, 5)]
    assert all(x <= y <= x * (1 + 1e-13) for x, y in zip(sens, e.sensitivities()))
    exact = [rr.averaged_rdp(a, 1.0, sens, dps=30) for a in orders]
    assert all(x <= y <= x * (1 + 1e-12) for x, y in zip(exact, e.rdp()))
    eps_exact = rr.rdp_to_dp_epsilon(orders, exact, 1e-6, dps=30)[0]
    assert eps_exact <= e.epsilon(1e-6) <= eps_exact * (1 + 1e-12)
