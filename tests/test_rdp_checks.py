"""The numerical checks behind the Rényi-DP errata and derivations as tests: pabi reproduces the
numbers of the checks listed in docs/errata.md#r-checks (C01–C31, where a pabi function computes
the quantity) and the RDP route of multi-epoch PNSGD (docs/errata.md#p-c23: profile → RDP →
composition → (ε, δ)). The checks' own published numbers are the oracles; independent formulas
are written out here, never taken from pabi. Test ``test_cNN_…`` is check ``#r-cNN`` of
docs/errata.md.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import integrate, optimize

import pabi
from pabi import reference as ref


def rel(a, b) -> float:
    b = mp.mpf(b)
    return float(abs((mp.mpf(a) - b) / b)) if b != 0 else abs(float(a))


# ------------------------------------------------------------------------------------ [002]


def test_c01_q_one_is_gaussian():
    a = np.array([2, 3, 5, 8, 16, 64, 256, 1000], dtype=float)[:, None]
    r = np.array([1e-4, 0.1, 0.7, 1.0, 3.0])[None, :]
    v = pabi.sampled_gaussian_rdp_per_instance(a, sample_rate=1.0, sensitivity=r, noise_scale=1.0)
    exact = a * r * r / 2
    assert np.all(v >= exact) and np.max((v - exact) / exact) < 1e-13  # rounded up by ≤ 2^-46(1 + log2 α)
    # q = 1 − 1e-15 (not special-cased): continuity
    w = pabi.sampled_gaussian_rdp_per_instance(a, sample_rate=1 - 1e-15, sensitivity=r, noise_scale=1.0)
    assert np.max(np.abs(w - exact) / exact) < 1e-6


def test_c02_fractional_orders_exact_and_sandwiched():
    """C02: the divergence at a fractional order lies between the formula at ⌊α⌋ and ⌈α⌉; pabi's
    exact fractional value reproduces the check's quadrature (mp_renyi_mixture_vs_gauss)."""
    for a in (1.5, 2.3, 4.7):
        for q in (0.05, 0.5):
            v = pabi.sampled_gaussian_rdp(a, sample_rate=q, noise_multiplier=1.0)
            hi = pabi.sampled_gaussian_rdp(math.ceil(a), sample_rate=q, noise_multiplier=1.0)
            assert v <= hi
            if a >= 2:
                assert v >= pabi.sampled_gaussian_rdp(math.floor(a), sample_rate=q, noise_multiplier=1.0)
    # one quadrature in the check's own form (30 digits)
    with mp.workdps(30):
        q, d, s, a = mp.mpf(0.05), mp.mpf(1), mp.mpf(1), mp.mpf(2.3)
        mu0 = lambda x: mp.exp(-x * x / 2) / mp.sqrt(2 * mp.pi)  # noqa: E731
        f = lambda x: mu0(x) * (1 - q + q * mp.exp(x - mp.mpf(1) / 2)) ** a  # noqa: E731
        quad = mp.log(mp.quad(f, [-mp.inf, -12, 0, a, a + 12, mp.inf])) / (a - 1)
    v = pabi.sampled_gaussian_rdp(2.3, sample_rate=0.05, noise_multiplier=1.0)
    assert mp.mpf(v) >= quad * (1 - mp.mpf(10) ** -25) and rel(v, quad) < 1e-12


def test_c03_stable_vs_mpmath_subgrid():
    """C03 (subgrid; the full grid is the golden file): stable evaluation ≤ 5e-12 relative."""
    worst = 0.0
    for a in (2, 8, 32, 256):
        for q in (1e-9, 1e-3, 0.5, 0.99):
            for r in (1e-3, 1.0, 4.0):
                v = pabi.sampled_gaussian_rdp_per_instance(a, sample_rate=q, sensitivity=r, noise_scale=1.0)
                worst = max(worst, rel(v, ref.sampled_gaussian_rdp(a, q, r, dps=40)))
    assert worst < 5e-12
    # the cases where the naive sum fails are finite and right here
    assert math.isfinite(pabi.sampled_gaussian_rdp_per_instance(256, sample_rate=0.01, sensitivity=1.0, noise_scale=1.0))
    v = pabi.sampled_gaussian_rdp_per_instance(2, sample_rate=1e-7, sensitivity=0.1, noise_scale=1.0)
    assert rel(v, ref.sampled_gaussian_rdp(2, 1e-7, 0.1)) < 1e-13  # true 1.005e-16 (naive: 2.2e-16)


