"""Checks C06, C12, C25, C26 and C28 of docs/errata.md#r-checks (Thudi et al. Thm 3.6 and Thm 3.3,
Kong–Ribero Prop. 3.4(b), Lemma 3.2 and Cor. C.2: docs/derivations/rdp.md#general-updates,
docs/derivations/rdp.md#holder, docs/derivations/rdp.md#last-iterate; errata docs/errata.md#r-k1,
docs/errata.md#r-k2, docs/errata.md#r-k11) ported to pabi's public functions. The oracles (exact
Rényi divergences of Gaussian mixtures and of bivariate Gaussians, Jacobians of the clipped gradient step) are
computed here with numpy/scipy; pabi supplies the bounds."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, special

import pabi

# ------------------------------------------------------------------ C06: Thm 3.6 (general updates)


def _mixture_renyi(alpha: int, sigma: float, atoms_p, w_p, atoms_q, w_q, h: float = 0.02) -> float:
    """D_α(Σ w_p N(atoms_p, σ²) ‖ Σ w_q N(atoms_q, σ²)): the trapezoidal rule with step h·σ in
    log space (the integrand p^α q^(1−α) is entire with Gaussian decay, so the rule converges
    geometrically; checked against adaptive quadrature below)."""
    ap, lp = np.asarray(atoms_p, float), np.log(np.asarray(w_p, float))
    aq, lq = np.asarray(atoms_q, float), np.log(np.asarray(w_q, float))
    lo, hi = min(ap.min(), aq.min()), max(ap.max(), aq.max())
    # the tilted mass of p^α q^(1−α) lies within [lo − α·span, hi + α·span]
    span = (hi - lo) * alpha + 16 * sigma
    x = np.arange(lo - span, hi + span, h * sigma)[:, None]

    def log_dens(atoms, logw):
        return special.logsumexp(logw - (x - atoms) ** 2 / (2 * sigma**2), axis=1)

    lf = alpha * log_dens(ap, lp) + (1 - alpha) * log_dens(aq, lq) - math.log(sigma * math.sqrt(2 * math.pi))
    return (special.logsumexp(lf) + math.log(h * sigma)) / (alpha - 1)


def _mixture_renyi_quad(alpha: int, sigma: float, atoms_p, w_p, atoms_q, w_q) -> float:
    """The same by scipy's adaptive quadrature (slow; validates the trapezoidal oracle)."""

    def log_dens(x, atoms, logw):
        return special.logsumexp(np.log(logw) - (x - np.asarray(atoms)) ** 2 / (2 * sigma**2))

    def f(x):
        lf = alpha * log_dens(x, atoms_p, w_p) + (1 - alpha) * log_dens(x, atoms_q, w_q)
        return math.exp(lf - math.log(sigma * math.sqrt(2 * math.pi)))

    lo, hi = min(min(atoms_p), min(atoms_q)), max(max(atoms_p), max(atoms_q))
    span = (hi - lo) * alpha + 14 * sigma
    pts = np.linspace(lo - span, hi + span, 9)
    total = sum(integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-13, limit=200)[0] for a, b in zip(pts[:-1], pts[1:]))
    return math.log(total) / (alpha - 1)


def _general_update_bound(alpha: int, sigma: float, first, second) -> float:
    """pabi.general_update_rdp with exact expectations: the outer samples enumerate the (equally
    weighted, repeated) atoms of the SECOND dataset's update distribution, the inner tuples all
    α-tuples of the FIRST's (erratum T11: the tuple comes from the first argument)."""
    tuples = np.array(list(itertools.product(first, repeat=alpha)), dtype=float)[:, :, None]
    outer = np.asarray(second, float)[:, None]
    inner = np.broadcast_to(tuples, (len(second),) + tuples.shape)
    return pabi.general_update_rdp(alpha, noise_scale=sigma, updates_second=outer, updates_first=inner)


