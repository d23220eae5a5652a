"""RDP curves: conversion to (ε, δ) both ways (Mironov 2017 Prop. 3; Balle et al. 2020 /
Canonne–Kamath–Steinke 2020 Prop. 12), composition (Mironov 2017 Prop. 1) and the privacy
profile → RDP bound. Re-exported by :mod:`pabi.rdp` (whose ``__all__`` lists the
public names).
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence, Union, overload

import numpy as np

from .. import _core
from .._bridge import ArrayLike, DomainError, choice, FloatArray, int_scalar as _int, real_array as _real_array
from .._bridge import real_scalar as _real, relocate as _relocate, rename as _rename


#: Default grid of orders for conversions (docs/derivations/rdp.md#conversions plus larger orders).
DEFAULT_ORDERS: np.ndarray = np.array(
    [1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0, 3.5, 4.0, 4.5]
    + list(range(5, 64))
    + [64.0, 128.0, 256.0, 512.0, 1024.0],
    dtype=np.float64,
)
_CONVERSIONS = ("tight", "classical")


class EpsilonAtOrder(NamedTuple):
    """The ε of :func:`rdp_to_dp_epsilon` and the order that attains it; unpacks as
    ``eps, order = ...``. For an array of δ, :func:`rdp_to_dp_epsilon` returns this tuple with
    two float64 arrays of its shape instead of floats (typed as a pair of arrays)."""

    #: the smallest ε over the orders (rounded up)
    eps: float
    #: the Rényi order at which it is attained
    order: float


class DeltaAtOrder(NamedTuple):
    """The δ of :func:`rdp_to_dp_delta` and the order that attains it; unpacks as
    ``delta, order = ...``. For an array of ε, :func:`rdp_to_dp_delta` returns this tuple with
    two float64 arrays of its shape instead of floats (typed as a pair of arrays)."""

    #: the smallest δ over the orders (rounded up, ≤ 1)
    delta: float
    #: the Rényi order at which it is attained
    order: float


def _curve(orders: ArrayLike, rdp: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    o = _real_array("orders", orders).reshape(-1)
    r = _real_array("rdp", rdp).reshape(-1)
    if o.shape != r.shape:
        if r.size != 1:
            raise ValueError(f"orders and rdp must have the same length, got {o.size} and {r.size}")
        r = np.ascontiguousarray(np.broadcast_to(r, o.shape))
    return o, r


def _conversion(conversion: str) -> bool:
    return choice("conversion", conversion, _CONVERSIONS) == "tight"


def _many(fn: Callable[..., Any], name: str, target: ArrayLike, o: np.ndarray, r: np.ndarray,
          tight: bool) -> tuple[np.ndarray, np.ndarray]:
    """One curve at every target of an array (``name``: ``"eps"`` or ``"delta"``): one core
    call (the loop over the targets in the core, in parallel for long arrays), each element
    bit-identical to the scalar conversion; errors located at the array's own index."""
    t = _real_array(name, target)
    try:
        values, best = fn(o, r, t.reshape(-1), tight)
    except DomainError as exc:
        raise (_relocate(exc, t.shape, False) if exc.param == name else exc) from None  # type: ignore[attr-defined]
    return values.reshape(t.shape), best.reshape(t.shape)


@overload
def rdp_to_dp_epsilon(delta: float, *, orders: ArrayLike, rdp: ArrayLike,
                      conversion: str = "tight") -> EpsilonAtOrder: ...
@overload
def rdp_to_dp_epsilon(delta: Union[np.ndarray, Sequence[float]], *, orders: ArrayLike, rdp: ArrayLike,
                      conversion: str = "tight") -> tuple[FloatArray, FloatArray]: ...
