"""Rényi-DP bounds for DP-SGD: the sampled Gaussian mechanism at any order (data-independent
and per-instance), per-instance composition over a training run (Hölder composition),
RDP → (ε, δ) conversions, composition of RDP curves and the privacy profile → RDP bound.

Sources: Thudi et al., *Gradients look alike: sensitivity is often overestimated in DP-SGD*
(USENIX Security 2024): Thm 3.2 (per-instance sampled Gaussian RDP), Thm 3.3 (composition
with Hölder's inequality; the order map is the corrected g_p(α) = (pα − 1)/(p − 1) of the
proof, the printed statement's map is available as ``variant="as_published"``); Mironov 2017
Prop. 3; Balle et al. 2020 / Canonne–Kamath–Steinke 2020 Prop. 12.

Every returned ε or δ is an upper bound of the formula it implements (rounded up), within
~1e-13 relative of the exact value (see ``pabi.reference`` for the mpmath definitions).

>>> import pabi
>>> round(pabi.sampled_gaussian_rdp(2, 1.0, 1.0), 12)   # q = 1: α/(2 z²)
1.0
>>> round(pabi.sampled_gaussian_rdp(32, 0.01, 1.0), 10)
0.1126806137
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Union

import numpy as np

from . import _core
from ._bridge import ArrayLike, DomainError, Float, call as _call, relocate as _relocate

__all__ = [
    "DEFAULT_ORDERS",
    "sampled_gaussian_rdp",
    "sampled_gaussian_rdp_per_instance",
    "dpsgd_per_instance_rdp",
    "holder_orders",
    "rdp_to_dp_epsilon",
    "rdp_to_dp_delta",
    "rdp_compose",
    "profile_to_rdp",
]

#: Default grid of orders for conversions (SPEC_rdp §2.13 plus larger orders).
DEFAULT_ORDERS: np.ndarray = np.array(
    [1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 4.5]
    + list(range(5, 64))
    + [64.0, 128.0, 256.0, 512.0, 1024.0],
    dtype=np.float64,
)

_VARIANTS = ("corrected", "as_published")
_METHODS = ("tight", "classical")


def sampled_gaussian_rdp(alpha: ArrayLike, q: ArrayLike, noise_multiplier: ArrayLike) -> Float:
    """Data-independent RDP of the Poisson-sampled Gaussian mechanism (DP-SGD step).

    ε(α) = (1/(α − 1))·ln Σ_k C(α,k)(1 − q)^{α−k} q^k e^{(k² − k)/(2z²)} at the integer order
    ⌈α⌉ (fractional orders use the ceiling: D_α is non-decreasing in α; α ∈ (1, 2] uses 2).
    Equal to dp-accounting's ``_compute_rdp_poisson_subsampled_gaussian`` at integer orders
    and finite where it overflows (stable to α = 1e7, any q ∈ [0, 1]).

    Domain: α > 1 (≤ 1e7), q ∈ [0, 1], z > 0. Broadcasts like a ufunc.

    >>> round(sampled_gaussian_rdp(8, 0.01, 1.0), 12)
    0.000760733868
    >>> sampled_gaussian_rdp(4096, 1e-3, 1.0) > 0
    True
    """
    z = np.asarray(noise_multiplier, dtype=np.float64) if not np.isscalar(noise_multiplier) else noise_multiplier
    return _call(
        lambda a, qq, zz: _core.sampled_gaussian_rdp(a, qq, np.ones_like(zz), zz),
        ("alpha", "q", "noise_multiplier"),
        alpha,
        q,
        z,
    )


def sampled_gaussian_rdp_per_instance(
    alpha: ArrayLike, q: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike
) -> Float:
    """Per-instance RDP of the sampled Gaussian mechanism (Thudi et al. 2024, Thm 3.2).

    The same sum as :func:`sampled_gaussian_rdp` with r = sensitivity/σ: ``sensitivity`` is
    ‖U(X_B) − U(X_B ∪ {x*})‖ for the record x* (e.g. its clipped gradient norm divided by the
    batch normalisation) and σ the absolute noise std on the update. It bounds both directions
    of D_α between the neighbouring outputs. Broadcasts like a ufunc.

    >>> round(sampled_gaussian_rdp_per_instance(8, 0.01, 0.5, 1.0), 12)
    4.0099338e-05
    """
    return _call(
        _core.sampled_gaussian_rdp,
        ("alpha", "q", "sensitivity", "sigma"),
        alpha,
        q,
        sensitivity,
        sigma,
    )


def _map_flag(variant: str) -> bool:
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be one of {_VARIANTS}, got {variant!r}")
    return variant == "as_published"


def holder_orders(alpha: float, p: float, n: int, variant: str = "corrected") -> np.ndarray:
    """Orders β_i = g_p^i(α), i = 0..n−1, of the Hölder composition (Thm 3.3).

    Corrected map: β_i = 1 + (α − 1)(p/(p − 1))^i. Step j (1-based) of an n-step run needs the
    order β_{n−j}: the last step uses α, the first step the largest order.

    >>> holder_orders(2.0, 2.0, 3)
    array([2., 3., 5.])
    """
    if not (alpha > 1):
        raise DomainError(f"alpha must be > 1, got {alpha!r}")
    if not (p > 1):
        raise DomainError(f"p must be > 1, got {p!r}")
    betas, _ = _core.holder_orders(float(alpha), float(p), int(n), _map_flag(variant))
    return betas


def dpsgd_per_instance_rdp(
    alpha: float,
    q: float,
    sigma: float,
    sensitivities: ArrayLike,
    p: Optional[float] = None,
    *,
    variant: str = "corrected",
    confidence: Optional[float] = None,
    max_sensitivity: Optional[float] = None,
    return_terms: bool = False,
) -> Union[float, tuple[float, np.ndarray]]:
    """Per-instance RDP of a DP-SGD training run (Thudi et al. 2024, Thm 3.3, soft-max form).

    ``sensitivities`` has shape (steps, samples): row j holds the sensitivities of the record
    at step j + 1 (training order) observed over independent training runs on the dataset of
    the first argument of D_α (e.g. the clipped gradient norm of the record divided by the
    batch normalisation). With n steps, β_i = 1 + (α − 1)(p/(p − 1))^i and t_i = p(β_i − 1):

        bound = Σ_{i=0}^{n−2} (1/t_i)·ln mean_s exp(t_i·D(step n−i, s)) + max_s D(step 1, s)

    where D is the sampled Gaussian RDP (Thm 3.2) at order ⌈β_i⌉ with r = sensitivity/σ.
    Default p = 3n (every order then stays ≤ 1 + 1.5(α − 1)). Evaluate once with runs on D and
    once with runs on D' and take the maximum for a two-sided per-instance guarantee.

    Options:
    * ``variant="as_published"``: the order map printed in the statement of Thm 3.3,
      g_p(α) = pα/(p − 1) − 1/p (erratum T1 of SPEC_rdp §5: larger orders, still valid but
      looser), with the printed Hölder weights.
    * ``confidence=J``: Hoeffding upper-confidence bound of each mean (the plain sample mean
      is biased low by Jensen's inequality, so it is not a certified bound); with probability
      ≥ 1 − J over the runs (union bound over the n − 1 random terms) the result is a bound.
      Requires ``max_sensitivity`` (every sample ≤ it; d_max = baseline per-step RDP).
    * ``return_terms=True``: also return the n per-step contributions in training order.

    Raises ValueError when the order map overflows (β_{n−1} > 1e5: increase p), for α ≤ 1,
    q ∉ [0, 1], σ ≤ 0, p ≤ 1, and for negative/NaN sensitivities (with the (row, col) index).

    >>> import numpy as np
    >>> s = np.full((100, 4), 0.5)
    >>> round(dpsgd_per_instance_rdp(8.0, 0.01, 1.0, s), 8)
    0.00405359
    """
    flag = _map_flag(variant)
    arr = np.asarray(sensitivities)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"sensitivities must be an array of real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"sensitivities must have shape (steps, samples), got shape {arr.shape}")
    steps, samples = arr.shape
    if steps == 0 or samples == 0:
        raise ValueError(f"sensitivities must be non-empty, got shape {arr.shape}")
    pp = 3.0 * steps if p is None else float(p)
    flat = np.ascontiguousarray(arr, dtype=np.float64).reshape(-1)
    try:
        terms = _core.dpsgd_per_instance_terms(
            float(alpha), float(q), float(sigma), flat, steps, samples, pp, flag,
            None if confidence is None else float(confidence),
            None if max_sensitivity is None else float(max_sensitivity),
        )
    except DomainError as exc:
        raise _relocate(exc, arr.shape, False) from None
    total = float(_core.sum_terms_up(terms))
    return (total, terms) if return_terms else total


def _curve(orders: ArrayLike, rdp: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    o = np.ascontiguousarray(orders, dtype=np.float64).reshape(-1)
    r = np.ascontiguousarray(rdp, dtype=np.float64).reshape(-1)
    if o.shape != r.shape:
        r = np.ascontiguousarray(np.broadcast_to(r, o.shape)) if r.size == 1 else r
    return o, r


def _method(method: str) -> bool:
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    return method == "tight"


def rdp_to_dp_epsilon(
    orders: ArrayLike, rdp: ArrayLike, delta: float, method: str = "tight"
) -> tuple[float, float]:
    """(ε, optimal order) from an RDP curve ε_R(α) at target δ, minimised over the orders.

    ``method="classical"`` (Mironov 2017 Prop. 3): ε = ε_R + ln(1/δ)/(α − 1).
    ``method="tight"`` (Balle et al. 2020 / Canonne–Kamath–Steinke 2020 Prop. 12, as in
    dp-accounting): ε = ε_R + ln((α − 1)/α) − (ln δ + ln α)/(α − 1), and ε = 0 when
    δ ≥ √(1 − e^{−ε_R}) (total variation via KL). Rounded up.

    >>> rdp_to_dp_epsilon([2.0, 4.0], [0.5, 1.0], 1e-5, method="classical")[1]
    4.0
    """
    o, r = _curve(orders, rdp)
    return _core.rdp_to_dp_epsilon(o, r, float(delta), _method(method))


def rdp_to_dp_delta(
    orders: ArrayLike, rdp: ArrayLike, eps: float, method: str = "tight"
) -> tuple[float, float]:
    """(δ, optimal order) from an RDP curve at target ε, minimised over the orders (≤ 1).

    ``classical``: δ = exp((α − 1)(ε_R − ε)); ``tight``: min of CKS Prop. 12,
    δ = exp((α − 1)(ε_R − ε + ln(1 − 1/α)) − ln α), and the KL rule √(1 − e^{−ε_R}).
    """
    o, r = _curve(orders, rdp)
    return _core.rdp_to_dp_delta(o, r, float(eps), _method(method))


def rdp_compose(curves: ArrayLike) -> np.ndarray:
    """Composition of RDP curves (Mironov 2017 Prop. 1): Σ_k ε_k(α) for each order.

    ``curves`` has shape (mechanisms, orders); returns the summed curve (rounded up).

    >>> rdp_compose([[0.1, 0.2], [0.3, 0.4]])
    array([0.4, 0.6])
    """
    c = np.asarray(curves, dtype=np.float64)
    if c.ndim == 1:
        c = c[None, :]
    if c.ndim != 2 or c.size == 0:
        raise ValueError(f"curves must be a non-empty (mechanisms, orders) array, got {c.shape}")
    k, m = c.shape
    try:
        return _core.rdp_compose(np.ascontiguousarray(c).reshape(-1), k, m)
    except DomainError as exc:
        raise _relocate(exc, c.shape, False) from None


def profile_to_rdp(
    alpha: float,
    eps_grid: ArrayLike,
    delta_grid: Union[ArrayLike, Callable[[np.ndarray], ArrayLike]],
) -> float:
    """RDP at order α from a symmetric privacy profile δ(ε) (SPEC_pabi §5.5, sound form).

    e^{(α−1)D_α} ≤ 1 + α(α − 1)∫_0^∞ (e^{(α−1)ε} + e^{−αε}) δ(ε) dε, evaluated with a certified
    upper quadrature: δ(ε) ≤ δ(ε_j) on [ε_j, ε_{j+1}] (profiles are non-increasing) and the
    weight integrated exactly. ``delta_grid`` is an array on ``eps_grid`` or a callable
    evaluated there. Requirements: eps_grid starts at 0 and increases, δ is non-increasing
    in [0, 1] and δ = 0 at the last point (the profile beyond the grid is taken as 0: extend
    the grid until δ underflows). This replaces the unsound "(ε, δ) → RDP" map printed in the
    shuffled-PNSGD paper (SPEC_pabi T11), which is deliberately not offered.
    """
    e = np.ascontiguousarray(eps_grid, dtype=np.float64).reshape(-1)
    d = delta_grid(e) if callable(delta_grid) else delta_grid
    dd = np.ascontiguousarray(d, dtype=np.float64).reshape(-1)
    try:
        return float(_core.profile_to_rdp(float(alpha), e, dd))
    except DomainError as exc:
        raise _relocate(exc, e.shape, False) from None


_ = math  # keep the import for doctest namespaces