def test_c04_properties_including_fractional_orders():
    for q in (1e-8, 1e-3, 0.3, 0.9):  # alpha = 2 closed form
        for r in (1e-3, 0.5, 2.0):
            v = pabi.sampled_gaussian_rdp_per_instance(2, sample_rate=q, sensitivity=r, noise_scale=1.0)
            assert rel(v, math.log1p(q * q * math.expm1(r * r))) < 1e-13
    for a in (2, 5, 20):  # q → 0 asymptote
        for r in (0.1, 1.0):
            v = pabi.sampled_gaussian_rdp_per_instance(a, sample_rate=1e-7, sensitivity=r, noise_scale=1.0)
            assert rel(v, a / 2 * 1e-14 * math.expm1(r * r)) < 1e-5
    for r in (0.2, 1.0, 2.0):
        v = pabi.sampled_gaussian_rdp_per_instance(8, sample_rate=np.linspace(0.001, 0.999, 60), sensitivity=r, noise_scale=1.0)
        assert np.all(np.diff(v) > 0)
        v = pabi.sampled_gaussian_rdp_per_instance(8, sample_rate=0.1, sensitivity=np.linspace(0.01, 3, 60), noise_scale=1.0)
        assert np.all(np.diff(v) > 0)
        # non-decreasing in alpha and (alpha − 1)·eps convex in alpha, now on a fractional grid
        a = np.linspace(1.05, 40, 400)
        e = pabi.sampled_gaussian_rdp_per_instance(a, sample_rate=0.05, sensitivity=r, noise_scale=1.0)
        assert np.all(np.diff(e) >= -1e-13 * e[1:])
        w = (a - 1) * e
        assert np.all(np.diff(w, 2) >= -1e-10 * np.abs(w[2:]))
    for a in (2, 7, 50, 2.5, 7.25):
        for q in (0.01, 0.5):
            for r in (0.1, 1, 5):
                v = pabi.sampled_gaussian_rdp_per_instance(a, sample_rate=q, sensitivity=r, noise_scale=1.0)
                assert 0 <= v <= a * r * r / 2 * (1 + 1e-13)


@pytest.mark.parametrize("q,delta,total", [(0.25, 0.8, 64), (0.3, 1.2, 1000)])
def test_c05_general_update_rule_reduces_to_thm32(q, delta, total):
    """C05: deterministic X, Bernoulli X' ∈ {0, Δ} with probabilities (1 − q, q): Thm 3.6 with
    exact expectations equals Thm 3.2, against the exact (mpmath) Thm 3.2 value. Exact
    expectation via the plug-in on an exact grid: the α-tuples enumerate all 2^α outcomes, each
    repeated in proportion to its probability (q = 1/4: 27, 9, 3, 1 out of 64; q = 0.3: 343, 147,
    63, 27 out of 1000, exact multiplicities). A huge common offset changes nothing (C07)."""
    import itertools

    alpha, sigma = 3, 1.0
    inner = []
    for t in itertools.product([0.0, delta], repeat=alpha):
        k = sum(1 for x in t if x)
        m = q**k * (1 - q) ** (alpha - k) * total
        assert abs(m - round(m)) < 1e-9  # the multiplicities are exact
        inner += [[[x] for x in t]] * round(m)
    assert len(inner) == total
    v = pabi.general_update_rdp(alpha, noise_scale=sigma, updates_second=[[0.0]], updates_first=[inner])
    exact = ref.sampled_gaussian_rdp_per_instance(alpha, q, delta, sigma, dps=40)
    assert abs(v - exact) <= 1e-13 * exact, (v, exact)
    far = np.asarray([inner]) + 3e6
    v2 = pabi.general_update_rdp(alpha, noise_scale=sigma, updates_second=[[3e6]], updates_first=far)
    assert v2 == pytest.approx(v, rel=1e-9)


def test_c07_translation_invariance():
    """C07: with ‖U‖ ≈ 3e6 and a 1e-3 spread the translation-invariant form stays exact."""
    rng = np.random.default_rng(7)
    base = 3 * 2.0**20  # ≈ 3.1e6; spreads on a 2^-30 grid so that u + base is exact
    u = np.round(rng.normal(0, 1e-3, (4, 1, 2, 1)) * 2**30) / 2**30
    v = np.round(rng.normal(0, 1e-3, (4, 1)) * 2**30) / 2**30
    a = pabi.general_update_rdp(2, noise_scale=1e-3, updates_second=v, updates_first=u)
    b = pabi.general_update_rdp(2, noise_scale=1e-3, updates_second=v + base, updates_first=u + base)
    assert a == pytest.approx(b, rel=1e-13)
    # the printed form ‖Σ U(T_i)‖... − (α − 1)‖U(V)‖² − ‖Δ‖² loses everything at this offset
    w = u[:, 0, :, 0] + base
    vv = v[:, 0] + base
    printed = (np.sum(w**2, axis=1) - vv**2 - (np.sum(w, axis=1) - vv) ** 2)
    stable = (np.sum(w - vv[:, None], axis=1) ** 2 - np.sum((w - vv[:, None]) ** 2, axis=1))
    assert np.max(np.abs(printed + stable) / np.abs(stable)) > 1e-3


def test_c08_order_map_and_c13_p_choice():
    b = pabi.holder_orders(3.0, holder_exponent=2.0, steps=6)
    np.testing.assert_allclose(b, 1 + 2.0 * 2.0 ** np.arange(6), rtol=1e-14)  # p = 2: 2α − 1
    typo = pabi.holder_orders(3.0, holder_exponent=5.0, steps=10, variant="as_published")
    assert np.all(typo >= pabi.holder_orders(3.0, holder_exponent=5.0, steps=10))
    # Fact 3.4: p = 3n keeps orders ≤ 1.5α − 0.5 for all n ≥ 1; closed-form p_min is exact
    for n in (1, 2, 10, 100, 5000):
        assert pabi.holder_orders(8.0, holder_exponent=3.0 * n, steps=n)[-1] <= 1.5 * 8 - 0.5 + 1e-12
    for n in (2, 10, 1000):
        for a in (1.5, 8.0, 64.0):
            pm = pabi.holder_min_exponent(a, steps=n)
            assert rel(pabi.holder_orders(a, holder_exponent=pm, steps=n)[-1], 2 * a) < 1e-10
    # p = n/10 with n = 100, alpha = 8: g^99 = 2.4e5 (> 16: "p = O(n)" is insufficient)
    assert pabi.holder_orders(8.0, holder_exponent=10.0, steps=100)[-1] == pytest.approx(2.4e5, rel=0.05)


