"""Multi-epoch composition of a per-epoch privacy profile (Sordello–Bu–Dong, 003 §5): ε after E
epochs by four routes, returned as a :class:`MultiEpochEpsilon` (docs/derivations/composition.md).

Every route is a valid upper bound; the numerics are the core's (PLD composition, the exact
single-point KOV composition, the profile → RDP bound with the E-fold RDP scaling rounded up
(``pabi_core::rdp::rdp_scale``), the GDP dominating pair); this module only samples the profile
and checks the arguments. Re-exported by :mod:`pabi.composition`.
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from . import _core
from ._bridge import ArrayLike, domain_error, int_scalar, opt_real_scalar, real_array, real_scalar
from .composition import PrivacyLossDistribution, _decay_point, gdp_dominating_pair

__all__ = ["multi_epoch_epsilon", "MultiEpochEpsilon"]


class MultiEpochEpsilon(NamedTuple):
    """ε of ``epochs`` composed epochs by each route of :func:`multi_epoch_epsilon`. Every field
    is a valid upper bound on the same ε (the smallest is the best certificate, ``min(r)``).

    >>> import pabi
    >>> r = multi_epoch_epsilon(1e-5, profile=lambda e: pabi.gdp_delta(e, 0.5), epochs=4)
    >>> round(r.pld, 2), round(min(r), 2)  # 4 epochs of 0.5-GDP are 1-GDP: ε = 4.38
    (4.38, 4.38)
    """

    pld: float
    """The whole profile composed through the PLD (:meth:`PrivacyLossDistribution.compose`)."""
    single_point: float
    """The paper's route: one point (ε0, δ(ε0)) composed exactly (KOV), best ε0 of a grid."""
    rdp: float
    """Profile → RDP bound, composed over the epochs, Mironov's conversion."""
    gdp: float
    """The GDP dominating pair (μ*, δ_J) composed and inverted."""


# The RDP route takes a profile as 0 beyond eps_max, which needs δ(eps_max) ≤ 1e-300 (an
# upper bound that underflows is a few subnormal ulps, never 0): the default eps_max is the
# first of 64·2^k, k = 0..6, where the profile has decayed (:func:`_decayed_eps_max`, the one
# search; multi_epoch_epsilon, the accountant's method="best" and the CLI report use it).
_DECAYED = 1e-300
_EPS_MAX_START, _EPS_MAX_DOUBLINGS = 64.0, 6


def _decayed_eps_max(profile: Callable[[np.ndarray], np.ndarray]) -> float:
    """The smallest eps_max in 64·2^k (k ≤ 6: at most 4096) with δ(eps_max) ≤ 1e-300; a
    DomainError on ``profile`` if the profile has not decayed by 4096."""
    em = _decay_point(profile, _DECAYED, _EPS_MAX_START, _EPS_MAX_DOUBLINGS)
    if em is None:
        top = _EPS_MAX_START * 2.0**_EPS_MAX_DOUBLINGS
        raise domain_error("profile", f"a profile that decays to <= {_DECAYED:g} at some eps <= {top:g} "
                                      f"(64*2^k): give eps_max", profile)
    return em


def _profile_rdp_curve(
    profile: Callable[[np.ndarray], np.ndarray], orders: np.ndarray, eps_max: float, h: float
) -> np.ndarray:
    """ε_R(α) of a profile at each order, by the core's profile → RDP bound (the one
    implementation, docs/derivations/composition.md#profile-to-rdp; one array call over the
    orders, each value bit-identical to :func:`pabi.rdp.profile_to_rdp`) on the grid 0, h, ...,
    eps_max. The grid points k·h are rounded to nearest: they are the points where the profile
    is evaluated, so the samples are upper bounds at exactly those doubles."""
    grid = np.asarray(np.arange(int(np.ceil(eps_max / h)) + 1) * h, dtype=np.float64)  # float64 already: no copy
    values = np.array(profile(grid), dtype=float)
    # Beyond eps_max the profile is taken as 0, which requires it to have decayed there:
    # checked as δ(eps_max) ≤ 1e-300 (assumption documented in multi_epoch_epsilon).
    if not values[-1] <= _DECAYED:
        raise domain_error("eps_max", f"large enough that the profile has decayed (delta(eps_max) = {values[-1]:.3g} "
                           "> 1e-300): increase eps_max", eps_max)
    values[-1] = 0.0
    return _core.profile_to_rdp_curve(np.ascontiguousarray(orders, dtype=np.float64), grid, values)


def _check_rdp_grid(eps_max: float, h: float) -> None:
    """The RDP route's profile grid 0, h, ..., eps_max (h = grid_step) has at most 2^25 points
    (as in the PLD's limit)."""
    if eps_max / h > 2**25:
        raise domain_error("grid_step", f"large enough that eps_max/grid_step <= 2^25 (eps_max = {eps_max})", h)



