"""Evidence for the entries of docs/errata.md that no other test demonstrates.

Each test is named after its erratum (``test_p_<code>_…`` for the amplification-by-iteration
papers, ``test_r_<code>_…`` for the Rényi-DP papers) and checks the corrected form numerically
against mpmath or an independent computation; where the paper's printed form is wrong, the test
also shows the failure.
"""

import math

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import reference as ref

mp.mp.dps = 30


def _gauss_pdf(x, mu=0):
    return mp.npdf(x, mu, 1)


# ----------------------------------------------------------------------- ADC20 / SBD21 / CLK19


def test_p_r2_theta_equals_direct_quadrature():
    """R2 (ADC20 Lemma 2, eqs. (10)-(11)): θ_γ(r) = ∫(p − γq)_+ for p = N(r, 1), q = N(0, 1), and the
    d-dimensional pair depends only on ‖μ1 − μ2‖/σ."""
    for eps, r in [(0.0, 0.3), (0.5, 1.0), (1.0, 2.5), (3.0, 4.0), (0.2, 0.05)]:
        g = mp.e ** eps
        # p > γq iff x > ε/r + r/2: integrate the positive part exactly there
        x0 = mp.mpf(eps) / r + mp.mpf(r) / 2
        direct = mp.quad(lambda x: _gauss_pdf(x, r) - g * _gauss_pdf(x), [x0, x0 + 10, mp.inf])
        assert abs(pabi.theta(eps, r) / float(direct) - 1) < 1e-13, (eps, r)
    # 2-D: N((a, b), σ²I) vs N(0, σ²I) equals θ(‖(a, b)‖/σ) (rotate the shift onto an axis)
    a, b, s, eps = 0.6, 0.8, 0.5, 0.7
    assert pabi.theta(eps, math.hypot(a, b) / s) == pytest.approx(pabi.theta(eps, 2.0), rel=1e-15)


def test_p_r3_projected_gaussian_kernel_below_theta():
    """R3 (ADC20 Thm 2, eq. (8)): the projected Gaussian kernel on [0, D] has
    η_γ ≤ θ_γ(D/s); the exact E_γ of the two worst inputs (with the boundary atoms) is below it."""
    for D, s, eps in [(1.0, 1.0, 0.5), (1.0, 0.5, 1.0), (2.0, 1.0, 0.0)]:
        g = mp.e ** eps
        # inputs w1 = D, w2 = 0: laws Π_[0,D](N(D, s²)) and Π_[0,D](N(0, s²))
        p0, q0 = mp.ncdf(-D / s), mp.mpf(1) / 2        # atoms at 0
        pD, qD = mp.mpf(1) / 2, mp.ncdf(-D / s)        # atoms at D
        dens = mp.quad(lambda x: max(mp.npdf(x, D, s) - g * mp.npdf(x, 0, s), 0), [0, D / 2, D])
        exact = max(p0 - g * q0, 0) + max(pD - g * qD, 0) + dens
        bound = pabi.theta(eps, D / s)
        assert float(exact) <= bound and bound - float(exact) < 5e-3 * bound, (D, s, eps)


def test_p_r4_t10_step_constant_and_its_condition():
    """R4 (ADC20 Lemma 4) and T10 (SBD21 Thm 1): M = sqrt(1 − 2ηβρ/(β+ρ)) bounds the Lipschitz
    constant max|1 − ηλ| (λ ∈ [ρ, β]) of the gradient step iff η ≤ 2/(β+ρ); beyond, it is false
    and pabi refuses the step size."""
    beta, rho = 4.0, 1.0
    lam = np.linspace(rho, beta, 201)
    for eta in [0.05, 0.2, 0.3, 2 / (beta + rho)]:
        m = float(ref.step_contraction_m(eta, beta, rho))
        assert np.max(np.abs(1 - eta * lam)) <= m * (1 + 1e-15)
        # pabi's B uses exactly this M
        _, b, _ = pabi.pnsgd_factors(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=eta, diameter=0.5,
                                     smoothness=beta, strong_convexity=rho)
        assert b == pytest.approx(pabi.theta(1.0, m * 0.5 / eta), rel=1e-13)
    # η = 1.9/β > 2/(β+ρ): 1 − 2ηβρ/(β+ρ) = 0.24, M = 0.49 < the true constant max|1 − ηλ| = 0.9
    eta = 1.9 / beta
    m_printed = math.sqrt(1 - 2 * eta * beta * rho / (beta + rho))
    assert np.max(np.abs(1 - eta * lam)) > m_printed + 0.4
    with pytest.raises(ValueError):
        pabi.pnsgd_factors(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=eta, diameter=0.5,
                           smoothness=beta, strong_convexity=rho)