def test_c11_fixed_shift_gaussian_chain():
    """C11: chain of Gaussian mechanisms with fixed shifts μ_j: the bound is
    Σ_j β_{n−j} μ_j²/(2σ²) ≥ exact α Σ μ_j²/(2σ²), decreasing in p, → exact as p → ∞."""
    mu = np.array([0.3, 1.0, 0.5, 0.8])
    n, a, s = len(mu), 2.0, 1.0
    exact = a * np.sum(mu**2) / (2 * s * s)
    prev = math.inf
    for p in (1.5, 3.0, 12.0, 1e3, 1e6 * n):
        betas = pabi.holder_orders(a, holder_exponent=p, steps=n)[::-1]  # step j uses β_{n−j}
        d = pabi.gaussian_mechanism_rdp(betas, sensitivity=mu, noise_scale=s)[:, None]
        v = pabi.holder_composition_bound(a, holder_exponent=p, divergences=d)
        assert v == pytest.approx(np.sum(betas * mu**2) / 2, rel=1e-13)
        assert exact <= v <= prev
        prev = v
    assert rel(prev, exact) < 1e-5


def test_c14_sample_size_variants():
    a, e, ep, c, J = 8, 1.0, 2.0, 0.1, 0.05
    stmt = math.log(-math.log(J) / c**2) + 6 * (a - 1) * e - 3 * (2 * a - 1) * ep
    proof = math.log(-math.log(J) / c**2) + 3 * (2 * a - 1) * ep - 6 * (a - 1) * e
    logR = 3 * (2 * a - 1) * ep
    corr = (math.log(math.log(2 / J)) + 2 * (logR + math.log1p(-math.exp(-logR)))
            - math.log(2) - 2 * (math.log(c) + 3 * (a - 1) * e))
    assert pabi.hoeffding_sample_size(a, rdp=e, rdp_bound=ep, tolerance=c, failure_prob=J, variant="as_published", log=True) == pytest.approx(stmt, rel=1e-13)
    assert pabi.hoeffding_sample_size(a, rdp=e, rdp_bound=ep, tolerance=c, failure_prob=J, variant="proof_consistent", log=True) == pytest.approx(proof, rel=1e-13)
    v = pabi.hoeffding_sample_size(a, rdp=e, rdp_bound=ep, tolerance=c, failure_prob=J, log=True)
    assert v == pytest.approx(corr, rel=1e-13) and round(v, 1) == 143.2  # l >= e^143
    assert math.exp(stmt) == pytest.approx(4e-19, rel=0.1) and math.exp(proof) == pytest.approx(2e23, rel=0.1)


def _cor31(q, p, dp, cd):
    """The check's reference sketch: ε' with the per-batch C_{δ,σ}Δ values cd."""
    cd = np.asarray(cd, dtype=float)
    m = np.max(p * cd)
    k = m + math.log(np.mean(np.exp(p * cd - m)))
    eta = (math.log(q) + k - math.log(dp)) / (p - 1)
    return math.log1p(q * math.expm1(eta))


def test_c15_lp_per_instance():
    q, dp, delta, sigma = 0.01, 1e-6, 1e-5, 1.0
    C = pabi.gaussian_dp_constant(delta, sigma)
    # constant Δ: ε'(p) decreases to the classical amplification as p → ∞
    for cd in (0.1, 0.5, 0.9):
        cl = math.log1p(q * math.expm1(cd))
        ps = np.array([2, 10, 1e3, 1e6, 1e9])
        vs = pabi.lp_per_instance_epsilon_delta(delta, dp, sample_rate=q, lp_exponent=ps, noise_scale=sigma, sensitivities=[cd / C])[0]
        assert np.all(vs >= cl) and np.all(np.diff(vs) <= 0) and rel(vs[-1], cl) < 1e-6
    # p = 1e4 (the paper's value) vs mpmath, 100 samples: naive e^{pCΔ} overflows
    rng = np.random.default_rng(15)
    cds = rng.uniform(0, 1.0, 100)
    p = 1e4
    with mp.workdps(50):
        cdm = [mp.mpf(float(x)) for x in (cds / C) * C]  # the samples as pabi sees them
        ap = q * mp.power(mp.fsum(mp.exp(p * x) for x in cdm) / len(cdm), 1 / mp.mpf(p))
        want = mp.log(ap ** (p / (p - 1)) * mp.mpf(dp) ** (-1 / mp.mpf(p - 1)) + 1 - q)
    e, d = pabi.lp_per_instance_epsilon_delta(delta, dp, sample_rate=q, lp_exponent=p, noise_scale=sigma, sensitivities=cds / C)
    assert rel(e, want) < 1e-10 and d == pytest.approx(q * delta + dp, rel=1e-14)
    # end-to-end hockey stick on a 1-D sampled Gaussian mechanism (check's setting)
    sigma, delta = 5.0, 1e-5
    C = pabi.gaussian_dp_constant(delta, sigma)
    u = np.array([0.0, 0.7, -0.4, 1.1])
    pib = np.array([0.4, 0.3, 0.2, 0.1])
    Db = np.array([0.2, 0.5, 0.9, 1.0])
    q2, p2, dp2 = 0.1, 10.0, 1e-6
    sens = np.repeat(Db, (pib * 10).astype(int))
    epsp, dpp = pabi.lp_per_instance_epsilon_delta(delta, dp2, sample_rate=q2, lp_exponent=p2, noise_scale=sigma, sensitivities=sens)
    assert epsp == pytest.approx(_cor31(q2, p2, dp2, C * sens), rel=1e-13)
    phi = lambda x, m: math.exp(-(x - m) ** 2 / (2 * sigma**2)) / (sigma * math.sqrt(2 * math.pi))  # noqa: E731
    fX = lambda x: sum(pb * phi(x, ub) for ub, pb in zip(u, pib))  # noqa: E731
    fXp = lambda x: sum(pb * ((1 - q2) * phi(x, ub) + q2 * phi(x, ub + db)) for ub, pb, db in zip(u, pib, Db))  # noqa: E731
    hs, _ = integrate.quad(lambda x: max(fXp(x) - math.exp(epsp) * fX(x), 0.0), -60, 60, limit=400, points=[-10, 0, 10])
    assert hs <= dpp


