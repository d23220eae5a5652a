"""θ primitives on runs of consecutive doubles, across the kernel's regimes (issue 13).

Each example draws a regime of (ε, r) and walks RUN consecutive doubles in ε or in r from
there. Regimes: the two branch switches of the kernel (a = ε/r − r/2 = −1, between the
divided-difference form and the complement form, and a = 0, where the complements switch
form), the bulk (ε ≤ 10, r ∈ [1e-2, 10]), tiny r, huge ε/r (θ underflows, ln θ stays finite)
and a ∈ [37, 38.7] (θ subnormal or near it).

* soundness on every point against ``pabi.reference`` (mpmath): θ and ln θ never below the
  exact value, 1 − θ and ln(1 − θ) never above it, and all within 1e-13 of it (relative, or
  absolute below 1 for the logarithms; absolute 1e-300 for values that are not normal);
* monotonicity along the run up to rounding (1e-12 relative): passes;
* exact monotonicity along the run (no one-ulp reversal): a strict xfail. The library moves a
  value computed to a few ulp outward by a fixed relative margin, which is sound but not
  monotone to the last ulp: theta(0.0, 2.0) = 0.6826894921370957 > theta(0.0,
  2.0000000000000004) = 0.6826894921370905 (exact 0.68268949213708589717; the a = −1 switch).
  An exactly monotone θ (a decided directed rounding onto a fixed grid, Ziv-style) was measured
  too slow: ``benches/bench_theta.py --ziv``.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import pabi
import pabi.reference as ref
from _engine_fns import log_theta, log_theta_complement, ref_log_theta, ref_log_theta_complement

BASE = settings.default.max_examples
SCALES_WITH_PROFILE = True  # (tests/conftest.py: the long profile leaves these counts alone)
RUN = 12
DPS = 30
TOL = 1e-13

# (function, reference, sign of d/dr (d/dε is the opposite), True for an upper bound)
FUNCS = [
    (pabi.theta, ref.theta, +1, True),
    (log_theta, ref_log_theta, +1, True),
    (pabi.theta_complement, ref.theta_complement, -1, False),
    (log_theta_complement, ref_log_theta_complement, -1, False),
]

ex = settings(max_examples=max(5, int(BASE * 0.4)), deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@st.composite
def regime_point(draw):
    kind = draw(st.sampled_from(["a=-1", "a=0", "bulk", "tiny r", "huge eps/r", "subnormal"]))
    if kind == "a=-1":  # ε = r(r/2 − 1), r ≥ 2
        r = draw(st.floats(2.0, 16.0))
        e = r * (0.5 * r - 1.0)
    elif kind == "a=0":  # ε = r²/2
        r = draw(st.floats(1e-3, 12.0))
        e = 0.5 * r * r
    elif kind == "bulk":
        e, r = draw(st.floats(0.0, 10.0)), 10 ** draw(st.floats(-2.0, 1.0))
    elif kind == "tiny r":
        # ε = r·t: a = t − r/2 ∈ [0, 30] (the reference's erfc underflows for a ≳ 1e25)
        r = 10 ** draw(st.floats(-300.0, -3.0))
        e = r * draw(st.floats(0.0, 30.0))
    elif kind == "huge eps/r":
        e, r = draw(st.floats(1.0, 50.0)), 10 ** draw(st.floats(-4.0, -1.5))
    else:  # a ∈ [37, 38.7]: ε = r(a + r/2)
        r, a = draw(st.floats(0.05, 3.0)), draw(st.floats(37.0, 38.7))
        e = r * (a + 0.5 * r)
    return kind, max(e, 0.0), r, draw(st.sampled_from(["eps", "r"]))


def run_of(e: float, r: float, along: str) -> list[tuple[float, float]]:
    """RUN consecutive doubles in ε or in r, centred on the drawn point (staying ≥ 0)."""
    x = e if along == "eps" else r
    for _ in range(RUN // 2):
        if x > 0:
            x = float(np.nextafter(x, -math.inf))
    xs = [x]
    for _ in range(RUN - 1):
        xs.append(float(np.nextafter(xs[-1], math.inf)))
    return [(x, r) if along == "eps" else (e, x) for x in xs]


def _sound(f, rf, upper: bool, e: float, r: float) -> None:
    v = f(e, r)
    exact = rf(e, r, dps=DPS)
    name = f"{f.__name__}({e!r}, {r!r}) = {v!r}, exact {mp.nstr(exact, 20)}"
    if mp.isinf(exact):
        assert v == exact or (v == -1.7976931348623157e308 and upper), name
        return
    is_log = f in (log_theta, log_theta_complement)
    slack = TOL * max(abs(exact), 1) if is_log else TOL * abs(exact) + 1e-300
    if upper:
        assert v >= exact, name
        assert v - exact <= slack, name
    else:
        assert v <= exact, name
        assert exact - v <= slack, name


@ex
@given(regime_point())
@example(("a=-1", 0.0, 2.0, "r"))
@example(("a=0", 2.0, 2.0, "eps"))
def test_sound_and_tight_on_runs(p):
    _, e, r, along = p
    for ee, rr in run_of(e, r, along):
        for f, rf, _, upper in FUNCS:
            _sound(f, rf, upper, ee, rr)


def _monotone(p, exact: bool) -> None:
    _, e, r, along = p
    pts = run_of(e, r, along)
    for f, _, sign, _ in FUNCS:
        s = sign if along == "r" else -sign
        vals = [f(ee, rr) for ee, rr in pts]
        for (p0, v0), (p1, v1) in zip(zip(pts, vals), zip(pts[1:], vals[1:])):
            lo, hi = (v0, v1) if s > 0 else (v1, v0)
            ok = lo <= hi or (not exact and lo <= hi + 1e-12 * abs(hi) + 1e-300)
            assert ok, f"{f.__name__}: {p0} -> {v0!r}, {p1} -> {v1!r} (should be {'non-decreasing' if s > 0 else 'non-increasing'})"


@ex
@given(regime_point())
@example(("a=-1", 0.0, 2.0, "r"))
def test_monotone_on_runs_within_rounding(p):
    _monotone(p, exact=False)


@pytest.mark.xfail(strict=True, reason="theta(0.0, 2.0) = 0.6826894921370957 > theta(0.0, 2.0000000000000004) = "
                   "0.6826894921370905 (exact 0.68268949213708589717): the outward margin is a fixed relative "
                   "shift of a value good to a few ulp; an exactly monotone θ is not implemented (issue 13)")
@ex
@given(regime_point())
@example(("a=-1", 0.0, 2.0, "r"))
def test_monotone_on_runs_exact(p):
    _monotone(p, exact=True)


def test_branch_switch_repro_values():
    """The issue's repro: both sides sound against the exact value (the reversal itself is the
    strict xfail above)."""
    exact = mp.mpf("0.68268949213708589717")
    for r in (2.0, 2.0000000000000004):
        v = pabi.theta(0.0, r)
        assert v >= ref.theta(0.0, r, dps=DPS) and v - float(exact) < 2e-14