def test_p_t3_q_is_one_minus_the_distribution_function():
    """T3 (SBD21 Thm 1): Φ is the cumulative distribution function and Q = 1 − Φ."""
    for t in [-5.0, -1.0, 0.0, 0.5, 3.0, 8.0]:
        assert pabi.gaussian_tail(t) == pytest.approx(float(1 - mp.ncdf(t)), rel=1e-14)


def test_p_t8_a_factor_dominates_the_gaussian_schedule():
    """T8 (SBD21 Thm 4): with η = 0.01 in Fig. 3 (κ_G = 2ηL/D = 0.2) the A factor is far from 1 at
    n = 1e12 (1 − A = 0.46), so δ(n) is far below δ* however the 1/log n term behaves."""
    eps, lip, lr, diam, c1, c2, n = 1.0, 10.0, 0.01, 1.0, 1e5, 100.0, 1e12
    z = mp.mpf(n) ** 2 / (2 * mp.pi * c1 ** 2) + c2
    r_b = 2 * mp.sqrt(mp.lambertw(z).real)
    a = pabi.theta(eps, float(2 * lr * lip / diam * r_b))
    assert abs((1 - a) - 0.46) < 0.01
    d = pabi.gaussian_schedule_delta(eps, max_grad_norm=lip, lr=lr, diameter=diam, steps=n, c1=c1, c2=c2)
    ds = pabi.gaussian_schedule_delta_limit(eps, c1=c1)
    assert d < 0.6 * ds
    # with η = 0.1 (κ_G = 2) the A factor is 1 to many digits and δ(n) is above δ*
    assert pabi.gaussian_schedule_delta(eps, max_grad_norm=lip, lr=0.1, diameter=diam, steps=n, c1=c1, c2=c2) > ds


def test_p_t11_dp_to_rdp_transfer_is_false():
    """T11 (SBD21 §5): (ε, δ)-DP ⇒ (α, ε + log δ/(α − 1))-RDP is false. N(1, 1) vs N(0, 1) is
    (0.5, 0.2384)-DP; the formula claims D_2 ≤ −0.934 (impossible) and D_10 ≤ 0.341 while the true
    values are α/2 = 1 and 5. The forward direction (Mironov Prop. 3) is sound."""
    eps = 0.5
    delta = pabi.theta(eps, 1.0)
    assert delta == pytest.approx(0.2384, abs=1e-4)
    for alpha, true in [(2.0, 1.0), (10.0, 5.0)]:
        assert pabi.gaussian_mechanism_rdp(alpha, sensitivity=1.0, noise_scale=1.0) == pytest.approx(true, rel=1e-15)
        claimed = eps + math.log(delta) / (alpha - 1)
        assert claimed < true - 1.0
    assert eps + math.log(delta) / (2 - 1) == pytest.approx(-0.934, abs=1e-3)
    # forward: α-RDP with ε_R = α/2 gives a valid (ε, δ) pair
    orders = np.arange(2.0, 65.0)
    e_dp, _ = pabi.rdp_to_dp_epsilon(1e-5, orders=orders, rdp=orders / 2, conversion="classical")
    assert pabi.theta(e_dp, 1.0) <= 1e-5


def test_p_t16_tradeoff_has_three_linear_pieces():
    """T16 (SBD21 §5): f_{ε,δ} has three linear pieces on [0, 1]: slope −e^ε up to the kink
    α* = (1 − δ)/(1 + e^ε) where f(α*) = α*, slope −e^{−ε} up to 1 − δ, then 0."""
    eps, delta = 1.0, 0.1
    kink = (1 - delta) / (1 + math.e)
    assert pabi.tradeoff_eps_delta(kink, eps, delta) == pytest.approx(kink, rel=1e-14)
    pieces = [(0.0, kink, -math.e), (kink, 1 - delta, -math.exp(-eps)), (1 - delta, 1.0, 0.0)]
    for lo, hi, slope in pieces:
        xs = np.linspace(lo, hi, 7)
        f = np.array([pabi.tradeoff_eps_delta(x, eps, delta) for x in xs])
        assert np.allclose(np.diff(f) / np.diff(xs), slope, rtol=1e-12, atol=1e-13), (lo, hi)
    assert pabi.tradeoff_eps_delta(0.0, eps, delta) == pytest.approx(1 - delta, rel=1e-15)


