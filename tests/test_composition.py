"""Composition: exact (ε,δ) composition vs mpmath, FFT/PLD brackets vs exact values (C17),
GDP (C17, C23), profile → RDP (C18), multi-epoch routes (C23), the DP-SGD accountant vs
dp-accounting, and domain errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pabi
from pabi import reference as ref

# ---------------------------------------------------------------------------------------------
# exact (ε,δ) composition


KOV_CASES = [
    (0.5, 1e-4, 10, 0.0),
    (0.5, 1e-4, 10, 2.0),
    (0.3, 1e-6, 64, 3.0),
    (1.0, 1e-3, 100, 10.0),
    (0.1, 0.0, 1000, 3.0),
    (0.01, 1e-8, 10_000, 1.5),
    (0.001, 1e-9, 1_000_000, 4.0),
    (0.002, 0.0, 1_000_000, 6.0),
    (2.0, 0.0, 50, 60.0),
    (800.0, 1e-5, 3, 1000.0),  # e^ε0 overflows f64
]


@pytest.mark.parametrize("eps0,delta0,k,eps", KOV_CASES)
def test_approx_dp_composition_vs_mpmath(eps0, delta0, k, eps):
    got = pabi.approx_dp_composition_delta(eps0, delta0, k, eps)
    want = float(ref.approx_dp_composition_delta(eps0, delta0, k, eps))
    assert got >= want
    assert got <= want * (1 + 1e-12) + 1e-300


def test_approx_dp_composition_broadcast_and_monotone():
    eps = np.linspace(0, 5, 51)
    d = pabi.approx_dp_composition_delta(0.5, 1e-4, 10, eps)
    assert d.shape == (51,) and np.all(np.diff(d) <= 0)
    # k = 1 is the profile of f_{ε0,δ0}: δ0 + (1−δ0)(p)(1 − e^{ε−ε0})_+
    p = 1 / (1 + np.exp(-0.5))
    want = 1e-4 + (1 - 1e-4) * p * np.maximum(0, -np.expm1(0.2 - 0.5))
    assert pabi.approx_dp_composition_delta(0.5, 1e-4, 1, 0.2) == pytest.approx(want, rel=1e-13)


def test_tradeoff_vs_reference():
    for a, e, d in [(0.0, 1.0, 0.1), (0.1, 1.0, 0.0), (0.3, 0.5, 1e-3), (0.9, 2.0, 0.05),
                    (1e-300, 700.0, 0.0)]:
        got, exact = pabi.tradeoff_eps_delta(a, e, d), ref.tradeoff_eps_delta(a, e, d)
        assert got <= exact and got == pytest.approx(float(exact), rel=3e-14, abs=1e-300)  # rounded down
    # kink α* = (1−δ)/(1+e^ε) is a fixed point
    e, d = 0.7, 0.01
    a = (1 - d) / (1 + np.exp(e))
    assert pabi.tradeoff_eps_delta(a, e, d) == pytest.approx(a, rel=3e-14)


# ---------------------------------------------------------------------------------------------
# FFT composition (C17)


@pytest.mark.parametrize("E,eps0,delta0", [(10, 0.5, 1e-4), (64, 0.3, 1e-6), (100, 1.0, 1e-3)])
def test_fft_composition_of_four_point_pld_equals_exact(E, eps0, delta0):
    pld = pabi.PrivacyLossDistribution.from_eps_delta(eps0, delta0, grid_step=eps0 / 500)
    comp = pld.compose(E)
    for eps in [0.0, 0.5, 1.0, 2.0, 4.0, 7.0]:
        exact = float(ref.approx_dp_composition_delta(eps0, delta0, E, eps))
        lo, est, up = comp.delta(eps)
        assert lo <= exact <= up
        # upper − exact is the (conservative) FFT round-off estimate; the estimate is exact
        assert up - exact <= 1e-9
        assert abs(est - exact) <= 1e-12


def test_fft_bars_are_rigorous_at_large_t():
    # four-point PLD with ±ε0 on the grid: the discretisation is exact, so |estimate − exact| is
    # pure FFT round-off, which the rigorous fft_err must cover
    eps0, delta0, E = 0.01, 0.0, 20_000
    comp = pabi.PrivacyLossDistribution.from_eps_delta(eps0, delta0, grid_step=eps0 / 10).compose(E)
    budget = comp.error_budget
    assert 0 < budget.fft_error < 1e-9
    for eps in [0.0, 1.0, 2.5, 4.0]:
        exact = float(ref.approx_dp_composition_delta(eps0, delta0, E, eps))
        lo, est, up = comp.delta(eps)
        assert lo <= exact <= up
        assert abs(est - exact) <= budget.fft_error + 1e-15
        assert up - exact <= 2 * budget.fft_error + 1e-14


def test_gaussian_bracket_spec_example():
    # μ = 0.5, E = 16, h = 1e-3: the round-up discretisation gives [0.508409, 0.511314] ∋ θ(1, 2) = 0.509862
    comp = pabi.PrivacyLossDistribution.gaussian(2.0, grid_step=1e-3).compose(16)
    lo, est, up = comp.delta(1.0)
    exact = float(ref.theta(1.0, 2.0))
    assert exact == pytest.approx(0.509862, abs=1e-6)
    # pabi's upper is much tighter than that round-up discretisation; its lower (valid for
    # any mechanism, via the Hoeffding coupling) is a little looser than the round-down one
    assert 0.50 <= lo <= exact <= up <= 0.511314
    assert up - exact < 1e-6


@settings(max_examples=15, deadline=None)
@given(
    mu=st.floats(0.05, 2.0),
    E=st.integers(1, 300),
    eps=st.floats(0.0, 8.0),
)
def test_gaussian_bracket_contains_exact(mu, E, eps):
    comp = pabi.PrivacyLossDistribution.gaussian(1 / mu, grid_step=1e-3).compose(E)
    lo, est, up = comp.delta(eps)
    exact = pabi.theta(eps, np.sqrt(E) * mu)  # rounded up by <= 1.5e-14 relative
    assert lo <= exact and exact * (1 - 3e-14) <= up
    # discretisation (h = 1e-3) dominates: relative ~2e-4 for the narrowest losses (μ = 0.05)
    assert up - exact <= 1e-6 + 2e-4 * exact
    elo, eest, eup = comp.epsilon(1e-3) if exact > 0 else (0, 0, 0)
    if exact > 0:
        e_exact = pabi.gdp_epsilon(1e-3, np.sqrt(E) * mu)
        assert elo - 1e-9 <= e_exact <= eup + 1e-9


def test_delta_non_increasing_and_heterogeneous():
    g1 = pabi.PrivacyLossDistribution.gaussian(2.0, grid_step=1e-3)
    g2 = pabi.PrivacyLossDistribution.gaussian(4.0, grid_step=1e-3)
    comp = pabi.compose_plds([(g1, 3), (g2, 5)])
    eps = np.linspace(0, 6, 61)
    lo, est, up = comp.delta(eps)
    assert np.all(np.diff(up) <= 0) and np.all(np.diff(lo) <= 0)
    mu = np.sqrt(3 * 0.25 + 5 * 0.0625)
    exact = pabi.theta(eps, mu)
    assert np.all(lo <= exact) and np.all(exact <= up)


def test_laplace_pld_single_step():
    pld = pabi.PrivacyLossDistribution.laplace(1.0, grid_step=1e-3)
    comp = pld.compose(1)
    for eps in [0.0, 0.3, 0.9]:
        lo, est, up = comp.delta(eps)
        exact = pabi.laplace_theta(eps, 1.0)
        assert lo - 1e-12 <= exact <= up and up - exact < 1e-6


# ---------------------------------------------------------------------------------------------
# GDP (C17, C23) and profile → RDP (C18)


def test_gdp_functions():
    for e, m in [(0.0, 0.5), (1.0, 1.0), (5.0, 0.3), (30.0, 2.0)]:
        assert pabi.gdp_delta(e, m) == pytest.approx(float(ref.gdp_delta(e, m)), rel=1e-13)
    d = pabi.gdp_delta(1.3, 0.9)
    e = pabi.gdp_epsilon(d, 0.9)
    assert e >= 1.3 and e == pytest.approx(1.3, rel=1e-12)
    m = pabi.gdp_mu(1.3, d)
    assert m <= 0.9 and m == pytest.approx(0.9, rel=1e-12)
    assert pabi.gdp_compose([0.3] * 4) == pytest.approx(0.6, rel=1e-15)


GDP_INV_CASES = [(1e-5, 1.0), (0.3, 0.05), (1e-12, 3.0), (1e-300, 0.5), (0.5, 20.0), (1e-8, 1e-3)]


@pytest.mark.parametrize("delta,mu", GDP_INV_CASES)
def test_gdp_epsilon_vs_mpmath(delta, mu):
    got = pabi.gdp_epsilon(delta, mu)
    want = float(ref.gdp_epsilon(delta, mu))
    assert got >= want and got <= want * (1 + 1e-12) + 1e-300
    # certified: the GDP profile at the returned ε is ≤ δ
    assert float(ref.gdp_delta(got, mu)) <= delta


@pytest.mark.parametrize("eps,delta", [(1.0, 1e-5), (0.0, 0.1), (30.0, 1e-3), (300.0, 1e-200),
                                       (1e-3, 1e-6), (8.0, 0.9)])
def test_gdp_mu_vs_mpmath(eps, delta):
    got = pabi.gdp_mu(eps, delta)
    want = float(ref.gdp_mu(eps, delta))
    assert got <= want and got >= want * (1 - 1e-12)


def test_gdp_inverses_broadcast_and_errors():
    d = np.array([[1e-3], [1e-6]])
    mu = np.array([0.5, 1.0, 2.0])
    e = pabi.gdp_epsilon(d, mu)
    assert e.shape == (2, 3) and np.all(np.diff(e, axis=1) > 0) and np.all(e[1] > e[0])
    assert np.all(pabi.gdp_delta(e, mu) <= d * (1 + 1e-15))
    assert np.allclose(pabi.gdp_mu(e, d), mu, rtol=1e-12)
    assert pabi.gdp_epsilon(0.5, 0.0) == 0.0
    with pytest.raises(pabi.DomainError) as exc:
        pabi.gdp_epsilon([0.1, 1.5], 1.0)
    assert exc.value.param == "delta" and exc.value.index == 1
    with pytest.raises(pabi.DomainError) as exc:
        pabi.gdp_mu(-1.0, 0.1)
    assert exc.value.param == "eps"


@pytest.mark.parametrize("eps0,delta0,k,delta", [(0.5, 1e-4, 10, 0.1463205956), (0.1, 0.0, 1000, 1e-5),
                                                 (0.01, 1e-8, 10_000, 1e-3)])
def test_approx_dp_composition_epsilon_round_trip(eps0, delta0, k, delta):
    e = pabi.approx_dp_composition_epsilon(eps0, delta0, k, delta)
    assert float(ref.approx_dp_composition_delta(eps0, delta0, k, e)) <= delta
    assert float(ref.approx_dp_composition_delta(eps0, delta0, k, e * (1 - 1e-12))) > delta
    # the δ0 atoms alone exceed δ: no finite ε
    assert pabi.approx_dp_composition_epsilon(0.5, 1e-3, 100, 0.05) == np.inf


L, SIG, ETA, D, N, E = 1.0, 4.0, 0.05, 1.0, 1000, 10


def shuffled_profile(e):
    e = np.asarray(e, dtype=float)
    a = pabi.theta(e, 2 * L / SIG)
    u = pabi.theta_complement(e, D / (ETA * SIG))
    g = -np.expm1(N * np.log1p(-u)) / (N * u)
    return np.minimum(a * g, 1.0)


def shuffled_log_profile(e):
    e = np.asarray(e, dtype=float)
    u = pabi.theta_complement(e, D / (ETA * SIG))
    g = -np.expm1(N * np.log1p(-u)) / (N * u)
    return pabi.theta(e, 2 * L / SIG, log=True) + np.log(g)


def test_gdp_mu_dominating_c17_c23():
    e = np.linspace(0, 30, 301)
    # i = n profile is exactly GDP with μ = 2L/σ
    assert pabi.gdp_mu_dominating(e, log_delta=pabi.theta(e, 0.5, log=True)) == pytest.approx(0.5, abs=1e-10)
    # δ given as values: the underflow residue 2e-323 of θ(ε ≥ 19, 0.5) is a (loose) constraint
    assert pabi.gdp_mu_dominating(e, pabi.theta(e, 0.5)) > 0.5
    # shuffled profile: μ_ε increases to 2L/σ (docs/derivations/composition.md#gdp values)
    want = {0.0: 0.040, 1.0: 0.348, 5.0: 0.479, 20.0: 0.498, 100.0: 0.49991, 200.0: 0.49998}
    for x, m in want.items():
        got = pabi.gdp_mu_dominating([x], log_delta=shuffled_log_profile([x]))
        assert got == pytest.approx(m, abs=0.5 * 10 ** -(len(str(m)) - 2))


def test_profile_to_rdp_exact_for_gdp_c18():
    mu = 0.8
    orders = np.array([1.5, 2.0, 4.0, 10.0])
    grid = np.arange(64001) * 1e-3
    prof = np.where(grid < 64, pabi.theta(grid, mu), 0.0)  # theta(64, 0.8) ~ e^-3200
    r = np.array([pabi.profile_to_rdp(a, eps=grid, delta=prof) for a in orders])
    assert np.all(r >= orders * mu**2 / 2)
    assert np.allclose(r, orders * mu**2 / 2, rtol=2e-3)


def test_multi_epoch_routes_c23():
    res = pabi.multi_epoch_epsilon(1e-5, profile=shuffled_profile, epochs=E, log_profile=shuffled_log_profile)
    assert res.single_point == pytest.approx(19.0, abs=0.05)
    # GDP over every ε: μ* ≤ 2L/σ = 0.5 plus a δ_J < 1e-300 atom, so at most 7.51
    # (docs/derivations/composition.md#multi-epoch) (μ* = 2L/σ exactly) and close to it
    assert 7.45 <= res.gdp <= 7.51 + 1e-3
    # 4.49 is at the orders {1.5,...,64}; the finer default grid can only be lower
    assert res.rdp <= 4.49 + 1e-3
    spec_orders = np.array([1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64])
    grid = np.arange(64001) * 1e-3
    prof = np.where(grid < 64, shuffled_profile(grid), 0.0)
    rdp = np.array([pabi.profile_to_rdp(a, eps=grid, delta=prof) for a in spec_orders])
    eps_spec = np.min(E * rdp + np.log(1e5) / (spec_orders - 1))
    assert eps_spec == pytest.approx(4.49, abs=0.01)
    # the whole profile through the PLD is the tightest
    assert res.pld < res.rdp < res.gdp < res.single_point


def test_gdp_dominating_pair_dominates_everywhere():
    h = 1e-3
    grid = np.arange(int(20 / h) + 1) * h
    mu, dj = pabi.gdp_dominating_pair(grid, log_delta=shuffled_log_profile(grid))
    assert 0.49 < mu <= 0.5 * (1 + 1e-12) and dj < 1e-300
    # off-grid points, including beyond the last sample
    rng = np.random.default_rng(1)
    e = np.concatenate([rng.uniform(0, 20, 400), rng.uniform(20, 200, 50)])
    assert np.all(shuffled_log_profile(e) <= np.log(dj + (1 - dj) * pabi.theta(e, mu)) + 1e-12)
    # exact GDP profile: μ* within the documented ≈ 2h relative step cost
    m2, _ = pabi.gdp_dominating_pair(grid, log_delta=pabi.theta(grid, 0.5, log=True))
    assert 0.5 <= m2 <= 0.5 * (1 + 2.5 * h)
    with pytest.raises(pabi.DomainError):
        pabi.gdp_dominating_pair([0.1, 0.2], [0.1, 0.01])  # must start at 0


# ---------------------------------------------------------------------------------------------
# DP-SGD accountant


@pytest.mark.parametrize("q,sigma,steps", [(0.01, 1.0, 300), (0.05, 2.0, 100), (1.0, 5.0, 10)])
def test_dpsgd_vs_dp_accounting(q, sigma, steps):
    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)
    want = acc.get_epsilon(1e-5)
    lo, est, up = pabi.dpsgd_epsilon(1e-5, sample_rate=q, noise_multiplier=sigma, steps=steps, bracket=True)
    assert lo <= est <= up
    assert up == pytest.approx(want, abs=2e-3)
    assert lo <= want + 1e-4
    # δ at that ε
    dl, de, du = pabi.dpsgd_delta(up, sample_rate=q, noise_multiplier=sigma, steps=steps)
    assert dl <= 1e-5 * (1 + 1e-9) and du <= 1e-5 * (1 + 1e-9)


def test_dpsgd_home_ground_t1000():
    lo, est, up = pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000, bracket=True)
    assert 1.828 <= up <= 1.830 and lo >= 1.80 and lo <= 1.8282
    assert pabi.dpsgd_epsilon(1e-5, sample_rate=0.0, noise_multiplier=1.0, steps=10) == 0.0


def test_calibrate_sigma():
    s = pabi.dpsgd_calibrate_noise_multiplier(1.5, 1e-5, sample_rate=0.01, steps=1000, rtol=1e-4)
    assert pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=s, steps=1000) <= 1.5
    assert pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=s * (1 - 2e-4), steps=1000) > 1.5


# ---------------------------------------------------------------------------------------------
# domain errors


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: pabi.dpsgd_epsilon(1e-5, sample_rate=1.5, noise_multiplier=1.0, steps=10), "sample_rate"),
        (lambda: pabi.dpsgd_epsilon(1e-5, sample_rate=0.1, noise_multiplier=0.0, steps=10), "noise_multiplier"),
        (lambda: pabi.dpsgd_epsilon(1e-5, sample_rate=0.1, noise_multiplier=1.0, steps=0), "steps"),
        (lambda: pabi.dpsgd_epsilon(0.0, sample_rate=0.1, noise_multiplier=1.0, steps=10), "delta"),
        (lambda: pabi.dpsgd_epsilon(1.0, sample_rate=0.1, noise_multiplier=1.0, steps=10), "delta"),
        (lambda: pabi.dpsgd_calibrate_noise_multiplier(-1.0, 1e-5, sample_rate=0.1, steps=10), "eps"),
        (lambda: pabi.approx_dp_composition_delta(-0.1, 0.0, 3, 1.0), "eps0"),
        (lambda: pabi.approx_dp_composition_delta(0.1, 1.5, 3, 1.0), "delta0"),
        (lambda: pabi.approx_dp_composition_delta(0.1, 0.0, 2.5, 1.0), "count"),
        (lambda: pabi.tradeoff_eps_delta(1.5, 1.0, 0.0), "type1_error"),
        (lambda: pabi.PrivacyLossDistribution.from_profile(np.array([0.5, 0.6, 0.1])), "profile"),
        (lambda: pabi.PrivacyLossDistribution.from_profile(np.array([1.5, 0.6, 0.1])), "profile"),
        (lambda: pabi.gdp_epsilon(0.0, 1.0), "delta"),
    ],
)
def test_domain_errors(call, param):
    with pytest.raises(pabi.DomainError) as exc:
        call()
    assert exc.value.param == param


def test_docstring_examples():
    import doctest

    import pabi.composition

    r = doctest.testmod(pabi.composition, optionflags=doctest.ELLIPSIS, verbose=False)
    assert r.attempted >= 10 and r.failed == 0


@pytest.mark.parametrize("mu,E", [(0.5, 16), (1.0, 4), (0.2, 100)])
def test_profile_pld_of_gdp_composes_to_gdp(mu, E):
    # the PLD built from the GDP profile alone (symmetric reflection, hull masses) must compose
    # to the GDP profile √E·μ
    pld = pabi.PrivacyLossDistribution.from_profile(lambda e: pabi.theta(e, mu), grid_step=1e-3)
    assert abs(pld.pmf.sum() + pld.inf - 1) < 1e-9
    comp = pld.compose(E)
    for eps in [0.0, 0.5, 2.0]:
        lo, est, up = comp.delta(eps)
        exact = pabi.theta(eps, np.sqrt(E) * mu)
        assert lo <= exact and exact * (1 - 3e-14) <= up
        assert up - exact < 1e-4 * exact


def test_type_errors():
    with pytest.raises(TypeError):
        pabi.dpsgd_epsilon(1e-5, sample_rate="0.1", noise_multiplier=1.0, steps=10)
    with pytest.raises(TypeError):
        pabi.dpsgd_epsilon(1e-5, sample_rate=0.1, noise_multiplier=1.0, steps=[10])
    with pytest.raises(TypeError):
        pabi.approx_dp_composition_delta("a", 0.0, 3, 1.0)


def test_tradeoff_from_profile_is_a_valid_lower_curve():
    """sup over a grid of f_{eps, delta(eps)} for the mu-GDP profile lies below G_mu, and close."""
    from scipy.stats import norm

    mu = 1.0
    eps = np.linspace(0, 10, 2001)
    alpha = np.linspace(0.001, 0.999, 50)
    f = pabi.tradeoff_from_profile(alpha, eps, pabi.gdp_delta(eps, mu))
    g = norm.cdf(norm.ppf(1 - alpha) - mu)
    assert np.all(f <= g) and np.max(g - f) < 2e-4
    # a single (eps, delta) point gives f_{eps,delta} itself
    assert pabi.tradeoff_from_profile(0.3, [1.0], [1e-3]) == pabi.tradeoff_eps_delta(0.3, 1.0, 1e-3)
    with pytest.raises(ValueError, match="equal length"):
        pabi.tradeoff_from_profile(0.3, [1.0, 2.0], [1e-3])
