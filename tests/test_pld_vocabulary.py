"""The PLD family in the glossary's vocabulary (issue 15): named results (Bracket, ErrorBudget,
MultiEpochEpsilon) that still unpack as tuples, the renamed parameters (no aliases for the old
ones), and domain errors naming the public parameter with the core's message."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pabi
from pabi import DomainError, PrivacyLossDistribution as P
from pabi import reference as ref
from pabi.adapters import pld_from_profile


def test_bracket_is_a_named_tuple_around_the_exact_value():
    b = P.gaussian(1.0).compose(10).epsilon(1e-5)
    assert isinstance(b, pabi.Bracket) and isinstance(b, tuple) and b._fields == ("lower", "estimate", "upper")
    lo, est, up = b
    assert (lo, est, up) == (b.lower, b.estimate, b.upper) == b
    assert all(type(v) is float for v in b)
    # 10 Gaussians of noise_scale 1 are sqrt(10)-GDP: the exact eps(1e-5) is inside the bracket
    exact = float(ref.gdp_epsilon(1e-5, math.sqrt(10)))
    assert lo <= exact <= up and up - exact < 1e-4 * exact
    # an array query: the same Bracket of arrays, each of the query's shape, equal to scalar queries
    comp = P.gaussian(2.0, grid_step=1e-3).compose(4)
    e = np.array([[0.5, 1.0], [2.0, 3.0]])
    ba = comp.delta(e)
    assert isinstance(ba, pabi.Bracket) and ba.upper.shape == (2, 2)
    assert all(ba.upper[i, j] == comp.delta(float(e[i, j])).upper for i in range(2) for j in range(2))
    # 4 Gaussians of noise_scale 2 are 1-GDP
    assert ba.lower[0, 1] <= float(ref.gdp_delta(1.0, 1.0)) <= ba.upper[0, 1]


def test_dpsgd_brackets_are_named():
    b = pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000, bracket=True)
    assert isinstance(b, pabi.Bracket) and b.upper == pabi.dpsgd_epsilon(
        1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000)
    d = pabi.dpsgd_delta(1.0, sample_rate=0.01, noise_multiplier=1.0, steps=100)
    assert isinstance(d, pabi.Bracket) and d.lower <= d.estimate <= d.upper


def test_error_budget_fields():
    budget = P.gaussian(1.0, grid_step=1e-3).compose(10).error_budget
    assert isinstance(budget, pabi.ErrorBudget)
    assert budget._fields == ("grid_step", "window_points", "inf_mass", "truncated_mass", "tail_above",
                              "tail_below", "fft_error", "compositions")
    assert budget.grid_step == 1e-3 and budget.compositions == 10.0
    assert budget.window_points == int(budget.window_points) > 0
    assert 0.0 <= budget.fft_error < 1e-9 and budget.tail_above < 1e-15 and budget.tail_below < 1e-15
    # heterogeneous: compositions is the total count
    g = P.gaussian(2.0, grid_step=1e-3)
    assert pabi.compose_plds([(g, 3), (g, 4)]).error_budget.compositions == 7.0


def test_multi_epoch_epsilon_named_routes_are_upper_bounds():
    # 4 epochs of 0.5-GDP are 1-GDP: every route is an upper bound on the exact eps
    r = pabi.multi_epoch_epsilon(1e-5, profile=lambda e: pabi.gdp_delta(e, 0.5), epochs=4,
                                 log_profile=lambda e: pabi.theta(e, 0.5, log=True))
    assert isinstance(r, pabi.MultiEpochEpsilon) and r._fields == ("pld", "single_point", "rdp", "gdp")
    exact = float(ref.gdp_epsilon(1e-5, 1.0))
    assert all(v >= exact for v in r)
    assert r.pld - exact < 1e-3 * exact  # the PLD route is the tightest here
    pld, single_point, rdp, gdp = r  # unpacks as before
    assert min(r) == pld


def test_old_names_are_gone():
    with pytest.raises(TypeError):
        P.gaussian(1.0, h=1e-3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        P.laplace(scale=1.0)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        P.subsampled_gaussian(0.01, 1.0)  # type: ignore[misc]  # keyword-only now
    with pytest.raises(TypeError):
        P.subsampled_gaussian(sample_rate=0.01, noise_multiplier=1.0, neighbour="add")  # type: ignore[call-arg]
    pld = P.gaussian(1.0, grid_step=1e-3)
    assert not hasattr(pld, "h") and pld.grid_step == 1e-3
    with pytest.raises(TypeError):
        pld.compose(times=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        pabi.compose_plds([(pld, 2)], tail=1e-15)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        pabi.multi_epoch_epsilon(lambda e: pabi.gdp_delta(e, 0.5), 2, 1e-5)  # type: ignore[misc,call-arg]


@pytest.mark.parametrize("call, param", [
    (lambda: P.gaussian(1.0, grid_step=0.0), "grid_step"),
    (lambda: P.gaussian(-1.0), "noise_scale"),
    (lambda: P.laplace(-1.0), "noise_scale"),
    (lambda: P.subsampled_gaussian(sample_rate=1.5, noise_multiplier=1.0), "sample_rate"),
    (lambda: P.subsampled_gaussian(sample_rate=0.1, noise_multiplier=0.0), "noise_multiplier"),
    (lambda: P.subsampled_gaussian(sample_rate=0.1, noise_multiplier=1.0, direction="both"), "direction"),
    (lambda: P.from_profile(np.array([0.5, 0.6, 0.1])), "profile"),
    (lambda: P.from_profile(lambda e: pabi.gdp_delta(e, 0.5), tail_mass=2.0), "tail_mass"),
    (lambda: P.gaussian(1.0).compose(0), "count"),
    (lambda: P.gaussian(1.0).compose(2, tail_mass=0.5), "tail_mass"),
    (lambda: pabi.compose_plds([(P.gaussian(1.0), 2), (P.gaussian(1.0, grid_step=1e-3), 2)]), "grid_step"),
    (lambda: pabi.multi_epoch_epsilon(1.0, profile=lambda e: pabi.gdp_delta(e, 0.5), epochs=2), "delta"),
    (lambda: pabi.multi_epoch_epsilon(1e-5, profile=lambda e: pabi.gdp_delta(e, 0.5), epochs=2, grid_step=-1.0),
     "grid_step"),
    (lambda: pabi.multi_epoch_epsilon(1e-5, profile=lambda e: np.full_like(e, 0.5), epochs=2), "profile"),
    (lambda: pld_from_profile(np.array([0.1, 0.5, 0.0])), "profile"),
])
def test_errors_name_the_public_parameter(call, param):
    with pytest.raises(DomainError) as exc:
        call()
    assert exc.value.param == param and str(exc.value).startswith(param + " must be"), str(exc.value)


def test_gaussian_grid_error_keeps_the_core_message():
    # the core's noise_multiplier (= noise_scale / sensitivity) relabelled, its text unchanged
    with pytest.raises(DomainError) as exc:
        P.gaussian(1e-6, grid_step=0.05)
    assert str(exc.value) == ("noise_scale must be such that the loss grid fits its cap of 2^21 points even at "
                              "the coarsest grid_step = 0.1 (the loss range [-5.000e11, 5.000e11] does not), got 1e-6")
    assert (exc.value.param, exc.value.value, exc.value.index) == ("noise_scale", 1e-6, None)
