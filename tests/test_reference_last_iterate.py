"""pabi's last-iterate family (Kong–Ribero; docs/derivations/rdp.md#last-iterate) against the mpmath reference
(``pabi.reference._last_iterate``: the defining formulas at 50 digits, θ_L(s) by its sum).

Every value is compared at representative and random points (fixed seeds) with a relative
tolerance of 1e-12, and, where the quantity is an upper bound (or a conservative threshold), the
side of the exact value pabi must be on:

* RDP bounds, Φ_L, κ = L_λ² − 1 (a larger L is always sound): rounded UP (pabi ≥ exact);
* ``shift_weight_min_steps`` (Lemma C.1) and ℓ̄ of ``cyclic_calibrate``: step-count thresholds
  "s ≥ s_min suffices", so a larger value is the safe side: UP;
* σ̄ of ``cyclic_calibrate`` (corrected): a noise level certifying ε, larger is safe: UP;
* no direction for λ̄ of ``cyclic_calibrate`` (a step size computed to nearest, within one
  ulp of 1/(2(M + ρ))), for the printed σ̄ (``variant="as_published"``: documented as NOT
  certifying ε, returned as printed) and for ``optimal_shifts`` (the QP minimiser, not a
  bound).

Values whose exact magnitude is below 1e-290 (θ_L(s) of a long cycle with L < 1) are not
representable to 1e-12 in binary64; the random draws skip them. The regimes where pabi failed
when this file was written (ξ near 1, underflow, long cycles and small L) were fixed in the
library and are kept as regression cases at the end of each section.
"""

from __future__ import annotations

import inspect
import math

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import reference as ref

TOL = 1e-12
TINY_EXACT = mp.mpf("1e-290")


def pos_kw(ref_fn, args, first=1):
    """(positional, keyword) arguments of the public function for ``args`` written in the
    reference's positional order: the first ``first`` stay positional (the Rényi order), the
    rest become keywords (the public setup is keyword-only)."""
    names = list(inspect.signature(ref_fn).parameters)
    return args[:first], dict(zip(names[first:], args[first:]))


def public(fn, ref_fn, args, first=1, **kw):
    """``fn`` (public) on ``args`` in the reference's positional order."""
    a, k = pos_kw(ref_fn, args, first)
    return fn(*a, **k, **kw)


def rel(a, b) -> float:
    """Signed relative error (a − b)/b of pabi's a against the exact b."""
    b = mp.mpf(b)
    return float((mp.mpf(float(a)) - b) / b) if b != 0 else float(a)


class Audit:
    """Collects the comparisons of one test; fails with the worst offenders at the end."""

    def __init__(self, name: str):
        self.name, self.worst, self.bad, self.n = name, 0.0, [], 0

    def __call__(self, got, exact, where, up: bool = True, tol: float = TOL) -> None:
        self.n += 1
        e = rel(got, exact)
        self.worst = max(self.worst, abs(e))
        if abs(e) > tol or (up and e < 0):
            self.bad.append((abs(e), e, where, float(got), mp.nstr(exact, 17)))

    def done(self) -> None:
        self.bad.sort(key=lambda t: -t[0])
        assert not self.bad, f"{self.name}: {len(self.bad)}/{self.n} bad, worst: {self.bad[:4]}"


def logu(rng, lo, hi) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def near_one_or(rng, lo, hi) -> float:
    """L: log-uniform in [lo, hi] (70%) or 1 ± 10^U[-14, -2] (30%)."""
    if rng.random() < 0.7:
        return logu(rng, lo, hi)
    return 1.0 + float(rng.choice([-1.0, 1.0])) * logu(rng, 1e-14, 1e-2)


def step_ok(rng, m, M) -> float:
    """A step size λ ≤ 1/(2(m + M)) (any λ when m = M = 0)."""
    cap = 1.0 / (2.0 * (m + M)) if m + M > 0 else 10.0
    return cap * (1.0 if rng.random() < 0.15 else float(rng.uniform(1e-3, 1.0)))


def curvature(rng) -> tuple[float, float]:
    u = rng.random()
    if u < 0.1:
        return 0.0, 0.0
    if u < 0.3:
        return 0.0, logu(rng, 1e-3, 1e2)  # convex
    if u < 0.4:
        return logu(rng, 1e-3, 1e2), 0.0
    return logu(rng, 1e-4, 1e2), logu(rng, 1e-4, 1e2)


