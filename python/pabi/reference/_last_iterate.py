"""Reference (mpmath) implementations of the last-iterate family (Kong–Ribero, cyclic DP-SGD on
weakly convex losses; docs/derivations/rdp.md#last-iterate), by their defining formulas.

θ_L(s) is always :func:`pabi.reference.shift_weight`, the definition L^{2(s−1)}/Σ_{j<s} L^{2j}
(eq. (6)), never a closed form; L is given either directly or as κ = L² − 1 (then L = √(1 + κ)
at working precision), as in the public functions.

* :func:`shift_weight_min_steps`: Lemma C.1, s_min = log_L √(ξ/(ξ − 1)) (L > 1, ξ > 1).
* :func:`cyclic_shift_weight_sum`: Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ)
(docs/derivations/rdp.md#last-iterate, the bracket of
  (7), (21), (27)).
* :func:`clipped_step_kappa`: κ = L_λ² − 1 with L_λ = 1 + λ max(m, M) (``contraction="triangle"``, the
  proven constant for the clipped step, docs/errata.md#r-k1) or eq. (12),
  L_λ = √(1 + 2λm[1 + m/(M + m)]) (``contraction="as_published"``; L_λ(0, M) = 1).
* :func:`last_iterate_rdp_general`: Thm 4.3, 8αT(λC/σ)² (eq. (18)); with ``batch_size``, ``batches_per_epoch``: the
  residual sum of the proof of Prop. 2.2(b) (docs/derivations/rdp.md#last-iterate, beyond the
  paper), (α/(2σ²))Σ_{t ≤ T_eff}(ζ + s_t)², ζ = 2λC, s_t = 2λC/b at the first step of each ℓ-cycle,
  T_eff = T − t* + 1, maximised over
  t* ∈ [1, ℓ] by enumeration when ``index`` is None.
* :func:`last_iterate_rdp_bounded`: Thm 4.4, eq. (20), α/(2σ²)(L_λ D + 2λC/b)² (D = ``diameter``).
* :func:`last_iterate_rdp_cyclic`: Thm 4.5. Corrected (docs/errata.md#r-k3, #r-k4; default):
  2α(λC/(bσ))²Φ_{L_λ}(T − t* + 1, ℓ), maximised over t* ∈ [1, ℓ] by enumeration when
  ``index`` is None. ``variant="as_published"``: eq. (21), 4α(λC/(bσ))²[θ(T − Eℓ) + Eθ(ℓ)].
* :func:`last_iterate_rdp_small_step`: Cor. C.3, 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)].
* :func:`cyclic_calibrate`: Cor. C.2, (λ̄, ℓ̄, σ̄) with λ̄ = 1/(2(M + ρ)),
  ℓ̄ = log 2/log(1 + ρλ̄) and σ̄ the corrected (2Cλ̄/b)√((α/ε)(1 + 4ρE/(M + ρ))) (docs/errata.md#r-k11) or the
  printed (Cλ̄/(2b))√((1 + 4ρE/(M + ρ))/(αε)).
* :func:`optimal_shifts`: App. B, a_t = ξL^{T−t} with ξ = L^{T−1}(Lτ + s)/Σ_{i<T} L^{2i}
  (index typo docs/errata.md#r-k9 corrected), t = 1..T.
* :func:`shifted_cycle_bound`: Prop. 2.2(a), eq. (7),
  α/(2σ²)[(Lτ + s̄)²θ_L(ℓ) + s̄²{(E − 1)θ_L(ℓ) + θ_L(T − Eℓ)}], E = ⌊T/ℓ⌋.
* :func:`shifted_drift_bound`: Prop. 2.2(b). ``variant="corrected"``: the residual sum of its
  proof with a_t = ζ + s_t (docs/derivations/rdp.md#last-iterate, beyond the paper), (α/(2σ²))Σ_{t
  ≤ T}(ζ + s_t)², s_t = s̄ at t ≡ 1 (mod ℓ); ``variant="as_published"``: eq. (8), 2αT(ζ/σ)².

>>> import mpmath
>>> from pabi import reference as ref
>>> mpmath.nstr(ref.cyclic_shift_weight_sum(10, 4, step_lipschitz=1.0), 10)   # 2·(1/4) + θ_1(2)
'1.0'
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import mpmath as mp

from ._rdp import shift_weight

Real = Union[float, int, "mp.mpf"]

__all__ = [
    "shift_weight_min_steps",
    "cyclic_shift_weight_sum",
    "clipped_step_kappa",
    "last_iterate_rdp_general",
    "last_iterate_rdp_bounded",
    "last_iterate_rdp_cyclic",
    "last_iterate_rdp_small_step",
    "cyclic_calibrate",
    "optimal_shifts",
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
    """L at the current precision from exactly one of L = step_lipschitz (≥ 0) and κ = L² − 1
    (≥ −1)."""
    if (L is None) == (kappa is None):
        raise ValueError("pass exactly one of step_lipschitz and kappa (= step_lipschitz**2 - 1)")
    if L is not None:
        L = mp.mpf(L)
        if L < 0:
            raise ValueError("step_lipschitz must be >= 0")
        return L
    k = mp.mpf(kappa)
    if k < -1:
        raise ValueError("kappa must be >= -1")
    return mp.sqrt(1 + k)


def _theta(L: mp.mpf, s: int) -> mp.mpf:
    """θ_L(s) by its definition (:func:`pabi.reference.shift_weight`) at the current precision."""
    return shift_weight(L, s, dps=mp.mp.dps)


def _phi(L: mp.mpf, T: int, ell: int, cache: Optional[dict] = None) -> mp.mpf:
    """Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ) (θ values memoised in ``cache``)."""
    cache = {} if cache is None else cache
    E, r = divmod(T, ell)
    for s in (ell, r):
        if s not in cache:
            cache[s] = _theta(L, s)
    return E * cache[ell] + cache[r]


def _l_lambda(lam: Real, m: Real, M: Real, model: str) -> mp.mpf:
    """L_λ (not κ) of the chosen Lipschitz model (``contraction``), at the current precision."""
    if model not in _MODELS:
        raise ValueError(f"contraction must be 'triangle' or 'as_published', got {model!r}")
    lam, m, M = mp.mpf(lam), mp.mpf(m), mp.mpf(M)
    if not lam > 0 or m < 0 or M < 0:
        raise ValueError("need lr > 0, weak_convexity >= 0, smoothness >= 0")
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
        raise ValueError(f"lr must be <= 1/(2(weak_convexity + smoothness)) = {1.0 / (2.0 * s)}, got {lam!r}")


def _order(alpha: Real) -> mp.mpf:
    a = mp.mpf(alpha)
    if not a > 1:
        raise ValueError("order must be > 1")
    return a


# --------------------------------------------------------------------------------- θ helpers


def shift_weight_min_steps(
    slack: Real, step_lipschitz: Optional[Real] = None, *, kappa: Optional[Real] = None, dps: int = DEFAULT_DPS
) -> mp.mpf:
    """Lemma C.1: s_min = log_L √(ξ/(ξ − 1)) = ln(ξ/(ξ − 1))/(2 ln L) for L > 1, ξ > 1
    (θ_L(s) ≤ ξ(1 − L^{−2}) for every s ≥ s_min; real-valued), ξ = ``slack``,
    L = ``step_lipschitz``."""
    L = step_lipschitz
    with mp.workdps(dps + GUARD):
        xi = mp.mpf(slack)
        if L is None and kappa is not None:
            k = mp.mpf(kappa)
            if not k > 0:
                raise ValueError("kappa must be > 0 (L > 1)")
            lnL = mp.log1p(k) / 2  # ln √(1 + κ), exact identity
        else:
            Lm = _lip(L, kappa)
            if not Lm > 1:
                raise ValueError("step_lipschitz must be > 1")
            lnL = mp.log(Lm)
        if not xi > 1:
            raise ValueError("slack must be > 1")
        # ln √(ξ/(ξ − 1)) = ½ ln(1 + 1/(ξ − 1)) (log1p keeps its digits for huge ξ)
        val = mp.log1p(1 / (xi - 1)) / 2 / lnL
    with mp.workdps(dps):
        return +val


def cyclic_shift_weight_sum(
    steps: int, batches_per_epoch: int, step_lipschitz: Optional[Real] = None, *, kappa: Optional[Real] = None,
    dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ), θ by its definition (eq. (6))."""
    T, ell = _int("steps", steps), _int("batches_per_epoch", batches_per_epoch, 1)
    with mp.workdps(dps + GUARD):
        val = _phi(_lip(step_lipschitz, kappa), T, ell)
    with mp.workdps(dps):
        return +val


