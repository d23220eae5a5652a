"""ERM with output perturbation (paper 001, Chen–Lee–Kifer 2019): the gradient-step
contraction, multi-epoch sensitivity, averaged and mixture RDP, and the Gaussian mechanism's
RDP. The Rényi ``order`` comes first; the setup (``lr``, ``strong_convexity``, ``smoothness``,
``noise_scale``, ...) is keyword-only. Re-exported by :mod:`pabi.rdp` (whose ``__all__`` lists the
public names).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Sequence, Union, overload

import numpy as np

from .. import _core
from .._bridge import ArrayLike, Float, FloatArray, Scalar, call as _call, real_array as _real_array
from ._common import _opt_int, _check_entries, _samples

#: One row of samples (a list of numbers, or an array typed 1-D): with scalar other arguments the
#: result is a float. An array of unknown dimension is typed as such a row (a 2-D one holds several
#: rows and gives an array, which a type checker cannot tell from its type). ``Sequence[float]``
#: takes ints too (and numpy's float64, a float); it is array-like, as the implementations need.
_Row = Union[Sequence[float], "np.ndarray[tuple[int], np.dtype[Any]]"]


class GdContraction(NamedTuple):
    """The contraction of a gradient step (:func:`gd_contraction`). Floats for scalar
    arguments, arrays of the broadcast shape otherwise."""

    rho: Float
    """ρ = max{|1 − ηm|, |1 − ηM|}, the contraction factor (rounded up)."""
    gap: Float
    """1 − ρ = min{ηm, 2 − ηM}, computed without cancellation (rounded down)."""


def gd_contraction(lr: ArrayLike, *, strong_convexity: ArrayLike, smoothness: ArrayLike) -> GdContraction:
    """(ρ, 1 − ρ) of a gradient step with step size ``lr`` η on a loss of ``strong_convexity``
    m > 0 and ``smoothness`` M ≥ m (paper 001 Lemma 2): ρ = max{|1 − ηm|, |1 − ηM|}, with
    1 − ρ = min{ηm, 2 − ηM} exact (no cancellation). Domain 0 < η < 2/M. Broadcasts; returns a
    :class:`GdContraction` (rho, gap).

    >>> gd_contraction(0.5, strong_convexity=1.0, smoothness=3.0)
    GdContraction(rho=0.5000000000000002, gap=0.4999999999999999)
    """
    out = _call(_core.gd_contraction, ("lr", "strong_convexity", "smoothness"), lr, strong_convexity,
                smoothness, nout=2)
    return GdContraction(*out)


@overload
def sensitivity_multi_epoch(*, lr: Scalar, strong_convexity: Scalar, smoothness: Scalar, max_grad_norm: Scalar,
                            batch_size: Scalar, batches_per_epoch: Scalar, batch_index: Scalar,
                            epochs: Optional[Scalar] = None) -> float: ...
@overload
def sensitivity_multi_epoch(*, lr: ArrayLike, strong_convexity: ArrayLike, smoothness: ArrayLike,
                            max_grad_norm: ArrayLike, batch_size: ArrayLike, batches_per_epoch: ArrayLike,
                            batch_index: ArrayLike, epochs: Optional[ArrayLike] = None) -> FloatArray: ...
def sensitivity_multi_epoch(*, lr: ArrayLike, strong_convexity: ArrayLike, smoothness: ArrayLike,
                            max_grad_norm: ArrayLike, batch_size: ArrayLike, batches_per_epoch: ArrayLike,
                            batch_index: ArrayLike, epochs: Optional[ArrayLike] = None) -> Float:
    """Sensitivity of multi-epoch mini-batch gradient descent (paper 001 Prop. 2, eq. (7)):
    ρ^{m−j}(2ηR/|B|)(1 − ρ^{km})/(1 − ρ^m), stable 1 − ρ^m, with ρ of :func:`gd_contraction`
    (``lr`` η, ``strong_convexity``, ``smoothness``), R = ``max_grad_norm`` ≥ 0 (the bound on
    each example's gradient norm), |B| = ``batch_size`` > 0, m = ``batches_per_epoch`` ≥ 1,
    j = ``batch_index`` in 1..m (the batch holding the differing record) and k = ``epochs``
    (None: k → ∞). Broadcasts.

    >>> round(sensitivity_multi_epoch(lr=0.5, strong_convexity=1.0, smoothness=1.0, max_grad_norm=1.0,
    ...                               batch_size=1.0, batches_per_epoch=1, batch_index=1), 12)   # ρ = ½
    2.0
    """
    return _call(
        _core.sensitivity_multi_epoch,
        ("lr", "strong_convexity", "smoothness", "max_grad_norm", "batch_size", "batches_per_epoch", "batch_index",
         "epochs"),
        lr, strong_convexity, smoothness, max_grad_norm, batch_size, batches_per_epoch, batch_index,
        _opt_int("epochs", epochs),
    )


@overload
def averaged_rdp(order: Scalar, *, noise_scale: Scalar, sensitivities: _Row) -> float: ...
@overload
def averaged_rdp(order: ArrayLike, *, noise_scale: ArrayLike, sensitivities: ArrayLike) -> FloatArray: ...
def averaged_rdp(order: ArrayLike, *, noise_scale: ArrayLike, sensitivities: ArrayLike) -> Float:
    """Averaged RDP of output perturbation (paper 001 Prop. 3) at α = ``order``:
    (1/(α − 1))·ln mean_j exp(α(α − 1)Δ_j²/(2σ²)), stable (log1p/expm1 near α = 1, log-mean-exp
    when large); tends to mean Δ²/(2σ²) as α → 1. σ = ``noise_scale`` > 0 (the Gaussian noise's
    standard deviation); the samples Δ_j = ``sensitivities`` (≥ 0) are on the LAST axis; α and σ
    broadcast against the leading axes (e.g. a whole RDP curve: ``order`` of shape (k,)).
    Returns a float when every argument is a scalar but ``sensitivities`` (1-D).

    >>> round(averaged_rdp(2.0, noise_scale=1.0, sensitivities=[0.0, 1.0]), 12)   # ln((1 + e)/2)
    0.620114506958
    """
    flat, rows, m = _samples("sensitivities", sensitivities)
    return _call(
        lambda a, s, r: _core.averaged_rdp(a, s, r, flat, m), ("order", "noise_scale", "sensitivities"), order,
        noise_scale, rows
    )


@overload
def gaussian_mechanism_rdp(order: Scalar, *, sensitivity: Scalar, noise_scale: Scalar) -> float: ...
@overload
def gaussian_mechanism_rdp(order: ArrayLike, *, sensitivity: ArrayLike, noise_scale: ArrayLike) -> FloatArray: ...
def gaussian_mechanism_rdp(order: ArrayLike, *, sensitivity: ArrayLike, noise_scale: ArrayLike) -> Float:
    """RDP of the Gaussian mechanism, αΔ²/(2σ²) (Mironov 2017), at α = ``order`` > 1 for L2
    ``sensitivity`` Δ ≥ 0 and ``noise_scale`` σ > 0 (the noise's standard deviation, in the
    units of Δ). Broadcasts.

    >>> gaussian_mechanism_rdp([2.0, 4.0], sensitivity=1.0, noise_scale=1.0)
    array([1., 2.])
    """
    return _call(_core.gaussian_mechanism_rdp, ("order", "sensitivity", "noise_scale"), order, sensitivity, noise_scale)


@overload
def mixture_rdp_bound(order: Scalar, *, weights: _Row, rdp: _Row) -> float: ...
@overload
def mixture_rdp_bound(order: ArrayLike, *, weights: ArrayLike, rdp: ArrayLike) -> FloatArray: ...
def mixture_rdp_bound(order: ArrayLike, *, weights: ArrayLike, rdp: ArrayLike) -> Float:
    """RDP of a mixture of mechanisms (paper 001 Lemma 3) at α = ``order``:
    (1/(α − 1))·ln Σ_j q_j e^{(α−1)ε_j}, log-sum-exp, for ``weights`` q_j (in [0, 1], summing
    to 1) and the components' RDP ε_j = ``rdp`` (≥ 0) at that order. The components are on the
    LAST axis of ``weights`` and ``rdp`` (same length); α broadcasts against their leading axes
    (e.g. ``rdp`` of shape (k, J) with the components' RDP at k orders).
    Returns a float when ``order`` is a scalar and ``weights``, ``rdp`` are 1-D.

    >>> round(mixture_rdp_bound(2.0, weights=[0.5, 0.5], rdp=[0.0, 1.0]), 12)
    0.620114506958
    """
    w = _real_array("weights", weights)
    e = _real_array("rdp", rdp)
    if w.ndim == 0 or e.ndim == 0 or w.shape[-1] != e.shape[-1] or w.shape[-1] == 0:
        raise ValueError(f"weights and rdp must be non-empty with equal last axes, got {w.shape} and {e.shape}")
    m = w.shape[-1]
    # element checks over the whole arrays, so that the error carries the caller's (n-d) index
    # (the core sees one row per broadcast element and reported the element, not the entry)
    _check_entries("weights", w, "in [0, 1]", lambda x: (x >= 0) & (x <= 1))
    _check_entries("rdp", e, ">= 0 (not NaN)", lambda x: x >= 0)
    wf = np.ascontiguousarray(w).reshape(-1)
    ef = np.ascontiguousarray(e).reshape(-1)
    wr = np.arange(wf.size // m, dtype=np.float64).reshape(w.shape[:-1])
    er = np.arange(ef.size // m, dtype=np.float64).reshape(e.shape[:-1])
    return _call(
        lambda a, x, y: _core.mixture_rdp_bound(a, x, y, wf, ef, m), ("order", "weights", "rdp"), order, wr, er
    )