# ============================================================================ θ_L helpers


def test_theta_min_steps():
    """Lemma C.1 threshold s_min = log_L √(ξ/(ξ − 1)), rounded UP (a safe threshold)."""
    a = Audit("shift_weight_min_steps")
    for xi, L in [(2.0, 2.0), (2.0, 1.5), (1.01, 1.0001), (10.0, 1.7), (1e6, 1.3), (1.5, 3.0), (1.001, 1.01)]:
        a(pabi.shift_weight_min_steps(xi, step_lipschitz=L), ref.shift_weight_min_steps(xi, step_lipschitz=L),
          (xi, "L", L))
    rng = np.random.default_rng(20241)
    for _ in range(150):
        xi = 1.0 + logu(rng, 1e-3, 1e15)
        L = 1.0 + logu(rng, 1e-12, 10.0)
        kap = logu(rng, 1e-16, 100.0)
        a(pabi.shift_weight_min_steps(xi, step_lipschitz=L), ref.shift_weight_min_steps(xi, step_lipschitz=L),
          (xi, "L", L))
        a(pabi.shift_weight_min_steps(xi, kappa=kap), ref.shift_weight_min_steps(xi, kappa=kap), (xi, "kappa", kap))
    # broadcasting gives the scalar values
    xs, Ls = np.array([1.5, 3.0, 100.0]), np.array([1.1, 2.0, 1.0001])
    v = pabi.shift_weight_min_steps(xs, step_lipschitz=Ls)
    for x, L, got in zip(xs, Ls, v):
        a(got, ref.shift_weight_min_steps(float(x), step_lipschitz=float(L)), ("vec", x, L))
    a.done()
    # the threshold is valid: θ_L(⌈s_min⌉) ≤ ξ(1 − L^{-2}) (exact θ)
    for xi, L in [(2.0, 1.1), (1.5, 1.01), (10.0, 2.5)]:
        s = math.ceil(pabi.shift_weight_min_steps(xi, step_lipschitz=L))
        with mp.workdps(40):
            assert ref.shift_weight(L, s) <= xi * (1 - mp.mpf(L) ** -2)


@pytest.mark.parametrize("xi", [1.000001, 1.000000001])
def test_theta_min_steps_xi_near_one(xi):
    got, exact = pabi.shift_weight_min_steps(xi, step_lipschitz=2.0), ref.shift_weight_min_steps(xi, step_lipschitz=2.0)
    assert mp.mpf(got) >= exact and abs(rel(got, exact)) <= TOL


def test_cyclic_theta_sum():
    """Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ), rounded UP; L and κ inputs, L < 1, = 1, > 1."""
    a = Audit("cyclic_shift_weight_sum")
    for T, ell, L in [(10, 4, 1.0), (0, 3, 1.3), (7, 1, 0.7), (12, 4, 2.0), (13, 4, 0.5), (1, 1, 0.0),
                      (9, 3, 0.0), (10**15, 7, 1.2), (2**53, 1000, 1.0 + 1e-9), (400, 399, 0.999)]:
        a(pabi.cyclic_shift_weight_sum(T, batches_per_epoch=ell, step_lipschitz=L),
          ref.cyclic_shift_weight_sum(T, ell, step_lipschitz=L), (T, ell, "L", L))
    rng = np.random.default_rng(20242)
    skipped = 0
    for _ in range(120):
        ell = int(logu(rng, 1, 1500))
        T = ell * int(logu(rng, 1, 1e9)) + int(rng.integers(0, ell))
        L = near_one_or(rng, 0.4, 5.0)
        kap = float(rng.choice([-1.0, 1.0])) * logu(rng, 1e-16, 0.9) if rng.random() < 0.7 else logu(rng, 1, 20)
        for args, kw in (((T, ell), {"step_lipschitz": L}), ((T, ell), {"kappa": kap})):
            ex = ref.cyclic_shift_weight_sum(*args, **kw)
            if ex < TINY_EXACT:
                skipped += 1
                continue
            a(pabi.cyclic_shift_weight_sum(T, batches_per_epoch=ell, **kw), ex, (args, kw))
    assert skipped < 25
    a.done()


