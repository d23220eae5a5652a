"""Last-iterate RDP of cyclic DP-SGD (Kong–Ribero): θ_L, Φ_L, the shifted-divergence bounds of
Prop. 2.2, Thms 4.3–4.5, Cor. C.2–C.3 and Lemma C.1. Re-exported by :mod:`pabi.rdp` (whose ``__all__`` lists the
public names).
"""

from __future__ import annotations

import functools
from typing import Optional

import numpy as np

from .. import _core
from .._bridge import ArrayLike, DomainError, Float, call as _call, int_scalar as _int, opt_real_scalar as _opt_real
from .._bridge import real_scalar as _real, relocate as _relocate, rename as _rename
from ._common import _map_flag, _opt_int



def _lip_u(L: Optional[ArrayLike], kappa: Optional[ArrayLike]) -> tuple[ArrayLike, str]:
    """(u = ln L² from L or κ, the name of the parameter it came from, for messages). u is the
    core's carrier for θ_L: accurate near L = 1 from κ, and for small L from L, where κ ≈ −1
    has lost the relative accuracy of L²."""
    if (L is None) == (kappa is None):
        raise ValueError("pass exactly one of L and kappa (= L**2 - 1)")
    if kappa is not None:
        return _call(_core.lip_u_from_kappa, ("kappa",), kappa), "kappa"
    return _call(_core.lip_u_from_l, ("L",), L), "L"


def _model_flag(model: str) -> bool:
    if model not in ("triangle", "as_published"):
        raise ValueError(f"model must be 'triangle' or 'as_published', got {model!r}")
    return model == "as_published"


def theta_l(s: ArrayLike, L: Optional[ArrayLike] = None, *, kappa: Optional[ArrayLike] = None) -> Float:
    """θ_L(s) = L^{2(s−1)}/Σ_{j<s} L^{2j} (Kong–Ribero eq. (6)), θ(0) = 0, stable near L = 1
    (pass κ = L² − 1 when known: expm1 forms with u = log1p(κ)); real s ≥ 1 allowed.
    Broadcasts over s and L (or κ). Rounded up (L is carried as u = ln L², from L rounded up by
    2 ulp, which only loosens the bound).

    >>> round(theta_l(4, L=1.0), 14)
    0.25
    >>> theta_l([1, 2], L=[1.0, 2.0])
    array([1. , 0.8])
    """
    u, name = _lip_u(L, kappa)
    try:
        return _call(_core.theta_l_u, (name, "s"), u, s)
    except DomainError as exc:
        raise _rename(exc, "L", name) from None


def cyclic_theta_sum(
    T: ArrayLike, ell: ArrayLike, L: Optional[ArrayLike] = None, *, kappa: Optional[ArrayLike] = None
) -> Float:
    """Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ) (the bracket of Kong–Ribero (7), (21), (27)).

    >>> round(cyclic_theta_sum(10, 4, L=1.0), 12)   # 2·(1/4) + 1/2
    1.0
    """
    u, name = _lip_u(L, kappa)
    try:
        return _call(_core.cyclic_theta_sum, (name, "T", "ell"), u, T, ell)
    except DomainError as exc:
        raise _rename(exc, "L", name) from None


def l_lambda_kappa(lam: ArrayLike, m: ArrayLike, M: ArrayLike, model: str = "triangle") -> Float:
    """κ = L_λ² − 1 for the clipped gradient step with step size λ, weak convexity m and
    smoothness M. ``model="triangle"`` (default, proven with clipping): L = 1 + λ max(m, M).
    ``model="as_published"``: eq. (12), L² = 1 + 2λm(1 + m/(M + m)) — valid for the unclipped
    step only; with clipping it is unproven and false in dimension ≥ 2 (docs/errata.md#r-k1).
    Domain (Prop. 3.4; every theorem using L_λ): 0 < λ ≤ 1/(2(m + M)) (compared with the
    double ``1/(2*(m + M))``; any λ when m = M = 0), m, M ≥ 0; a larger λ is a DomainError
    naming ``lam``.

    >>> round(l_lambda_kappa(0.1, 1.0, 2.0), 12)   # (1 + 0.2)² − 1
    0.44
    """
    flag = _model_flag(model)
    return _call(lambda *a: _core.l_lambda_kappa(*a, flag), ("lam", "m", "M"), lam, m, M)