def clipped_step_kappa(
    lr: Real, weak_convexity: Real, smoothness: Real, contraction: str = "triangle", dps: int = DEFAULT_DPS
) -> mp.mpf:
    """κ = L_λ² − 1 with L_λ = 1 + λ max(m, M) (``"triangle"``) or eq. (12)
    L_λ = √(1 + 2λm[1 + m/(M + m)]) (``"as_published"``; L_λ = 1 when m = 0); λ = ``lr``,
    m = ``weak_convexity``, M = ``smoothness``."""
    with mp.workdps(dps + GUARD):
        Lm = _l_lambda(lr, weak_convexity, smoothness, contraction)
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
    order: Real, noise_scale: Real, drift: Real, steps: int, batches_per_epoch: int = 1,
    map_difference: Optional[Real] = None, variant: str = "corrected", dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Prop. 2.2(b). ``"corrected"``: (α/(2σ²))Σ_{t ≤ T}(ζ + s_t)², the cost of the residuals
    a_t = ζ + s_t of its proof (s_t = s̄ = ``map_difference`` at the first step of each ℓ-cycle;
    s̄ defaults to ζ = ``drift``). ``"as_published"``: eq. (8), 2αT(ζ/σ)²."""
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be 'corrected' or 'as_published', got {variant!r}")
    T = _int("steps", steps, 1)
    with mp.workdps(dps + GUARD):
        a, sg, z = _order(order), mp.mpf(noise_scale), mp.mpf(drift)
        if variant == "as_published":
            val = 2 * a * T * (z / sg) ** 2
        else:
            ell = _int("batches_per_epoch", batches_per_epoch, 1)
            if ell > T:
                raise ValueError("batches_per_epoch must be in 1..steps")
            sb = z if map_difference is None else mp.mpf(map_difference)
            val = a / (2 * sg**2) * _residual_sum(T, ell, z, sb)
    with mp.workdps(dps):
        return +val


def shifted_cycle_bound(
    order: Real, noise_scale: Real, steps: int, batches_per_epoch: int, map_difference: Real,
    initial_distance: Real = 0.0, step_lipschitz: Optional[Real] = None, *, kappa: Optional[Real] = None,
    dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Prop. 2.2(a), eq. (7): α/(2σ²)[(Lτ + s̄)²θ_L(ℓ) + s̄²{(E − 1)θ_L(ℓ) + θ_L(T − Eℓ)}]."""
    T, ell = _int("steps", steps, 1), _int("batches_per_epoch", batches_per_epoch, 1)
    if T < ell:
        raise ValueError("need steps >= batches_per_epoch >= 1")
    with mp.workdps(dps + GUARD):
        a, sg, sb, tau = _order(order), mp.mpf(noise_scale), mp.mpf(map_difference), mp.mpf(initial_distance)
        Lm = _lip(step_lipschitz, kappa)
        E = T // ell
        th = _theta(Lm, ell)
        val = a / (2 * sg**2) * ((Lm * tau + sb) ** 2 * th + sb**2 * ((E - 1) * th + _theta(Lm, T - E * ell)))
    with mp.workdps(dps):
        return +val