def test_cyclic_theta_sum_small_L():
    got, exact = pabi.cyclic_shift_weight_sum(50, batches_per_epoch=50,
                                              step_lipschitz=0.05), ref.cyclic_shift_weight_sum(50, 50, step_lipschitz=0.05)
    assert mp.mpf(got) >= exact and rel(got, exact) <= TOL


def test_l_lambda_kappa():
    """κ = L_λ² − 1 for both Lipschitz models, rounded UP."""
    a = Audit("clipped_step_kappa")
    pts = [(0.1, 1.0, 2.0), (0.3, 0.0, 2.0), (0.5, 0.0, 0.0), (1 / 1.4, 0.7, 0.0), (1 / 2.8, 0.7, 0.7),
           (1e-9, 3.0, 1e-3), (10.0, 5.0, 5.0)]
    rng = np.random.default_rng(20243)
    pts += [(logu(rng, 1e-8, 10), *curvature(rng)) for _ in range(150)]
    for lam, m, M in pts:
        for model in ("triangle", "as_published"):
            if m + M > 0 and lam > 1.0 / (2.0 * (m + M)):
                # outside Prop. 3.4's step-size domain: refused (regression of the missing check)
                with pytest.raises(pabi.DomainError) as ei:
                    pabi.clipped_step_kappa(lam, weak_convexity=m, smoothness=M, contraction=model)
                assert ei.value.param == "lr"
                continue
            a(pabi.clipped_step_kappa(lam, weak_convexity=m, smoothness=M, contraction=model), ref.clipped_step_kappa(lam, m, M, contraction=model),
              (lam, m, M, model))
    a.done()


# ============================================================================ Prop. 2.2 and App. B


def test_shifted_drift_bound():
    """Prop. 2.2(b): the exact residual sum (s̄ given or = ζ) and the printed eq. (8); UP."""
    a = Audit("shifted_drift_bound")
    pts = [(2.0, 1.0, 1.0, 10, 5, None), (2.0, 1.0, 1.0, 10, 1, None), (3.0, 0.5, 0.0, 7, 7, 1.0),
           (1.0 + 1e-9, 2.0, 1e-3, 10**12, 10**5, 5.0)]
    rng = np.random.default_rng(20244)
    for _ in range(120):
        T = int(logu(rng, 1, 1e13))
        pts.append((1 + logu(rng, 1e-6, 1e3), logu(rng, 1e-3, 1e3), logu(rng, 1e-3, 1e3), T,
                    int(logu(rng, 1, min(T, 1e6))), logu(rng, 1e-3, 1e3) if rng.random() < 0.7 else None))
    for al, sg, z, T, ell, sb in pts:
        a(pabi.shifted_drift_bound(al, noise_scale=sg, drift=z, steps=T, batches_per_epoch=ell, map_difference=sb), ref.shifted_drift_bound(al, sg, z, T, ell, map_difference=sb),
          (al, sg, z, T, ell, sb))
        a(pabi.shifted_drift_bound(al, noise_scale=sg, drift=z, steps=T, variant="as_published"),
          ref.shifted_drift_bound(al, sg, z, T, variant="as_published"), (al, sg, z, T, "as_published"))
    a.done()


