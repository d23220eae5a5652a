"""E_γ(P‖Q) of given distributions and η_γ(K) of given kernels (issue 16: the generic tools of
Asoodeh–Diaz–Calmon Thm 2), against the mpmath reference, closed forms and the laws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pabi
from pabi import reference as ref

rng = np.random.default_rng(20261126)


def _dist(k: int) -> np.ndarray:
    w = rng.exponential(size=k) * (rng.random(k) < 0.8)
    w[rng.integers(k)] += 0.1
    return w / w.sum()


def test_against_the_reference_never_below_and_tight() -> None:
    worst = 0.0
    for _ in range(200):
        k = int(rng.integers(1, 9))
        p, q = _dist(k), _dist(k)
        eps = float(rng.choice([0.0, rng.exponential(), 10 ** rng.uniform(-6, 1.5)]))
        got = pabi.hockey_stick_divergence(p, q, eps)
        ex = ref.hockey_stick_divergence(p, q, eps)
        assert got >= ex, (p, q, eps, got, ex)
        if ex > 1e-6:
            worst = max(worst, float((got - ex) / ex))
    assert worst <= 1e-13, worst


def test_array_eps_equals_scalar_calls_and_is_non_increasing() -> None:
    p, q = _dist(6), _dist(6)
    eps = np.linspace(0.0, 3.0, 301)
    arr = pabi.hockey_stick_divergence(p, q, eps)
    assert arr.shape == eps.shape
    assert all(arr[i] == pabi.hockey_stick_divergence(p, q, float(e)) for i, e in enumerate(eps))
    assert np.all(np.diff(arr) <= 0)
    assert pabi.hockey_stick_divergence(p, q, eps[:300].reshape(3, -1)).shape == (3, 100)


def test_closed_forms() -> None:
    # total variation at eps = 0; disjoint supports give 1 at every eps
    assert pabi.hockey_stick_divergence([0.5, 0.5], [0.25, 0.75]) == pytest.approx(0.25, rel=1e-15)
    for eps in (0.0, 2.0, math.inf):
        assert pabi.hockey_stick_divergence([1.0, 0.0], [0.0, 1.0], eps) == pytest.approx(1.0, rel=1e-15)
    # randomized response with parameter a is (a, 0)-DP: E = 0 from eps = a on, and
    # p - e^eps (1 - p) below it
    a = 1.5
    p = math.exp(a) / (1 + math.exp(a))
    assert pabi.hockey_stick_divergence([p, 1 - p], [1 - p, p], 1.6) == 0.0
    got = pabi.hockey_stick_divergence([p, 1 - p], [1 - p, p], 1.0)
    ex = ref.hockey_stick_divergence([p, 1 - p], [1 - p, p], 1.0)
    assert ex <= got <= ex * (1 + 1e-14)


def test_discretised_gaussian_pair_approaches_theta() -> None:
    # N(r, 1) and N(0, 1) binned finely: E_gamma of the bins <= theta (data processing) and close
    r, eps = 1.0, 0.5
    edges = np.linspace(-12, 13, 250_001)
    cdf = lambda m: np.array([0.5 * math.erfc(-(x - m) / math.sqrt(2)) for x in edges[::2500]])  # noqa: E731
    # coarse check with the reference's own tail on 101 bins (fast)
    pc, qc = np.diff(cdf(r)), np.diff(cdf(0.0))
    pc, qc = np.clip(pc, 0, 1), np.clip(qc, 0, 1)
    e = pabi.hockey_stick_divergence(pc, qc, eps)
    assert e <= pabi.theta(eps, r) and e > 0.9 * pabi.theta(eps, r)


def test_contraction_coefficient_binary_symmetric_channel_and_identity() -> None:
    for c in (0.0, 0.1, 0.3, 0.5):
        k = [[1 - c, c], [c, 1 - c]]
        for eps in (0.0, 0.2, 1.0):
            got = pabi.contraction_coefficient(k, eps)
            ex = ref.contraction_coefficient(k, eps)
            assert ex <= got <= ex * (1 + 1e-14) + 1e-300
    assert pabi.contraction_coefficient([[0.2, 0.8]]) == 0.0  # one input: nothing to distinguish
    # the identity kernel does not contract
    assert pabi.contraction_coefficient(np.eye(4), 3.0) == pytest.approx(1.0, rel=1e-15)


def test_contraction_bounds_every_input_pair() -> None:
    """E_γ(μK‖νK) ≤ η_γ(K)·E_γ(μ‖ν) for random kernels and inputs (000 Thm 2), with point
    masses attaining η."""
    for _ in range(40):
        n, m = int(rng.integers(2, 6)), int(rng.integers(2, 6))
        k = np.array([_dist(m) for _ in range(n)])
        eps = float(rng.exponential())
        eta = pabi.contraction_coefficient(k, eps)
        assert eta == pytest.approx(float(ref.contraction_coefficient(k.tolist(), eps)), rel=1e-13, abs=1e-300)
        for _ in range(10):
            mu, nu = _dist(n), _dist(n)
            before = float(ref.hockey_stick_divergence(mu, nu, eps))
            after = float(ref.hockey_stick_divergence(mu @ k, nu @ k, eps))
            assert after <= eta * before + 1e-15
        i, j = 0, 1
        e_rows = pabi.hockey_stick_divergence(k[i], k[j], eps)
        assert e_rows <= eta


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12), st.floats(0.0, 50.0))
def test_laws_bounds_and_monotone(masses, eps) -> None:
    p = np.asarray(masses)
    q = p[::-1].copy()
    v = pabi.hockey_stick_divergence(p, q, eps)
    assert 0.0 <= v <= float(np.sum(p)) * (1 + 1e-15)
    assert pabi.hockey_stick_divergence(p, q, math.nextafter(eps, math.inf)) <= v
    assert pabi.hockey_stick_divergence(p, p, eps) == 0.0


def test_bad_input_names_the_parameter() -> None:
    cases = [
        (lambda: pabi.hockey_stick_divergence([0.5, np.nan], [0.5, 0.5]), pabi.DomainError, "p_mass"),
        (lambda: pabi.hockey_stick_divergence([0.5, 0.5], [1.5, 0.5]), pabi.DomainError, "q_mass"),
        (lambda: pabi.hockey_stick_divergence([0.5, 0.5], [0.5, 0.5], -1.0), pabi.DomainError, "eps"),
        (lambda: pabi.hockey_stick_divergence([], []), pabi.DomainError, "p_mass"),
        (lambda: pabi.hockey_stick_divergence(["a"], [1.0]), TypeError, "p_mass"),
        (lambda: pabi.contraction_coefficient([[0.5, 0.6], [0.5, 0.5]]), pabi.DomainError, "kernel"),
        (lambda: pabi.contraction_coefficient([[0.5, 0.5]], math.nan), pabi.DomainError, "eps"),
    ]
    for f, exc, param in cases:
        with pytest.raises(exc) as info:
            f()
        assert info.value.param == param, (param, info.value)
    with pytest.raises(ValueError, match="must have the same length|expected"):
        pabi.hockey_stick_divergence([0.5, 0.5], [1.0])
    with pytest.raises(ValueError, match="kernel must be a 2-D array"):
        pabi.contraction_coefficient([0.5, 0.5])
    # the work bound is checked before anything runs
    with pytest.raises(pabi.DomainError, match="rows\\^2"):
        pabi.contraction_coefficient(np.full((3000, 3000), 1 / 3000))


def test_work_of_a_divergence_call_is_bounded_up_front() -> None:
    # 2^17 support points times 2^18 values of eps: refused before any term is computed
    p = np.full(1 << 17, 1.0 / (1 << 17))
    with pytest.raises(pabi.DomainError, match="2\\^34") as info:
        pabi.hockey_stick_divergence(p, p, np.zeros(1 << 18))
    assert info.value.param == "eps"
