"""Reference (mpmath) implementations of the last-iterate family (Kong–Ribero, cyclic DP-SGD on
weakly convex losses; docs/derivations/rdp.md#last-iterate), by their defining formulas.

θ_L(s) is always :func:`pabi.reference.theta_l`, the definition L^{2(s−1)}/Σ_{j<s} L^{2j}
(eq. (6)), never a closed form; L is given either directly or as κ = L² − 1 (then L = √(1 + κ)
at working precision), as in the public functions.

* :func:`theta_min_steps`: Lemma C.1, s_min = log_L √(ξ/(ξ − 1)) (L > 1, ξ > 1).
* :func:`cyclic_theta_sum`: Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ)
(docs/derivations/rdp.md#last-iterate, the bracket of
  (7), (21), (27)).
* :func:`l_lambda_kappa`: κ = L_λ² − 1 with L_λ = 1 + λ max(m, M) (``model="triangle"``, the
  proven constant for the clipped step, docs/errata.md#r-k1) or eq. (12),
  L_λ = √(1 + 2λm[1 + m/(M + m)]) (``model="as_published"``; L_λ(0, M) = 1).
* :func:`last_iterate_rdp_general`: Thm 4.3, 8αT(λC/σ)² (eq. (18)); with ``b``, ``ell``: the
  residual sum of the proof of Prop. 2.2(b) (docs/derivations/rdp.md#last-iterate, beyond the
  paper), (α/(2σ²))Σ_{t ≤ T_eff}(ζ + s_t)², ζ = 2λC, s_t = 2λC/b at the first step of each ℓ-cycle,
  T_eff = T − t* + 1, maximised over
  t* ∈ [1, ℓ] by enumeration when ``t_star`` is None.
* :func:`last_iterate_rdp_bounded`: Thm 4.4, eq. (20), α/(2σ²)(L_λ d_h + 2λC/b)².
* :func:`last_iterate_rdp_cyclic`: Thm 4.5. Corrected (docs/errata.md#r-k3, #r-k4; default):
  2α(λC/(bσ))²Φ_{L_λ}(T − t* + 1, ℓ), maximised over t* ∈ [1, ℓ] by enumeration when
  ``t_star`` is None. ``variant="as_published"``: eq. (21), 4α(λC/(bσ))²[θ(T − Eℓ) + Eθ(ℓ)].
* :func:`last_iterate_rdp_small_step`: Cor. C.3, 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)].
* :func:`cyclic_calibration`: Cor. C.2, (λ̄, ℓ̄, σ̄) with λ̄ = 1/(2(M + ρ)),
  ℓ̄ = log 2/log(1 + ρλ̄) and σ̄ the corrected (2Cλ̄/b)√((α/ε)(1 + 4ρE/(M + ρ))) (docs/errata.md#r-k11) or the
  printed (Cλ̄/(2b))√((1 + 4ρE/(M + ρ))/(αε)).
* :func:`optimal_residuals`: App. B, a_t = ξL^{T−t} with ξ = L^{T−1}(Lτ + s)/Σ_{i<T} L^{2i}
  (index typo docs/errata.md#r-k9 corrected), t = 1..T.
* :func:`shifted_cycle_bound`: Prop. 2.2(a), eq. (7),
  α/(2σ²)[(Lτ + s̄)²θ_L(ℓ) + s̄²{(E − 1)θ_L(ℓ) + θ_L(T − Eℓ)}], E = ⌊T/ℓ⌋.
* :func:`shifted_drift_bound`: Prop. 2.2(b). ``variant="exact"``: the residual sum of its
  proof with a_t = ζ + s_t (docs/derivations/rdp.md#last-iterate, beyond the paper), (α/(2σ²))Σ_{t
  ≤ T}(ζ + s_t)², s_t = s̄ at t ≡ 1 (mod ℓ); ``variant="as_published"``: eq. (8), 2αT(ζ/σ)².

>>> import mpmath
>>> from pabi import reference as ref
>>> mpmath.nstr(ref.cyclic_theta_sum(10, 4, L=1.0), 10)   # 2·(1/4) + θ_1(2)
'1.0'
"""

from __future__ import annotations