def test_shifted_cycle_bound():
    """Prop. 2.2(a), eq. (7), rounded UP; L and κ inputs."""
    a = Audit("shifted_cycle_bound")
    pts = [((2.0, 1.0, 10, 5, 1.0), {"step_lipschitz": 1.0}), ((2.0, 1.0, 11, 4, 0.7, 0.5), {"step_lipschitz": 1.3}),
           ((2.0, 1.0, 9, 9, 2.0, 1.0), {"step_lipschitz": 0.9}), ((4.0, 0.3, 1, 1, 0.1, 2.0), {"step_lipschitz": 1.3}),
           ((1.5, 2.0, 10**12, 64, 0.2, 0.0), {"kappa": 1e-15}), ((8.0, 1.0, 100, 30, 1.0, 3.0), {"step_lipschitz": 0.0})]
    rng = np.random.default_rng(20245)
    for _ in range(100):
        ell = int(logu(rng, 1, 1500))
        T = ell * int(logu(rng, 1, 1e9)) + int(rng.integers(0, ell))
        args = (1 + logu(rng, 1e-6, 1e3), logu(rng, 1e-3, 1e3), T, ell, logu(rng, 1e-3, 1e2),
                logu(rng, 1e-3, 10) if rng.random() < 0.7 else 0.0)
        pts.append((args, {"step_lipschitz": near_one_or(rng, 0.4, 5.0)}))
        kap = float(rng.choice([-1.0, 1.0])) * logu(rng, 1e-16, 0.9) if rng.random() < 0.7 else logu(rng, 1, 20)
        pts.append((args, {"kappa": kap}))
    skipped = 0
    for args, kw in pts:
        ex = ref.shifted_cycle_bound(*args, **kw)
        if ex < TINY_EXACT:
            skipped += 1
            continue
        a(public(pabi.shifted_cycle_bound, ref.shifted_cycle_bound, args, **kw), ex, (args, kw))
    assert skipped < 25
    a.done()


def test_shifted_cycle_bound_underflow_is_zero():
    got = pabi.shifted_cycle_bound(2.0, noise_scale=1.0, steps=1000, batches_per_epoch=1000, map_difference=0.1,
                                   initial_distance=0.0, step_lipschitz=0.3)
    assert mp.mpf(got) >= ref.shifted_cycle_bound(2.0, 1.0, 1000, 1000, 0.1, 0.0, step_lipschitz=0.3)


def _residual_audit(a, T, tau, s, kw):
    ex = ref.optimal_shifts(T, tau, s, **kw)
    got = pabi.optimal_shifts(T, initial_distance=tau, map_difference=s, **kw)
    assert len(got) == T == len(ex)
    for t, (g, e) in enumerate(zip(got, ex), start=1):
        if e >= TINY_EXACT:
            a(g, e, (T, tau, s, kw, "t", t), up=False)


def test_optimal_residuals():
    """App. B minimiser a_t = ξL^{T−t} (no direction: not a bound), entries ≥ 1e-290, for L ≥ 0.4
    and θ_L(T) ≥ 1e-290 (the long-cycle and small-L regression cases follow)."""
    a = Audit("optimal_shifts")
    for T, tau, s, kw in [(7, 0.3, 1.0, {"step_lipschitz": 1.2}), (5, 0.3, 1.0, {"step_lipschitz": 1.2}), (7, 1.0, 0.5, {"step_lipschitz": 0.8}),
                          (6, 0.0, 2.0, {"step_lipschitz": 1.0}), (20, 0.5, 0.5, {"step_lipschitz": 1.05}), (1, 2.0,
                                                                                                             1.0, {"step_lipschitz": 3.0}),
                          (300, 0.1, 1.0, {"kappa": 1e-14}), (50, 0.0, 1.0, {"kappa": -0.5})]:
        _residual_audit(a, T, tau, s, kw)
    rng = np.random.default_rng(20246)
    drawn = 0
    while drawn < 60:
        T = int(logu(rng, 1, 400))
        kw = {"step_lipschitz": near_one_or(rng, 0.4, 5.0)} if rng.random() < 0.6 else {
            "kappa": float(rng.choice([-1.0, 1.0])) * logu(rng, 1e-16, 0.8) if rng.random() < 0.7 else logu(rng, 1, 20)}
        L = kw["step_lipschitz"] if "step_lipschitz" in kw else math.sqrt(1 + kw["kappa"])
        if L < 1 and ref.shift_weight(L, T, dps=15) < TINY_EXACT:
            continue
        drawn += 1
        _residual_audit(a, T, logu(rng, 1e-3, 10) if rng.random() < 0.7 else 0.0, logu(rng, 1e-3, 10), kw)
    a.done()


def test_optimal_residuals_long_cycle_below_one():
    a = Audit("optimal_shifts L=0.5 T=600")
    _residual_audit(a, 600, 0.0, 1.0, {"step_lipschitz": 0.5})
    a.done()


def test_optimal_residuals_small_L():
    a = Audit("optimal_shifts L=0.05 T=100")
    _residual_audit(a, 100, 0.0, 1.0, {"step_lipschitz": 0.05})
    a.done()