def _random_pairs():
    """24 random pairs of discrete update distributions (atoms with integer multiplicities, so
    that equal-weight sample means are exact expectations), as in C06."""
    rng = np.random.default_rng(6)
    for _ in range(24):
        alpha = int(rng.integers(2, 5))
        k, kp = int(rng.integers(1, 4)), int(rng.integers(2, 4))
        a_x, a_xp = rng.normal(0, 1, k), rng.normal(0, 1, kp)
        m_x, m_xp = rng.integers(1, 3, k), rng.integers(1, 3, kp)
        sigma = float(rng.uniform(0.7, 2.0))
        yield alpha, sigma, np.repeat(a_x, m_x), np.repeat(a_xp, m_xp)


def _exact(alpha, sigma, first, second) -> float:
    u1, w1 = np.unique(first, return_counts=True)
    u2, w2 = np.unique(second, return_counts=True)
    return _mixture_renyi(alpha, sigma, u1, w1 / w1.sum(), u2, w2 / w2.sum())


def test_c06_oracle_trapezoid_matches_adaptive_quadrature():
    for i, (alpha, sigma, x, xp) in enumerate(_random_pairs()):
        if i % 6 == 0:
            u1, w1 = np.unique(xp, return_counts=True)
            u2, w2 = np.unique(x, return_counts=True)
            want = _mixture_renyi_quad(alpha, sigma, u1, w1 / w1.sum(), u2, w2 / w2.sum())
            assert _exact(alpha, sigma, xp, x) == pytest.approx(want, rel=1e-11)


def test_c06_general_update_bound_dominates_exact_mixture_divergence():
    """C06: Thm 3.6 (pabi.general_update_rdp) ≥ the exact Rényi divergence of the two Gaussian
    mixtures, in both directions, and ≥ the Jensen floor α/(2σ²)·E_b(E[U'] − u_b)²; with a
    deterministic second argument it IS the exact divergence (it reduces to Thm 3.2)."""
    n, ratios, exact_cases = 0, [], 0
    for alpha, sigma, x, xp in _random_pairs():
        for first, second in ((xp, x), (x, xp)):
            bound = _general_update_bound(alpha, sigma, first, second)
            exact = _exact(alpha, sigma, first, second)
            jensen = alpha / (2 * sigma**2) * float(np.mean((np.mean(first) - second) ** 2))
            assert bound >= exact * (1 - 1e-9), (alpha, sigma, first, second, bound, exact)
            assert bound >= jensen * (1 - 1e-12), (bound, jensen)
            if len(np.unique(second)) == 1:  # point mass: Thm 3.6 = Thm 3.2 = the exact divergence
                assert bound == pytest.approx(exact, rel=1e-9)
                exact_cases += 1
            ratios.append(bound / exact)
            n += 1
    assert n == 48 and exact_cases >= 4
    # the bound is not trivially tight: it is loose by a large factor for some pairs
    assert min(ratios) >= 1 - 1e-9 and max(ratios) > 5


def test_c06_tuples_from_the_wrong_dataset_are_not_a_bound():
    """Erratum T11: taking the α-tuples from the SECOND argument's dataset (the paper's §3.2.3
    notation) gives a number below the exact D_α(first‖second) for some pairs."""
    below = 0
    for alpha, sigma, x, xp in _random_pairs():
        wrong = _general_update_bound(alpha, sigma, x, xp)  # meant to bound D(x'‖x)
        exact = _exact(alpha, sigma, xp, x)
        below += wrong < exact * (1 - 1e-6)
    assert below >= 1


# ------------------------------------------------------------------ C12: Thm 3.3 on a Gaussian chain

# X1 = N(0, s1²), Y1 = N(m1, s1²); X2 | x1 = N(a x1, s²), Y2 | x1 = N((a + c) x1 + d, s²)
S1, M1, A, C, D, S = 1.0, 0.4, 0.8, 0.15, 0.3, 1.0
ALPHA12 = 3.0


def _renyi_mvn(mu1, s1, mu2, s2, a) -> float:
    """D_a(N(mu1, S1) ‖ N(mu2, S2)) in closed form."""
    sa = a * s2 + (1 - a) * s1
    dm = mu1 - mu2
    quad = a / 2 * dm @ np.linalg.solve(sa, dm)
    logdet = np.linalg.slogdet(sa)[1] - (1 - a) * np.linalg.slogdet(s1)[1] - a * np.linalg.slogdet(s2)[1]
    return float(quad - logdet / (2 * (a - 1)))