def test_c16_classical_constant_validity():
    for delta in (1e-3, 1e-5, 1e-8):
        k = math.sqrt(2 * math.log(1.25 / delta))
        eps = np.linspace(0.01, 0.999, 40)  # (eps = 1 exactly is rounded up past 1 and flagged)
        sens = eps / k  # sigma = 1
        e = pabi.gaussian_mechanism_epsilon(delta, noise_scale=1.0, sensitivity=sens)
        np.testing.assert_allclose(e, eps, rtol=1e-13)
        assert np.all(pabi.theta(eps, sens) <= delta)
        with pytest.raises(ValueError, match="only valid for eps <= 1"):
            pabi.gaussian_mechanism_epsilon(delta, noise_scale=1.0, sensitivity=10.0 / k)
    # delta = 1e-5, eps = 10: exact delta(eps) = 2.27e-5 > delta
    k = math.sqrt(2 * math.log(1.25e5))
    assert pabi.theta(10.0, 10.0 / k) == pytest.approx(2.27e-5, rel=0.01)


def test_c17_mironov_conversion_valid_on_gaussian():
    worst = 0.0
    alphas = np.concatenate([np.linspace(1.01, 10, 400), np.linspace(10, 2000, 400)])
    for ratio in (0.05, 0.3, 1.0, 3.0):
        curve = pabi.gaussian_mechanism_rdp(alphas, sensitivity=ratio, noise_scale=1.0)
        for delta in (1e-3, 1e-6, 1e-10):
            eps, _ = pabi.rdp_to_dp_epsilon(delta, orders=alphas, rdp=curve, conversion="classical")
            d = pabi.theta(eps, ratio)
            assert d <= delta
            worst = max(worst, d / delta)
    assert worst <= 0.043  # "delta_exact(eps_Mironov)/delta <= 0.043"


def test_c18_weak_triangle_and_keep_rule():
    rng = np.random.default_rng(18)
    a = rng.uniform(1.01, 20, 5000)
    pp = rng.uniform(1.05, 30, 5000)
    x, y = rng.normal(0, 2, (2, 5000))
    g = (pp * a - 1) / (pp - 1)
    lhs = a * y * y / 2
    rhs = pabi.weak_triangle_bound(a, holder_exponent=pp, divergence_pq=pp * a * x * x / 2, divergence_qr=g * (y - x) ** 2 / 2)  # broadcasts
    assert np.all(lhs <= rhs * (1 + 1e-12) + 1e-15)
    rhs2 = pabi.weak_triangle_bound(a, holder_exponent=2.0, divergence_pq=2 * a * x * x / 2, divergence_qr=(2 * a - 1) * (y - x) ** 2 / 2)
    assert np.all(lhs <= rhs2 * (1 + 1e-12) + 1e-15)
    # printed rule at alpha = 1.5: coefficient −1, accepts an output with D = 6.75 > beta = 0.1
    alpha, beta, a0 = 1.5, 0.1, 3.0
    d_prev = (2 * alpha) * a0**2 / 2
    assert pabi.unlearning_keep(alpha, threshold=beta, divergence_previous=d_prev, divergence_step=0.0, variant="as_published")
    assert not pabi.unlearning_keep(alpha, threshold=beta, divergence_previous=d_prev, divergence_step=0.0)
    assert alpha * a0**2 / 2 == 6.75


# ------------------------------------------------------------------------------------ [004]


def _theta_def(L, s):
    with mp.workdps(60):
        L = mp.mpf(L)
        return mp.mpf(0) if s == 0 else L ** (2 * (s - 1)) / mp.fsum(L ** (2 * j) for j in range(s))