from typing import Optional, Union

import mpmath as mp

from ._rdp import theta_l

Real = Union[float, int, "mp.mpf"]

__all__ = [
    "theta_min_steps",
    "cyclic_theta_sum",
    "l_lambda_kappa",
    "last_iterate_rdp_general",
    "last_iterate_rdp_bounded",
    "last_iterate_rdp_cyclic",
    "last_iterate_rdp_small_step",
    "cyclic_calibration",
    "optimal_residuals",
    "shifted_cycle_bound",
    "shifted_drift_bound",
]

DEFAULT_DPS = 50
GUARD = 15

_MODELS = ("triangle", "as_published")
_VARIANTS = ("corrected", "as_published")


# --------------------------------------------------------------------------------- helpers


def _int(name: str, v, lo: int = 0) -> int:
    i = int(v)
    if i != v or i < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return i


def _lip(L: Optional[Real], kappa: Optional[Real]) -> mp.mpf:
    """L at the current precision from exactly one of L (≥ 0) and κ = L² − 1 (≥ −1)."""
    if (L is None) == (kappa is None):
        raise ValueError("pass exactly one of L and kappa (= L**2 - 1)")
    if L is not None:
        L = mp.mpf(L)
        if L < 0:
            raise ValueError("L must be >= 0")
        return L
    k = mp.mpf(kappa)
    if k < -1:
        raise ValueError("kappa must be >= -1")
    return mp.sqrt(1 + k)


def _theta(L: mp.mpf, s: int) -> mp.mpf:
    """θ_L(s) by its definition (:func:`pabi.reference.theta_l`) at the current precision."""
    return theta_l(L, s, dps=mp.mp.dps)


def _phi(L: mp.mpf, T: int, ell: int, cache: Optional[dict] = None) -> mp.mpf:
    """Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ) (θ values memoised in ``cache``)."""
    cache = {} if cache is None else cache
    E, r = divmod(T, ell)
    for s in (ell, r):
        if s not in cache:
            cache[s] = _theta(L, s)
    return E * cache[ell] + cache[r]


def _l_lambda(lam: Real, m: Real, M: Real, model: str) -> mp.mpf:
    """L_λ (not κ) of the chosen Lipschitz model, at the current precision."""
    if model not in _MODELS:
        raise ValueError(f"model must be 'triangle' or 'as_published', got {model!r}")
    lam, m, M = mp.mpf(lam), mp.mpf(m), mp.mpf(M)
    if not lam > 0 or m < 0 or M < 0:
        raise ValueError("need lam > 0, m >= 0, M >= 0")
    if model == "triangle":
        return 1 + lam * max(m, M)
    if m == 0:
        return mp.mpf(1)  # L_λ(0, M) = 1 (also the m = M = 0 limit of eq. (12))
    return mp.sqrt(1 + 2 * lam * m * (1 + m / (M + m)))


def _check_step(lam: Real, m: Real, M: Real) -> None:
    """The step-size condition λ ≤ 1/(2(m + M)) of Thms 4.4, 4.5 and Cor. C.3 (any λ when
    m = M = 0). Checked against the double fl(1/(2(m + M))), as pabi does: the limit λ̄ is itself
    only available as a double."""
    s = float(m) + float(M)
    if s > 0 and float(lam) > 1.0 / (2.0 * s):
        raise ValueError(f"lam must be <= 1/(2(m + M)) = {1.0 / (2.0 * s)}, got {lam!r}")


def _order(alpha: Real) -> mp.mpf:
    a = mp.mpf(alpha)
    if not a > 1:
        raise ValueError("alpha must be > 1")
    return a


# --------------------------------------------------------------------------------- θ helpers