def _chain_exact() -> float:
    b = A + C
    sx = np.array([[S1**2, A * S1**2], [A * S1**2, A * A * S1**2 + S**2]])
    sy = np.array([[S1**2, b * S1**2], [b * S1**2, b * b * S1**2 + S**2]])
    return _renyi_mvn(np.zeros(2), sx, np.array([M1, b * M1 + D]), sy, ALPHA12)


def _chain_closed_form(p: float) -> float:
    """Thm 3.3 with the step-2 expectation E_{x1}[exp(t0·α(c x1 + d)²/(2s²))] in closed form."""
    t0 = p * (ALPHA12 - 1)
    k = t0 * ALPHA12 / (2 * S**2)
    v = C * C * S1**2
    if 2 * k * v >= 1:
        return math.inf
    ln_e = -0.5 * math.log1p(-2 * k * v) + k * D * D / (1 - 2 * k * v)
    beta1 = 1 + (ALPHA12 - 1) * p / (p - 1)
    return ln_e / t0 + beta1 * M1**2 / (2 * S1**2)


def _chain_divergences(p: float, half_width: float = 40.0, h: float = 0.02):
    """(steps, samples) divergences and weights for pabi.holder_composition_bound: step 1 (order
    β1) is deterministic; step 2 (order α) at a trapezoid grid of x1 with normalised Gaussian
    weights (spectrally accurate for these Gaussian-type integrands)."""
    beta1 = pabi.holder_orders(ALPHA12, holder_exponent=p, steps=2)[1]
    x1 = np.arange(-half_width, half_width + h / 2, h) * S1
    w = np.exp(-(x1**2) / (2 * S1**2))
    w /= w.sum()
    d2 = ALPHA12 * (C * x1 + D) ** 2 / (2 * S**2)
    d1 = np.full_like(x1, beta1 * M1**2 / (2 * S1**2))
    return np.stack([d1, d2]), np.stack([np.full_like(w, 1 / w.size), w])


def test_c12_renyi_mvn_oracle_matches_2d_quadrature():
    mu_x, s_x = np.array([0.0, 0.0]), np.array([[1.0, 0.5], [0.5, 1.5]])
    mu_y, s_y = np.array([0.3, -0.2]), np.array([[1.1, 0.6], [0.6, 1.4]])
    a = 2.5
    ix, iy = np.linalg.inv(s_x), np.linalg.inv(s_y)
    cx = -0.5 * np.linalg.slogdet(2 * np.pi * s_x)[1]
    cy = -0.5 * np.linalg.slogdet(2 * np.pi * s_y)[1]

    def integrand(y, x):
        v = np.array([x, y])
        return math.exp(a * (cx - 0.5 * (v - mu_x) @ ix @ (v - mu_x)) + (1 - a) * (cy - 0.5 * (v - mu_y) @ iy @ (v - mu_y)))

    val, _ = integrate.dblquad(integrand, -14, 14, -14, 14, epsabs=1e-13, epsrel=1e-11)
    assert math.log(val) / (a - 1) == pytest.approx(_renyi_mvn(mu_x, s_x, mu_y, s_y, a), rel=1e-7)


@pytest.mark.parametrize("p,published", [(1.05, 3.63), (1.3, 0.974), (2.0, 0.624), (4.0, 0.635)])
def test_c12_holder_composition_on_state_dependent_chain(p, published):
    """Thm 3.3 (pabi.holder_composition_bound) on the chain whose sup-based composition is +∞:
    finite, ≥ the exact D_3 = 0.332, and equal to the closed form (docs/derivations/rdp.md#holder:
    3.63, 0.974, 0.624, 0.635 at p = 1.05, 1.3, 2, 4)."""
    exact = _chain_exact()
    assert round(exact, 3) == 0.332
    d, w = _chain_divergences(p)
    v = pabi.holder_composition_bound(ALPHA12, holder_exponent=p, divergences=d, weights=w)
    closed = _chain_closed_form(p)
    assert v == pytest.approx(closed, rel=1e-10)
    digits = 2 if published >= 1 else 3
    assert round(v, digits) == published
    assert v >= exact