# ============================================================================ Thms 4.3–4.5, Cor. C.2/C.3


def test_last_iterate_rdp_general():
    """Thm 4.3: printed 8αT(λC/σ)² and the exact residual sum (t* given, or max over t*); UP."""
    a = Audit("last_iterate_rdp_general")
    pts = [(2.0, 0.1, 1.0, 1.0, 100, 10, 10), (8.0, 0.05, 1.0, 0.3, 5, 5, 1), (1.0 + 1e-9, 1e-4, 3.0, 2.0, 1, 1, 1),
           (64.0, 1.0, 1e-3, 1e-3, 10**12, 10**4, 1000)]
    rng = np.random.default_rng(20247)
    for _ in range(100):
        T = int(logu(rng, 1, 1e12))
        pts.append((1 + logu(rng, 1e-6, 1e3), logu(rng, 1e-6, 10), logu(rng, 1e-3, 1e3), logu(rng, 1e-3, 1e3), T,
                    int(logu(rng, 1, min(T, 1e4))), int(logu(rng, 1, 1e4))))
    for al, lam, C, sg, T, ell, b in pts:
        a(pabi.last_iterate_rdp_general(al, lr=lam, max_grad_norm=C, noise_scale=sg, steps=T), ref.last_iterate_rdp_general(al, lam, C, sg, T),
          (al, lam, C, sg, T))
        a(pabi.last_iterate_rdp_general(al, lr=lam, max_grad_norm=C, noise_scale=sg, steps=T, batch_size=b, batches_per_epoch=ell),
          ref.last_iterate_rdp_general(al, lam, C, sg, T, batch_size=b, batches_per_epoch=ell), (al, lam, C, sg, T, b, ell))
        ts = int(rng.integers(1, ell + 1))
        a(pabi.last_iterate_rdp_general(al, lr=lam, max_grad_norm=C, noise_scale=sg, steps=T, batch_size=b, batches_per_epoch=ell, index=ts),
          ref.last_iterate_rdp_general(al, lam, C, sg, T, batch_size=b, batches_per_epoch=ell, index=ts), (al, lam, C, sg, T, b, ell, ts))
    a.done()


def test_last_iterate_rdp_bounded():
    """Thm 4.4, both Lipschitz models; UP. Both reject λ > 1/(2(m + M))."""
    a = Audit("last_iterate_rdp_bounded")
    pts = [(2.0, 0.1, 1.0, 10, 1.0, 1.0, 0.0, 0.0), (8.0, 0.1, 1.0, 10, 1.0, 2.0, 0.0, 1.0),
           (4.0, 0.05, 1.0, 16, 0.3, 2.0, 1.0, 4.0), (2.0, 0.25, 1.0, 1, 1.0, 0.0, 1.0, 1.0)]
    rng = np.random.default_rng(20248)
    for _ in range(120):
        m, M = curvature(rng)
        pts.append((1 + logu(rng, 1e-6, 1e3), step_ok(rng, m, M), logu(rng, 1e-3, 1e3), int(logu(rng, 1, 1e4)),
                    logu(rng, 1e-3, 1e3), logu(rng, 1e-3, 1e2) if rng.random() < 0.9 else 0.0, m, M))
    for args in pts:
        for model in ("triangle", "as_published"):
            a(public(pabi.last_iterate_rdp_bounded, ref.last_iterate_rdp_bounded, args, contraction=model),
              ref.last_iterate_rdp_bounded(*args, contraction=model), (args, model))
    a.done()
    bad = (2.0, 0.26, 1.0, 1, 1.0, 1.0, 1.0, 1.0)
    with pytest.raises(ValueError):
        public(pabi.last_iterate_rdp_bounded, ref.last_iterate_rdp_bounded, bad)
    with pytest.raises(ValueError):
        ref.last_iterate_rdp_bounded(*bad)