def last_iterate_rdp_general(
    alpha: ArrayLike, lam: ArrayLike, clip: ArrayLike, sigma: ArrayLike, T: ArrayLike,
    b: Optional[ArrayLike] = None, ell: Optional[ArrayLike] = None,
    t_star: Optional[ArrayLike] = None,
) -> Float:
    """Last-iterate RDP of cyclic DP-SGD with no curvature assumption (Kong–Ribero Thm 4.3),
    σ = noise std on the iterate. Without ``b``/``ell``: the printed 8αT(λC/σ)². With the batch
    size ``b`` and the steps per pass ``ell`` = k/b: the exact residual sum of the same proof
    (docs/derivations/rdp.md#last-iterate, beyond the paper: Prop. 2.2(b) with ζ = 2λC, s̄ = 2λC/b,
    correctly indexed T_eff = T − t* + 1): (2αλ²C²/σ²)[T_eff + ⌈T_eff/ℓ⌉(2/b + 1/b²)], maximised
    over t* when
    ``t_star`` is None; never above the printed bound. Broadcasts.

    >>> last_iterate_rdp_general(2.0, 0.1, 1.0, 1.0, 100)
    16.000000000000227
    >>> round(last_iterate_rdp_general(2.0, 0.1, 1.0, 1.0, 100, b=10, ell=10), 10)   # 0.04·(100 + 10·0.21)
    4.084
    """
    if (b is None) != (ell is None):
        raise ValueError("pass both b and ell (exact residual sum) or neither (printed bound)")
    if b is None:
        return _call(_core.last_iterate_rdp_general, ("alpha", "lam", "clip", "sigma", "T"), alpha, lam, clip, sigma, T)
    return _call(
        _core.last_iterate_rdp_general_exact,
        ("alpha", "lam", "clip", "sigma", "T", "b", "ell", "t_star"),
        alpha, lam, clip, sigma, T, b, ell, _opt_int("t_star", t_star),
    )


def shifted_drift_bound(
    alpha: ArrayLike, sigma: ArrayLike, zeta: ArrayLike, T: ArrayLike, ell: ArrayLike = 1,
    sbar: Optional[ArrayLike] = None, variant: str = "exact",
) -> Float:
    """Kong–Ribero Prop. 2.2(b): RDP growth of T noisy steps Y ← prox(φ_t(Y) + Z) whose maps
    have drift ζ (‖Φ(x) − Φ(y)‖ ≤ L‖x − y‖ + ζ, any L) and differ by s̄ at the first step of
    each ℓ-cycle, from τ = 0: D_α(Y_T‖Y'_T) − D_α(Y_0‖Y'_0) ≤ ...

    * ``variant="exact"`` (default; docs/derivations/rdp.md#last-iterate, beyond the paper): the
    exact residual sum of the proof,
      α/(2σ²)[Tζ² + ⌈T/ℓ⌉(2ζs̄ + s̄²)], valid for any ζ, s̄ ≥ 0 (``sbar`` defaults to ζ);
    * ``variant="as_published"``: eq. (8), 2αT(ζ/σ)² (stated for s̄ = ζ; ℓ, s̄ unused).

    The exact form is never larger when s̄ = ζ (it is αζ²(T + 3⌈T/ℓ⌉)/(2σ²)). Broadcasts.

    >>> shifted_drift_bound(2.0, 1.0, 1.0, 10, 5)   # 10 + 2·3 = 16
    16.000000000000455
    >>> shifted_drift_bound(2.0, 1.0, 1.0, 10, variant="as_published")
    40.00000000000057
    """
    if variant not in ("exact", "as_published"):
        raise ValueError(f"variant must be 'exact' or 'as_published', got {variant!r}")
    if variant == "as_published":
        return _call(_core.shifted_drift_bound_published, ("alpha", "sigma", "zeta", "T"), alpha, sigma, zeta, T)
    sb = zeta if sbar is None else sbar
    return _call(
        _core.shifted_drift_bound, ("alpha", "sigma", "zeta", "sbar", "T", "ell"), alpha, sigma, zeta, sb, T, ell
    )