def _chain_bound(p: float, **grid) -> float:
    d, w = _chain_divergences(p, **grid)
    return pabi.holder_composition_bound(ALPHA12, holder_exponent=p, divergences=d, weights=w)


def test_c12_optimal_p_is_interior_and_window_is_finite():
    vals = {p: _chain_bound(p) for p in (1.3, 2.0, 4.0)}
    assert vals[2.0] < vals[1.3] and vals[2.0] < vals[4.0]
    # p = 8 is outside the window (2kv ≥ 1): the expectation diverges, so the plug-in value grows
    # without bound as the sample grid widens
    assert _chain_closed_form(8.0) == math.inf
    narrow = _chain_bound(8.0, half_width=10.0)
    wide = _chain_bound(8.0, half_width=40.0)
    assert wide > 4 * narrow > 4 * vals[4.0]


def test_c12_monte_carlo_interface_dpsgd():
    """The Monte-Carlo interface (pabi.dpsgd_per_instance_rdp, q = 1 so each step's divergence is
    the Gaussian mechanism's α r²/2; p = 2 keeps both orders integral): 4e5 sampled runs
    reproduce the closed form to 1.2e-3 (C12), and agree with holder_composition_bound on the
    same samples."""
    rng = np.random.default_rng(12)
    x1 = rng.normal(0, S1, 400_000)
    sens = np.stack([np.full_like(x1, M1), np.abs(C * x1 + D)])
    v = pabi.dpsgd_per_instance_rdp(ALPHA12, sample_rate=1.0, noise_scale=S, sensitivities=sens, holder_exponent=2.0)
    assert abs(v / _chain_closed_form(2.0) - 1) < 2e-3
    beta1 = pabi.holder_orders(ALPHA12, holder_exponent=2.0, steps=2)[1]
    assert beta1 == 5.0
    d = np.stack([np.full_like(x1, beta1 * M1**2 / (2 * S1**2)), ALPHA12 * (C * x1 + D) ** 2 / (2 * S**2)])
    assert v == pytest.approx(pabi.holder_composition_bound(ALPHA12, holder_exponent=2.0, divergences=d), rel=1e-12)


# ------------------------------------------------------------------ C25: Prop 3.4(b), clipped step

HESSIANS = [np.array([[1.0, 0.9], [0.9, 1.0]]), np.array([[1.0, 0.9], [0.9, 0.5]])]
# local Lipschitz constants of the clipped step found by C25 (docs/derivations/rdp.md#last-iterate,
# docs/errata.md#r-k1)
C25_LOCAL = [1.058, 1.081]


def _clipped_step(h, lam, clip):
    def step(x):
        g = x @ h.T
        n = np.linalg.norm(g, axis=-1, keepdims=True)
        return x - lam * g * np.minimum(1.0, clip / n)

    return step


def _constants(h):
    ev = np.linalg.eigvalsh(h)
    m, big_m = max(0.0, -ev.min()), max(0.0, ev.max())
    lam = 1 / (2 * (m + big_m))
    return ev, m, big_m, lam