def test_c19_theta_stable():
    Ls = [0.3, 0.9, 1 - 1e-9, 1.0, 1 + 1e-15, 1 + 1e-12, 1 + 1e-6, 1.01, 1.5, math.sqrt(3), 3.0]
    ss = [0, 1, 2, 3, 7, 50, 1000, 10**5]
    L, s = np.meshgrid(Ls, ss, indexing="ij")
    v = pabi.shift_weight(s, step_lipschitz=L)  # broadcast
    worst = 0.0
    with mp.workdps(60):
        for i, Li in enumerate(Ls):
            for j, sj in enumerate(ss):
                if sj <= 1000:
                    want = _theta_def(Li, sj)
                else:
                    Lm = mp.mpf(Li)
                    want = mp.mpf(1) / sj if Li == 1.0 else (1 - Lm**-2) / (1 - Lm ** (-2 * sj))
                assert mp.mpf(v[i, j]) >= want * (1 - mp.mpf(10) ** -30)  # rounded up
                if want > 1e-300:
                    worst = max(worst, rel(v[i, j], want))
                else:  # below the normal range (e.g. 1.8e-1045 at L = 0.3, s = 1000): a tiny bound
                    assert v[i, j] <= 1e-300
    # nearest rounding reaches 2.4e-14 (C19); pabi rounds up and widens L < 1 by its inherent
    # conditioning |(s − 1) ln L²|·2^-51 (e.g. 9e-14 at L = 0.9, s = 1000)
    assert worst < 2e-13
    with mp.workdps(60):
        Lq = mp.mpf(1 + 1e-15)
        want = (1 - Lq**-2) / (1 - Lq ** (-2 * 10**6))
    assert rel(pabi.shift_weight(10**6, step_lipschitz=1 + 1e-15), want) < 2e-14  # nearest: 1e-15; + INFLATE 2^-46
    assert rel(pabi.shift_weight(10, kappa=1e-17), 0.1) < 4e-16 * 40  # κ input, rounded up by ≤ 2^-46


def test_c20_theta_properties_and_lemma_c1():
    s = np.arange(1, 100)
    np.testing.assert_allclose(pabi.shift_weight(s, step_lipschitz=1.0), 1 / s, rtol=1e-13)
    for L in (0.5, 0.99, 1.0, 1.001, 1.3, 1.732):
        v = pabi.shift_weight(np.arange(1, 400), step_lipschitz=L)
        assert np.all(v <= 1) and np.all(np.diff(v) <= 1e-15)
    for s in (2, 5, 40):
        assert np.all(np.diff(pabi.shift_weight(s, step_lipschitz=np.linspace(0.2, 3, 200))) > 0)
    assert rel(pabi.shift_weight(10**6, step_lipschitz=1.2), 1 - 1.2**-2) < 1e-13
    assert pabi.shift_weight(10**4, step_lipschitz=0.8) < 1e-300
    # Lemma C.1: threshold valid at the ceiling and tight (equality) at real s_min
    L = np.array([1.0001, 1.01, 1.3, 1.7])[:, None]
    xi = np.array([1.01, 1.5, 2, 10, 1e6])[None, :]
    smin = pabi.shift_weight_min_steps(xi, step_lipschitz=L)
    np.testing.assert_allclose(smin, -np.log1p(-1 / xi) / (2 * np.log(L)), rtol=1e-10)
    cap = xi * (1 - L**-2)
    assert np.all(pabi.shift_weight(np.ceil(smin), step_lipschitz=L) <= cap * (1 + 1e-12))
    real = smin >= 1  # θ_L(s) for real s ≥ 1: equality at the threshold
    Lb = np.broadcast_to(L, smin.shape)[real]
    np.testing.assert_allclose(pabi.shift_weight(smin[real], step_lipschitz=Lb),
                               np.broadcast_to(cap, smin.shape)[real], rtol=1e-8)


def test_c21_lemma_a2_identities():
    worst = 0.0
    with mp.workdps(50):
        for L in (0.7, 1.0, 1.05, 1.5, 2.0):
            for T in (1, 2, 5, 17):
                Lm = mp.mpf(L)
                S = mp.fsum(Lm ** (2 * i) for i in range(T))
                b = [Lm ** (T - t) / S * Lm ** (T - 1) for t in range(1, T + 1)]
                bt = pabi.optimal_shifts(T, initial_distance=0.0, map_difference=1.0, step_lipschitz=L)
                worst = max(worst, max(rel(x, y) for x, y in zip(bt, b)))
                worst = max(worst, rel(float(np.sum(bt**2)), _theta_def(L, T)))
    assert worst < 1e-13


@pytest.mark.parametrize("L,T,tau,s", [(1.2, 5, 0.3, 1.0), (0.8, 7, 1.0, 0.5), (1.0, 6, 0.0, 2.0),
                                       (1.7, 10, 2.0, 0.1), (1.05, 20, 0.5, 0.5)])
def test_c22_qp_closed_form_vs_slsqp(L, T, tau, s):
    def Rt(a, t):
        return L ** (t - 1) * (L * tau + s) - sum(a[i] * L ** (t - 1 - i) for i in range(t))

    cons = [{"type": "eq", "fun": lambda a: Rt(a, T)}] + [
        {"type": "ineq", "fun": (lambda a, t=t: Rt(a, t))} for t in range(1, T)
    ]
    res = optimize.minimize(lambda a: 0.5 * a @ a, x0=np.full(T, (L * tau + s) / T), jac=lambda a: a,
                            constraints=cons, bounds=[(0, None)] * T, method="SLSQP",
                            options={"ftol": 1e-15, "maxiter": 2000})
    a = pabi.optimal_shifts(T, initial_distance=tau, map_difference=s, step_lipschitz=L)
    obj = 0.5 * (L * tau + s) ** 2 * pabi.shift_weight(T, step_lipschitz=L)
    assert res.success and rel(res.fun, obj) < 1e-7
    assert np.max(np.abs(res.x - a)) / np.max(a) < 1e-4
    assert abs(0.5 * a @ a - obj) < 1e-12 * obj
    assert (min(Rt(a, t) for t in range(1, T)) if T > 1 else 0.0) >= -1e-12