def rdp_to_dp_epsilon(
    delta: Union[float, ArrayLike], *, orders: ArrayLike, rdp: ArrayLike, conversion: str = "tight"
) -> Union[EpsilonAtOrder, tuple[FloatArray, FloatArray]]:
    """ε at target ``delta`` ∈ (0, 1) from an RDP curve ε_R(α), minimised over the orders.

    ``orders``: the Rényi orders α > 1 (finite) of the curve; ``rdp``: its RDP values
    ε_R(α) ≥ 0 at those orders (same length, or one value for all).
    ``conversion="classical"`` (Mironov 2017 Prop. 3): ε = ε_R + ln(1/δ)/(α − 1).
    ``conversion="tight"`` (Balle et al. 2020 / Canonne–Kamath–Steinke 2020 Prop. 12, as in
    dp-accounting): ε = ε_R + ln((α − 1)/α) − (ln δ + ln α)/(α − 1), and ε = 0 when
    δ ≥ √(1 − e^{−ε_R}) (total variation via KL). Rounded up.

    Returns :class:`EpsilonAtOrder` (``eps``, ``order``: the optimal order). ε is the smallest
    double with ``rdp_to_dp_delta(ε, orders=orders, rdp=rdp).delta <= δ`` (so the two
    conversions agree exactly: δ(ε(δ)) ≤ δ). Near δ = 1 the certified δ is e^{ln δ} rounded up
    to (almost always) the least double above it, so a δ a few doubles below 1 is not paid for
    through dε/dδ (one double of looseness is 2^-53/(1 − δ) of ln(1/δ): 3e-5 at
    1 − δ = 3.6e-12); ε is within ~1e-14 of the exact value there too. An RDP value of 0 at
    some order means the two distributions are equal: ε = 0 for every δ. +inf values ("no guarantee" at that order) are
    allowed; orders must be > 1 and finite, RDP values ≥ 0 (DomainError with the index).

    ``delta`` may be an array: one call converts the curve at every δ (the loop in the core,
    each element bit-identical to the scalar call), and the result's ``eps``/``order`` are
    arrays of its shape (typed as a pair of arrays); a bad δ is a DomainError with its index.

    >>> rdp_to_dp_epsilon(1e-5, orders=[2.0, 4.0], rdp=[0.5, 1.0], conversion="classical").order
    4.0
    >>> eps, order = rdp_to_dp_epsilon(1e-5, orders=[2.0, 4.0], rdp=[0.5, 1.0])
    """
    o, r = _curve(orders, rdp)
    if np.ndim(delta) > 0:
        e, best = _many(_core.rdp_to_dp_epsilon_many, "delta", delta, o, r, _conversion(conversion))
        return EpsilonAtOrder(e, best)  # type: ignore[arg-type]  # arrays: the overload types the pair
    return EpsilonAtOrder(*_core.rdp_to_dp_epsilon(o, r, _real("delta", delta), _conversion(conversion)))


@overload
def rdp_to_dp_delta(eps: float, *, orders: ArrayLike, rdp: ArrayLike,
                    conversion: str = "tight") -> DeltaAtOrder: ...
@overload
def rdp_to_dp_delta(eps: Union[np.ndarray, Sequence[float]], *, orders: ArrayLike, rdp: ArrayLike,
                    conversion: str = "tight") -> tuple[FloatArray, FloatArray]: ...
def rdp_to_dp_delta(
    eps: Union[float, ArrayLike], *, orders: ArrayLike, rdp: ArrayLike, conversion: str = "tight"
) -> Union[DeltaAtOrder, tuple[FloatArray, FloatArray]]:
    """δ at target ``eps`` ≥ 0 (+inf allowed) from an RDP curve (``orders``, ``rdp`` as in
    :func:`rdp_to_dp_epsilon`), minimised over the orders (≤ 1).

    ``conversion="classical"``: δ = exp((α − 1)(ε_R − ε)); ``"tight"``: min of CKS Prop. 12,
    δ = exp((α − 1)(ε_R − ε + ln(1 − 1/α)) − ln α), and the KL rule √(1 − e^{−ε_R}).
    Rounded up by a chain of monotone operations: δ is non-increasing in ε to the last ulp.
    An RDP value of 0 at some order (equal distributions) gives δ = 0 for every ε ≥ 0.
    Returns :class:`DeltaAtOrder` (``delta``, ``order``). ``eps`` may be an array: one call
    converts the curve at every ε (each element bit-identical to the scalar call), and the
    result's ``delta``/``order`` are arrays of its shape (typed as a pair of arrays); a bad ε
    is a DomainError with its index.

    >>> rdp_to_dp_delta(1.0, orders=[2.0, 4.0], rdp=[0.0, 1.0]).delta
    0.0
    >>> rdp_to_dp_delta([0.5, 2.0], orders=[2.0, 4.0], rdp=[0.5, 1.0]).order
    array([2., 4.])
    """
    o, r = _curve(orders, rdp)
    if np.ndim(eps) > 0:
        d, best = _many(_core.rdp_to_dp_delta_many, "eps", eps, o, r, _conversion(conversion))
        return DeltaAtOrder(d, best)  # type: ignore[arg-type]  # arrays: the overload types the pair
    return DeltaAtOrder(*_core.rdp_to_dp_delta(o, r, _real("eps", eps), _conversion(conversion)))