def last_iterate_rdp_bounded(
    alpha: ArrayLike, lam: ArrayLike, clip: ArrayLike, b: ArrayLike, sigma: ArrayLike, d_h: ArrayLike,
    m: ArrayLike, M: ArrayLike, model: str = "triangle",
) -> Float:
    """Bounded domain of diameter d_h (Kong–Ribero Thm 4.4): α/(2σ²)(L_λ d_h + 2λC/b)², with
    L_λ from :func:`l_lambda_kappa` (default: the proven triangle constant). The theorem
    assumes λ ≤ 1/(2(m + M)); a larger ``lam`` raises ``ValueError``. Broadcasts.

    >>> round(last_iterate_rdp_bounded(2.0, 0.1, 1.0, 10, 1.0, 1.0, 0.0, 0.0), 12)   # (1 + 0.02)²
    1.0404
    """
    fn = functools.partial(_core.last_iterate_rdp_bounded, as_published=_model_flag(model))
    names = ("alpha", "lam", "m", "M", "d_h", "clip", "b", "sigma")
    return _call(fn, names, alpha, lam, m, M, d_h, clip, b, sigma)


def last_iterate_rdp_cyclic(
    alpha: ArrayLike, lam: ArrayLike, clip: ArrayLike, b: ArrayLike, sigma: ArrayLike, T: ArrayLike,
    ell: ArrayLike, m: ArrayLike, M: ArrayLike, t_star: Optional[ArrayLike] = None,
    variant: str = "corrected", model: str = "triangle",
) -> Float:
    """Lipschitz-smooth/weakly convex regime (Kong–Ribero Thm 4.5), correctly indexed
    (docs/errata.md#r-k3, #r-k4; default): 2α(λC/(bσ))²Φ_L(T − t* + 1, ℓ) for a known first occurrence t*,
    else its maximum over t* ∈ [1, ℓ]. ``variant="as_published"``: eq. (21),
    4α(λC/(bσ))²Φ_L(T, ℓ), smaller than the correct bound in some settings (not certified).
    The theorem assumes λ ≤ 1/(2(m + M)); a larger ``lam`` raises ``ValueError``. Broadcasts.

    >>> last_iterate_rdp_cyclic(1.0 + 1e-9, 1.0, 1.0, 1, 1.0, 5, 5, 0.0, 0.0) > 1.99
    True
    """
    vflag, mflag = _map_flag(variant), _model_flag(model)
    return _call(
        lambda *a: _core.last_iterate_rdp_cyclic(*a, vflag, mflag),
        ("alpha", "lam", "m", "M", "clip", "b", "sigma", "T", "ell", "t_star"),
        alpha, lam, m, M, clip, b, sigma, T, ell, _opt_int("t_star", t_star),
    )


def shifted_cycle_bound(
    alpha: ArrayLike, sigma: ArrayLike, T: ArrayLike, ell: ArrayLike, sbar: ArrayLike,
    tau: ArrayLike = 0.0, L: Optional[ArrayLike] = None, *, kappa: Optional[ArrayLike] = None,
) -> Float:
    """Kong–Ribero Prop. 2.2(a), eq. (7):
    α/(2σ²)[(Lτ + s̄)²θ_L(ℓ) + s̄²{(E − 1)θ_L(ℓ) + θ_L(T − Eℓ)}], E = ⌊T/ℓ⌋. Broadcasts.

    >>> round(shifted_cycle_bound(2.0, 1.0, 10, 5, 1.0, L=1.0), 12)   # 2·(1/5)
    0.4
    """
    u, name = _lip_u(L, kappa)
    try:
        return _call(
            _core.shifted_cycle_bound, ("alpha", "sigma", name, "tau", "sbar", "T", "ell"),
            alpha, sigma, u, tau, sbar, T, ell,
        )
    except DomainError as exc:
        raise _rename(exc, "L", name) from None


