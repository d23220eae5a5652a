"""ε(δ) of the fixed-horizon noise schedules (issue 16): laplace_schedule_epsilon and
gaussian_schedule_epsilon return the smallest double ε whose certified δ(n) is ≤ δ; the exact
δ(n) (pabi.reference, 40 digits) at the returned ε is ≤ δ too (certified on the safe side), and
one double less fails the target (the inverse is tight)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pabi
import pabi.reference as ref

from _helpers import assert_rejects_bad_delta

KW = {
    "laplace": dict(max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=1e6, c1=1e5, c2=2.0),
    "gaussian": dict(max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=1e6, c1=1e5, c2=100.0),
}
FNS = {
    "laplace": (pabi.laplace_schedule_epsilon, pabi.laplace_schedule_delta, ref.laplace_schedule_delta),
    "gaussian": (pabi.gaussian_schedule_epsilon, pabi.gaussian_schedule_delta, ref.gaussian_schedule_delta),
}


def _ref_delta(fn, eps: float, kw: dict) -> float:
    return float(fn(eps, kw["max_grad_norm"], kw["lr"], kw["diameter"], kw["steps"], kw["c1"], kw["c2"],
                    kw.get("smoothness"), kw.get("strong_convexity", 0.0), dps=40))


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
@pytest.mark.parametrize("delta", [0.5, 1e-3, 1e-5, 1e-9])
def test_inverse_is_certified_and_tight(kind, delta):
    eps_fn, delta_fn, ref_fn = FNS[kind]
    kw = KW[kind]
    e = eps_fn(delta, **kw)
    assert isinstance(e, float) and 0.0 <= e < math.inf
    assert delta_fn(e, **kw) <= delta  # certified by pabi's own upper bound
    assert _ref_delta(ref_fn, e, kw) <= delta  # and by the exact value
    if e > 0:
        below = math.nextafter(e, 0.0)
        assert delta_fn(below, **kw) > delta  # the smallest such double


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_monotone_in_delta_and_vectorised(kind):
    eps_fn, delta_fn, _ = FNS[kind]
    kw = KW[kind]
    deltas = np.array([0.3, 1e-2, 1e-4, 1e-6, 1e-8])
    e = eps_fn(deltas, **kw)
    assert isinstance(e, np.ndarray) and e.shape == (5,)
    assert np.all(np.diff(e) >= 0)
    assert [eps_fn(float(d), **kw) for d in deltas] == list(e)  # array and scalar calls bit-identical
    # broadcasting over the setup: a (2, 1) column of steps against the row of deltas
    grid = eps_fn(deltas, **dict(kw, steps=np.array([[1e4], [1e6]])))
    assert grid.shape == (2, 5) and np.array_equal(grid[1], e)


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_large_target_gives_zero(kind):
    eps_fn, delta_fn, _ = FNS[kind]
    kw = KW[kind]
    d0 = delta_fn(0.0, **kw)
    assert eps_fn(min(0.999, d0 * 1.5), **kw) == 0.0


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_errors_name_the_parameter(kind):
    eps_fn, _, _ = FNS[kind]
    kw = KW[kind]
    assert_rejects_bad_delta(eps_fn, kw)
    with pytest.raises(pabi.DomainError) as e:
        eps_fn(1e-3, **dict(kw, c1=-1.0))
    assert e.value.param == "c1"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["laplace", "gaussian"]), st.floats(1e-12, 0.9), st.floats(0.5, 50.0),
       st.floats(1e2, 1e9), st.floats(1e2, 1e6))
def test_inversion_law(kind, delta, lipschitz, steps, c1):
    """δ(ε(δ)) ≤ δ for every target (the inversion law of issue 13), and a smaller δ never
    gives a smaller ε."""
    eps_fn, delta_fn, _ = FNS[kind]
    kw = dict(KW[kind], max_grad_norm=lipschitz, steps=float(int(steps)), c1=c1)
    e = eps_fn(delta, **kw)
    assert delta_fn(e, **kw) <= delta
    assert eps_fn(delta / 2, **kw) >= e