def theta_min_steps(
    xi: Real, L: Optional[Real] = None, *, kappa: Optional[Real] = None, dps: int = DEFAULT_DPS
) -> mp.mpf:
    """Lemma C.1: s_min = log_L √(ξ/(ξ − 1)) = ln(ξ/(ξ − 1))/(2 ln L) for L > 1, ξ > 1
    (θ_L(s) ≤ ξ(1 − L^{−2}) for every s ≥ s_min; real-valued)."""
    with mp.workdps(dps + GUARD):
        xi = mp.mpf(xi)
        if L is None and kappa is not None:
            k = mp.mpf(kappa)
            if not k > 0:
                raise ValueError("kappa must be > 0 (L > 1)")
            lnL = mp.log1p(k) / 2  # ln √(1 + κ), exact identity
        else:
            Lm = _lip(L, kappa)
            if not Lm > 1:
                raise ValueError("L must be > 1")
            lnL = mp.log(Lm)
        if not xi > 1:
            raise ValueError("xi must be > 1")
        # ln √(ξ/(ξ − 1)) = ½ ln(1 + 1/(ξ − 1)) (log1p keeps its digits for huge ξ)
        val = mp.log1p(1 / (xi - 1)) / 2 / lnL
    with mp.workdps(dps):
        return +val


def cyclic_theta_sum(
    T: int, ell: int, L: Optional[Real] = None, *, kappa: Optional[Real] = None, dps: int = DEFAULT_DPS
) -> mp.mpf:
    """Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ), θ by its definition (eq. (6))."""
    T, ell = _int("T", T), _int("ell", ell, 1)
    with mp.workdps(dps + GUARD):
        val = _phi(_lip(L, kappa), T, ell)
    with mp.workdps(dps):
        return +val


def l_lambda_kappa(lam: Real, m: Real, M: Real, model: str = "triangle", dps: int = DEFAULT_DPS) -> mp.mpf:
    """κ = L_λ² − 1 with L_λ = 1 + λ max(m, M) (``"triangle"``) or eq. (12)
    L_λ = √(1 + 2λm[1 + m/(M + m)]) (``"as_published"``; L_λ = 1 when m = 0)."""
    with mp.workdps(dps + GUARD):
        Lm = _l_lambda(lam, m, M, model)
        val = Lm * Lm - 1
    with mp.workdps(dps):
        return +val


# --------------------------------------------------------------------------------- Prop. 2.2


def _residual_sum(T: int, ell: int, zeta: mp.mpf, sbar: mp.mpf) -> mp.mpf:
    """Σ_{t=1}^T (ζ + s_t)² with s_t = s̄ for t ≡ 1 (mod ℓ), else 0: the number of shifted steps
    is counted by enumerating the cycle starts 1, 1 + ℓ, … ≤ T."""
    n_shift = len(range(1, T + 1, ell))
    return (T - n_shift) * zeta**2 + n_shift * (zeta + sbar) ** 2


