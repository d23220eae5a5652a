"""Last-iterate RDP of cyclic DP-SGD (Kong–Ribero): the shift weight θ_L, its cyclic sum Φ_L,
the shifted-divergence bounds of Prop. 2.2, Thms 4.3–4.5, Cor. C.2–C.3 and Lemma C.1.
Re-exported by :mod:`pabi.rdp` (whose ``__all__`` lists the public names).

Vocabulary (the glossary's): ``order`` is the Rényi order α, ``lr`` the step size λ,
``max_grad_norm`` the clipping norm C, ``batch_size`` b, ``noise_scale`` the standard deviation σ
of the Gaussian noise added to the iterate, ``steps`` T, ``batches_per_epoch`` the cycle
length ℓ, ``index`` the first step t* at which the differing record is used,
``weak_convexity``/``smoothness`` the constants m/M of the loss and ``step_lipschitz`` the
Lipschitz constant L of one update map (or ``kappa`` = L² − 1). The RDP order comes first; the
training setup is keyword-only.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Optional, overload

import numpy as np

from .. import _core
from .._bridge import ArrayLike, DomainError, choice, Float, FloatArray, Scalar, call as _call, int_scalar as _int
from .._bridge import opt_real_scalar as _opt_real, real_scalar as _real, relocate as _relocate, rename as _rename
from ._common import _map_flag, _opt_int

_VARIANTS_DRIFT = ("corrected", "as_published")


def _lip_u(step_lipschitz: Optional[ArrayLike], kappa: Optional[ArrayLike]) -> tuple[Float, str]:
    """(u = ln L² from L or κ, the name of the parameter it came from, for messages). u is the
    core's carrier for θ_L: accurate near L = 1 from κ, and for small L from L, where κ ≈ −1
    has lost the relative accuracy of L²."""
    if kappa is not None and step_lipschitz is None:
        return _call(_core.log_lipschitz_squared_from_kappa, ("kappa",), kappa), "kappa"
    if step_lipschitz is not None and kappa is None:
        return _call(_core.log_lipschitz_squared, ("step_lipschitz",), step_lipschitz), "step_lipschitz"
    raise ValueError("pass exactly one of step_lipschitz and kappa (= step_lipschitz**2 - 1)")


def _contraction_flag(contraction: str) -> bool:
    return choice("contraction", contraction, ("triangle", "as_published")) == "as_published"


@overload
def shift_weight(steps: Scalar, step_lipschitz: Optional[Scalar] = None, *,
                 kappa: Optional[Scalar] = None) -> float: ...
@overload
def shift_weight(steps: ArrayLike, step_lipschitz: Optional[ArrayLike] = None, *,
                 kappa: Optional[ArrayLike] = None) -> FloatArray: ...
def shift_weight(steps: ArrayLike, step_lipschitz: Optional[ArrayLike] = None, *,
                 kappa: Optional[ArrayLike] = None) -> Float:
    """The shift weight θ_L(s) = L^{2(s−1)}/Σ_{j<s} L^{2j} (Kong–Ribero eq. (6)), θ(0) = 0.

    ``steps`` s: 0 or a real ≥ 1 (the number of steps the shift is spread over);
    ``step_lipschitz`` L ≥ 0: the Lipschitz constant of one update map, or ``kappa`` = L² − 1
    (≥ −1; pass it when known near L = 1: expm1 forms with u = log1p(κ)). Exactly one of the two.
    Broadcasts over ``steps`` and L (or κ). Rounded up (L is carried as u = ln L², from L
    rounded up by 2 ulp, which only loosens the bound).

    >>> round(shift_weight(4, step_lipschitz=1.0), 14)
    0.25
    >>> shift_weight([1, 2], step_lipschitz=[1.0, 2.0])
    array([1. , 0.8])
    """
    u, name = _lip_u(step_lipschitz, kappa)
    try:
        return _call(_core.shift_weight, (name, "steps"), u, steps)
    except DomainError as exc:
        raise _rename(exc, "step_lipschitz", name) from None


@overload
def cyclic_shift_weight_sum(steps: Scalar, *, batches_per_epoch: Scalar, step_lipschitz: Optional[Scalar] = None,
                            kappa: Optional[Scalar] = None) -> float: ...
@overload
def cyclic_shift_weight_sum(steps: ArrayLike, *, batches_per_epoch: ArrayLike,
                            step_lipschitz: Optional[ArrayLike] = None,
                            kappa: Optional[ArrayLike] = None) -> FloatArray: ...
def cyclic_shift_weight_sum(steps: ArrayLike, *, batches_per_epoch: ArrayLike,
                            step_lipschitz: Optional[ArrayLike] = None,
                            kappa: Optional[ArrayLike] = None) -> Float:
    """Φ_L(T, ℓ) = ⌊T/ℓ⌋θ_L(ℓ) + θ_L(T mod ℓ), the sum of the shift weights over the cycles
    (the bracket of Kong–Ribero (7), (21), (27)).

    ``steps`` T: an integer ≥ 0; ``batches_per_epoch`` ℓ: the cycle length, an integer ≥ 1;
    ``step_lipschitz`` L ≥ 0 or ``kappa`` = L² − 1 as in :func:`shift_weight`. Broadcasts.

    >>> round(cyclic_shift_weight_sum(10, batches_per_epoch=4, step_lipschitz=1.0), 12)   # 2·(1/4) + 1/2
    1.0
    """
    u, name = _lip_u(step_lipschitz, kappa)
    try:
        return _call(
            _core.cyclic_shift_weight_sum, (name, "steps", "batches_per_epoch"), u, steps, batches_per_epoch)
    except DomainError as exc:
        raise _rename(exc, "step_lipschitz", name) from None


@overload
def clipped_step_kappa(lr: Scalar, *, weak_convexity: Scalar, smoothness: Scalar,
                       contraction: str = "triangle") -> float: ...
@overload
def clipped_step_kappa(lr: ArrayLike, *, weak_convexity: ArrayLike, smoothness: ArrayLike,
                       contraction: str = "triangle") -> FloatArray: ...
def clipped_step_kappa(lr: ArrayLike, *, weak_convexity: ArrayLike, smoothness: ArrayLike,
                       contraction: str = "triangle") -> Float:
    """κ = L_λ² − 1 of the clipped gradient step with step size ``lr`` λ on a loss of weak
    convexity m and smoothness M.

    ``contraction="triangle"`` (default, proven with clipping): L = 1 + λ max(m, M).
    ``contraction="as_published"``: eq. (12), L² = 1 + 2λm(1 + m/(M + m)) — valid for the
    unclipped step only; with clipping it is unproven and false in dimension ≥ 2
    (docs/errata.md#r-k1). Domain (Prop. 3.4; every theorem using L_λ):
    0 < ``lr`` ≤ 1/(2(m + M)) (compared with the double ``1/(2*(m + M))``; any lr when
    m = M = 0), ``weak_convexity``, ``smoothness`` ≥ 0; a larger lr is a DomainError naming
    ``lr``. Broadcasts.

    >>> round(clipped_step_kappa(0.1, weak_convexity=1.0, smoothness=2.0), 12)   # (1 + 0.2)² − 1
    0.44
    """
    flag = _contraction_flag(contraction)
    return _call(
        functools.partial(_core.clipped_step_kappa, as_published=flag), ("lr", "weak_convexity", "smoothness"),
        lr, weak_convexity, smoothness)


@overload
def last_iterate_rdp_general(order: Scalar, *, lr: Scalar, max_grad_norm: Scalar, noise_scale: Scalar,
                             steps: Scalar, batch_size: Optional[Scalar] = None,
                             batches_per_epoch: Optional[Scalar] = None,
                             index: Optional[Scalar] = None) -> float: ...
@overload
def last_iterate_rdp_general(order: ArrayLike, *, lr: ArrayLike, max_grad_norm: ArrayLike,
                             noise_scale: ArrayLike, steps: ArrayLike, batch_size: Optional[ArrayLike] = None,
                             batches_per_epoch: Optional[ArrayLike] = None,
                             index: Optional[ArrayLike] = None) -> FloatArray: ...
def last_iterate_rdp_general(order: ArrayLike, *, lr: ArrayLike, max_grad_norm: ArrayLike,
                             noise_scale: ArrayLike, steps: ArrayLike, batch_size: Optional[ArrayLike] = None,
                             batches_per_epoch: Optional[ArrayLike] = None,
                             index: Optional[ArrayLike] = None) -> Float:
    """Last-iterate RDP of cyclic DP-SGD with no curvature assumption (Kong–Ribero Thm 4.3).

    ``order`` α > 1; ``lr`` λ > 0; ``max_grad_norm`` C ≥ 0 (the clipping norm);
    ``noise_scale`` σ > 0 (the noise's standard deviation on the iterate); ``steps`` T ≥ 1.
    Without ``batch_size``/``batches_per_epoch``: the printed 8αT(λC/σ)². With the batch size b
    and the cycle length ℓ = ``batches_per_epoch``: the exact residual sum of the same proof
    (docs/derivations/rdp.md#last-iterate, beyond the paper: Prop. 2.2(b) with ζ = 2λC,
    s̄ = 2λC/b, correctly indexed T_eff = T − t* + 1): (2αλ²C²/σ²)[T_eff + ⌈T_eff/ℓ⌉(2/b + 1/b²)],
    maximised over t* = ``index`` (in 1..ℓ) when it is None; never above the printed bound.
    Broadcasts.

    >>> last_iterate_rdp_general(2.0, lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100)
    16.000000000000227
    >>> round(last_iterate_rdp_general(2.0, lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100,
    ...                                batch_size=10, batches_per_epoch=10), 10)   # 0.04·(100 + 10·0.21)
    4.084
    """
    if (batch_size is None) != (batches_per_epoch is None):
        raise ValueError("pass both batch_size and batches_per_epoch (exact residual sum) or neither "
                         "(printed bound)")
    if batch_size is None or batches_per_epoch is None:  # both None (checked above)
        return _call(
            _core.last_iterate_rdp_general, ("order", "lr", "max_grad_norm", "noise_scale", "steps"),
            order, lr, max_grad_norm, noise_scale, steps)
    return _call(
        _core.last_iterate_rdp_general_exact,
        ("order", "lr", "max_grad_norm", "noise_scale", "steps", "batch_size", "batches_per_epoch", "index"),
        order, lr, max_grad_norm, noise_scale, steps, batch_size, batches_per_epoch, _opt_int("index", index),
    )


@overload
def shifted_drift_bound(order: Scalar, *, noise_scale: Scalar, drift: Scalar, steps: Scalar,
                        batches_per_epoch: Scalar = 1, map_difference: Optional[Scalar] = None,
                        variant: str = "corrected") -> float: ...
@overload
def shifted_drift_bound(order: ArrayLike, *, noise_scale: ArrayLike, drift: ArrayLike, steps: ArrayLike,
                        batches_per_epoch: ArrayLike = 1, map_difference: Optional[ArrayLike] = None,
                        variant: str = "corrected") -> FloatArray: ...
def shifted_drift_bound(order: ArrayLike, *, noise_scale: ArrayLike, drift: ArrayLike, steps: ArrayLike,
                        batches_per_epoch: ArrayLike = 1, map_difference: Optional[ArrayLike] = None,
                        variant: str = "corrected") -> Float:
    """Kong–Ribero Prop. 2.2(b): RDP growth of T = ``steps`` noisy steps Y ← prox(φ_t(Y) + Z),
    Z ~ N(0, σ²I) with σ = ``noise_scale``, whose maps have ``drift`` ζ
    (‖Φ(x) − Φ(y)‖ ≤ L‖x − y‖ + ζ, any L) and differ by s̄ = ``map_difference`` at the first
    step of each cycle of ℓ = ``batches_per_epoch`` steps, from τ = 0:
    D_α(Y_T‖Y'_T) − D_α(Y_0‖Y'_0) ≤ ... at α = ``order``.

    * ``variant="corrected"`` (default; docs/derivations/rdp.md#last-iterate, beyond the paper):
      the exact residual sum of the proof, α/(2σ²)[Tζ² + ⌈T/ℓ⌉(2ζs̄ + s̄²)], valid for any
      ζ, s̄ ≥ 0 (``map_difference`` defaults to ζ);
    * ``variant="as_published"``: eq. (8), 2αT(ζ/σ)² (stated for s̄ = ζ; ℓ, s̄ unused).

    The corrected form is never larger when s̄ = ζ (it is αζ²(T + 3⌈T/ℓ⌉)/(2σ²)). Broadcasts.

    >>> shifted_drift_bound(2.0, noise_scale=1.0, drift=1.0, steps=10, batches_per_epoch=5)   # 10 + 2·3 = 16
    16.000000000000455
    >>> shifted_drift_bound(2.0, noise_scale=1.0, drift=1.0, steps=10, variant="as_published")
    40.00000000000057
    """
    choice("variant", variant, _VARIANTS_DRIFT)
    if variant == "as_published":
        return _call(
            _core.shifted_drift_bound_published, ("order", "noise_scale", "drift", "steps"),
            order, noise_scale, drift, steps)
    sb = drift if map_difference is None else map_difference
    return _call(
        _core.shifted_drift_bound,
        ("order", "noise_scale", "drift", "map_difference", "steps", "batches_per_epoch"),
        order, noise_scale, drift, sb, steps, batches_per_epoch,
    )


@overload
def last_iterate_rdp_bounded(order: Scalar, *, lr: Scalar, max_grad_norm: Scalar, batch_size: Scalar,
                             noise_scale: Scalar, diameter: Scalar, weak_convexity: Scalar, smoothness: Scalar,
                             contraction: str = "triangle") -> float: ...
@overload
def last_iterate_rdp_bounded(order: ArrayLike, *, lr: ArrayLike, max_grad_norm: ArrayLike, batch_size: ArrayLike,
                             noise_scale: ArrayLike, diameter: ArrayLike, weak_convexity: ArrayLike,
                             smoothness: ArrayLike, contraction: str = "triangle") -> FloatArray: ...
def last_iterate_rdp_bounded(order: ArrayLike, *, lr: ArrayLike, max_grad_norm: ArrayLike, batch_size: ArrayLike,
                             noise_scale: ArrayLike, diameter: ArrayLike, weak_convexity: ArrayLike,
                             smoothness: ArrayLike, contraction: str = "triangle") -> Float:
    """Bounded domain (Kong–Ribero Thm 4.4): α/(2σ²)(L_λ D + 2λC/b)² at α = ``order``, with
    D = ``diameter`` (≥ 0) of the projection set, λ = ``lr``, C = ``max_grad_norm``,
    b = ``batch_size``, σ = ``noise_scale`` and L_λ from :func:`clipped_step_kappa`
    (``contraction``; default: the proven triangle constant). The theorem assumes
    λ ≤ 1/(2(m + M)) (m = ``weak_convexity``, M = ``smoothness``); a larger ``lr`` raises
    ``ValueError``. Broadcasts.

    >>> round(last_iterate_rdp_bounded(2.0, lr=0.1, max_grad_norm=1.0, batch_size=10, noise_scale=1.0,
    ...                                diameter=1.0, weak_convexity=0.0, smoothness=0.0), 12)   # (1 + 0.02)²
    1.0404
    """
    fn = functools.partial(_core.last_iterate_rdp_bounded, as_published=_contraction_flag(contraction))
    names = ("order", "lr", "weak_convexity", "smoothness", "diameter", "max_grad_norm", "batch_size", "noise_scale")
    return _call(
        fn, names, order, lr, weak_convexity, smoothness, diameter, max_grad_norm, batch_size, noise_scale)


@overload
def last_iterate_rdp_cyclic(order: Scalar, *, lr: Scalar, max_grad_norm: Scalar, batch_size: Scalar,
                            noise_scale: Scalar, steps: Scalar, batches_per_epoch: Scalar, weak_convexity: Scalar,
                            smoothness: Scalar, index: Optional[Scalar] = None, variant: str = "corrected",
                            contraction: str = "triangle") -> float: ...
@overload
def last_iterate_rdp_cyclic(order: ArrayLike, *, lr: ArrayLike, max_grad_norm: ArrayLike, batch_size: ArrayLike,
                            noise_scale: ArrayLike, steps: ArrayLike, batches_per_epoch: ArrayLike,
                            weak_convexity: ArrayLike, smoothness: ArrayLike, index: Optional[ArrayLike] = None,
                            variant: str = "corrected", contraction: str = "triangle") -> FloatArray: ...
def last_iterate_rdp_cyclic(order: ArrayLike, *, lr: ArrayLike, max_grad_norm: ArrayLike, batch_size: ArrayLike,
                            noise_scale: ArrayLike, steps: ArrayLike, batches_per_epoch: ArrayLike,
                            weak_convexity: ArrayLike, smoothness: ArrayLike, index: Optional[ArrayLike] = None,
                            variant: str = "corrected", contraction: str = "triangle") -> Float:
    """Lipschitz-smooth/weakly convex regime (Kong–Ribero Thm 4.5), correctly indexed
    (docs/errata.md#r-k3, #r-k4; default): 2α(λC/(bσ))²Φ_L(T − t* + 1, ℓ) for a known first
    occurrence t* = ``index`` (in 1..ℓ), else its maximum over t* ∈ [1, ℓ].
    ``variant="as_published"``: eq. (21), 4α(λC/(bσ))²Φ_L(T, ℓ), smaller than the correct bound
    in some settings (not certified).

    α = ``order``, λ = ``lr``, C = ``max_grad_norm``, b = ``batch_size``, σ = ``noise_scale``
    (on the iterate), T = ``steps`` ≥ ℓ = ``batches_per_epoch`` ≥ 1, L = L_λ of
    :func:`clipped_step_kappa` (``weak_convexity`` m, ``smoothness`` M, ``contraction``). The
    theorem assumes λ ≤ 1/(2(m + M)); a larger ``lr`` raises ``ValueError``. Broadcasts.

    >>> last_iterate_rdp_cyclic(1.0 + 1e-9, lr=1.0, max_grad_norm=1.0, batch_size=1, noise_scale=1.0, steps=5,
    ...                         batches_per_epoch=5, weak_convexity=0.0, smoothness=0.0) > 1.99
    True
    """
    vflag, mflag = _map_flag(variant), _contraction_flag(contraction)
    return _call(
        functools.partial(_core.last_iterate_rdp_cyclic, as_published=vflag, model_as_published=mflag),
        ("order", "lr", "weak_convexity", "smoothness", "max_grad_norm", "batch_size", "noise_scale", "steps",
         "batches_per_epoch", "index"),
        order, lr, weak_convexity, smoothness, max_grad_norm, batch_size, noise_scale, steps, batches_per_epoch,
        _opt_int("index", index),
    )


@overload
def shifted_cycle_bound(order: Scalar, *, noise_scale: Scalar, steps: Scalar, batches_per_epoch: Scalar,
                        map_difference: Scalar, initial_distance: Scalar = 0.0,
                        step_lipschitz: Optional[Scalar] = None, kappa: Optional[Scalar] = None) -> float: ...
@overload
def shifted_cycle_bound(order: ArrayLike, *, noise_scale: ArrayLike, steps: ArrayLike, batches_per_epoch: ArrayLike,
                        map_difference: ArrayLike, initial_distance: ArrayLike = 0.0,
                        step_lipschitz: Optional[ArrayLike] = None,
                        kappa: Optional[ArrayLike] = None) -> FloatArray: ...
def shifted_cycle_bound(order: ArrayLike, *, noise_scale: ArrayLike, steps: ArrayLike, batches_per_epoch: ArrayLike,
                        map_difference: ArrayLike, initial_distance: ArrayLike = 0.0,
                        step_lipschitz: Optional[ArrayLike] = None, kappa: Optional[ArrayLike] = None) -> Float:
    """Kong–Ribero Prop. 2.2(a), eq. (7):
    α/(2σ²)[(Lτ + s̄)²θ_L(ℓ) + s̄²{(E − 1)θ_L(ℓ) + θ_L(T − Eℓ)}], E = ⌊T/ℓ⌋, at α = ``order``,
    σ = ``noise_scale``, T = ``steps`` ≥ ℓ = ``batches_per_epoch`` ≥ 1, s̄ = ``map_difference``
    (≥ 0), τ = ``initial_distance`` (≥ 0) and L = ``step_lipschitz`` (or ``kappa`` = L² − 1).
    Broadcasts.

    >>> round(shifted_cycle_bound(2.0, noise_scale=1.0, steps=10, batches_per_epoch=5, map_difference=1.0,
    ...                           step_lipschitz=1.0), 12)   # 2·(1/5)
    0.4
    """
    u, name = _lip_u(step_lipschitz, kappa)
    try:
        return _call(
            _core.shifted_cycle_bound,
            ("order", "noise_scale", name, "initial_distance", "map_difference", "steps", "batches_per_epoch"),
            order, noise_scale, u, initial_distance, map_difference, steps, batches_per_epoch,
        )
    except DomainError as exc:
        raise _rename(exc, "step_lipschitz", name) from None


def optimal_shifts(
    steps: int, *, initial_distance: float, map_difference: float, step_lipschitz: Optional[float] = None,
    kappa: Optional[float] = None,
) -> FloatArray:
    """The optimal shifts of the App. B QP: a_t = (Lτ + s)θ_L(T)L^{1−t}, t = 1..T (no overflow).

    ``steps`` T: an integer in [1, 2^26] (a larger T is a DomainError before anything is
    allocated); ``initial_distance`` τ ≥ 0 and ``map_difference`` s ≥ 0, finite;
    ``step_lipschitz`` L ≥ 0 (L = 0 gives the limit: a_1 = s for T = 1, zeros for T ≥ 2) or
    ``kappa`` = L² − 1. Scalar arguments; the result is the length-T vector.

    >>> optimal_shifts(2, initial_distance=0.0, map_difference=1.0, step_lipschitz=1.0)
    array([0.5, 0.5])
    """
    T, tau, s = _int("steps", steps, lo=1), _real("initial_distance", initial_distance), _real(
        "map_difference", map_difference)
    L, kappa = _opt_real("step_lipschitz", step_lipschitz), _opt_real("kappa", kappa)
    u, name = _lip_u(L, kappa)
    try:
        return _core.optimal_residuals(float(u), T, tau, s)
    except DomainError as exc:
        raise _rename(_relocate(exc, (), True), "step_lipschitz", name) from None


class CyclicCalibration(NamedTuple):
    """The setup of Kong–Ribero Cor. C.2 (:func:`cyclic_calibrate`): step size, cycle length and
    noise scale. Floats for scalar arguments, arrays of the broadcast shape otherwise."""

    lr: Float
    """λ̄ = 1/(2(M + m)), the step size: the greatest double ≤ it (decided exactly), so that it
    satisfies the theorems' λ ≤ 1/(2(m + M)) (0.19999999999999998 for 1/5: the double 0.2 is
    above 1/5)."""
    batches_per_epoch: Float
    """ℓ̄ = ln 2/log1p(mλ̄), the cycle length (real; use its ceiling)."""
    noise_scale: Float
    """σ̄, the noise standard deviation on the iterate that certifies the target."""


def cyclic_calibrate(
    order: ArrayLike, rdp: ArrayLike, *, weak_convexity: ArrayLike, smoothness: ArrayLike,
    max_grad_norm: ArrayLike, batch_size: ArrayLike, epochs: ArrayLike, variant: str = "corrected",
) -> CyclicCalibration:
    """The setup (λ̄, ℓ̄, σ̄) of Kong–Ribero Cor. C.2 certifying (α, ε)-RDP at α = ``order``,
    ε = ``rdp`` (> 0): λ̄ = 1/(2(M + m)), ℓ̄ = ln 2/log1p(mλ̄) and the noise scale, corrected
    σ̄ = (2Cλ̄/b)·√(α(1 + 4mE/(M + m))/ε), with m = ``weak_convexity`` (> 0), M = ``smoothness``
    (≥ 0), C = ``max_grad_norm`` (> 0), b = ``batch_size`` and E = ``epochs``.
    ``variant="as_published"`` returns the printed σ̄, too small by 4α (it certifies 16α²ε;
    docs/errata.md#r-k11). Subject to caveat docs/errata.md#r-k1 (uses eq. (12)). Broadcasts;
    returns a :class:`CyclicCalibration` (lr, batches_per_epoch, noise_scale).

    >>> cal = cyclic_calibrate(8.0, 1.0, weak_convexity=0.5, smoothness=2.0, max_grad_norm=1.0,
    ...                        batch_size=10, epochs=5)
    >>> cal.lr, round(cal.noise_scale, 10)   # lr: the greatest double <= 1/5
    (0.19999999999999998, 0.2529822128)
    """
    flag = _map_flag(variant)
    out = _call(
        functools.partial(_core.cyclic_calibration, as_published=flag),
        ("order", "rdp", "weak_convexity", "smoothness", "max_grad_norm", "batch_size", "epochs"),
        order, rdp, weak_convexity, smoothness, max_grad_norm, batch_size, epochs, nout=3,
    )
    return CyclicCalibration(*out)


@overload
def shift_weight_min_steps(slack: Scalar, step_lipschitz: Optional[Scalar] = None, *,
                           kappa: Optional[Scalar] = None) -> float: ...
@overload
def shift_weight_min_steps(slack: ArrayLike, step_lipschitz: Optional[ArrayLike] = None, *,
                           kappa: Optional[ArrayLike] = None) -> FloatArray: ...
def shift_weight_min_steps(slack: ArrayLike, step_lipschitz: Optional[ArrayLike] = None, *,
                           kappa: Optional[ArrayLike] = None) -> Float:
    """Kong–Ribero Lemma C.1: for L > 1 and ξ = ``slack`` > 1, θ_L(s) ≤ ξ(1 − L^{−2}) for all
    s ≥ −log1p(−1/ξ)/log1p(κ) (returned; real-valued, use its ceiling for steps).
    ``step_lipschitz`` L > 1, or ``kappa`` = L² − 1 > 0. Broadcasts.

    >>> round(shift_weight_min_steps(2.0, step_lipschitz=2.0), 12)   # log_4 2
    0.5
    """
    if (step_lipschitz is None) == (kappa is None):
        raise ValueError("pass exactly one of step_lipschitz and kappa (= step_lipschitz**2 - 1)")
    if step_lipschitz is not None:
        # from L itself: κ = L² − 1 overflowed for huge L and the error named kappa
        return _call(
            _core.shift_weight_min_steps, ("step_lipschitz", "slack"), step_lipschitz, slack)
    assert kappa is not None
    return _call(_core.shift_weight_min_steps_kappa, ("kappa", "slack"), kappa, slack)


@overload
def last_iterate_rdp_small_step(order: Scalar, *, lr: Scalar, max_grad_norm: Scalar, batch_size: Scalar,
                                noise_scale: Scalar, batches_per_epoch: Scalar, weak_convexity: Scalar,
                                smoothness: Scalar, contraction: str = "triangle") -> float: ...
@overload
def last_iterate_rdp_small_step(order: ArrayLike, *, lr: ArrayLike, max_grad_norm: ArrayLike,
                                batch_size: ArrayLike, noise_scale: ArrayLike, batches_per_epoch: ArrayLike,
                                weak_convexity: ArrayLike, smoothness: ArrayLike,
                                contraction: str = "triangle") -> FloatArray: ...
def last_iterate_rdp_small_step(order: ArrayLike, *, lr: ArrayLike, max_grad_norm: ArrayLike,
                                batch_size: ArrayLike, noise_scale: ArrayLike, batches_per_epoch: ArrayLike,
                                weak_convexity: ArrayLike, smoothness: ArrayLike,
                                contraction: str = "triangle") -> Float:
    """Kong–Ribero Cor. C.3: 4α(C/(bσ))²[1 + θ_{L_λ}(ℓ)] for λ ≤ min{1/√E, 1/(2(m + M))}
    (independent of E and λ; caveats docs/errata.md#r-k1, #r-k17), at α = ``order``,
    C = ``max_grad_norm``, b = ``batch_size``, σ = ``noise_scale``, ℓ = ``batches_per_epoch`` and
    L_λ of :func:`clipped_step_kappa` (``lr``, ``weak_convexity``, ``smoothness``,
    ``contraction``). λ > 1/(2(m + M)) raises ``ValueError``; the condition λ ≤ 1/√E is the
    caller's (E is not an argument). Broadcasts.

    >>> round(last_iterate_rdp_small_step(2.0, lr=0.1, max_grad_norm=1.0, batch_size=1, noise_scale=1.0,
    ...                                   batches_per_epoch=4, weak_convexity=0.0, smoothness=0.0), 12)
    10.0
    """
    fn = functools.partial(_core.last_iterate_rdp_small_step, as_published=_contraction_flag(contraction))
    names = ("order", "lr", "weak_convexity", "smoothness", "max_grad_norm", "batch_size", "noise_scale",
             "batches_per_epoch")
    return _call(
        fn, names, order, lr, weak_convexity, smoothness, max_grad_norm, batch_size, noise_scale, batches_per_epoch)