@pytest.mark.parametrize("k", [0, 1])
def test_c25_clipped_step_breaks_eq12_but_not_the_default_constant(k):
    """Prop 3.4(b) is false with clipping in d = 2: the clipped step's local Lipschitz constant
    exceeds eq. (12)'s L_λ (pabi's model="as_published"), while pabi's default constant
    1 + λ·max(m, M) (model="triangle") holds on the counterexample and on random pairs."""
    h = HESSIANS[k]
    ev, m, big_m, lam = _constants(h)
    clip = 1.0
    l_pub = math.sqrt(1 + pabi.clipped_step_kappa(lam, weak_convexity=m, smoothness=big_m, contraction="as_published"))
    l_def = math.sqrt(1 + pabi.clipped_step_kappa(lam, weak_convexity=m, smoothness=big_m))
    assert l_pub == pytest.approx(math.sqrt(1 + 2 * lam * m * (1 + m / (big_m + m))), rel=1e-14)
    assert l_def == pytest.approx(1 + lam * max(m, big_m), rel=1e-14)
    # sup over random points of the Jacobian norm of x ↦ x − λ clip(Hx)
    rng = np.random.default_rng(25)
    x = rng.normal(size=(60_000, 2)) * 4
    g = x @ h.T
    n = np.linalg.norm(g, axis=1)
    gh = g / n[:, None]
    proj = np.eye(2)[None] - gh[:, :, None] * gh[:, None, :]
    jac = np.where(
        (n > clip)[:, None, None], np.eye(2)[None] - lam * (clip / n)[:, None, None] * proj @ h, np.eye(2)[None] - lam * h[None]
    )
    x0 = x[np.argmax(np.linalg.norm(jac, ord=2, axis=(1, 2)))]
    # a bona fide finite counterexample pair around x0
    step = _clipped_step(h, lam, clip)
    ang = np.linspace(0, np.pi, 181)
    y = x0 + 1e-3 * np.stack([np.cos(ang), np.sin(ang)], axis=1)
    ratio = np.linalg.norm(step(y) - step(x0[None]), axis=1) / np.linalg.norm(y - x0, axis=1)
    worst = float(ratio.max())
    assert worst >= C25_LOCAL[k] and worst > l_pub * (1 + 1e-3)
    assert worst <= l_def
    # the default constant is a global Lipschitz constant (clipping is nonexpansive): random pairs
    # at all scales, including pairs around the counterexample
    a = rng.normal(size=(20_000, 2)) * rng.choice([0.1, 1.0, 10.0], size=(20_000, 1))
    b = a + rng.normal(size=(20_000, 2)) * rng.choice([1e-3, 0.1, 3.0], size=(20_000, 1))
    a = np.vstack([a, np.repeat(x0[None], 181, 0)])
    b = np.vstack([b, y])
    lips = np.linalg.norm(step(a) - step(b), axis=1) / np.linalg.norm(a - b, axis=1)
    assert lips.max() <= l_def * (1 + 1e-12)
    # eq. (12) is valid for the UNCLIPPED step: ‖I − λH‖ ≤ L_λ
    assert np.max(np.abs(1 - lam * ev)) <= l_pub + 1e-15


def test_c25_last_iterate_bound_uses_the_triangle_constant_by_default():
    """The bounded-domain last-iterate bound (Thm 4.4) takes L_λ from clipped_step_kappa: its default
    is the proven 1 + λ max(m, M); the published eq. (12) gives a smaller (uncertified) value."""
    _, m, big_m, lam = _constants(HESSIANS[1])
    alpha, clip, b, sigma, d_h = 2.0, 1.0, 10, 1.0, 3.0
    default = pabi.last_iterate_rdp_bounded(alpha, lr=lam, max_grad_norm=clip, batch_size=b, noise_scale=sigma,
                                            diameter=d_h, weak_convexity=m, smoothness=big_m)
    l_tri = 1 + lam * max(m, big_m)
    assert default == pytest.approx(alpha / (2 * sigma**2) * (l_tri * d_h + 2 * lam * clip / b) ** 2, rel=1e-13)
    published = pabi.last_iterate_rdp_bounded(alpha, lr=lam, max_grad_norm=clip, batch_size=b, noise_scale=sigma,
                                              diameter=d_h, weak_convexity=m, smoothness=big_m, contraction="as_published")
    l_pub = math.sqrt(1 + 2 * lam * m * (1 + m / (big_m + m)))
    assert published == pytest.approx(alpha / (2 * sigma**2) * (l_pub * d_h + 2 * lam * clip / b) ** 2, rel=1e-13)
    assert published < default


# ------------------------------------------------------------------ C26: Lemma 3.2 constant