def shifted_drift_bound(
    alpha: Real, sigma: Real, zeta: Real, T: int, ell: int = 1, sbar: Optional[Real] = None,
    variant: str = "exact", dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Prop. 2.2(b). ``"exact"``: (α/(2σ²))Σ_{t ≤ T}(ζ + s_t)², the cost of the residuals
    a_t = ζ + s_t of its proof (s_t = s̄ at the first step of each ℓ-cycle; s̄ defaults to ζ).
    ``"as_published"``: eq. (8), 2αT(ζ/σ)²."""
    if variant not in ("exact", "as_published"):
        raise ValueError(f"variant must be 'exact' or 'as_published', got {variant!r}")
    T = _int("T", T, 1)
    with mp.workdps(dps + GUARD):
        a, sg, z = _order(alpha), mp.mpf(sigma), mp.mpf(zeta)
        if variant == "as_published":
            val = 2 * a * T * (z / sg) ** 2
        else:
            ell = _int("ell", ell, 1)
            if ell > T:
                raise ValueError("ell must be in 1..T")
            sb = z if sbar is None else mp.mpf(sbar)
            val = a / (2 * sg**2) * _residual_sum(T, ell, z, sb)
    with mp.workdps(dps):
        return +val


def shifted_cycle_bound(
    alpha: Real, sigma: Real, T: int, ell: int, sbar: Real, tau: Real = 0.0, L: Optional[Real] = None,
    *, kappa: Optional[Real] = None, dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Prop. 2.2(a), eq. (7): α/(2σ²)[(Lτ + s̄)²θ_L(ℓ) + s̄²{(E − 1)θ_L(ℓ) + θ_L(T − Eℓ)}]."""
    T, ell = _int("T", T, 1), _int("ell", ell, 1)
    if T < ell:
        raise ValueError("need T >= ell >= 1")
    with mp.workdps(dps + GUARD):
        a, sg, sb, tau = _order(alpha), mp.mpf(sigma), mp.mpf(sbar), mp.mpf(tau)
        Lm = _lip(L, kappa)
        E = T // ell
        th = _theta(Lm, ell)
        val = a / (2 * sg**2) * ((Lm * tau + sb) ** 2 * th + sb**2 * ((E - 1) * th + _theta(Lm, T - E * ell)))
    with mp.workdps(dps):
        return +val


def optimal_residuals(
    T: int, tau: Real, s: Real, L: Optional[Real] = None, *, kappa: Optional[Real] = None,
    dps: int = DEFAULT_DPS,
) -> list:
    """App. B: the minimiser of ½Σa_t² subject to R̃_T = 0 (R̃_t ≥ 0 inactive),
    a_t = ξL^{T−t}, ξ = L^{T−1}(Lτ + s)/Σ_{i=0}^{T−1} L^{2i}, t = 1..T (list of mpf)."""
    T = _int("T", T, 1)
    with mp.workdps(dps + GUARD):
        tau, s = mp.mpf(tau), mp.mpf(s)
        Lm = _lip(L, kappa)
        xi = Lm ** (T - 1) * (Lm * tau + s) / mp.fsum(Lm ** (2 * i) for i in range(T))
        vals = [xi * Lm ** (T - t) for t in range(1, T + 1)]
    with mp.workdps(dps):
        return [+v for v in vals]


# --------------------------------------------------------------------------------- Thms 4.3–4.5


def last_iterate_rdp_general(
    alpha: Real, lam: Real, clip: Real, sigma: Real, T: int, b: Optional[int] = None,
    ell: Optional[int] = None, t_star: Optional[int] = None, dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Thm 4.3: 8αT(λC/σ)² (eq. (18)). With ``b``, ``ell``: the exact residual sum of
    Prop. 2.2(b) with ζ = 2λC, s̄ = 2λC/b over T_eff = T − t* + 1 steps,
    (α/(2σ²))Σ_{t ≤ T_eff}(ζ + s_t)², maximised over t* ∈ [1, ℓ] (enumerated) if t* is None."""
    if (b is None) != (ell is None):
        raise ValueError("pass both b and ell or neither")
    T = _int("T", T, 1)
    with mp.workdps(dps + GUARD):
        a, lam, C, sg = _order(alpha), mp.mpf(lam), mp.mpf(clip), mp.mpf(sigma)
        if b is None:
            val = 8 * a * T * (lam * C / sg) ** 2
        else:
            b, ell = _int("b", b, 1), _int("ell", ell, 1)
            if T < ell:
                raise ValueError("need T >= ell")
            zeta = 2 * lam * C
            sbar = 2 * lam * C / b
            stars = range(1, ell + 1) if t_star is None else [_int("t_star", t_star, 1)]
            if t_star is not None and t_star > ell:
                raise ValueError("t_star must be in 1..ell")
            val = max(a / (2 * sg**2) * _residual_sum(T - ts + 1, ell, zeta, sbar) for ts in stars)
    with mp.workdps(dps):
        return +val


def last_iterate_rdp_bounded(
    alpha: Real, lam: Real, clip: Real, b: int, sigma: Real, d_h: Real, m: Real, M: Real,
    model: str = "triangle", dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Thm 4.4, eq. (20): α/(2σ²)(L_λ d_h + 2λC/b)² (requires λ ≤ 1/(2(m + M)))."""
    b = _int("b", b, 1)
    _check_step(lam, m, M)
    with mp.workdps(dps + GUARD):
        a, sg = _order(alpha), mp.mpf(sigma)
        Lm = _l_lambda(lam, m, M, model)
        val = a / (2 * sg**2) * (Lm * mp.mpf(d_h) + 2 * mp.mpf(lam) * mp.mpf(clip) / b) ** 2
    with mp.workdps(dps):
        return +val


def last_iterate_rdp_cyclic(
    alpha: Real, lam: Real, clip: Real, b: int, sigma: Real, T: int, ell: int, m: Real, M: Real,
    t_star: Optional[int] = None, variant: str = "corrected", model: str = "triangle",
    dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Thm 4.5. Corrected: 2α(λC/(bσ))²Φ_{L_λ}(T − t* + 1, ℓ) (Prop. 2.2(a) from Y_0 = X_{t*−1},
    τ = 0, s̄ = 2λC/b), the maximum over t* ∈ [1, ℓ] (enumerated) if t* is None.
    ``"as_published"``: eq. (21), 4α(λC/(bσ))²[θ_{L_λ}(T − Eℓ) + Eθ_{L_λ}(ℓ)], E = ⌊T/ℓ⌋."""
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be 'corrected' or 'as_published', got {variant!r}")
    T, ell, b = _int("T", T, 1), _int("ell", ell, 1), _int("b", b, 1)
    if T < ell:
        raise ValueError("need T >= ell")
    _check_step(lam, m, M)
    with mp.workdps(dps + GUARD):
        a, sg = _order(alpha), mp.mpf(sigma)
        Lm = _l_lambda(lam, m, M, model)
        unit = a * (mp.mpf(lam) * mp.mpf(clip) / (b * sg)) ** 2
        if variant == "as_published":
            E = T // ell
            val = 4 * unit * (_theta(Lm, T - E * ell) + E * _theta(Lm, ell))
        else:
            if t_star is not None:
                ts = _int("t_star", t_star, 1)
                if ts > ell:
                    raise ValueError("t_star must be in 1..ell")
                stars = [ts]
            else:
                stars = range(1, ell + 1)
            cache: dict = {}
            val = 2 * unit * max(_phi(Lm, T - ts + 1, ell, cache) for ts in stars)
    with mp.workdps(dps):
        return +val


def last_iterate_rdp_small_step(
    alpha: Real, clip: Real, b: int, sigma: Real, ell: int, lam: Real, m: Real, M: Real,
    model: str = "triangle", dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Cor. C.3: 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)] (requires λ ≤ 1/(2(m + M)); λ ≤ 1/√E is the
    caller's)."""
    b, ell = _int("b", b, 1), _int("ell", ell, 1)
    _check_step(lam, m, M)
    with mp.workdps(dps + GUARD):
        a, sg = _order(alpha), mp.mpf(sigma)
        Lm = _l_lambda(lam, m, M, model)
        val = 4 * a * (mp.mpf(clip) / (b * sg)) ** 2 * (1 + _theta(Lm, ell))
    with mp.workdps(dps):
        return +val


def cyclic_calibration(
    alpha: Real, eps: Real, rho: Real, M: Real, clip: Real, b: int, epochs: int,
    variant: str = "corrected", dps: int = DEFAULT_DPS,
) -> tuple:
    """Cor. C.2: (λ̄, ℓ̄, σ̄) with λ̄ = 1/(2(M + ρ)), ℓ̄ = log 2/log(1 + ρλ̄) and
    σ̄ = (2Cλ̄/b)√((α/ε)(1 + 4ρE/(M + ρ))) (corrected, docs/errata.md#r-k11) or
    (Cλ̄/(2b))√((1 + 4ρE/(M + ρ))/(αε)) (``"as_published"``)."""
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be 'corrected' or 'as_published', got {variant!r}")
    b, E = _int("b", b, 1), _int("epochs", epochs)
    with mp.workdps(dps + GUARD):
        a, eps, rho, M, C = _order(alpha), mp.mpf(eps), mp.mpf(rho), mp.mpf(M), mp.mpf(clip)
        if not (eps > 0 and rho > 0 and M >= 0 and C > 0):
            raise ValueError("need eps > 0, rho > 0, M >= 0, clip > 0")
        lam = 1 / (2 * (M + rho))
        ell = mp.log(2) / mp.log(1 + rho * lam)
        f = 1 + 4 * rho / (M + rho) * E
        if variant == "corrected":
            sig = 2 * C * lam / b * mp.sqrt(a / eps * f)
        else:
            sig = C * lam / (2 * b) * mp.sqrt(f / (a * eps))
    with mp.workdps(dps):
        return +lam, +ell, +sig