def multi_epoch_epsilon(
    delta: float,
    *,
    profile: Callable[[np.ndarray], np.ndarray],
    epochs: int,
    grid_step: float = 1e-3,
    eps_max: float | None = None,
    orders: ArrayLike | None = None,
    log_profile: Callable[[np.ndarray], np.ndarray] | None = None,
) -> MultiEpochEpsilon:
    """ε at ``delta`` ∈ (0, 1) after composing ``epochs`` (an integer ≥ 1) epochs of a per-epoch
    symmetric privacy profile ``profile``: ε ↦ δ(ε), a vectorised callable returning upper
    bounds (e.g. the shuffled-PNSGD bound of 003 Thm 2), by four routes (003 §5;
    docs/derivations/composition.md), returned as a :class:`MultiEpochEpsilon`:

    * ``single_point``: the paper's route, one (ε0, δ(ε0)) point composed exactly
      (f_{ε0,δ0}^{⊗E}, KOV), minimised over ε0 ∈ {0.05, 0.1, ..., 20};
    * ``pld``: the whole profile composed through the PLD (valid upper bound);
    * ``rdp``: profile → RDP at ``orders`` (each > 1 and finite; default 244 orders in
      [1.05, 64]; sound, docs/derivations/composition.md#profile-to-rdp,
      :func:`pabi.rdp.profile_to_rdp`), scaled by E with upward rounding, Mironov conversion;
    * ``gdp``: the GDP pair (μ*, δ_J) of :func:`gdp_dominating_pair` over every ε ≥ 0, from
      the samples ε = 0, h, 2h, ... up to the first ε ≥ 1 where δ ≤ 1e-300 (ln δ ≤ −690.8;
      at most 1e4), composed to 1 − (1−δ_J)^E + (1−δ_J)^E δ_{√E μ*} and inverted.

    All four are valid upper bounds (the smallest is the best certificate). ``grid_step`` h > 0
    is the spacing of the profile samples (the PLD's grid step). Pass ``log_profile``,
    ε ↦ ln δ(ε), so that large ε do not underflow in the GDP route. The RDP route takes the
    profile as 0 beyond ``eps_max`` and requires δ(eps_max) ≤ 1e-300 (default: the first of
    64, 128, ..., 4096 where it holds; the PLD route then samples up to its own default, see
    :meth:`PrivacyLossDistribution.from_profile`).

    >>> import pabi
    >>> r = multi_epoch_epsilon(1e-5, profile=lambda e: pabi.gdp_delta(e, 0.5), epochs=4)
    >>> r.pld <= r.rdp and r.pld <= r.single_point
    True
    """
    E = int_scalar("epochs", epochs)
    delta, h = real_scalar("delta", delta), real_scalar("grid_step", grid_step)
    eps_max = opt_real_scalar("eps_max", eps_max)
    if not (h > 0 and math.isfinite(h)):
        raise domain_error("grid_step", "> 0 and finite", h)
    if eps_max is not None and not (eps_max > 0 and math.isfinite(eps_max)):
        raise domain_error("eps_max", "> 0 and finite", eps_max)
    if eps_max is not None:
        _check_rdp_grid(eps_max, h)
    if not (0 < delta < 1):
        raise domain_error("delta", "in (0, 1)", delta)
    a = np.asarray(real_array("orders", orders, ndim=1) if orders is not None else np.concatenate(
        [np.linspace(1.05, 2, 20), np.linspace(2.1, 20, 180), np.linspace(21, 64, 44)]))
    if a.size == 0:
        raise ValueError("orders must be a non-empty 1-D array")
    bad = ~((a > 1) & (a < np.inf))
    if bad.any():
        k = int(np.argmax(bad))
        raise domain_error("orders", "> 1 and finite", float(a[k]), k)
    rdp_eps_max = eps_max if eps_max is not None else _decayed_eps_max(profile)
    _check_rdp_grid(rdp_eps_max, h)
    pld = PrivacyLossDistribution.from_profile(profile, grid_step=h, eps_max=eps_max)
    eps_pld = pld.compose(E).epsilon(delta).upper
    e0 = np.linspace(0.0, 20.0, 401)[1:]
    d0 = np.ascontiguousarray(np.asarray(profile(e0), dtype=float))
    eps_single = _core.single_point_composed_epsilon(np.ascontiguousarray(e0), d0, float(E), float(delta))
    # E epochs of the RDP curve: E·ε_R(α) rounded up by the core (the smallest double ≥ the
    # exact product), then the classical conversion (rounded up), both in the core
    rdp = _core.rdp_scale(_profile_rdp_curve(profile, a, rdp_eps_max, h), float(E))
    eps_rdp = float(_core.rdp_to_dp_epsilon(np.ascontiguousarray(a, dtype=np.float64), rdp, float(delta), False)[0])

    # the GDP grid ends at the first ε = 2^k ≥ 1 (k ≤ 13) where δ ≤ 1e-300 (ln δ ≤ −690.8), else 2^14
    if log_profile is not None:
        top = _decay_point(log_profile, -690.8, 1.0, 13)
    else:
        top = _decay_point(profile, math.exp(-690.8), 1.0, 13)
    top = 2.0**14 if top is None else top
    if top / h > 2**25:
        raise domain_error("grid_step", f"large enough that the GDP route's grid up to eps = {top} has <= 2^25 points", h)
    grid = np.arange(int(np.ceil(top / h)) + 1) * h
    if log_profile is not None:
        mu, dj = gdp_dominating_pair(grid, log_delta=np.asarray(log_profile(grid), dtype=float))
    else:
        mu, dj = gdp_dominating_pair(grid, delta=np.asarray(profile(grid), dtype=float))
    eps_gdp = _core.gdp_composed_epsilon(float(delta), mu, dj, float(E))
    return MultiEpochEpsilon(eps_pld, eps_single, eps_rdp, eps_gdp)