def rdp_compose(rdp: ArrayLike, *, count: int = 1) -> FloatArray:
    """Composition of RDP curves (Mironov 2017 Prop. 1): count·Σ_k ε_k(α) for each order.

    ``rdp`` holds RDP values ≥ 0 (+inf allowed) with shape (mechanisms, orders): row k is the
    curve of mechanism k on a common grid of orders; returns the summed curve (rounded up).
    ``count`` (an integer ≥ 1, default 1): the whole sequence is run ``count`` times (e.g. a
    curve of one step composed over ``steps`` steps); the product is rounded up again, so for
    one curve the result is the smallest double ≥ count·ε(α).
    +inf ("no guarantee" at that order) composes to +inf; NaN or negative entries are a
    DomainError with their (mechanism, order) index.

    >>> rdp_compose([[0.1, 0.2], [0.3, 0.4]])
    array([0.4, 0.6])
    >>> [float(v) for v in rdp_compose([0.1, 0.25], count=10)]  # 10 x 0.1 is 1.0 to nearest, below the exact
    [1.0000000000000002, 2.5]
    """
    c = _real_array("rdp", rdp)
    if c.ndim == 1:
        c = c[None, :]
    if c.ndim != 2 or c.size == 0:
        raise ValueError(f"rdp must be a non-empty (mechanisms, orders) array, got {c.shape}")
    k, m = c.shape
    n = _int("count", count, lo=1)
    if n > 1 and k == 1:  # one curve run n times: n·ε(α), one upward rounding
        return _rdp_scale(c[0], n, "count")
    try:
        out = _core.rdp_compose(np.ascontiguousarray(c).reshape(-1), k, m)
    except DomainError as exc:
        raise _relocate(exc, c.shape, False) from None
    return out if n == 1 else _rdp_scale(out, n, "count")


def profile_to_rdp(
    order: float,
    *,
    eps: ArrayLike,
    delta: Union[ArrayLike, Callable[[np.ndarray], ArrayLike]],
) -> float:
    """RDP at the Rényi ``order`` α > 1 from a symmetric privacy profile δ(ε)
    (docs/derivations/composition.md#profile-to-rdp, sound form).

    e^{(α−1)D_α} ≤ 1 + α(α − 1)∫_0^∞ (e^{(α−1)ε} + e^{−αε}) δ(ε) dε, evaluated with a certified
    upper quadrature: δ(ε) ≤ δ(ε_j) on [ε_j, ε_{j+1}] (profiles are non-increasing) and the
    weight integrated exactly. ``eps`` is the grid of ε values (starting at 0, increasing,
    finite); ``delta`` the profile's δ(ε) ∈ [0, 1] on it (an array, or a callable evaluated
    there), non-increasing and 0 at the last point (the profile beyond the grid is taken as 0:
    extend the grid until δ underflows). This replaces the unsound "(ε, δ) → RDP" map printed
    in the shuffled-PNSGD paper (docs/errata.md#p-t11), which is deliberately not offered.

    >>> round(profile_to_rdp(2.0, eps=[0.0, 0.5, 1.0, 2.0], delta=[0.2, 0.05, 0.01, 0.0]), 6)
    0.469429
    """
    alpha = _real("order", order)
    e = _real_array("eps", eps).reshape(-1)
    d = delta(e) if callable(delta) else delta
    dd = _real_array("delta", d).reshape(-1)
    if dd.shape != e.shape:
        raise ValueError(f"eps and delta must have the same length, got {e.size} and {dd.size}")
    try:
        return float(_core.profile_to_rdp(alpha, e, dd))
    except DomainError as exc:
        renamed = _rename(_rename(exc, "eps_grid", "eps"), "delta_grid", "delta")
        raise _relocate(renamed, e.shape, False) from None


def _rdp_scale(curve: ArrayLike, k: int, name: str = "k") -> np.ndarray:
    """The RDP curve of ``k`` runs of one mechanism whose RDP curve is ``curve`` (additive
    composition, Mironov 2017 Prop. 1): k·ε(α) at every order, rounded up by the core
    (``pabi_core::rdp::rdp_scale``: the smallest double ≥ the exact product). ``k`` (an integer
    in [1, 2^53]; errors name it ``name``), ``curve`` values ≥ 0 (+inf allowed). Private: the
    DP-SGD and multi-epoch routes and the CLI compose with it.

    >>> [float(v) for v in _rdp_scale([0.1, 0.25], 10)]   # 10·0.1 is 1.0 to nearest, below the exact product
    [1.0000000000000002, 2.5]
    """
    c = _real_array("curve", curve).reshape(-1)
    try:
        return _core.rdp_scale(c, float(_int(name, k, lo=1)))
    except DomainError as exc:
        raise _relocate(exc, c.shape, False) from None