def test_c23_prop22_replay_and_exact_residuals():
    # (7): replaying the per-cycle optimal residuals through Lemma 2.1 reproduces the bound
    for L, tau, sbar, T, ell in [(1.0, 0.0, 1.0, 10, 3), (1.3, 0.5, 0.7, 11, 4), (0.9, 1.0, 2.0, 9, 9), (1.1, 0.0, 1.0, 25, 5)]:
        alpha, sigma = 2.0, 1.0
        shift, cost = tau, 0.0
        E, r = divmod(T, ell)
        for Tc in [ell] * E + ([r] if r else []):
            a = pabi.optimal_shifts(Tc, initial_distance=shift, map_difference=sbar, step_lipschitz=L)
            for k in range(Tc):
                shift = L * shift + (sbar if k == 0 else 0.0) - a[k]
                assert shift >= -1e-12
                cost += alpha * a[k] ** 2 / (2 * sigma**2)
            assert abs(shift) < 1e-12
            shift = 0.0
        assert rel(pabi.shifted_cycle_bound(alpha, noise_scale=sigma, steps=T, batches_per_epoch=ell,
                                            map_difference=sbar, initial_distance=tau, step_lipschitz=L), cost) < 1e-12
    # (8) and its exact residual sum, replayed with a_t = ζ + s_t (τ stays 0, any L)
    rng = np.random.default_rng(23)
    for _ in range(200):
        zeta, sb = rng.uniform(0, 2, 2)
        T = int(rng.integers(1, 60))
        ell = int(rng.integers(1, T + 1))
        cost = sum((zeta + (sb if k % ell == 0 else 0.0)) ** 2 for k in range(T))
        v = pabi.shifted_drift_bound(3.0, noise_scale=0.5, drift=zeta, steps=T, batches_per_epoch=ell,
                                     map_difference=sb)
        assert v >= 3.0 * cost / (2 * 0.25) and rel(v, 3.0 * cost / 0.5) < 1e-12
        if zeta > 0:
            # equal when ℓ = 1 (T + 3T = 4T): allow the outward rounding
            assert pabi.shifted_drift_bound(3.0, noise_scale=0.5, drift=zeta, steps=T, batches_per_epoch=ell) <= pabi.shifted_drift_bound(
                3.0, noise_scale=0.5, drift=zeta, steps=T, variant="as_published") * (1 + 1e-13)
    # Thm 4.3, exact residual variant ≤ 8αT(λC/σ)², maximised at t* = 1 (vectorised draws)
    lam, C, sig = rng.uniform(0.01, 1, (3, 2000))
    b = rng.integers(1, 64, 2000)
    ell = rng.integers(1, 30, 2000)
    T = ell * rng.integers(1, 11, 2000) + rng.integers(0, 1, 2000)
    tight = pabi.last_iterate_rdp_general(4.0, lr=lam, max_grad_norm=C, noise_scale=sig, steps=T, batch_size=b,
                                          batches_per_epoch=ell)
    printed = pabi.last_iterate_rdp_general(4.0, lr=lam, max_grad_norm=C, noise_scale=sig, steps=T)
    want = 2 * 4.0 * lam**2 * C**2 / sig**2 * (T + np.ceil(T / ell) * (2 / b + 1 / b**2))
    np.testing.assert_allclose(tight, want, rtol=1e-13)
    assert np.all(tight >= want) and np.all(tight <= printed)
    t1 = pabi.last_iterate_rdp_general(4.0, lr=lam, max_grad_norm=C, noise_scale=sig, steps=T, batch_size=b,
                                       batches_per_epoch=ell, index=1)
    tl = pabi.last_iterate_rdp_general(4.0, lr=lam, max_grad_norm=C, noise_scale=sig, steps=T, batch_size=b,
                                       batches_per_epoch=ell, index=ell)
    assert np.all(t1 == tight) and np.all(tl <= tight)


def test_c24_l_lambda_remarks():
    m = 0.7
    L = lambda lam, mm, MM: math.sqrt(1 + pabi.clipped_step_kappa(lam, weak_convexity=mm, smoothness=MM, contraction="as_published"))  # noqa: E731
    assert abs(L(1 / (2 * m), m, 0.0) - math.sqrt(3)) < 1e-14
    # the remark's m = M, λ = 1/(2m) lies outside Prop. 3.4's domain λ ≤ 1/(4m) (K13): the
    # printed value √(5/2) is the reference formula's, pabi refuses the step size
    assert abs(float(mp.sqrt(1 + ref.clipped_step_kappa(1 / (2 * m), m, m,
                                                        contraction="as_published"))) - math.sqrt(2.5)) < 1e-14
    with pytest.raises(pabi.DomainError) as ei:
        L(1 / (2 * m), m, m)
    assert ei.value.param == "lr"
    assert L(0.25, 0.0, 2.0) == 1.0
    rng = np.random.default_rng(24)
    mm, MM = rng.exponential(1, (2, 20000))
    lam = rng.uniform(0, 1, 20000) / (2 * (mm + MM))
    lam = np.maximum(lam, 1e-300)
    k = pabi.clipped_step_kappa(lam, weak_convexity=mm, smoothness=MM, contraction="as_published")
    assert np.max(np.sqrt(1 + k)) <= math.sqrt(3) + 1e-14
    assert abs(L(1 / (2 * 1.3), 0.3, 1.0) ** 2 - (1 + 0.3 / 1.3 * (1 + 0.3 / 1.3))) < 1e-14