def test_c26_weak_convexity_constant():
    """Lemma 3.2 (Kong–Ribero): ⟨∇f(x) − ∇f(y), x − y⟩ ≥ −c‖x − y‖² + ‖∇f(x) − ∇f(y)‖²/(2(M + m))
    for m-weakly convex, M-smooth f. On the 1-D quadratics f = h x²/2, h ∈ [−m, M], it reads
    h ≥ −c + h²/(2(M + m)). The corrected constant m + m²/(M + m) (finding K2) is the one encoded
    in pabi's eq. (12), L_λ² = 1 + 2λ·c (clipped_step_kappa(model="as_published")): it is never
    violated. The printed m + 1/(2(M + m)) is violated, only for m > 1.

    pabi has no public function for the Lemma 3.2 constant itself; it is read off eq. (12)."""
    lam = 0.01
    bad_printed, bad_pabi, bad_at = 0, 0, set()
    for m in (0.5, 2.0, 5.0):
        for big_m in (0.0, 0.5, 3.0):
            c_pabi = pabi.clipped_step_kappa(lam, weak_convexity=m, smoothness=big_m,
                                             contraction="as_published") / (2 * lam)
            assert c_pabi == pytest.approx(m + m * m / (big_m + m), rel=1e-13)
            c_printed = m + 1 / (2 * (big_m + m))
            for h in np.linspace(-m, big_m, 41):
                rhs = h * h / (2 * (big_m + m))
                bad_pabi += h < -c_pabi + rhs - 1e-12
                if h < -c_printed + rhs - 1e-12:
                    bad_printed += 1
                    bad_at.add(m)
    assert bad_pabi == 0
    assert bad_printed == 41 and bad_at == {2.0, 5.0}


# ------------------------------------------------------------------ C28: Cor. C.2 (calibration)


@pytest.mark.parametrize("m, M", [(0.3, 1.0), (1.0, 0.0), (0.01, 2.0), (2.0, 2.0)])
def test_c28_corrected_calibration_certifies_eps_printed_one_16_alpha_sq(m, M):
    """With pabi's σ̄ (corrected) the proof's chain 4α(λ̄C/(bσ))²(1 + 4Em/(M+m)) equals ε; the
    printed σ̄ (``variant="as_published"``) certifies 16α²ε (finding K11). The chain's steps
    hold with pabi's θ_L at the integer ℓ = ⌈ℓ̄⌉, with eq. (12)'s L (the corollary's model)."""
    C, b, alpha, eps, E = 1.0, 10.0, 8.0, 1.0, 5
    lam, ellbar, sig = pabi.cyclic_calibrate(alpha, rdp=eps, weak_convexity=m, smoothness=M, max_grad_norm=C,
                                             batch_size=b, epochs=E)
    _, _, sig_pub = pabi.cyclic_calibrate(alpha, rdp=eps, weak_convexity=m, smoothness=M, max_grad_norm=C,
                                          batch_size=b, epochs=E, variant="as_published")
    assert lam == pytest.approx(1 / (2 * (M + m)), rel=1e-15)
    K = 1 + 4 * m * E / (M + m)
    chain = lambda s: 4 * alpha * (lam * C / (b * s)) ** 2 * K  # noqa: E731
    assert chain(sig) == pytest.approx(eps, rel=1e-12) and chain(sig) <= eps * (1 + 1e-13)
    assert chain(sig_pub) == pytest.approx(16 * alpha**2 * eps, rel=1e-12)
    kappa = pabi.clipped_step_kappa(lam, weak_convexity=m, smoothness=M, contraction="as_published")
    L = math.sqrt(1 + kappa)
    ell = math.ceil(ellbar)
    assert L >= math.sqrt(1 + m * lam)
    assert ell >= math.log(math.sqrt(2)) / math.log(L) - 1e-12
    th = pabi.shift_weight(ell, kappa=kappa)
    assert th <= 2 * (1 - L**-2) + 1e-15 <= 4 * m / (M + m) + 2e-15
    assert 4 * alpha * (lam * C / (b * sig)) ** 2 * (1 + E * th) <= eps * (1 + 1e-12)
