"""E_γ(P‖Q) of two given 1-D Gaussian mixtures (issue 16): the certified adaptive-cell bound
against the mpmath reference (roots of p − e^ε q), the closed form θ for single Gaussians, the
DP-SGD replace-one pair, the laws and the validation."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import pabi
from pabi import reference as ref
from pabi.divergence import mixture_hockey_stick_divergence as mix

rng = np.random.default_rng(20261126)


def _weights(raw: list[float]) -> np.ndarray:
    w = np.asarray(raw, dtype=float) + 0.05
    return w / w.sum()


_component = st.tuples(st.floats(0.0, 1.0), st.floats(-3.0, 3.0), st.floats(0.3, 3.0))


@settings(max_examples=25, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(st.lists(_component, min_size=1, max_size=3), st.lists(_component, min_size=1, max_size=3),
       st.floats(0.0, 4.0))
def test_random_mixtures_against_the_reference(pc: list, qc: list, eps: float) -> None:
    pw, pm, ps = _weights([c[0] for c in pc]), [c[1] for c in pc], [c[2] for c in pc]
    qw, qm, qs = _weights([c[0] for c in qc]), [c[1] for c in qc], [c[2] for c in qc]
    lo, up = mix(pw, pm, ps, qw, qm, qs, eps, bracket=True)
    ex = ref.mixture_hockey_stick_divergence(pw, pm, ps, qw, qm, qs, eps, grid=1500, sigmas=12)
    assert mp.mpf(up) >= ex, (pc, qc, eps, up, ex)
    assert mp.mpf(lo) <= ex + mp.mpf(1e-30)  # (the reference omits tails beyond 12 sigmas)
    # 1e-12 relative, or the documented floor 2^-46 where p and e^eps q nearly cancel
    assert up - ex <= 1e-12 * ex + 1.5e-14, (pc, qc, eps, up, ex)


def test_single_gaussians_reproduce_theta() -> None:
    worst = 0.0
    for _ in range(60):
        m1, m2 = rng.uniform(-5, 5, size=2)
        s = float(10 ** rng.uniform(-1, 1))
        eps = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 5.0])
        got = mix([1.0], [m1], [s], [1.0], [m2], [s], eps)
        # the exact shift |m1 − m2|/s of the given doubles (a rounded r moved θ by ~5e-15 at
        # a = 6.8, more than the exact single-pair path's own error)
        with mp.workdps(60):
            r = abs(mp.mpf(m1) - mp.mpf(m2)) / mp.mpf(s)
        for e, g in zip(eps, got):
            with mp.workdps(60):  # (mpf(r) inside the reference keeps r's 60 digits)
                ex = ref.theta(float(e), r)
            t = float(ex)  # the accuracy is measured against the reference, not pabi.theta
            if t < 1e-200:
                continue
            assert mp.mpf(g) >= ex, (m1, m2, s, e, g, ex)
            # the documented accuracy: 1e-12 relative, or 2^-46 of P(A) where P(A) and
            # e^eps Q(A) cancel (A = {x > eps/r + r/2} in units of s, P(A) = Q(eps/r - r/2))
            p_a = float(mp.ncdf(-(e / r - r / 2))) if r > 0 else 0.0  # (r an mpf)
            worst = max(worst, abs(g - t) / (1e-12 * t + 2.0**-46 * p_a))
    assert worst <= 1.0, worst


def test_unequal_stds_single_gaussians_against_the_reference() -> None:
    # N(0, 2^2) vs N(0, 1): two roots, p > e^eps q in both tails
    for eps in [0.0, 0.7, 3.0, 10.0]:
        lo, up = mix([1.0], [0.0], [2.0], [1.0], [0.0], [1.0], eps, bracket=True)
        ex = ref.mixture_hockey_stick_divergence([1.0], [0.0], [2.0], [1.0], [0.0], [1.0], eps,
                                                  grid=2000)
        assert mp.mpf(lo) <= ex <= mp.mpf(up), (eps, lo, up, ex)
        assert up - ex <= 1e-12 * ex, (eps, up, ex)


@pytest.mark.parametrize("q,z", [(0.01, 1.0), (0.1, 0.8), (0.5, 2.0), (1.0, 1.0)])
def test_replace_one_pair_equals_one_dpsgd_step(q: float, z: float) -> None:
    # (1-q)N(0, z^2) + qN(1, z^2) vs (1-q)N(0, z^2) + qN(-1, z^2): one DP-SGD step under
    # replace-one with Poisson sampling (docs/derivations/neighbouring.md)
    w = [1 - q, q] if q < 1 else [1.0]
    pm, qm = ([0.0, 1.0], [0.0, -1.0]) if q < 1 else ([1.0], [-1.0])
    sd = [z] * len(w)
    for eps in [0.0, 0.3, 1.0, 2.5]:
        got = mix(w, pm, sd, w, qm, sd, eps)
        ex = ref.subsampled_gaussian_delta(eps, q, z, neighboring="replace_one")
        assert mp.mpf(got) >= ex and got - ex <= 1e-12 * ex, (q, z, eps, got, ex)
        # the pair is symmetric: E(P||Q) = E(Q||P)
        back = mix(w, qm, sd, w, pm, sd, eps)
        assert abs(back - got) <= 1e-12 * got


def test_pinned_value_subsampled_pair() -> None:
    # regression pin (issue 16): q = 0.1, z = 1, eps = 0.5, replace-one Poisson pair
    lo, up = mix([0.9, 0.1], [0, 1], [1, 1], [0.9, 0.1], [0, -1], [1, 1], 0.5, bracket=True)
    ex = ref.mixture_hockey_stick_divergence([0.9, 0.1], [0, 1], [1, 1], [0.9, 0.1], [0, -1],
                                              [1, 1], 0.5)
    assert mp.mpf(lo) <= ex <= mp.mpf(up)
    assert up - lo <= 1e-12 * up
    # (pabi's upper end 0.00334197179101381 was pinned here; the mpmath value is the source)
    assert 0 <= mp.mpf(up) - ex <= 1e-14


def test_laws_monotone_tv_bounds_and_vectorised() -> None:
    for _ in range(10):
        k, l = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        pw, qw = _weights(list(rng.random(k))), _weights(list(rng.random(l)))
        pm, qm = rng.uniform(-2, 2, k), rng.uniform(-2, 2, l)
        ps, qs = 10 ** rng.uniform(-0.5, 0.5, k), 10 ** rng.uniform(-0.5, 0.5, l)
        eps = np.linspace(0.0, 6.0, 25)
        got = mix(pw, pm, ps, qw, qm, qs, eps)
        assert got.shape == eps.shape
        assert np.all((got >= 0) & (got <= 1))
        # non-increasing in eps (each value within 2^-43 + rounding of the exact one)
        assert np.all(np.diff(got) <= 1e-12 * got[:-1]), got
        # E_gamma <= total variation (eps = 0)
        assert np.all(got <= got[0] * (1 + 1e-12))
        # the array call equals scalar calls, bit for bit
        for e, g in zip(eps[::6], got[::6]):
            assert mix(pw, pm, ps, qw, qm, qs, float(e)) == g
        # 2-D eps keeps its shape
        assert mix(pw, pm, ps, qw, qm, qs, eps.reshape(5, 5)).shape == (5, 5)


def test_identical_mirrored_and_infinite() -> None:
    # the same mixture written in another order: exactly 0 for every eps
    assert mix([0.3, 0.7], [0, 1], [1, 2], [0.7, 0.3], [1, 0], [2, 1], 0.0) == 0.0
    # mirroring both mixtures leaves E unchanged
    a = mix([0.3, 0.7], [0.5, 1], [1, 2], [0.6, 0.4], [-1, 0], [1, 1], 0.4)
    b = mix([0.3, 0.7], [-0.5, -1], [1, 2], [0.6, 0.4], [1, 0], [1, 1], 0.4)
    assert abs(a - b) <= 1e-12 * a
    assert mix([1.0], [1.0], [1.0], [1.0], [0.0], [1.0], math.inf) == 0.0
    # huge eps: a wider P still has mass where q is negligible; finite and positive
    v = mix([1.0], [0.0], [2.0], [1.0], [0.0], [1.0], 800.0)
    assert 0.0 < v < 1e-100


@pytest.mark.parametrize("kwargs,param,index", [
    (dict(p_weights=[0.5, 0.6]), "p_weights", None),
    (dict(q_weights=[0.2, 0.2]), "q_weights", None),
    (dict(p_weights=[1.5, -0.5]), "p_weights", 0),
    (dict(p_stds=[1.0, -1.0]), "p_stds", 1),
    (dict(q_stds=[1.0, 0.0]), "q_stds", 1),
    (dict(p_means=[0.0, math.nan]), "p_means", 1),
    (dict(q_means=[math.inf, 0.0]), "q_means", 0),
    (dict(eps=[0.0, -1.0]), "eps", 1),
    (dict(eps=[math.nan]), "eps", 0),
])
def test_bad_input_is_a_domain_error_with_index(kwargs: dict, param: str, index: int | None) -> None:
    args = dict(p_weights=[0.5, 0.5], p_means=[0.0, 1.0], p_stds=[1.0, 1.0],
                q_weights=[0.5, 0.5], q_means=[0.0, -1.0], q_stds=[1.0, 1.0], eps=0.0)
    args.update(kwargs)
    with pytest.raises(pabi.DomainError) as e:
        mix(**args)
    assert param in str(e.value)
    if index is not None:
        assert f"index {index}" in str(e.value) or f"[{index}]" in str(e.value), str(e.value)


def test_length_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError):
        mix([0.5, 0.5], [0.0], [1.0, 1.0], [1.0], [0.0], [1.0], 0.0)


def test_density_bounds_without_a_sum_margin() -> None:
    # the log-sum-exp of the per-component density bounds is directed term by term (exp_up /
    # exp_dn, add_up / add_dn): its former extra (1 ± 2nε) factor is gone (issue 14). The
    # refinement then ends on other cells; this mixture's upper end moved 0.0012065347868772821
    # -> 0.0012065347868772313 (exact 0.0012065347868772147: 5.6e-14 -> 1.4e-14 relative)
    a = ([0.4775556640288123, 0.24575279155650853, 0.2406923318127838, 0.035999212601895356],
         [-1.7851127305830123, -1.000368502677321, -2.577172449022976, -2.814840960072628],
         [2.2128198636427525, 0.32550242145164826, 0.9615465686437394, 2.8940240254496876],
         [0.10727736072543188, 0.7358156781894498, 0.1569069610851184],
         [2.5615226964791287, -0.3887482225278527, -1.7706932361587777],
         [2.7237634668974184, 2.0169981760937903, 0.5516474826962703])
    lo, up = mix(*a, 3.0, bracket=True)
    ex = ref.mixture_hockey_stick_divergence(*a, 3.0, grid=1500, sigmas=12)
    assert mp.mpf(lo) <= ex <= mp.mpf(up)
    assert up - ex <= 3e-14 * ex, (up, ex)