def test_c27_thm45_indexing():
    """(21) is smaller than the correctly indexed worst case over t* in 94 of 312 settings."""
    cnt = tot = 0
    for Lv in (1.0, 1.02, 1.2):
        for ell in (2, 3, 5, 10):
            T = np.arange(ell, 6 * ell + 1)
            # triangle model with λ = 1, M = L − 1: κ = L² − 1
            kw = dict(lr=1.0, max_grad_norm=1.0, batch_size=1, noise_scale=1.0, batches_per_epoch=ell,
                      weak_convexity=0.0, smoothness=Lv - 1.0)
            paper = pabi.last_iterate_rdp_cyclic(2.0, steps=T, variant="as_published", **kw) / 2.0
            corr = pabi.last_iterate_rdp_cyclic(2.0, steps=T, **kw) / 2.0
            E, r0 = np.divmod(T, ell)
            th = pabi.shift_weight(ell, step_lipschitz=Lv)
            closed = 2 * np.where(r0 >= 1, E * th + 1, (E - 1) * th + 1)
            np.testing.assert_allclose(corr, closed, rtol=1e-12)
            assert np.all(corr <= 2 * (1 + E * th) * (1 + 1e-12))
            per_t = [pabi.last_iterate_rdp_cyclic(2.0, steps=T, index=ts, **kw) / 2.0 for ts in range(1, ell + 1)]
            np.testing.assert_allclose(np.max(per_t, axis=0), corr, rtol=1e-12)
            cnt += int(np.sum(paper < corr - 1e-12))
            tot += T.size
    assert (cnt, tot) == (94, 312)
    # e.g. L = 1, ell = 5, T = 5: 0.8 versus 2.0 (units α(λC/(bσ))²)
    kw = dict(lr=1.0, max_grad_norm=1.0, batch_size=1, noise_scale=1.0, steps=5, batches_per_epoch=5,
              weak_convexity=0.0, smoothness=0.0)
    assert pabi.last_iterate_rdp_cyclic(2.0, variant="as_published", **kw) / 2 == pytest.approx(0.8, rel=1e-12)
    assert pabi.last_iterate_rdp_cyclic(2.0, **kw) / 2 == pytest.approx(2.0, rel=1e-12)


def test_c28_calibration_k11():
    C, b, alpha, eps, E = 1.0, 10, 8.0, 1.0, 5
    mm = np.array([0.3, 1.0, 0.01, 2.0])
    MM = np.array([1.0, 0.0, 2.0, 2.0])
    lam, ellbar, sc = pabi.cyclic_calibrate(alpha, rdp=eps, weak_convexity=mm, smoothness=MM, max_grad_norm=C,
                                            batch_size=b, epochs=E)
    _, _, sp = pabi.cyclic_calibrate(alpha, rdp=eps, weak_convexity=mm, smoothness=MM, max_grad_norm=C, batch_size=b,
                                     epochs=E, variant="as_published")
    np.testing.assert_allclose(lam, 1 / (2 * (MM + mm)), rtol=1e-15)
    np.testing.assert_allclose(ellbar, math.log(2) / np.log1p(mm * lam), rtol=1e-13)
    K = 1 + 4 * mm * E / (MM + mm)
    bnd = lambda s: 4 * alpha * (lam * C / (b * s)) ** 2 * K  # noqa: E731
    np.testing.assert_allclose(bnd(sp), 16 * alpha**2 * eps, rtol=1e-12)  # 1024 ε at α = 8
    assert np.all(bnd(sc) <= eps) and np.all(bnd(sc) > eps * (1 - 1e-12))
    # the inequality chain with eq. (12)'s L: θ_L(ℓ) ≤ 2(1 − L^-2) ≤ 4m/(M + m)
    k = pabi.clipped_step_kappa(lam, weak_convexity=mm, smoothness=MM, contraction="as_published")
    L = np.sqrt(1 + k)
    ell = np.ceil(ellbar)
    th = pabi.shift_weight(ell, kappa=k)
    assert np.all(L >= np.sqrt(1 + mm * lam)) and np.all(ell >= np.log(math.sqrt(2)) / np.log(L) - 1e-12)
    assert np.all(th <= 2 * (1 - L**-2) + 1e-15) and np.all(2 * (1 - L**-2) <= 4 * mm / (MM + mm) + 1e-15)


def test_c29_cor_c3_chain():
    rng = np.random.default_rng(29)
    n = 20000
    m, M = rng.exponential(1, (2, n))
    ell = rng.integers(1, 50, n)
    E = rng.integers(1, 100, n)
    T = E * ell + rng.integers(0, ell)
    lam = np.minimum(1 / np.sqrt(E), 1 / (2 * (m + M))) * rng.uniform(0.01, 1, n)
    lhs = pabi.last_iterate_rdp_cyclic(2.0, lr=lam, max_grad_norm=1.0, batch_size=1, noise_scale=1.0, steps=T, batches_per_epoch=ell, weak_convexity=m, smoothness=M, variant="as_published",
                                       contraction="as_published")
    rhs = pabi.last_iterate_rdp_small_step(2.0, max_grad_norm=1.0, batch_size=1, noise_scale=1.0,
                                           batches_per_epoch=ell, lr=lam, weak_convexity=m, smoothness=M, contraction="as_published")
    assert np.all(lhs <= rhs * (1 + 1e-12))


