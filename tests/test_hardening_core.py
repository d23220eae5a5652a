"""Hardening of the engine, the exact (KOV) composition and GDP: regression tests pinning each
fixed example against an exact / mpmath value, directed-rounding checks at tiny, subnormal and
huge arguments, GDP inversions consistent with pabi's own gdp_delta, and monotonicity to the ulp
on grids of consecutive doubles."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import composition as C
from pabi import reference as R
from _engine_fns import log_theta, log_theta_complement, ref_log_theta, ref_log_theta_complement

MAX = np.finfo(float).max
SUB = 5e-324  # the subnormal ulp


# ---------------------------------------------------------------------------------------------
# θ family at tiny / subnormal radii and huge a


def _tiny_points(seed: int, n: int) -> list[tuple[float, float]]:
    rng = np.random.default_rng(seed)
    pts = []
    for _ in range(n):
        r = float(10 ** rng.uniform(-323.5, -250))
        kind = rng.integers(4)
        if kind == 0:
            e = 0.0
        elif kind == 1:
            e = r * float(10 ** rng.uniform(-5, 1.5))
        elif kind == 2:
            e = float(10 ** rng.uniform(-323.5, -250))
        else:
            e = r * float(rng.uniform(0, 3))
        pts.append((e, r))
    return pts


THETA_FAMILY = [
    ("theta", pabi.theta, R.theta, +1),
    ("log_theta", log_theta, ref_log_theta, +1),
    ("theta_complement", pabi.theta_complement, R.theta_complement, -1),
    ("log_theta_complement", log_theta_complement, ref_log_theta_complement, -1),
]


@pytest.mark.parametrize("name,f,ref,side", THETA_FAMILY, ids=[t[0] for t in THETA_FAMILY])
def test_theta_family_tiny_radii_directed_and_accurate(name, f, ref, side):
    pts = _tiny_points(11, 150) + [
        (0.0, 5e-324),
        (0.0, 1e-310),
        (5e-324, 5e-324),
        (1e-310, 1e-310),
        (3e-311, 1e-310),
        (0.0, 2.2250738585072014e-308),
        (0.0, 1e-300),
        (1e-300, 1e-310),
        (1.0, 1e-9),
        (1e-150, 1e-304),
    ]
    e = np.array([p[0] for p in pts])
    r = np.array([p[1] for p in pts])
    got = f(e, r)
    for i, (ei, ri) in enumerate(pts):
        x = ref(ei, ri, dps=40)
        v = mp.mpf(float(got[i]))
        assert side * (v - x) >= 0, f"{name}({ei!r}, {ri!r}) = {got[i]!r} on the wrong side of {x}"
        if x == 0 or not mp.isfinite(x):
            continue
        if name.startswith("log"):
            if abs(x) > 1e-300:
                assert abs(v / x - 1) <= 3e-14, (name, ei, ri, got[i], x)
            else:  # ln(1 − tiny): −tiny, any negative subnormal-sized value will do
                assert abs(v) <= 1e-300
        elif abs(x) >= 1e-300:
            assert abs(v / x - 1) <= 3e-14, (name, ei, ri, got[i], x)
        else:  # subnormal range: a few subnormal ulps absolute
            assert abs(v - x) <= 8 * SUB + 3e-14 * abs(x), (name, ei, ri, got[i], x)


def test_theta_tiny_radii_regressions():
    # θ(0, 1e-310) was 3.99e-301 (radii raised to 1e-300); exact 3.98942280401431e-311
    exact = R.theta(0.0, 1e-310, dps=40)
    v = pabi.theta(0.0, 1e-310)
    assert exact <= v <= exact + 8 * SUB
    # ln θ(0, 5e-324) was −691.69; exact −745.3590104545859
    exact = R.theta(0.0, 5e-324, dps=40, log=True)
    v = pabi.theta(0.0, 5e-324, log=True)
    assert v >= exact and abs(v / exact - 1) < 2e-14
    assert float(exact) == pytest.approx(-745.3590104545859, rel=1e-15)
    # ln θ(1e-150, 1e-304) (a = 1e154) was −5.0e299
    v = pabi.theta(1e-150, 1e-304, log=True)
    assert -5e307 * (1 + 1e-15) <= v <= -5e307 * (1 - 3e-14)


def test_log_theta_family_huge_a():
    # a ≥ √(2·MAX): ln θ below −MAX → −MAX (rounded up); ln(1 − θ) → −inf (rounded down)
    assert pabi.theta(3e154, 1.0, log=True) == -MAX
    assert pabi.theta(1.0, 1e-160, log=True) == -MAX
    assert pabi.theta_complement(0.0, 4e154, log=True) == -math.inf
    # was −5.0e307 (a clamped at 1e154), above the exact ≈ −5.5125e307
    assert pabi.theta_complement(0.0, 2.1e154, log=True) <= -(0.525e154 * 1.05e154)
    # was −5.0e307 (clamped), exact ≈ −1.125e308
    v = pabi.theta(1.5e154, 1.0, log=True)
    assert -(0.75e154 * 1.5e154) <= v <= -(0.75e154 * 1.5e154) * (1 - 3e-14)
    # a ≈ 1e9: was 0.0, above the exact negative value
    assert pabi.theta_complement(1.0, 1e-9, log=True) < 0


def test_laplace_tiny_and_large_differences():
    # θ(0, 5e-324) was 0 (exact 2.5e-324), its complement 1 (exact 1 − 2.5e-324)
    assert pabi.laplace_theta(0.0, 5e-324) >= 2.5e-324
    assert pabi.laplace_theta_complement(0.0, 5e-324) < 1.0
    rng = np.random.default_rng(7)
    e = rng.uniform(0, 1, 400)
    r = e + rng.uniform(1300, 1415, 400)
    got = pabi.laplace_theta_complement(e, r)
    for i in range(len(e)):
        x = R.laplace_theta_complement(e[i], r[i], dps=40)
        # was up to 3.3e-14 above the exact value (|ε − r|·2^-53 from the rounded difference)
        assert mp.mpf(float(got[i])) <= x and abs(got[i] / x - 1) < 3e-14
    # e.g. (0.625095466604667, 1403.804682578106): was 2.0110556987200324e-305
    x = R.laplace_theta_complement(0.625095466604667, 1403.804682578106, dps=40)
    assert mp.mpf(pabi.laplace_theta_complement(0.625095466604667, 1403.804682578106)) <= x
    # reference fix: −expm1, not 1 − exp (was 3% off here at dps = 50)
    x = R.laplace_theta(4.200301464679496e-61, 8.724443916580249e-61)
    assert abs(x / mp.mpf("2.2620712259503765e-61") - 1) < 1e-15


def test_log_gaussian_tail_large_t():
    # t = 1e308 and 1.8e154 were NaN; exact ln Q(1.8e154) = −1.62e308
    assert pabi.gaussian_tail(1.8e154, log=True) == pytest.approx(-1.62e308, rel=1e-15)
    for t in [1.8962e154, 1e155, 1e200, 1e308, MAX]:
        assert pabi.gaussian_tail(t, log=True) == -MAX
    assert pabi.gaussian_tail(math.inf, log=True) == -math.inf
    rng = np.random.default_rng(3)
    ts = 10 ** rng.uniform(-5, 154.27, 300)
    got = pabi.gaussian_tail(ts, log=True)
    assert not np.isnan(got).any()
    for t, v in zip(ts, got):
        x = R.gaussian_tail(float(t), dps=30, log=True)
        assert abs(mp.mpf(float(v)) / x - 1) < 1e-15, (t, v, x)


def test_log_theta_complement_small_negative_a_relative_accuracy():
    # ε < r²/2 (a < 0) with θ ≤ ½: was off by the absolute INFLATE shift (1.4e-14):
    # −3.989437023429133e-09 at (0, 1e-8), exact −3.98942281197207e-09 (3.6e-6 relative)
    for e, r in [(0.0, 1e-8), (0.0, 1e-3), (1e-9, 1e-3), (0.0, 0.5), (0.3, 1.2)]:
        x = R.theta_complement(e, r, dps=40, log=True)
        v = pabi.theta_complement(e, r, log=True)
        assert mp.mpf(v) <= x and abs(v / x - 1) < 4e-14, (e, r, v, x)


# ---------------------------------------------------------------------------------------------
# KOV / approximate-DP composition: breakpoints decided exactly


def test_kov_breakpoint_regression():
    # 0.1 as a double is above 1/10, so 10·ε0 > 1 exactly and the j = 10 term exists:
    # was 2e-323, exact 8.8267555208197406e-20
    x = R.approx_dp_composition_delta(0.1, 0.0, 10, 1.0, dps=40)
    v = C.approx_dp_composition_delta(0.1, 0.0, 10, 1.0)
    assert mp.mpf(v) >= x and abs(v / x - 1) < 1e-12
    assert float(x) == pytest.approx(8.8267555208197406e-20, rel=1e-15)
    # δ0 = 1e-7: was 9.999995500001345e-07, below the exact 9.9999955000020822e-07
    x = R.approx_dp_composition_delta(0.1, 1e-7, 10, 1.0, dps=40)
    v = C.approx_dp_composition_delta(0.1, 1e-7, 10, 1.0)
    assert mp.mpf(v) >= x and abs(v / x - 1) < 1e-12


def test_kov_at_and_around_breakpoints_against_mpmath():
    rng = np.random.default_rng(2)
    for _ in range(120):
        e0 = float(rng.choice([0.1, 0.3, 0.7, 1.1, 0.05, 1 / 3]))
        k = int(rng.integers(1, 60))
        d0 = float(rng.choice([0.0, 1e-7, 1e-3]))
        j = int(rng.integers(0, k + 1))
        b = max((2 * j - k) * e0, 0.0)
        for e in [b, np.nextafter(b, 0), np.nextafter(b, np.inf)]:
            e = max(float(e), 0.0)
            v = C.approx_dp_composition_delta(e0, d0, k, e)
            x = R.approx_dp_composition_delta(e0, d0, k, e, dps=40)
            assert mp.mpf(v) >= x, (e0, d0, k, e, v, x)
            if x > 0:
                assert v / x - 1 < 1e-12, (e0, d0, k, e, v, x)


def test_kov_epsilon_at_breakpoint():
    # ε(δ) inverts the exact δ: at δ = the exact δ(1.0) the root is just above 1.0
    x = float(R.approx_dp_composition_delta(0.1, 0.0, 10, 1.0, dps=40))
    e = C.approx_dp_composition_epsilon(0.1, 0.0, 10, x * (1 + 1e-9))
    assert 0.99 < e <= 1.0 + 1e-15
    assert C.approx_dp_composition_delta(0.1, 0.0, 10, e) <= x * (1 + 1e-9)


def test_kov_large_k_terminates():
    # the loop ran from j_min to the mode one term at a time (~5 s at k = 1e8, hours at 1e12);
    # far-below-mode terms are now bounded in one step. δ(0) = TV distance ≈ 1 here.
    assert C.approx_dp_composition_delta(1.0, 0.0, 1e10, 0.0) == 1.0
    assert C.approx_dp_composition_delta(1.0, 1e-9, 1e10, 0.0) == 1.0
    # the work grows like sqrt(k) (k ~ 9e15 took ~100 s a call): k is capped up front
    for f, last in ((C.approx_dp_composition_delta, 0.0), (C.approx_dp_composition_epsilon, 1e-6)):
        with pytest.raises(pabi.DomainError) as ei:
            f(1.0, 0.0, 2e10, last)
        assert ei.value.param == "count" and "1e10" in str(ei.value)


def test_kov_monotone_in_k():
    rng = np.random.default_rng(4)
    for _ in range(60):
        e0 = float(rng.choice([0.1, 0.3, 0.7, 1.1, 0.05]))
        k = int(rng.integers(1, 80))
        d0 = float(rng.choice([0.0, 1e-7, 1e-3]))
        e = float(rng.uniform(0, k * e0))
        v = C.approx_dp_composition_delta(e0, d0, np.arange(1, k + 2), e)
        assert (np.diff(v) >= 0).all(), (e0, d0, e)


# ---------------------------------------------------------------------------------------------
# GDP inversions consistent with pabi's own gdp_delta


def _prev(x):
    return np.nextafter(x, -np.inf)


def _next(x):
    return np.nextafter(x, np.inf)


def test_gdp_epsilon_regression_example():
    # gdp_delta(gdp_epsilon(d, 10), 10) was 0.9977000638225534 > d
    d = 0.9977000638225533
    e = C.gdp_epsilon(d, 10)
    assert C.gdp_delta(e, 10) <= d
    assert C.gdp_delta(_prev(e), 10) > d
    m = C.gdp_mu(e, d)
    assert C.gdp_delta(e, m) <= d < C.gdp_delta(e, _next(m))


def test_gdp_epsilon_round_trip_random():
    rng = np.random.default_rng(20261126)
    n = 3000
    d = np.minimum(10 ** (-300 * rng.random(n) ** 3), 0.999999)
    mu = 10 ** rng.uniform(-3, 2, n)
    e = C.gdp_epsilon(d, mu)  # array path (block Newton)
    es = np.array([C.gdp_epsilon(float(a), float(b)) for a, b in zip(d[:300], mu[:300])])
    assert (es == e[:300]).all()  # scalar path equal
    assert np.isfinite(e).all() and (e >= 0).all()
    assert (C.gdp_delta(e, mu) <= d).all()
    pos = e > 0
    assert (C.gdp_delta(_prev(e[pos]), mu[pos]) > d[pos]).all()


def test_gdp_mu_round_trip_random():
    rng = np.random.default_rng(11262026)
    n = 3000
    d = np.minimum(10 ** (-300 * rng.random(n) ** 3), 0.999999)
    eps = np.where(rng.random(n) < 0.1, 0.0, 10 ** rng.uniform(-3, 2.5, n))
    m = C.gdp_mu(eps, d)
    assert np.isfinite(m).all() and (m > 0).all()
    assert (C.gdp_delta(eps, m) <= d).all()
    assert (C.gdp_delta(eps, _next(m)) > d).all()


def test_gdp_delta_domain_error_names_mu():
    with pytest.raises(pabi.DomainError, match="^mu must be") as ei:
        C.gdp_delta(1.0, -1.0)
    assert ei.value.param == "mu"
    with pytest.raises(pabi.DomainError, match="^mu must be.* at index 1") as ei:
        C.gdp_delta(np.array([1.0, 1.0]), np.array([0.5, np.nan]))
    assert ei.value.index == 1
    with pytest.raises(pabi.DomainError, match="^eps must be"):
        C.gdp_delta(-1.0, 1.0)


# ---------------------------------------------------------------------------------------------
# Monotonicity to the ulp (grids of consecutive doubles)


def _run(x0: float, n: int = 16) -> np.ndarray:
    out = [x0]
    for _ in range(n):
        out.append(float(np.nextafter(out[-1], np.inf)))
    return np.array(out)


def test_laplace_monotone_on_consecutive_doubles():
    rng = np.random.default_rng(9)
    for _ in range(300):
        r = float(10 ** rng.uniform(-300, 3))
        e = r * float(rng.uniform(0, 1.2))
        E, Rr = _run(e), _run(r)
        assert (np.diff(pabi.laplace_theta(E, r)) <= 0).all()
        assert (np.diff(pabi.laplace_theta(e, Rr)) >= 0).all()
        assert (np.diff(pabi.laplace_theta_complement(E, r)) >= 0).all()
        assert (np.diff(pabi.laplace_theta_complement(e, Rr)) <= 0).all()


def test_gdp_inversions_monotone():
    # gdp_epsilon: non-increasing in δ (d below decreases: ε grows), non-decreasing in μ;
    # gdp_mu: non-decreasing in δ
    d = 10.0 ** -np.arange(1, 300, 7.0)
    for mu in [0.01, 0.5, 3.0, 40.0]:
        assert (np.diff(C.gdp_epsilon(d, mu)) >= 0).all()
    for eps in [0.0, 0.3, 5.0]:
        assert (np.diff(C.gdp_mu(eps, d)) <= 0).all()
    mu = 10 ** np.linspace(-3, 2, 200)
    assert (np.diff(C.gdp_epsilon(1e-6, mu)) >= 0).all()