def optimal_shifts(
    steps: int, initial_distance: Real, map_difference: Real, step_lipschitz: Optional[Real] = None, *,
    kappa: Optional[Real] = None, dps: int = DEFAULT_DPS,
) -> list:
    """App. B: the minimiser of ½Σa_t² subject to R̃_T = 0 (R̃_t ≥ 0 inactive),
    a_t = ξL^{T−t}, ξ = L^{T−1}(Lτ + s)/Σ_{i=0}^{T−1} L^{2i}, t = 1..T (list of mpf);
    T = ``steps``, τ = ``initial_distance``, s = ``map_difference``, L = ``step_lipschitz``."""
    T = _int("steps", steps, 1)
    with mp.workdps(dps + GUARD):
        tau, s = mp.mpf(initial_distance), mp.mpf(map_difference)
        Lm = _lip(step_lipschitz, kappa)
        xi = Lm ** (T - 1) * (Lm * tau + s) / mp.fsum(Lm ** (2 * i) for i in range(T))
        vals = [xi * Lm ** (T - t) for t in range(1, T + 1)]
    with mp.workdps(dps):
        return [+v for v in vals]


# --------------------------------------------------------------------------------- Thms 4.3–4.5


def last_iterate_rdp_general(
    order: Real, lr: Real, max_grad_norm: Real, noise_scale: Real, steps: int, batch_size: Optional[int] = None,
    batches_per_epoch: Optional[int] = None, index: Optional[int] = None, dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Thm 4.3: 8αT(λC/σ)² (eq. (18)). With ``batch_size`` b, ``batches_per_epoch`` ℓ: the exact
    residual sum of Prop. 2.2(b) with ζ = 2λC, s̄ = 2λC/b over T_eff = T − t* + 1 steps,
    (α/(2σ²))Σ_{t ≤ T_eff}(ζ + s_t)², maximised over t* = ``index`` ∈ [1, ℓ] (enumerated) if
    it is None."""
    b, ell, t_star = batch_size, batches_per_epoch, index
    if (b is None) != (ell is None):
        raise ValueError("pass both batch_size and batches_per_epoch or neither")
    T = _int("steps", steps, 1)
    with mp.workdps(dps + GUARD):
        a, lam, C, sg = _order(order), mp.mpf(lr), mp.mpf(max_grad_norm), mp.mpf(noise_scale)
        if b is None:
            val = 8 * a * T * (lam * C / sg) ** 2
        else:
            b, ell = _int("batch_size", b, 1), _int("batches_per_epoch", ell, 1)
            if T < ell:
                raise ValueError("need steps >= batches_per_epoch")
            zeta = 2 * lam * C
            sbar = 2 * lam * C / b
            stars = range(1, ell + 1) if t_star is None else [_int("index", t_star, 1)]
            if t_star is not None and t_star > ell:
                raise ValueError("index must be in 1..batches_per_epoch")
            val = max(a / (2 * sg**2) * _residual_sum(T - ts + 1, ell, zeta, sbar) for ts in stars)
    with mp.workdps(dps):
        return +val


def last_iterate_rdp_bounded(
    order: Real, lr: Real, max_grad_norm: Real, batch_size: int, noise_scale: Real, diameter: Real,
    weak_convexity: Real, smoothness: Real, contraction: str = "triangle", dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Thm 4.4, eq. (20): α/(2σ²)(L_λ D + 2λC/b)² (requires λ ≤ 1/(2(m + M)))."""
    lam, m, M = lr, weak_convexity, smoothness
    b = _int("batch_size", batch_size, 1)
    _check_step(lam, m, M)
    with mp.workdps(dps + GUARD):
        a, sg = _order(order), mp.mpf(noise_scale)
        Lm = _l_lambda(lam, m, M, contraction)
        val = a / (2 * sg**2) * (Lm * mp.mpf(diameter) + 2 * mp.mpf(lam) * mp.mpf(max_grad_norm) / b) ** 2
    with mp.workdps(dps):
        return +val


def last_iterate_rdp_cyclic(
    order: Real, lr: Real, max_grad_norm: Real, batch_size: int, noise_scale: Real, steps: int,
    batches_per_epoch: int, weak_convexity: Real, smoothness: Real, index: Optional[int] = None,
    variant: str = "corrected", contraction: str = "triangle", dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Thm 4.5. Corrected: 2α(λC/(bσ))²Φ_{L_λ}(T − t* + 1, ℓ) (Prop. 2.2(a) from Y_0 = X_{t*−1},
    τ = 0, s̄ = 2λC/b), the maximum over t* ∈ [1, ℓ] (enumerated) if t* is None.
    ``"as_published"``: eq. (21), 4α(λC/(bσ))²[θ_{L_λ}(T − Eℓ) + Eθ_{L_λ}(ℓ)], E = ⌊T/ℓ⌋."""
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be 'corrected' or 'as_published', got {variant!r}")
    lam, m, M, t_star = lr, weak_convexity, smoothness, index
    T, ell = _int("steps", steps, 1), _int("batches_per_epoch", batches_per_epoch, 1)
    b = _int("batch_size", batch_size, 1)
    if T < ell:
        raise ValueError("need steps >= batches_per_epoch")
    _check_step(lam, m, M)
    with mp.workdps(dps + GUARD):
        a, sg = _order(order), mp.mpf(noise_scale)
        Lm = _l_lambda(lam, m, M, contraction)
        unit = a * (mp.mpf(lam) * mp.mpf(max_grad_norm) / (b * sg)) ** 2
        if variant == "as_published":
            E = T // ell
            val = 4 * unit * (_theta(Lm, T - E * ell) + E * _theta(Lm, ell))
        else:
            if t_star is not None:
                ts = _int("index", t_star, 1)
                if ts > ell:
                    raise ValueError("index must be in 1..batches_per_epoch")
                stars: Sequence[int] = [ts]
            else:
                stars = range(1, ell + 1)
            cache: dict = {}
            val = 2 * unit * max(_phi(Lm, T - ts + 1, ell, cache) for ts in stars)
    with mp.workdps(dps):
        return +val


def last_iterate_rdp_small_step(
    order: Real, max_grad_norm: Real, batch_size: int, noise_scale: Real, batches_per_epoch: int, lr: Real,
    weak_convexity: Real, smoothness: Real, contraction: str = "triangle", dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Cor. C.3: 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)] (requires λ ≤ 1/(2(m + M)); λ ≤ 1/√E is the
    caller's)."""
    lam, m, M = lr, weak_convexity, smoothness
    b, ell = _int("batch_size", batch_size, 1), _int("batches_per_epoch", batches_per_epoch, 1)
    _check_step(lam, m, M)
    with mp.workdps(dps + GUARD):
        a, sg = _order(order), mp.mpf(noise_scale)
        Lm = _l_lambda(lam, m, M, contraction)
        val = 4 * a * (mp.mpf(max_grad_norm) / (b * sg)) ** 2 * (1 + _theta(Lm, ell))
    with mp.workdps(dps):
        return +val


def cyclic_calibrate(
    order: Real, rdp: Real, weak_convexity: Real, smoothness: Real, max_grad_norm: Real, batch_size: int,
    epochs: int, variant: str = "corrected", dps: int = DEFAULT_DPS,
) -> tuple:
    """Cor. C.2: (λ̄, ℓ̄, σ̄) with λ̄ = 1/(2(M + ρ)), ℓ̄ = log 2/log(1 + ρλ̄) and
    σ̄ = (2Cλ̄/b)√((α/ε)(1 + 4ρE/(M + ρ))) (corrected, docs/errata.md#r-k11) or
    (Cλ̄/(2b))√((1 + 4ρE/(M + ρ))/(αε)) (``"as_published"``)."""
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be 'corrected' or 'as_published', got {variant!r}")
    b, E = _int("batch_size", batch_size, 1), _int("epochs", epochs)
    with mp.workdps(dps + GUARD):
        a, eps, rho = _order(order), mp.mpf(rdp), mp.mpf(weak_convexity)
        M, C = mp.mpf(smoothness), mp.mpf(max_grad_norm)
        if not (eps > 0 and rho > 0 and M >= 0 and C > 0):
            raise ValueError("need rdp > 0, weak_convexity > 0, smoothness >= 0, max_grad_norm > 0")
        lam = 1 / (2 * (M + rho))
        ell = mp.log(2) / mp.log(1 + rho * lam)
        f = 1 + 4 * rho / (M + rho) * E
        if variant == "corrected":
            sig = 2 * C * lam / b * mp.sqrt(a / eps * f)
        else:
            sig = C * lam / (2 * b) * mp.sqrt(f / (a * eps))
    with mp.workdps(dps):
        return +lam, +ell, +sig
