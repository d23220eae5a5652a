"""Issue 14, "one concept, one place": the numerics that moved from the Python layer into the
Rust core, each pinned against exact arithmetic (fractions / mpmath via ``pabi.reference``) and
on its safe side:

* ln δ of a user δ (GDP dominating μ, dominating pair): rounded up in the core;
* the profile → RDP curve over orders: one core call, bit-identical to the scalar call;
* the eps_max search of the RDP route: one helper (multi_epoch_epsilon, the accountant, the CLI
  report), bounded up front;
* the trade-off curve of a sampled profile: one core call, the max of the rounded-down terms;
* the PLD loss grid: the core's own grid points;
* the noise std lr·z·C/b of the CLI: rounded down;
* the conversion's e^x (``exp_up_1ulp``): tighter, still above the exact value.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import _core
from pabi import reference as ref
from pabi._dpsgd import iterate_noise_std
from pabi.composition import _decay_point, _decayed_eps_max

# ---------------------------------------------------------------------------------------------
# 1. ln δ in the core, rounded up


def _profile(mu: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
    e = np.linspace(0.0, 6.0, 61)
    return e, np.asarray(pabi.gdp_delta(e, mu))


def test_gdp_mu_dominating_from_delta_is_above_the_exact_value_and_the_nearest_log():
    e, d = _profile()
    got = pabi.gdp_mu_dominating(e, d)
    want = float(ref.gdp_mu_dominating(e, d))  # ln δ taken exactly
    assert got >= want
    assert got <= want * (1 + 1e-12)
    # never below the former route (ln δ rounded to nearest in Python)
    with np.errstate(divide="ignore"):
        near = pabi.gdp_mu_dominating(e, log_delta=np.log(d))
    assert got >= near


def test_gdp_dominating_pair_from_delta_is_above_the_exact_value():
    e = np.arange(0, 4001) * 2e-3
    d = np.asarray(pabi.gdp_delta(e, 0.5))
    mu, dj = pabi.gdp_dominating_pair(e, d)
    mu_x, dj_x = ref.gdp_dominating_pair(e, d)
    assert mu >= float(mu_x) and mu <= float(mu_x) * (1 + 1e-12)
    assert dj >= float(dj_x) and dj <= float(dj_x) * (1 + 1e-12) + 1e-300


def test_ln_delta_up_is_above_the_exact_log_for_the_issue_example():
    # a δ whose nearest log is below the exact one: the core's must not be
    d = 1e-5
    with mp.workdps(50):
        assert mp.mpf(math.log(d)) < mp.log(mp.mpf(d))  # the former route: below the exact log
    e = np.array([0.0, 1.0])
    got = pabi.gdp_mu_dominating(e, np.array([d, d]))
    want = float(ref.gdp_mu_dominating(e, [d, d]))
    assert want <= got <= want * (1 + 1e-12)


def test_delta_and_log_delta_errors():
    e = np.array([0.0, 1.0, 2.0])
    # the value reported is the δ given (it was e^{ln δ} or NaN)
    with pytest.raises(pabi.DomainError, match=r"delta must be in \[0, 1\] \(a privacy profile\), got -1 at index 2"):
        pabi.gdp_mu_dominating(e, np.array([0.5, 0.1, -1.0]))
    with pytest.raises(pabi.DomainError, match=r"got 1e\+?30 at index 0"):
        pabi.gdp_dominating_pair(e, np.array([1e30, 0.1, 0.0]))
    with pytest.raises(ValueError, match="eps and log_delta must have the same length, got 3 and 2"):
        pabi.gdp_mu_dominating(e, log_delta=np.array([0.0, -1.0]))
    with pytest.raises(ValueError, match="eps and delta must have the same length, got 3 and 2"):
        pabi.gdp_dominating_pair(e, np.array([0.5, 0.1]))
    with pytest.raises(TypeError, match="give delta or log_delta"):
        pabi.gdp_mu_dominating(e)
    with pytest.raises(ValueError, match="exactly one of delta and log_delta"):
        _core.gdp_mu_dominating(e, delta=e, log_delta=e)
    with pytest.raises(ValueError, match="exactly one of delta and log_delta"):
        _core.gdp_dominating_pair(e)


# ---------------------------------------------------------------------------------------------
# 2. profile → RDP curve, and the one eps_max search


def test_profile_to_rdp_curve_is_the_scalar_call_bit_for_bit():
    h = 0.01
    grid = np.arange(2001) * h
    vals = np.asarray(pabi.gdp_delta(grid, 1.0))
    vals[-1] = 0.0
    orders = np.array([1.05, 1.5, 2.0, 3.7, 16.0, 64.0])
    curve = _core.profile_to_rdp_curve(orders, grid, vals)
    for a, c in zip(orders, curve):
        assert c == pabi.profile_to_rdp(float(a), eps=grid, delta=vals)
    # and it bounds the exact RDP α/2 of the 1-GDP pair from above (at the orders where the
    # profile beyond the grid, taken as 0, does not matter)
    assert np.all(curve[:5] >= orders[:5] / 2.0)
    with pytest.raises(pabi.DomainError, match=r"orders must be > 1 and finite, got 1(\.0)? at index 1"):
        _core.profile_to_rdp_curve(np.array([2.0, 1.0]), grid, vals)


def test_decayed_eps_max_is_the_first_decayed_power_and_bounded():
    calls = []

    def prof(x):
        calls.append(float(x[0]))
        return np.where(x >= 200.0, 1e-310, 1e-3)

    assert _decayed_eps_max(prof) == 256.0
    assert calls == [64.0, 128.0, 256.0]
    calls.clear()
    with pytest.raises(pabi.DomainError, match="profile"):
        _decayed_eps_max(lambda x: np.full_like(x, 1e-3))
    # at most 7 evaluations (64, ..., 4096), one point each
    n = []
    with pytest.raises(pabi.DomainError):
        _decayed_eps_max(lambda x: (n.append(x.size), np.full_like(x, 0.5))[1])
    assert n == [1] * 7
    assert _decay_point(lambda x: np.log(np.full_like(x, 1e-301)), -690.8, 1.0, 13) == 1.0


def test_the_three_eps_max_callers_agree():
    from pabi.adapters.accountant import PNSGDAccountant
    from pabi.cli import report

    # the report no longer has its own search; the accountant's eps_max is the helper's
    assert not hasattr(report, "_eps_max")
    acc = PNSGDAccountant(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=50)
    em = _decayed_eps_max(acc.epoch_profile)
    assert em in [64.0 * 2**k for k in range(7)]
    assert acc.epoch_profile(em) <= 1e-300 and (em == 64.0 or acc.epoch_profile(em / 2) > 1e-300)
    # multi_epoch_epsilon's default is the helper's value: explicit eps_max gives the same RDP
    prof = acc.epoch_profile
    a = pabi.multi_epoch_epsilon(1e-5, profile=prof, epochs=2, grid_step=0.02, orders=np.array([2.0, 8.0]))
    b = pabi.multi_epoch_epsilon(1e-5, profile=prof, epochs=2, grid_step=0.02, eps_max=em, orders=np.array([2.0, 8.0]))
    assert a.rdp == b.rdp


# ---------------------------------------------------------------------------------------------
# 3. trade-off curve of a sampled profile


def test_tradeoff_from_profile_is_the_max_of_the_rounded_down_terms():
    e = np.linspace(0, 4, 41)
    d = np.asarray(pabi.gdp_delta(e, 1.0))
    alpha = np.array([[0.0, 0.01], [0.2, 0.999]])
    got = pabi.tradeoff_from_profile(alpha, e, d)
    assert got.shape == (2, 2)
    terms = pabi.tradeoff_eps_delta(alpha[..., None], e, d)
    assert np.array_equal(got, terms.max(axis=-1))
    for a, g in zip(alpha.ravel(), got.ravel()):
        want = ref.tradeoff_from_profile(float(a), e, d)
        assert g <= want and (want == 0 or g >= float(want) * (1 - 1e-12) - 1e-15)
    assert isinstance(pabi.tradeoff_from_profile(0.1, e, d), float)


def test_tradeoff_from_profile_errors_name_the_first_bad_index():
    e = np.linspace(0, 1, 5)
    d = np.array([0.5, 0.3, np.nan, 0.1, 0.0])
    with pytest.raises(pabi.DomainError, match="delta must be in \\[0, 1\\], got nan at index 2"):
        pabi.tradeoff_from_profile(0.1, e, d)
    with pytest.raises(pabi.DomainError, match=r"type1_error must be in \[0, 1\], got 2.0 at index \(1, 0\)"):
        pabi.tradeoff_from_profile([[0.1], [2.0]], e, np.zeros(5))
    with pytest.raises(ValueError, match="non-empty 1-D arrays of equal length, got 5 and 4"):
        pabi.tradeoff_from_profile(0.1, e, np.zeros(4))


# ---------------------------------------------------------------------------------------------
# 4. the PLD loss grid


def test_losses_are_the_core_grid_points():
    pld = pabi.PrivacyLossDistribution.gaussian(1.0, grid_step=1e-3)
    c = pld._core
    want = (c.lo + np.arange(len(c.pmf))) * c.grid_step  # the former Python formula: the same doubles
    assert np.array_equal(pld.losses, want)
    # exact grid points k·h to the nearest double
    k = np.arange(len(c.pmf))[:: max(1, len(c.pmf) // 50)]
    for kk in k:
        exact = Fraction(int(c.lo + kk)) * Fraction(c.grid_step)
        assert abs(Fraction(float(pld.losses[kk])) - exact) <= Fraction(math.ulp(float(pld.losses[kk])))


# ---------------------------------------------------------------------------------------------
# 5. the noise std of the CLI, rounded down


@pytest.mark.parametrize("lr,z,c,b", [(0.1, 1.1, 0.7, 3.0), (0.1, 1.1, 1.0, 3.0), (0.3, 0.7, 1.3, 7.0), (0.01, 2.5, 1.0, 10.0),
                                     (1.0, 3.0, 1.0, 1.0), (0.5, 2.0, 1.0, 4.0)])
def test_noise_std_down_is_at_most_the_exact_value(lr, z, c, b):
    s = iterate_noise_std(lr, z, c, b)
    exact = Fraction(lr) * Fraction(z) * Fraction(c) / Fraction(b)
    assert Fraction(s) <= exact
    assert exact - Fraction(s) <= 3 * Fraction(math.ulp(s))


def test_noise_std_issue_example_nearest_was_above_the_exact_value():
    lr, z, c, b = 0.1, 1.1, 1.0, 3.0
    near = lr * z * c / b
    exact = Fraction(lr) * Fraction(z) * Fraction(c) / Fraction(b)
    assert Fraction(near) > exact  # the former CLI value: above the exact std (optimistic)
    assert Fraction(iterate_noise_std(lr, z, c, b)) <= exact


def test_cli_last_iterate_uses_the_rounded_down_std(capsys):
    import json

    from pabi.cli import main

    rc = main(["last-iterate", "--order", "8", "--lr", "0.1", "--max-grad-norm", "1", "--batch-size", "3",
               "--noise-multiplier", "1.1", "--steps", "30", "--batches-per-epoch", "10", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    sigma = iterate_noise_std(0.1, 1.1, 1.0, 3.0)
    assert out["setup"]["noise_scale"] == sigma and sigma < 0.1 * 1.1 * 1.0 / 3


def test_noise_std_down_domain():
    with pytest.raises(pabi.DomainError, match="batch_size"):
        iterate_noise_std(0.1, 1.0, 1.0, 0.0)
    with pytest.raises(pabi.DomainError, match="lr"):
        iterate_noise_std(-0.1, 1.0, 1.0, 1.0)


# ---------------------------------------------------------------------------------------------
# 6. the conversion's e^x: moved toward the exact value, still above it


@pytest.mark.parametrize("method", ["classical", "tight"])
@pytest.mark.parametrize("delta", [0.25, 1e-5, 5e-6, 1e-300, 5e-324])
def test_rdp_to_dp_epsilon_above_exact(method, delta):
    orders, rdp = np.array([2.0, 4.0, 8.0]), np.array([0.5, 1.0, 2.0])
    eps, _ = pabi.rdp_to_dp_epsilon(delta, orders=orders, rdp=rdp, conversion=method)
    want = float(ref.rdp_to_dp_epsilon(orders, rdp, delta, conversion=method)[0])
    # a subnormal δ stays finite: e^x underflowing to 0 is bounded by 2^-1074, not 2^-1073
    assert math.isfinite(eps)
    # (at δ = 5e-324 the bound is loose by ~1e-3 relative: e^{(α−1)(ε_R − ε)} is subnormal there)
    assert eps >= want and eps <= want * (1 + (1e-2 if delta < 1e-307 else 1e-12))


@pytest.mark.parametrize("method", ["classical", "tight"])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 3.0, 30.0])
def test_rdp_to_dp_delta_above_exact(method, eps):
    orders, rdp = np.array([2.0, 4.0, 8.0]), np.array([0.5, 1.0, 2.0])
    d, _ = pabi.rdp_to_dp_delta(eps, orders=orders, rdp=rdp, conversion=method)
    want = float(ref.rdp_to_dp_delta(orders, rdp, eps, conversion=method)[0])
    assert d >= want and d <= want * (1 + 1e-12) + 1e-300


def test_rdp_to_dp_delta_exact_example():
    # tight rule at α = 4, ε_R = 1, ε = 1: (3/4)^3/4 = 27/256 exactly; the bound is just above it
    d, a = pabi.rdp_to_dp_delta(1.0, orders=[4.0], rdp=[1.0], conversion="tight")
    assert a == 4.0 and Fraction(d) >= Fraction(27, 256)
    assert d <= 27 / 256 * (1 + 1e-13)


def test_rdp_conversions_above_exact_on_random_curves():
    # random curves, both rules, both directions: every value on the safe side of the exact
    # conversion of the given doubles, within 1e-12 relative
    rng = np.random.default_rng(14)
    for _ in range(15):
        k = int(rng.integers(1, 4))
        orders = np.sort(rng.uniform(1.01, 40.0, k))
        rdp = rng.uniform(0.01, 5.0, k)
        eps = float(rng.uniform(0.0, 10.0))
        dl = float(10 ** rng.uniform(-12, -1))
        for m in ("classical", "tight"):
            d, _ = pabi.rdp_to_dp_delta(eps, orders=orders, rdp=rdp, conversion=m)
            w = float(ref.rdp_to_dp_delta(orders, rdp, eps, conversion=m)[0])
            assert w <= d <= w * (1 + 1e-12) + 1e-300
            e, _ = pabi.rdp_to_dp_epsilon(dl, orders=orders, rdp=rdp, conversion=m)
            w = float(ref.rdp_to_dp_epsilon(orders, rdp, dl, conversion=m)[0])
            assert w <= e <= w * (1 + 1e-12) + 1e-300


def test_gdp_mu_dominating_above_exact_on_random_profiles():
    rng = np.random.default_rng(7)
    for _ in range(5):
        e = np.sort(rng.uniform(0.0, 5.0, 8))
        d = np.sort(10 ** rng.uniform(-12, -0.1, 8))[::-1].copy()
        got = pabi.gdp_mu_dominating(e, d)
        want = float(ref.gdp_mu_dominating(e, d))
        assert want <= got <= want * (1 + 1e-12)