def test_last_iterate_rdp_cyclic():
    """Thm 4.5: corrected (t* given, or the max over t* ∈ [1, ℓ], enumerated by the reference) and
    the printed eq. (21), both Lipschitz models; UP."""
    a = Audit("last_iterate_rdp_cyclic")
    pts = [(1.0 + 1e-9, 1.0, 1.0, 1, 1.0, 5, 5, 0.0, 0.0), (2.0, 0.1, 1.0, 10, 1.0, 103, 10, 0.3, 0.7),
           (8.0, 0.1, 1.0, 10, 1.0, 1000, 100, 0.0, 1.0), (3.0, 0.05, 2.0, 8, 0.5, 40, 10, 1.0, 1.0),
           (2.0, 0.25, 1.0, 1, 1.0, 7, 1, 1.0, 1.0)]
    rng = np.random.default_rng(20249)
    for _ in range(45):
        m, M = curvature(rng)
        ell = int(logu(rng, 1, 150))
        T = ell * int(logu(rng, 1, 1e9)) + int(rng.integers(0, ell))
        pts.append((1 + logu(rng, 1e-6, 1e3), step_ok(rng, m, M), logu(rng, 1e-3, 1e3), int(logu(rng, 1, 1e4)),
                    logu(rng, 1e-3, 1e3), T, ell, m, M))
    for args in pts:
        ell = args[6]
        ts = int(rng.integers(1, ell + 1))
        for model in ("triangle", "as_published"):
            for variant in ("corrected", "as_published"):
                a(public(pabi.last_iterate_rdp_cyclic, ref.last_iterate_rdp_cyclic, args, variant=variant,
                         contraction=model),
                  ref.last_iterate_rdp_cyclic(*args, variant=variant, contraction=model), (args, variant, model))
            a(public(pabi.last_iterate_rdp_cyclic, ref.last_iterate_rdp_cyclic, args, index=ts, contraction=model),
              ref.last_iterate_rdp_cyclic(*args, index=ts, contraction=model), (args, "t*", ts, model))
    a.done()


def test_last_iterate_rdp_small_step():
    """Cor. C.3: 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)], both models; UP."""
    a = Audit("last_iterate_rdp_small_step")
    pts = [(2.0, 1.0, 1, 1.0, 4, 0.1, 0.0, 0.0), (8.0, 1.0, 10, 0.5, 100, 0.1, 0.0, 1.0),
           (2.0, 1.0, 1, 1.0, 1, 0.25, 1.0, 1.0)]
    rng = np.random.default_rng(20250)
    for _ in range(100):
        m, M = curvature(rng)
        pts.append((1 + logu(rng, 1e-6, 1e3), logu(rng, 1e-3, 1e3), int(logu(rng, 1, 1e4)), logu(rng, 1e-3, 1e3),
                    int(logu(rng, 1, 2000)), step_ok(rng, m, M), m, M))
    for args in pts:
        for model in ("triangle", "as_published"):
            a(public(pabi.last_iterate_rdp_small_step, ref.last_iterate_rdp_small_step, args, contraction=model),
              ref.last_iterate_rdp_small_step(*args, contraction=model), (args, model))
    a.done()


def test_cyclic_calibration():
    """Cor. C.2 (λ̄, ℓ̄, σ̄): λ̄ to nearest (|rel| ≤ 1e-15, no side), ℓ̄ UP, corrected σ̄ UP and
    certifying ε exactly; the printed σ̄ (not a certified noise level) to 1e-12, no side."""
    lam_a, ell_a, sig_a, pub_a = (Audit(f"cyclic_calibrate {x}") for x in ("lam", "ell", "sigma", "sigma printed"))
    pts = [(8.0, 1.0, 0.5, 2.0, 1.0, 10, 5), (2.0, 0.1, 0.3, 1.0, 1.0, 10, 5), (8.0, 1.0, 1.0, 0.0, 1.0, 10, 0),
           (1.0 + 1e-9, 1e-3, 1e-8, 1e3, 0.1, 1, 10**9)]
    rng = np.random.default_rng(20251)
    for _ in range(150):
        pts.append((1 + logu(rng, 1e-6, 1e3), logu(rng, 1e-4, 1e2), logu(rng, 1e-8, 1e3),
                    logu(rng, 1e-4, 1e3) if rng.random() < 0.9 else 0.0, logu(rng, 1e-3, 1e3),
                    int(logu(rng, 1, 1e4)), int(logu(rng, 1, 1e6)) - 1))
    for args in pts:
        lam, ell, sig = public(pabi.cyclic_calibrate, ref.cyclic_calibrate, args, first=2)
        rlam, rell, rsig = ref.cyclic_calibrate(*args)
        lam_a(lam, rlam, args, up=False, tol=1e-15)
        ell_a(ell, rell, args)
        sig_a(sig, rsig, args)
        _, _, sp = public(pabi.cyclic_calibrate, ref.cyclic_calibrate, args, first=2, variant="as_published")
        rlp, rep, rsp = ref.cyclic_calibrate(*args, variant="as_published")
        assert (rlp, rep) == (rlam, rell)
        pub_a(sp, rsp, args, up=False)
        # the corrected σ̄ certifies ε: 4α(λ̄C/(bσ̄))²(1 + 4ρE/(M + ρ)) ≤ ε (the chain of Cor. C.2)
        al, eps, rho, M, C, b, E = args
        with mp.workdps(40):
            cert = 4 * al * (rlam * C / (b * mp.mpf(sig))) ** 2 * (1 + 4 * mp.mpf(rho) * E / (M + mp.mpf(rho)))
            assert cert <= eps
    for x in (lam_a, ell_a, sig_a, pub_a):
        x.done()