def test_p_t18_t19_neighbouring_batch_step_distance():
    """T18/T19 (CLK19 Lemma 2, eq. (6)): ‖T_B(w) − T_B'(w')‖ ≤ ρ‖w − w'‖ + 2ηR/|B| with
    ρ = max(|1 − ημ|, |1 − ηL|). On f(w, d) = ½hw² − dw (|d| ≤ R, h ∈ [μ, L]) the worst case
    attains it, and pabi's multi-epoch sensitivity is the iterated bound."""
    mu, smooth, R, batch, eta = 1.0, 4.0, 1.0, 5.0, 0.1
    rho, gap = pabi.gd_contraction(eta, strong_convexity=mu, smoothness=smooth)
    assert rho == pytest.approx(max(abs(1 - eta * mu), abs(1 - eta * smooth)), rel=1e-15)
    assert gap == pytest.approx(1 - rho, rel=1e-14)
    # one epoch, m = 1 batch, the record in it: distance from equal starts is 2ηR/|B|
    w, w2 = 0.0, 0.0
    h = mu  # the curvature with the largest |1 − ηh| here
    dist = []
    for _ in range(3):  # three epochs of one batch each
        w = w - eta * (h * w - R / batch)
        w2 = w2 - eta * (h * w2 + R / batch)
        dist.append(abs(w - w2))
    for k, d in enumerate(dist, start=1):
        bound = pabi.sensitivity_multi_epoch(lr=eta, strong_convexity=mu, smoothness=smooth, max_grad_norm=R,
                                             batch_size=batch, batches_per_epoch=1, batch_index=1, epochs=k)
        assert d == pytest.approx(bound, rel=1e-13)


def test_p_t20_mixture_bound():
    """T20 (CLK19 Lemma 3): D_α ≤ (1/(α − 1)) log Σ_j q_j e^{(α−1)ε_j}, summed over one index j; it is
    at least the true divergence of a Gaussian mixture against its components' common reference."""
    alpha = 3.0
    q = [0.2, 0.5, 0.3]
    eps = [0.1, 1.0, 4.0]
    want = mp.log(sum(mp.mpf(qj) * mp.e ** ((alpha - 1) * ej) for qj, ej in zip(q, eps))) / (alpha - 1)
    assert pabi.mixture_rdp_bound(alpha, weights=q, rdp=eps) == pytest.approx(float(want), rel=1e-14)
    # mixture Σ q_j N(Δ_j, 1) vs N(0, 1), with ε_j = αΔ_j²/2
    deltas = [math.sqrt(2 * e / alpha) for e in eps]
    f = lambda x: sum(qj * mp.npdf(x, dj, 1) for qj, dj in zip(q, deltas)) ** alpha * mp.npdf(x) ** (1 - alpha)
    true = mp.log(mp.quad(f, [-mp.inf, 0, 5, mp.inf])) / (alpha - 1)
    assert float(true) <= pabi.mixture_rdp_bound(alpha, weights=q, rdp=eps)


def test_p_t21_multi_epoch_sensitivity_is_an_upper_bound_in_k():
    """T21 (CLK19 Prop. 2): the k-epoch sensitivity ρ^{m−j}(2ηR/|B|)(1 − ρ^{km})/(1 − ρ^m) increases
    with k to the k → ∞ value (a lim sup bound, not a limit of the true distances); it needs
    0 < η < 2/L and μ > 0 (ρ < 1)."""
    args = (0.1, 1.0, 5.0, 2.0, 10.0, 4, 2)
    setup = dict(zip(("lr", "strong_convexity", "smoothness", "max_grad_norm", "batch_size", "batches_per_epoch",
                      "batch_index"), args))
    vals = [pabi.sensitivity_multi_epoch(**setup, epochs=k) for k in (1, 2, 5, 50)]
    lim = pabi.sensitivity_multi_epoch(**setup)
    assert vals == sorted(vals) and vals[-1] <= lim
    assert lim == pytest.approx(float(ref.sensitivity_multi_epoch(*args)), rel=1e-13)
    with pytest.raises(ValueError):
        pabi.sensitivity_multi_epoch(lr=2.0 / 5.0 + 0.1, strong_convexity=1.0, smoothness=5.0, max_grad_norm=2.0,
                                     batch_size=10.0, batches_per_epoch=4, batch_index=2)


