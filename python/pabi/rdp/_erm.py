"""ERM with output perturbation (paper 001, Chen–Lee–Kifer 2019): the gradient-step
contraction, multi-epoch sensitivity, averaged and mixture RDP, and the Gaussian mechanism's
RDP. Re-exported by :mod:`pabi.rdp` (whose ``__all__`` lists the
public names).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .. import _core
from .._bridge import ArrayLike, DomainError, Float, call as _call, real_array as _real_array, rename as _rename
from ._common import _opt_int, _check_entries, _samples



def gd_contraction_rho(eta: ArrayLike, mu: ArrayLike, smoothness: ArrayLike) -> tuple[Float, Float]:
    """(ρ, 1 − ρ) of a gradient step on a μ-strongly convex, L-smooth loss (paper 001 Lemma 2):
    ρ = max{|1 − ημ|, |1 − ηL|}, with 1 − ρ = min{ημ, 2 − ηL} exact (no cancellation).
    Broadcasts.

    >>> gd_contraction_rho(0.5, 1.0, 3.0)
    (0.5000000000000002, 0.4999999999999999)
    """
    return _call(_core.gd_contraction_rho, ("eta", "mu", "smoothness"), eta, mu, smoothness, nout=2)


def sensitivity_multi_epoch(
    eta: ArrayLike, mu: ArrayLike, smoothness: ArrayLike, grad_bound: ArrayLike, batch_size: ArrayLike,
    m: ArrayLike, j: ArrayLike, epochs: Optional[ArrayLike] = None,
) -> Float:
    """Sensitivity of multi-epoch mini-batch GD (paper 001 Prop. 2, eq. (7)):
    ρ^{m−j}(2ηR/|B|)(1 − ρ^{km})/(1 − ρ^m), k = ``epochs`` (None: k → ∞), stable 1 − ρ^m.
    Broadcasts.

    >>> round(sensitivity_multi_epoch(0.5, 1.0, 1.0, 1.0, 1.0, 1, 1), 12)   # ρ = ½: 1/(1 − ½)
    2.0
    """
    try:
        return _call(
            _core.sensitivity_multi_epoch,
            ("eta", "mu", "smoothness", "grad_bound", "batch_size", "m", "j", "epochs"),
            eta, mu, smoothness, grad_bound, batch_size, m, j, _opt_int("epochs", epochs),
        )
    except DomainError as exc:
        raise _rename(exc, "batch", "batch_size") from None


def averaged_rdp(alpha: ArrayLike, sigma: ArrayLike, sensitivities: ArrayLike) -> Float:
    """Averaged RDP of output perturbation (paper 001 Prop. 3):
    (1/(α − 1))·ln mean_j exp(α(α − 1)Δ_j²/(2σ²)), stable (log1p/expm1 near α = 1, log-mean-exp
    when large); tends to mean Δ²/(2σ²) as α → 1. The samples Δ_j are on the LAST axis; α and σ
    broadcast against the leading axes (e.g. a whole RDP curve: ``alpha`` of shape (k,)).

    >>> round(averaged_rdp(2.0, 1.0, [0.0, 1.0]), 12)   # ln((1 + e)/2)
    0.620114506958
    """
    flat, rows, m = _samples("sensitivities", sensitivities)
    return _call(
        lambda a, s, r: _core.averaged_rdp(a, s, r, flat, m), ("alpha", "sigma", "sensitivities"), alpha, sigma, rows
    )


def gaussian_mech_rdp(alpha: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike) -> Float:
    """RDP of the Gaussian mechanism: αΔ²/(2σ²) (Mironov 2017). Broadcasts.

    >>> gaussian_mech_rdp([2.0, 4.0], 1.0, 1.0)
    array([1., 2.])
    """
    return _call(_core.gaussian_mech_rdp, ("alpha", "sensitivity", "sigma"), alpha, sensitivity, sigma)


def mixture_rdp_bound(alpha: ArrayLike, weights: ArrayLike, eps: ArrayLike) -> Float:
    """RDP of a mixture of mechanisms (paper 001 Lemma 3):
    (1/(α − 1))·ln Σ_j q_j e^{(α−1)ε_j}, log-sum-exp (weights q_j sum to 1). The components
    are on the LAST axis of ``weights`` and ``eps`` (same length); α broadcasts against their
    leading axes (e.g. ``eps`` of shape (k, J) with the components' RDP at k orders).

    >>> round(mixture_rdp_bound(2.0, [0.5, 0.5], [0.0, 1.0]), 12)
    0.620114506958
    """
    w = _real_array("weights", weights)
    e = _real_array("eps", eps)
    if w.ndim == 0 or e.ndim == 0 or w.shape[-1] != e.shape[-1] or w.shape[-1] == 0:
        raise ValueError(f"weights and eps must be non-empty with equal last axes, got {w.shape} and {e.shape}")
    m = w.shape[-1]
    # element checks over the whole arrays, so that the error carries the caller's (n-d) index
    # (the core sees one row per broadcast element and reported the element, not the entry)
    _check_entries("weights", w, "in [0, 1]", lambda x: (x >= 0) & (x <= 1))
    _check_entries("eps", e, ">= 0 (not NaN)", lambda x: x >= 0)
    wf = np.ascontiguousarray(w).reshape(-1)
    ef = np.ascontiguousarray(e).reshape(-1)
    wr = np.arange(wf.size // m, dtype=np.float64).reshape(w.shape[:-1])
    er = np.arange(ef.size // m, dtype=np.float64).reshape(e.shape[:-1])
    return _call(
        lambda a, x, y: _core.mixture_rdp_bound(a, x, y, wf, ef, m), ("alpha", "weights", "eps"), alpha, wr, er
    )