# ============================================================================ reference self-consistency


def test_reference_identities():
    """The reference's definitions agree with each other (checks docs/errata.md#r-c27, #r-c31;
    Kong–Ribero App. B)."""
    al, lam, C, b, sg, m, M = 4.0, 0.05, 1.0, 16, 0.3, 1.0, 2.0
    with mp.workdps(50):
        Lm = mp.sqrt(1 + ref.clipped_step_kappa(lam, m, M))
        sb = 2 * mp.mpf(lam) * C / b
        # Thm 4.4 = Prop. 2.2(a) with T = ℓ = 1, τ = d_h
        assert abs(ref.last_iterate_rdp_bounded(al, lam, C, b, sg, 2.0, m, M)
                   - ref.shifted_cycle_bound(al, sg, 1, 1, sb, 2.0, step_lipschitz=Lm)) < mp.mpf(10) ** -45
        for T, ell in [(10, 3), (12, 4), (7, 7), (40, 6)]:
            unit = al * (lam * mp.mpf(C) / (b * sg)) ** 2
            E, r0 = divmod(T, ell)
            th = ref.shift_weight(Lm, ell)
            closed = 2 * unit * (E * th + 1 if r0 >= 1 else (E - 1) * th + 1)  # [C27] max over t*
            v = ref.last_iterate_rdp_cyclic(al, lam, C, b, sg, T, ell, m, M)
            assert abs(v - closed) < mp.mpf(10) ** -45 * closed
            for ts in (1, ell):
                v = ref.last_iterate_rdp_cyclic(al, lam, C, b, sg, T, ell, m, M, index=ts)
                assert abs(v - 2 * unit * ref.cyclic_shift_weight_sum(T - ts + 1, ell,
                                                                      step_lipschitz=Lm)) < mp.mpf(10) ** -45 * v
            # Prop. 2.2(a) with τ = 0 is α s̄²/(2σ²) Φ_L(T, ℓ)  [C31]
            v = ref.shifted_cycle_bound(al, sg, T, ell, sb, 0.0, step_lipschitz=Lm)
            want = al * sb**2 / (2 * mp.mpf(sg) ** 2) * ref.cyclic_shift_weight_sum(T, ell, step_lipschitz=Lm)
            assert abs(v - want) < mp.mpf(10) ** -45 * v
        # App. B: R̃_T = 0 and ½Σa² = ½(Lτ + s)²θ_L(T)
        for L, T, tau, s in [(1.3, 9, 0.4, 1.0), (0.7, 12, 1.0, 0.2), (1.0, 5, 0.0, 1.0)]:
            La = ref.optimal_shifts(T, tau, s, step_lipschitz=L)
            Lq = mp.mpf(L)
            RT = Lq ** (T - 1) * (Lq * tau + s) - mp.fsum(x * Lq ** (T - i) for i, x in enumerate(La, start=1))
            assert abs(RT) < mp.mpf(10) ** -45
            obj = (Lq * tau + s) ** 2 * ref.shift_weight(L, T)
            assert abs(mp.fsum(x * x for x in La) - obj) < mp.mpf(10) ** -45 * obj