def test_p_t22_gaussian_mechanism_rdp():
    """T22 (CLK19 Prop. 3, its "Lemma 1"): D_α(N(Δ, σ²) ‖ N(0, σ²)) = αΔ²/(2σ²), by quadrature."""
    for alpha, d, s in [(1.5, 1.0, 1.0), (4.0, 0.3, 0.7), (10.0, 2.0, 3.0)]:
        f = lambda x: mp.npdf(x, d, s) ** alpha * mp.npdf(x, 0, s) ** (1 - alpha)
        true = mp.log(mp.quad(f, [-mp.inf, 0, d, mp.inf])) / (alpha - 1)
        assert pabi.gaussian_mechanism_rdp(alpha, sensitivity=d, noise_scale=s) == pytest.approx(float(true), rel=1e-13)


def test_p_t23_clk19_rho_is_not_adc20_m():
    """T23 (notation): CLK19's ρ (contraction factor of the step) is not ADC20's ρ (strong
    convexity); for η ≤ 2/(β + ρ_sc) it is 1 − ηρ_sc ≤ M, with equality at η = 2/(β + ρ_sc)."""
    beta, rho_sc = 4.0, 1.0
    for eta in [0.05, 0.2, 0.35]:
        r, _ = pabi.gd_contraction(eta, strong_convexity=rho_sc, smoothness=beta)
        assert r == pytest.approx(1 - eta * rho_sc, rel=1e-15)
        assert r <= float(ref.step_contraction_m(eta, beta, rho_sc))
    eta = 2 / (beta + rho_sc)
    r, _ = pabi.gd_contraction(eta, strong_convexity=rho_sc, smoothness=beta)
    assert r == pytest.approx(float(ref.step_contraction_m(eta, beta, rho_sc)), rel=1e-14)


# ----------------------------------------------------------------------- TJM24 / KR24


def test_r_t10_noise_is_an_absolute_standard_deviation():
    """T10 (TJM24 §3.2, eq. (21)): the σ of Thm 3.2 is the absolute standard deviation on U; with a
    noise multiplier z and clip norm C it is zC, and only Δ/σ matters."""
    for alpha, q, z, clip in [(2, 0.01, 1.1, 1.0), (8, 0.1, 0.8, 3.0), (32, 0.5, 2.0, 0.1)]:
        v = pabi.sampled_gaussian_rdp_per_instance(alpha, sample_rate=q, sensitivity=clip, noise_scale=z * clip)
        assert v == pytest.approx(pabi.sampled_gaussian_rdp(alpha, sample_rate=q, noise_multiplier=z), rel=1e-13)
        assert v == pytest.approx(pabi.sampled_gaussian_rdp_per_instance(alpha, sample_rate=q, sensitivity=1.0, noise_scale=z), rel=1e-13)


def test_r_k12_convex_bound_at_whole_passes():
    """K12 (KR24 eq. (22)): max{0, 1/(T − Eℓ)} means θ_1(T − Eℓ), which is 0 at T = Eℓ; the
    as-published convex bound (m = 0, so eq. (12) gives L_λ = 1) is then 4α(λC/(bσ))²·E/ℓ, plus
    1/r for a remainder of r steps."""
    alpha, lam, clip, b, sigma, ell = 2.0, 0.1, 1.0, 4.0, 1.0, 5
    unit = 4 * alpha * (lam * clip / (b * sigma)) ** 2
    for T, bracket in [(10, 2 * (1 / ell)), (12, 2 * (1 / ell) + 1 / 2), (5, 1 / ell)]:
        v = pabi.last_iterate_rdp_cyclic(alpha, lr=lam, max_grad_norm=clip, batch_size=b, noise_scale=sigma, steps=T, batches_per_epoch=ell, weak_convexity=0.0, smoothness=1.0,
                                          variant="as_published", contraction="as_published")
        assert v == pytest.approx(unit * bracket, rel=1e-13), T
    assert pabi.shift_weight(0, step_lipschitz=1.0) == 0.0


def test_r_k18_steps_per_pass_must_be_an_integer():
    """K18 (KR24 Alg. 1): ℓ = k/b must be an integer (b | k); pabi rejects a fractional ℓ."""
    with pytest.raises(ValueError, match="batches_per_epoch"):
        pabi.last_iterate_rdp_cyclic(2.0, lr=0.1, max_grad_norm=1.0, batch_size=4.0, noise_scale=1.0, steps=10,
                                     batches_per_epoch=2.5, weak_convexity=0.0, smoothness=1.0)
    assert pabi.last_iterate_rdp_cyclic(2.0, lr=0.1, max_grad_norm=1.0, batch_size=4.0, noise_scale=1.0, steps=10,
                                        batches_per_epoch=5.0, weak_convexity=0.0, smoothness=1.0) > 0