def optimal_residuals(
    T: int, tau: float, s: float, L: Optional[float] = None, *, kappa: Optional[float] = None
) -> np.ndarray:
    """Optimal shifts of the App. B QP: a_t = (Lτ + s)θ_L(T)L^{1−t}, t = 1..T (no overflow).
    Scalar arguments (the result is the length-T vector). Domain: T an integer in [1, 2^26]
    (a larger T is a DomainError before anything is allocated), τ, s ≥ 0 finite, L ≥ 0
    (L = 0 gives the limit: a_1 = s for T = 1, zeros for T ≥ 2)."""
    T, tau, s = _int("T", T, lo=1), _real("tau", tau), _real("s", s)
    L, kappa = _opt_real("L", L), _opt_real("kappa", kappa)
    u, name = _lip_u(L, kappa)
    try:
        return _core.optimal_residuals(float(u), T, tau, s)
    except DomainError as exc:
        raise _rename(_relocate(exc, (), True), "L", name) from None


def cyclic_calibration(
    alpha: ArrayLike, eps: ArrayLike, rho: ArrayLike, M: ArrayLike, clip: ArrayLike, b: ArrayLike,
    epochs: ArrayLike, variant: str = "corrected",
) -> tuple[Float, Float, Float]:
    """(λ̄, ℓ̄, σ̄) of Kong–Ribero Cor. C.2: λ̄ = 1/(2(M + ρ)), ℓ̄ = ln2/log1p(ρλ̄) and the
    noise level certifying (α, ε)-RDP, corrected σ̄ = (2Cλ̄/b)·√(α(1 + 4ρE/(M + ρ))/ε).
    ``variant="as_published"`` returns the printed σ̄, too small by 4α (it certifies 16α²ε;
    docs/errata.md#r-k11). Subject to caveat docs/errata.md#r-k1 (uses eq. (12)). Broadcasts (tuple
    of arrays).

    >>> lam, ell, sig = cyclic_calibration(8.0, 1.0, 0.5, 2.0, 1.0, 10, 5)
    >>> lam, round(sig, 10)
    (0.2, 0.2529822128)
    """
    flag = _map_flag(variant)
    return _call(
        lambda *a: _core.cyclic_calibration(*a, flag),
        ("alpha", "eps", "rho", "M", "clip", "b", "epochs"),
        alpha, eps, rho, M, clip, b, epochs, nout=3,
    )


def theta_min_steps(xi: ArrayLike, L: Optional[ArrayLike] = None, *, kappa: Optional[ArrayLike] = None) -> Float:
    """Kong–Ribero Lemma C.1: for L > 1, ξ > 1, θ_L(s) ≤ ξ(1 − L^{−2}) for all
    s ≥ −log1p(−1/ξ)/log1p(κ) (returned; real-valued, use its ceiling for steps). Broadcasts.

    >>> round(theta_min_steps(2.0, L=2.0), 12)   # log_4 2
    0.5
    """
    if (L is None) == (kappa is None):
        raise ValueError("pass exactly one of L and kappa (= L**2 - 1)")
    if L is not None:
        # from L itself: κ = L² − 1 overflowed for huge L and the error named kappa
        return _call(_core.theta_min_steps_l, ("L", "xi"), L, xi)
    assert kappa is not None
    return _call(_core.theta_min_steps, ("kappa", "xi"), kappa, xi)


def last_iterate_rdp_small_step(
    alpha: ArrayLike, clip: ArrayLike, b: ArrayLike, sigma: ArrayLike, ell: ArrayLike, lam: ArrayLike,
    m: ArrayLike, M: ArrayLike, model: str = "triangle",
) -> Float:
    """Kong–Ribero Cor. C.3: 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)] for λ ≤ min{1/√E, 1/(2(m + M))}
    (independent of E and λ; caveats docs/errata.md#r-k1, #r-k17). λ > 1/(2(m + M)) raises ``ValueError``; the
    condition λ ≤ 1/√E is the caller's (E is not an argument). Broadcasts.

    >>> round(last_iterate_rdp_small_step(2.0, 1.0, 1, 1.0, 4, 0.1, 0.0, 0.0), 12)   # 8·(1 + 1/4)
    10.0
    """
    fn = functools.partial(_core.last_iterate_rdp_small_step, as_published=_model_flag(model))
    names = ("alpha", "lam", "m", "M", "clip", "b", "sigma", "ell")
    return _call(fn, names, alpha, lam, m, M, clip, b, sigma, ell)
