"""The hockey-stick divergence of two given distributions and the contraction coefficient of a
given Markov kernel: the generic tools behind amplification by iteration (Asoodeh–Diaz–Calmon,
*Privacy amplification of iterative algorithms via contraction coefficients*, Thm 2; the
derivation: docs/derivations/theta.md#given-distributions), for users with their own noise,
projection or randomiser.

For γ = e^ε, E_γ(P‖Q) = sup_A P(A) − γQ(A) is the smallest δ such that a mechanism whose
outputs on two neighbouring inputs have the laws P and Q is (ε, δ)-DP in that direction; for a
kernel K, η_γ(K) = sup E_γ(μK‖νK)/E_γ(μ‖ν) is how much one application of K contracts it, and
equals the largest E_γ between two rows of K. A chain of kernels after the step where two runs
differ gives δ ≤ E_γ(first difference)·Π η_γ(K_t) (000 eq. (2), Lemma 3).

:func:`mixture_hockey_stick_divergence` is E_γ of two given mixtures of 1-D Gaussians (the
output laws of a subsampled Gaussian mechanism, or any user's noise mixture), certified by
adaptive cells (docs/derivations/theta.md#gaussian-mixtures).
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np

from . import _core
from ._bridge import ArrayLike, Float, FloatArray, Scalar, as_real, real_array, real_scalar

__all__ = ["hockey_stick_divergence", "contraction_coefficient", "mixture_hockey_stick_divergence"]


@overload
def hockey_stick_divergence(p_mass: ArrayLike, q_mass: ArrayLike, eps: Scalar = 0.0) -> float: ...
@overload
def hockey_stick_divergence(p_mass: ArrayLike, q_mass: ArrayLike, eps: ArrayLike) -> FloatArray: ...
def hockey_stick_divergence(p_mass: ArrayLike, q_mass: ArrayLike, eps: ArrayLike = 0.0) -> Float:
    """E_{e^ε}(P‖Q) = Σ_y (p_y − e^ε q_y)_+ of two discrete distributions on the same support.

    ``p_mass``, ``q_mass``: 1-D arrays of probability masses (entries in [0, 1]; the value is
    that of the given measures, so they need not sum to exactly 1). ``eps`` ≥ 0 (+inf allowed):
    a scalar gives a float, an array an array of its shape. Never below the exact value for the
    given doubles (γq_y in double-double, rounded toward the safe side). ε = 0 gives the total
    variation distance.

    >>> hockey_stick_divergence([0.5, 0.5], [0.25, 0.75])  # total variation
    0.25...
    >>> import math
    >>> p = math.e / (1 + math.e)  # randomized response with epsilon = 1 is (1, 0)-DP
    >>> hockey_stick_divergence([p, 1 - p], [1 - p, p], eps=1.0) < 1e-15
    True
    """
    p = real_array("p_mass", p_mass, ndim=1)
    q = real_array("q_mass", q_mass, ndim=1)
    e = as_real("eps", eps)  # its shape (ndim 0 for a scalar) is the result's
    out = _core.hockey_stick_divergence(p, q, np.ascontiguousarray(e, dtype=np.float64).reshape(-1))
    return float(out[0]) if e.ndim == 0 else out.reshape(e.shape)


def contraction_coefficient(kernel: ArrayLike, eps: Scalar = 0.0) -> float:
    """η_{e^ε}(K) = max over rows x ≠ x' of E_{e^ε}(K(x)‖K(x')) for a finite Markov kernel.

    ``kernel``: a 2-D array, row x the output distribution on input x (entries in [0, 1], each
    row summing to 1). ``eps`` ≥ 0. Rounded up. The work is rows²·columns (at most 2^34, checked
    before it starts). ε = 0 gives Dobrushin's coefficient.

    >>> contraction_coefficient([[0.9, 0.1], [0.1, 0.9]])  # binary symmetric channel: 1 - 2c
    0.8...
    """
    k = real_array("kernel", kernel, ndim=2)
    e = real_scalar("eps", eps)
    return float(_core.contraction_coefficient(k.reshape(-1), k.shape[0], k.shape[1], e))


def _mixture(prefix: str, weights: ArrayLike, means: ArrayLike, stds: ArrayLike
             ) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(weights, means, stds) of one mixture, each a checked 1-D float64 array."""
    return (real_array(f"{prefix}_weights", weights, ndim=1), real_array(f"{prefix}_means", means, ndim=1),
            real_array(f"{prefix}_stds", stds, ndim=1))


def mixture_hockey_stick_divergence(p_weights: ArrayLike, p_means: ArrayLike, p_stds: ArrayLike,
                                    q_weights: ArrayLike, q_means: ArrayLike, q_stds: ArrayLike,
                                    eps: ArrayLike = 0.0, *, bracket: bool = False) -> Any:
    """E_{e^ε}(P‖Q) = ∫ (p − e^ε q)_+ for two mixtures of one-dimensional Gaussians.

    P = Σ_i p_weights[i]·N(p_means[i], p_stds[i]²) and likewise Q (the two may have different
    numbers of components). Weights in [0, 1] summing to 1 within 1e-12, |mean| ≤ 1e100,
    standard deviations in [1e-100, 1e100]; ``eps`` ≥ 0 (+inf allowed), a scalar or an array
    (the result has its shape). Never below the exact value for the given doubles: the line
    is cut into cells on which the densities are bounded (each component is unimodal), the
    cells where p ≥ e^ε q throughout are summed exactly through the Gaussian tail, and the
    uncertain cells (around the roots of p − e^ε q) are bisected until they hold at most
    2^-43 of the value plus 1e-301, within a budget of 2^16 cells per ε (past it the bound is
    still safe, only wider). Components with the same (mean, std) in P and Q are first merged
    into one signed coefficient w_P − e^ε w_Q (formed exactly up to the rounding of expm1(ε)),
    so that identical parts cancel exactly (e.g. a subsampled Gaussian at a tiny sampling
    rate); one Gaussian each with equal weights and stds is θ_{e^ε}(|Δμ|/s) in double-double
    (any shift, however small). Where P and e^ε Q otherwise agree to ~1e-15 over a region
    (several components shifted or rescaled by tiny amounts) the cells cannot separate them:
    the value is then still an upper bound, but may be far above the exact one — compare
    with the lower end of ``bracket=True``. ``bracket=True`` returns ``(lower, upper)``, the
    certified bracket of the exact value. One Gaussian each reproduces :func:`pabi.theta`.

    >>> import pabi
    >>> v = mixture_hockey_stick_divergence([1.0], [1.0], [1.0], [1.0], [0.0], [1.0], eps=1.0)
    >>> abs(v - pabi.theta(1.0, 1.0)) < 1e-13
    True
    >>> lo, up = mixture_hockey_stick_divergence([0.9, 0.1], [0, 1], [1, 1], [0.9, 0.1], [0, -1],
    ...                                          [1, 1], eps=[0.0, 0.5], bracket=True)
    >>> bool((lo <= up).all() and (up - lo <= 1e-12 * up).all())
    True
    """
    p = _mixture("p", p_weights, p_means, p_stds)
    q = _mixture("q", q_weights, q_means, q_stds)
    e = as_real("eps", eps)
    up, lo = _core.mixture_hockey_stick_divergence(
        *p, *q, np.ascontiguousarray(e, dtype=np.float64).reshape(-1))
    if e.ndim == 0:
        return (float(lo[0]), float(up[0])) if bracket else float(up[0])
    return (lo.reshape(e.shape), up.reshape(e.shape)) if bracket else up.reshape(e.shape)