def test_c30_convex_22_is_twice_pabi_form():
    alpha, lam, C, b, sigma, E, ell = 3.0, 0.1, 1.0, 8, 0.7, 4, 16
    conv22 = pabi.last_iterate_rdp_cyclic(alpha, lr=lam, max_grad_norm=C, batch_size=b, noise_scale=sigma,
                                          steps=E * ell, batches_per_epoch=ell, weak_convexity=0.0, smoothness=0.0, variant="as_published")
    pabi_form = 2 * alpha * E * (lam * (C / b) / sigma) ** 2 / ell
    assert conv22 / pabi_form == pytest.approx(2.0, rel=1e-12)


def test_c31_theorems_as_instances_of_prop22():
    alpha, lam, C, b, sigma = 4.0, 0.05, 1.0, 16, 0.3
    # Thm 4.3 = Prop 2.2(b) (printed) with ζ = s̄ = 2λC: both equal 8αT(λC/σ)² = 800/9 here
    # (eq. (18) and eq. (8), 2αT(ζ/σ)², each evaluated in mpmath by pabi.reference from the
    # doubles given: 88.888888888888905); pabi's two (88.88888888889016) are never below it and
    # within 1e-13 of it (primitives)
    thm43 = ref.last_iterate_rdp_general(alpha, lam, C, sigma, 100)
    assert thm43 == ref.shifted_drift_bound(alpha, sigma, 2 * lam * C, 100, variant="as_published")
    assert abs(thm43 - mp.mpf(800) / 9) < 1e-13
    for v in (pabi.last_iterate_rdp_general(alpha, lr=lam, max_grad_norm=C, noise_scale=sigma, steps=100),
              pabi.shifted_drift_bound(alpha, noise_scale=sigma, drift=2 * lam * C, steps=100, variant="as_published")):
        assert thm43 <= v <= thm43 * (1 + mp.mpf(1e-13))
    # Thm 4.4 = Prop 2.2(a) with T = E = ℓ = 1, τ = d_h (triangle model, m = 0, M = 0.4/λ → L = 1.4; λ ≤ 1/(2(m + M)))
    dh, Mv = 2.0, 0.4 / lam
    L = 1 + lam * Mv
    v44 = pabi.last_iterate_rdp_bounded(alpha, lr=lam, max_grad_norm=C, batch_size=b, noise_scale=sigma, diameter=dh,
                                        weak_convexity=0.0, smoothness=Mv)
    assert v44 == pytest.approx(pabi.shifted_cycle_bound(alpha, noise_scale=sigma, steps=1, batches_per_epoch=1,
                                                         map_difference=2 * lam * C / b, initial_distance=dh, step_lipschitz=L), rel=1e-13)
    assert v44 == pytest.approx(alpha / (2 * sigma**2) * (L * dh + 2 * lam * C / b) ** 2, rel=1e-13)
    # Prop 2.2(a) with τ = 0 == α s²/(2σ²) Φ_L(T, ℓ)
    s = 2 * lam * C / b
    for T, ell in [(10, 3), (12, 4), (7, 7)]:
        assert pabi.shifted_cycle_bound(alpha, noise_scale=sigma, steps=T, batches_per_epoch=ell, map_difference=s, step_lipschitz=1.3) == pytest.approx(
            alpha * s * s / (2 * sigma**2) * pabi.cyclic_shift_weight_sum(T, batches_per_epoch=ell, step_lipschitz=1.3), rel=1e-13)


# ------------------------------------------------- check docs/errata.md#p-c23 (RDP route)


def test_pabi_c23_profile_to_rdp_route():
    """Check docs/errata.md#p-c23 (c): the shuffled Gaussian PNSGD profile (L = 1, σ = 4, M = D = 1,
    η = 0.05, n = 1000), converted to RDP (sound route,
    docs/derivations/composition.md#profile-to-rdp), composed over E = 10 epochs and converted back
    (Mironov) at δ = 1e-5 gives ε = 4.490 with exact integrals; pabi's
    certified upper quadrature on a fine grid gives a value just above it."""
    L, sigma, M, D, eta, n, E = 1.0, 4.0, 1.0, 1.0, 0.05, 1000, 10
    grid = np.concatenate([np.linspace(0, 30, 30001), np.linspace(30.01, 80, 500)])
    u = pabi.theta_complement(grid, M * D / (eta * sigma))
    G = np.where(u > 0, -np.expm1(n * np.log1p(-np.minimum(u, 1 - 1e-16))) / (n * np.maximum(u, 1e-300)), 1.0)
    prof = pabi.theta(grid, 2 * L / sigma) * G
    prof[-1] = 0.0  # δ(80) underflows (≈ 1e-300): the profile beyond the grid is 0
    prof = np.minimum.accumulate(prof)
    alphas = [1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]
    rdp = np.array([pabi.profile_to_rdp(a, eps=grid, delta=prof) for a in alphas])
    eps, _ = pabi.rdp_to_dp_epsilon(1e-5, orders=alphas, rdp=E * rdp, conversion="classical")
    assert 4.4895 <= eps <= 4.50
