"""Composition: f-DP, Gaussian DP, exact (ε,δ) composition, privacy-loss distributions composed
by FFT with certified error bars, and the DP-SGD accountant (docs/derivations/composition.md; paper 003 §5).

Every privacy-loss-distribution (PLD) query returns a :class:`Bracket` ``(lower, estimate,
upper)`` (a named tuple; the grid step h is ``grid_step``, T the number of composed mechanisms):

* ``upper`` is a **valid upper bound** (on δ, or on ε): the loss grid is discretised
  pessimistically ("connect the dots": each cell's mass is split between its two grid points so
  that E[e^{-L}] is preserved, which can only increase every δ(ε), also after composition), tails
  outside the grid go to +∞, the mass the FFT window cannot hold is bounded by Chernoff bounds
  from the exact moment-generating function of the discretised PLD and added, and a proven
  bound on the FFT round-off is added (componentwise FFT error bound after Higham §24.1,
  Thm 24.2, with the few bins that the T-fold powering amplifies recomputed by a compensated
  direct DFT, propagated through powering, products and the inverse FFT; module doc of
  ``pabi_core::pld``). For q = 0.01, σ = 1, T = 1e5 it is ≈ 9e-10 in δ;
* ``lower`` is a valid lower bound on the same quantity for the mechanism (or, for a profile,
  for the pair whose privacy profile is that profile): the split couples the discretised with
  the true loss, so the composed loss exceeds the true one by at most T·h²/4 + t except with
  probability exp(−2t²/(T h²)) (Azuma–Hoeffding);
* ``estimate`` is the discretised value without the additive error terms.

Do not trust δ below ~1e-13 from the FFT route: use :func:`approx_dp_composition_delta` (exact,
log space) or a GDP / RDP bound there.
"""

from __future__ import annotations


import math
import sys
from typing import Any, Callable, Generic, Literal, NamedTuple, Sequence, TypeVar, Union, overload

import numpy as np

from . import _core
from ._api import theta
from ._bridge import (
    ArrayLike,
    DomainError,
    Float,
    FloatArray,
    Scalar,
    as_real,
    call as _call,
    choice,
    domain_error,
    int_scalar,
    opt_real_scalar,
    real_array,
    real_scalar,
    rename,
)

__all__ = [
    "tradeoff_eps_delta",
    "tradeoff_from_profile",
    "approx_dp_composition_delta",
    "approx_dp_composition_epsilon",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "gdp_compose",
    "gdp_mu_dominating",
    "gdp_dominating_pair",
    "Bracket",
    "ErrorBudget",
    "PrivacyLossDistribution",
    "ComposedPLD",
    "compose_plds",
    "dpsgd_epsilon",
    "dpsgd_delta",
    "dpsgd_calibrate_noise_multiplier",
    "multi_epoch_epsilon",
    "MultiEpochEpsilon",
]

_T = TypeVar("_T")

if sys.version_info >= (3, 11):
    class Bracket(NamedTuple, Generic[_T]):
        """A certified bracket of a PLD query: ``(lower, estimate, upper)`` (a named tuple, so
        ``lo, est, up = ...`` unpacks it). Each field is a float for a scalar query and an array
        of the query's shape for an array query (``Bracket[float]``,
        ``Bracket[NDArray[np.float64]]``).

        ``lower`` is a valid lower bound, ``upper`` a valid upper bound (the certificate) and
        ``estimate`` the discretised value without the error terms (module doc).

        >>> b = PrivacyLossDistribution.gaussian(1.0).compose(10).epsilon(1e-5)
        >>> b.lower <= b.estimate <= b.upper
        True
        """

        lower: _T
        estimate: _T
        upper: _T
else:  # pragma: no cover - generic named tuples need Python 3.11: the same fields, untyped
    class Bracket(NamedTuple):
        """A certified bracket of a PLD query: ``(lower, estimate, upper)``."""

        lower: Any
        estimate: Any
        upper: Any


# ---------------------------------------------------------------------------------------------
# f-DP and exact composition


@overload
def tradeoff_eps_delta(type1_error: Scalar, eps: Scalar, delta: Scalar) -> float: ...
@overload
def tradeoff_eps_delta(type1_error: ArrayLike, eps: ArrayLike, delta: ArrayLike) -> FloatArray: ...
def tradeoff_eps_delta(type1_error: ArrayLike, eps: ArrayLike, delta: ArrayLike) -> Float:
    """The trade-off function of (ε,δ)-DP at the type-I error α = ``type1_error``,
    f_{ε,δ}(α) = max{0, 1−δ−e^ε α, e^{−ε}(1−δ−α)}.

    Dong–Roth–Su eq. (5) / Prop. 2.5 (docs/derivations/composition.md#tradeoff): a mechanism is
    (ε,δ)-DP iff it is f_{ε,δ}-DP. α ∈ [0, 1], ε ≥ 0 (any finite size: e^ε is never formed),
    δ ∈ [0, 1].

    >>> round(tradeoff_eps_delta(0.1, 1.0, 0.0), 12)
    0.728171817154
    """
    return _call(_core.tradeoff_eps_delta, ("type1_error", "eps", "delta"), type1_error, eps, delta)


@overload
def tradeoff_from_profile(type1_error: Scalar, eps: ArrayLike, delta: ArrayLike) -> float: ...
@overload
def tradeoff_from_profile(type1_error: ArrayLike, eps: ArrayLike, delta: ArrayLike) -> FloatArray: ...
def tradeoff_from_profile(type1_error: ArrayLike, eps: ArrayLike, delta: ArrayLike) -> Float:
    """Trade-off function of a mechanism given by a privacy profile δ(ε) on a grid of ε.

    A mechanism that is (ε, δ(ε))-DP for every ε is f-DP with f = sup_ε f_{ε,δ(ε)}
    (Dong–Roth–Su Prop. 2.12; docs/derivations/composition.md#tradeoff): the pointwise supremum of
    the trade-off curves of its (ε, δ) points. ``eps`` and ``delta`` are equally long 1-D arrays (δ
    an upper bound of
    the profile, e.g. ``pabi.pnsgd_delta`` over ``eps``); the supremum is taken over the grid,
    which can only lower f, and each f_{ε,δ} is rounded down: the result is a valid (lower)
    trade-off curve, tighter as the grid gets finer. ``type1_error`` α ∈ [0, 1] broadcasts.

    >>> import numpy as np
    >>> eps = np.linspace(0, 8, 801)
    >>> f = tradeoff_from_profile([0.05, 0.2], eps, gdp_delta(eps, 1.0))  # 1-GDP profile
    >>> np.round(f, 3)  # close to the Gaussian trade-off G_1(α) = Φ(Φ^{-1}(1-α) - 1)
    array([0.74 , 0.437])
    """
    from ._bridge import relocate

    e = real_array("eps", eps).reshape(-1)
    d = real_array("delta", delta).reshape(-1)
    a = np.asarray(as_real("type1_error", type1_error), dtype=np.float64)
    try:
        out = _core.tradeoff_from_profile(np.ascontiguousarray(a.ravel()), e, d)
    except DomainError as exc:
        # an index into type1_error is the caller's n-d index; one into eps/delta is 1-D
        alpha_bad = getattr(exc, "param", None) == "type1_error"
        raise relocate(exc, a.shape if alpha_bad else e.shape, alpha_bad and a.ndim == 0) from None
    return float(out[0]) if a.ndim == 0 else out.reshape(a.shape)


@overload
def approx_dp_composition_delta(eps0: Scalar, delta0: Scalar, count: Scalar, eps: Scalar) -> float: ...
@overload
def approx_dp_composition_delta(
    eps0: ArrayLike, delta0: ArrayLike, count: ArrayLike, eps: ArrayLike
) -> FloatArray: ...
def approx_dp_composition_delta(
    eps0: ArrayLike, delta0: ArrayLike, count: ArrayLike, eps: ArrayLike
) -> Float:
    """δ(ε) of the optimal composition of k = ``count`` mechanisms, each (ε0, δ0)-DP (exact,
    tight).

    The Kairouz–Oh–Viswanath closed form written through the privacy-loss variable of
    f_{ε0,δ0} (docs/derivations/composition.md#kov; 003 §5 "exact composition of the four-segment curve"):
    1 − (1−δ0)^k + (1−δ0)^k Σ_{j:(2j−k)ε0>ε} C(k,j) p^j (1−p)^{k−j} (1 − e^{ε−(2j−k)ε0}),
    p = e^{ε0}/(1+e^{ε0}). Binomial terms by Loader's saddle-point form in log space: an upper
    bound within ~1e-13 relative of the exact value for k up to 1e6 and beyond.
    Broadcasts; ε0 ≥ 0, δ0 ∈ [0, 1], ``count`` an integer in [1, 1e10] (the work grows like
    √count), ε ≥ 0.

    >>> round(approx_dp_composition_delta(0.5, 1e-4, 10, 2.0), 10)
    0.1463205956
    """
    return _call(
        _core.approx_dp_composition_delta, ("eps0", "delta0", "count", "eps"), eps0, delta0, count, eps
    )


@overload
def approx_dp_composition_epsilon(eps0: Scalar, delta0: Scalar, count: Scalar, delta: Scalar) -> float: ...
@overload
def approx_dp_composition_epsilon(
    eps0: ArrayLike, delta0: ArrayLike, count: ArrayLike, delta: ArrayLike
) -> FloatArray: ...
def approx_dp_composition_epsilon(
    eps0: ArrayLike, delta0: ArrayLike, count: ArrayLike, delta: ArrayLike
) -> Float:
    """Smallest ε ≥ 0 with :func:`approx_dp_composition_delta` (eps0, delta0, count, ε) ≤ δ: the
    exact ε of the optimal k-fold composition of an (ε0, δ0)-DP mechanism (KOV,
    docs/derivations/composition.md#kov), bisected to adjacent doubles and rounded up. +inf where
    the δ0 atoms alone,
    1 − (1−δ0)^k, already reach δ. Broadcasts; δ ∈ (0, 1).

    >>> e = approx_dp_composition_epsilon(0.5, 1e-4, 10, 0.1463205956)
    >>> round(e, 8)
    2.0
    """
    return _call(
        _core.approx_dp_composition_epsilon, ("eps0", "delta0", "count", "delta"), eps0, delta0, count, delta
    )


# ---------------------------------------------------------------------------------------------
# Gaussian DP


@overload
def gdp_delta(eps: Scalar, mu: Scalar) -> float: ...
@overload
def gdp_delta(eps: ArrayLike, mu: ArrayLike) -> FloatArray: ...
def gdp_delta(eps: ArrayLike, mu: ArrayLike) -> Float:
    """δ_μ(ε) of μ-GDP, Φ(−ε/μ+μ/2) − e^ε Φ(−ε/μ−μ/2) = θ_{e^ε}(μ) (DRS Cor. 2.13).

    Identical to :func:`pabi.theta` (upper-rounded). ε ≥ 0, μ ≥ 0.

    >>> round(gdp_delta(1.0, 1.0), 12)
    0.126936737507
    """
    try:
        return _call(_core.theta, ("eps", "mu"), eps, mu)
    except DomainError as exc:
        raise rename(exc, "shift", "mu") from None


@overload
def gdp_epsilon(delta: Scalar, mu: Scalar) -> float: ...
@overload
def gdp_epsilon(delta: ArrayLike, mu: ArrayLike) -> FloatArray: ...
def gdp_epsilon(delta: ArrayLike, mu: ArrayLike) -> Float:
    """Smallest ε ≥ 0 with δ_μ(ε) ≤ δ for μ-GDP (an upper bound on the exact inverse).

    δ ∈ (0, 1), μ ≥ 0 finite; broadcasts. Regula falsi on the engine's upper-rounded ln θ,
    bracketed to a few ulp (docs/derivations/composition.md#gdp), in Rust.

    >>> round(gdp_epsilon(gdp_delta(1.0, 1.0), 1.0), 10)
    1.0
    """
    return _call(_core.gdp_epsilon, ("delta", "mu"), delta, mu)


@overload
def gdp_mu(eps: Scalar, delta: Scalar) -> float: ...
@overload
def gdp_mu(eps: ArrayLike, delta: ArrayLike) -> FloatArray: ...
def gdp_mu(eps: ArrayLike, delta: ArrayLike) -> Float:
    """Largest μ with δ_μ(ε) ≤ δ: the μ-GDP level that certifies (ε, δ)-DP (rounded down).

    ε ≥ 0 finite, δ ∈ (0, 1); broadcasts (docs/derivations/composition.md#gdp).

    >>> round(gdp_mu(1.0, gdp_delta(1.0, 0.7)), 10)
    0.7
    """
    return _call(_core.gdp_mu, ("eps", "delta"), eps, delta)


def _profile_values(delta: ArrayLike | None, log_delta: ArrayLike | None) -> dict[str, np.ndarray]:
    """The sampled profile as the core's keyword: ``log_delta`` (ln δ, used as given) if given,
    else ``delta`` (the core takes ln δ rounded up: every sample is a constraint, only an exact
    0 is none; a δ that underflowed to pabi's residue 2e-323 is honoured as given — sound, but
    loose: pass log_delta instead)."""
    if log_delta is not None:
        return {"log_delta": real_array("log_delta", log_delta).reshape(-1)}
    if delta is None:
        raise TypeError("give delta or log_delta")
    return {"delta": real_array("delta", delta).reshape(-1)}


def gdp_compose(mu: ArrayLike) -> float:
    """μ of the composition of μ_k-GDP mechanisms (``mu``: the μ_k): sqrt(Σ μ_k²) (DRS Cor. 3.3).

    >>> round(gdp_compose([0.3, 0.4]), 12)
    0.5
    """
    m = real_array("mu", mu).reshape(-1)
    return _core.gdp_compose(m)


def gdp_mu_dominating(
    eps: ArrayLike, delta: ArrayLike | None = None, *, log_delta: ArrayLike | None = None
) -> float:
    """sup_ε μ_ε with θ_{e^ε}(μ_ε) = δ(ε): the smallest μ whose GDP profile dominates the given
    privacy profile **at the sample points** ``eps`` (docs/derivations/composition.md#gdp, DRS
    Prop. 2.12), rounded up. Every sample with δ > 0 is a constraint: pass ``log_delta`` for large
    ε where δ underflows (a δ given as the underflow residue 2e-323 binds μ, loosely). For a bound
    valid at every ε ≥ 0 use :func:`gdp_dominating_pair`.

    For the shuffled-PNSGD profile μ_ε increases to 2L/σ as ε → ∞, so GDP discards all
    amplification (docs/errata.md#p-t14).

    >>> mu = 0.8; e = np.linspace(0, 10, 11)
    >>> round(gdp_mu_dominating(e, gdp_delta(e, mu)), 9)
    0.8
    """
    e = real_array("eps", eps).reshape(-1)
    return _core.gdp_mu_dominating(e, **_profile_values(delta, log_delta))


def gdp_dominating_pair(
    eps: ArrayLike, delta: ArrayLike | None = None, *, log_delta: ArrayLike | None = None
) -> tuple[float, float]:
    """(μ*, δ_J) with δ(ε) ≤ δ_J + (1 − δ_J)·δ_{μ*}(ε) for **every** ε ≥ 0, from upper bounds
    of a symmetric privacy profile at strictly increasing ``eps`` starting at 0 (δ_J = the last
    value).

    A privacy profile is non-increasing, so δ ≤ δ_i on [ε_i, ε_{i+1}] and δ ≤ δ_J beyond the
    last point; μ* is the largest μ_i with θ_{e^{ε_{i+1}}}(μ_i) = δ_i/(1 − δ_J) (rounded up).
    The mechanism is then dominated by μ*-GDP mixed with a δ_J-probability distinguishing
    event, and E-fold composition gives 1 − (1−δ_J)^E + (1−δ_J)^E·δ_{√E·μ*}(ε) (DRS Prop. 2.12,
    Cor. 3.3): a GDP route with no cutoff assumption. Finer sampling gives a smaller μ*
    (near ε = 0 the step costs a relative ≈ 2·spacing).

    >>> e = np.arange(20001) * 1e-3
    >>> mu, dj = gdp_dominating_pair(e, log_delta=theta(e, 0.5, log=True))
    >>> round(mu, 3), dj < 1e-300
    (0.501, True)
    """
    e = real_array("eps", eps).reshape(-1)
    mu, dj = _core.gdp_dominating_pair(e, **_profile_values(delta, log_delta))
    return float(mu), float(dj)


# ---------------------------------------------------------------------------------------------
# Privacy-loss distributions


# Size caps of the core (pabi_core::pld, module doc "Resource limits"): a single-step PLD has at
# most 2^21 grid points, so a sampled profile at most 2^20 samples (its PLD is reflected); the
# coarsest grid step is 0.1. Checked here too so that no profile is sampled beyond them.
_MAX_PROFILE = 2**20
#: from_profile's defaults: the grid step, the tail mass that ends the profile and the number of
#: doublings of ε searched for it (shared with the lock-step calibration of multi-epoch PNSGD)
_PROFILE_GRID_STEP, _PROFILE_TAIL, _PROFILE_DOUBLINGS = 1e-3, 1e-18, 13
#: compose's default tail mass (the mass cut from each end of the composition's window)
_COMPOSE_TAIL = 1e-15
_H_MAX = 0.1


def _check_grid_step(grid_step: object) -> float:
    """The grid step as a float in (0, 0.1] (DomainError on ``grid_step`` otherwise)."""
    hf = real_scalar("grid_step", grid_step)
    if not (0.0 < hf <= _H_MAX):
        raise domain_error("grid_step", "in (0, 0.1]", grid_step)
    return hf


def _check_positive(name: str, value: object) -> float:
    v = real_scalar(name, value)
    if not (0.0 < v < np.inf):
        raise domain_error(name, "> 0 and finite", value)
    return v


def _profile_samples(span: float, h: float, extra: int, param: str, value: object) -> int:
    """ceil(span/h) + extra profile samples, checked against the cap before anything is
    sampled: DomainError on ``grid_step`` if a coarser step (<= 0.1) fits, else on ``param``."""
    need = span / h + extra
    if need <= _MAX_PROFILE:
        return int(np.ceil(span / h)) + extra
    if span / _H_MAX + extra <= _MAX_PROFILE:
        hmin = min(span / (_MAX_PROFILE - extra - 1) * 1.001, _H_MAX)
        raise domain_error("grid_step", f"large enough that the profile has at most 2^20 samples (this "
                                        f"grid_step needs {need:.3e}; use grid_step >= {hmin:.3e})", h)
    raise domain_error(param, f"such that the profile has at most 2^20 samples even at the coarsest "
                              f"grid_step = 0.1 (it needs {span / _H_MAX + extra:.3e})", value)


def _decay_point(value_at: Callable[[np.ndarray], np.ndarray], bound: float, start: float,
                 doublings: int) -> float | None:
    """The smallest x = start·2^k, k = 0..doublings, with value_at(x) ≤ bound (None if there is
    none): at most doublings + 1 evaluations of ``value_at`` at one point each. A NaN value stops
    the search there (the caller's checks of the sampled values then reject it)."""
    x = start
    for _ in range(doublings + 1):
        if not float(np.asarray(value_at(np.array([x])), dtype=float).reshape(-1)[0]) > bound:
            return x
        x *= 2.0
    return None


class PrivacyLossDistribution:
    """A privacy-loss distribution discretised pessimistically on the grid ℓ_k = k·h, h =
    ``grid_step``.

    Build with a constructor (:meth:`gaussian`, :meth:`subsampled_gaussian`, :meth:`laplace`,
    :meth:`from_eps_delta`, :meth:`from_profile`) and compose with :func:`compose_plds` or
    :meth:`compose`. Attributes: ``grid_step``, ``pmf`` (masses), ``losses`` (grid), ``inf``
    (mass at +∞).

    Resource limits: ``grid_step`` ∈ (0, 0.1]; a PLD has at most 2^21 grid points and a
    sampled profile at most 2^20 samples; a composition's FFT window at most 2^22 points. Sizes
    are checked before anything is allocated: a DomainError names ``grid_step`` (with the
    coarsest step that fits) when a coarser grid would do, else the mechanism's parameter
    (``noise_scale``, ``noise_multiplier``, ``sensitivity``, ``eps0``, ``eps_max``).

    >>> pld = PrivacyLossDistribution.gaussian(1.0, grid_step=1e-3)
    >>> pld.grid_step, round(pld.compose(10).epsilon(1e-5).upper, 2)  # √10-GDP: 17.86
    (0.001, 17.86)
    """

    def __init__(self, core: Any) -> None:
        self._core = core

    @property
    def grid_step(self) -> float:
        """The spacing h of the loss grid (the constructor's ``grid_step``)."""
        return float(self._core.grid_step)

    @property
    def pmf(self) -> FloatArray:
        """The probability masses at the grid points ``losses``."""
        return self._core.pmf  # type: ignore[no-any-return]

    @property
    def losses(self) -> FloatArray:
        """The grid points ℓ_k = k·h of ``pmf`` as the core computes and uses them."""
        return self._core.losses  # type: ignore[no-any-return]

    @property
    def inf(self) -> float:
        """The mass at +∞ (the loss is infinite: counted in full in every upper δ)."""
        return float(self._core.inf)

    @classmethod
    def subsampled_gaussian(
        cls, *, sample_rate: float, noise_multiplier: float,
        direction: Literal["remove", "add"] = "remove", grid_step: float = 1e-4,
    ) -> PrivacyLossDistribution:
        """Poisson-subsampled Gaussian mechanism of sensitivity 1: each record is sampled with
        probability q = ``sample_rate`` ∈ (0, 1], Gaussian noise of standard deviation z =
        ``noise_multiplier`` > 0 (in units of the sensitivity, DP-SGD's std / clipping norm).

        ``direction="remove"``: P = (1−q)N(0,z²) + qN(1,z²), Q = N(0,z²); ``"add"``: swapped
        (the two directions of add-or-remove neighbours; dp-accounting's AdjacencyType). q = 1
        is the Gaussian mechanism. ``grid_step`` h ∈ (0, 0.1]. The grid spans the loss over
        x ∈ [−9.5z, 1 + 9.5z], about 1/z² + 19/z wide for q = 1: it must fit 2^21 points.

        >>> pld = PrivacyLossDistribution.subsampled_gaussian(sample_rate=0.01, noise_multiplier=1.0)
        >>> round(pld.compose(1000).epsilon(1e-5).upper, 2)
        1.83
        """
        choice("direction", direction, ("remove", "add"))
        return cls(_core._Pld.subsampled_gaussian(
            real_scalar("sample_rate", sample_rate), real_scalar("noise_multiplier", noise_multiplier),
            direction, real_scalar("grid_step", grid_step)))

    @classmethod
    def replace_one_gaussian(cls, *, sample_rate: float, noise_multiplier: float,
                             grid_step: float = 1e-4) -> PrivacyLossDistribution:
        """Poisson-subsampled Gaussian mechanism of clipping norm 1 under **replace-one**
        neighbours: P = (1−q)N(0,z²) + qN(1,z²) against Q = (1−q)N(0,z²) + qN(−1,z²), q =
        ``sample_rate`` ∈ (0, 1], z = ``noise_multiplier`` > 0 (dp-accounting's
        ``AdjacencyType.REPLACE``; docs/derivations/neighbouring.md). The pair is symmetric, so
        this one PLD covers both orders of the neighbours; q = 1 is N(1, z²) vs N(−1, z²).
        Pessimistic (connect the dots) like :meth:`subsampled_gaussian`; ``grid_step`` h ∈
        (0, 0.1], the grid (the loss over x ∈ [−9.5z, 1 + 9.5z]) must fit 2^21 points.

        >>> pld = PrivacyLossDistribution.replace_one_gaussian(sample_rate=0.01, noise_multiplier=1.0)
        >>> round(pld.compose(1000).epsilon(1e-5).upper, 3)
        2.843
        """
        return cls(_core._Pld.replace_one_gaussian(
            real_scalar("sample_rate", sample_rate), real_scalar("noise_multiplier", noise_multiplier),
            real_scalar("grid_step", grid_step)))

    @classmethod
    def gaussian(cls, noise_scale: float, *, sensitivity: float = 1.0,
                 grid_step: float = 1e-4) -> PrivacyLossDistribution:
        """Gaussian mechanism N(Δ, σ²) vs N(0, σ²), σ = ``noise_scale`` (the noise's standard
        deviation), Δ = ``sensitivity`` (μ-GDP with μ = Δ/σ); σ, Δ > 0 finite, ``grid_step``
        h ∈ (0, 0.1], and the grid of σ/Δ must fit (see the class doc).

        >>> round(PrivacyLossDistribution.gaussian(2.0).compose(4).delta(1.0).upper, 6)
        0.126937
        """
        s = _check_positive("noise_scale", noise_scale)
        d = _check_positive("sensitivity", sensitivity)
        ratio = s / d
        if not (0.0 < ratio < np.inf):
            raise domain_error("sensitivity", f"such that noise_scale/sensitivity is a positive finite "
                                              f"float (it is {ratio!r})", sensitivity)
        try:
            return cls.subsampled_gaussian(sample_rate=1.0, noise_multiplier=ratio, grid_step=grid_step)
        except DomainError as exc:
            if getattr(exc, "param", None) == "noise_multiplier" and d != 1.0:
                raise domain_error("sensitivity", f"small enough relative to noise_scale that the loss "
                                                  f"grid of noise_scale/sensitivity = {ratio!r} fits its "
                                                  f"cap of 2^21 points even at the coarsest grid_step = 0.1",
                                   sensitivity) from None
            if getattr(exc, "param", None) == "noise_multiplier":  # the core's message, relabelled
                err = DomainError("noise_scale" + str(exc)[len("noise_multiplier"):])
                err.param, err.allowed, err.value, err.index = (
                    "noise_scale", exc.allowed, exc.value, exc.index)
                raise err from None
            raise

    @classmethod
    def from_eps_delta(cls, eps0: float, delta0: float, *,
                       grid_step: float = 1e-4) -> PrivacyLossDistribution:
        """The four-point PLD of f_{ε0,δ0} (Kairouz–Oh–Viswanath, Thm 3.4): +∞ w.p. δ0, ±ε0
        otherwise; ε0 ≥ 0, δ0 ∈ [0, 1]. The grid spans [−ε0 − h, ε0 + h] (h = ``grid_step`` ∈
        (0, 0.1]) and must fit 2^21 points (ε0 ≤ ~1e5 at h = 0.1).

        >>> p = PrivacyLossDistribution.from_eps_delta(0.5, 1e-4, grid_step=0.01)
        >>> round(p.compose(10).delta(2.0).upper, 4)  # the exact KOV value is 0.1463
        0.1463
        """
        return cls(_core._Pld.eps_delta(real_scalar("eps0", eps0), real_scalar("delta0", delta0),
                                        real_scalar("grid_step", grid_step)))

    @classmethod
    def from_profile(
        cls,
        profile: Union[Callable[[np.ndarray], np.ndarray], ArrayLike],
        *,
        grid_step: float = _PROFILE_GRID_STEP,
        eps_max: float | None = None,
        tail_mass: float = _PROFILE_TAIL,
    ) -> PrivacyLossDistribution:
        """The PLD dominating every mechanism with the **symmetric** privacy profile δ(ε).

        ``profile`` is a vectorized callable ε ↦ δ(ε) (ε ≥ 0; upper bounds of the profile) or an
        array of δ(k·h), k = 0..J, h = ``grid_step`` ∈ (0, 0.1]. A callable is sampled at
        ε_k = k·h up to ``eps_max`` (default: the first power-of-two multiple of 1 where δ ≤
        ``tail_mass``, ``tail_mass`` ∈ (0, 1)); the mass δ(ε_J) goes to +∞. Since a true
        profile is convex in e^ε, the convex hull (in e^ε) of the samples dominates it between
        samples. At most 2^20 samples (eps_max/h + 1), checked before the callable is evaluated.
        Raises DomainError on ``profile`` if δ is not in [0, 1], not non-increasing, or
        inconsistent.

        >>> pld = PrivacyLossDistribution.from_profile(lambda e: gdp_delta(e, 0.5))
        >>> round(pld.compose(4).epsilon(1e-5).upper, 2), round(gdp_epsilon(1e-5, 1.0), 2)
        (4.38, 4.38)
        """
        hf = _check_grid_step(grid_step)
        if callable(profile):
            tl = real_scalar("tail_mass", tail_mass)
            if not (0.0 < tl < 1.0):
                raise domain_error("tail_mass", "in (0, 1)", tail_mass)
            if eps_max is None:
                # the first of 1, 2, 4, ..., 8192 where δ ≤ tail_mass (at most 14 evaluations)
                found = _decay_point(profile, tl, 1.0, _PROFILE_DOUBLINGS)
                if found is None:
                    raise domain_error("profile", f"a profile reaching {tl} for eps <= 1e4", profile)
                em = found
            else:
                em = _check_positive("eps_max", eps_max)
            n = _profile_samples(em, hf, 1, "eps_max", eps_max if eps_max is not None else em)
            vals = real_array("profile", profile(np.arange(n) * hf)).reshape(-1)
        else:
            vals = real_array("profile", profile).reshape(-1)
        return cls(_core._Pld.from_profile(hf, vals))

    @classmethod
    def laplace(cls, noise_scale: float, *, sensitivity: float = 1.0,
                grid_step: float = 1e-4) -> PrivacyLossDistribution:
        """Laplace mechanism Lap(Δ, b) vs Lap(0, b), b = ``noise_scale`` (the Laplace scale), Δ =
        ``sensitivity``, via its exact profile (pabi.laplace_theta) sampled at ⌈(Δ/b)/h⌉ + 2 ≤
        2^20 points; b, Δ > 0 finite, h = ``grid_step`` ∈ (0, 0.1].

        >>> round(PrivacyLossDistribution.laplace(1.0, grid_step=1e-3).compose(1).epsilon(1e-9).upper, 3)
        1.0
        """
        from ._api import laplace_theta

        b = _check_positive("noise_scale", noise_scale)
        d = _check_positive("sensitivity", sensitivity)
        hf = _check_grid_step(grid_step)
        r = d / b
        mech, mval = ("sensitivity", sensitivity) if d != 1.0 else ("noise_scale", noise_scale)
        if not (r < np.inf):
            raise domain_error(mech, f"such that sensitivity/noise_scale is finite (it is {r!r})", mval)
        n = _profile_samples(r, hf, 2, mech, mval)
        return cls.from_profile(laplace_theta(np.arange(n) * hf, r), grid_step=hf)

    def compose(self, count: int, *, tail_mass: float = _COMPOSE_TAIL) -> ComposedPLD:
        """The ``count``-fold self-composition (``count`` an integer in [1, 2^53];
        ``tail_mass`` as in :func:`compose_plds`).

        >>> round(PrivacyLossDistribution.gaussian(1.0).compose(10).epsilon(1e-5).upper, 2)
        17.86
        """
        return compose_plds([(self, count)], tail_mass=tail_mass)


def _bracket(query: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]],
             name: str, x: ArrayLike) -> Bracket[Any]:
    """(lower, estimate, upper) of a core composition query at every element of ``x``; a
    domain error reports the caller's n-d index (as the elementwise functions do)."""
    from ._bridge import relocate

    a = np.asarray(as_real(name, x), dtype=np.float64)
    try:
        lo, es, up = query(np.ascontiguousarray(a.ravel()))
    except DomainError as exc:
        raise relocate(exc, a.shape, a.ndim == 0) from None
    if a.ndim == 0:
        return Bracket(float(lo[0]), float(es[0]), float(up[0]))
    return Bracket(lo.reshape(a.shape), es.reshape(a.shape), up.reshape(a.shape))


class ErrorBudget(NamedTuple):
    """The error terms of a composed PLD (:attr:`ComposedPLD.error_budget`); probabilities
    unless stated. ``upper`` adds ``inf_mass``, the two tails and ``fft_error`` to the
    discretised value; ``lower`` subtracts ``truncated_mass`` and a Hoeffding term in
    ``compositions`` and ``grid_step`` (module doc).

    >>> b = PrivacyLossDistribution.gaussian(1.0).compose(10).error_budget
    >>> b.compositions, b.grid_step, b.tail_above < 1e-15
    (10.0, 0.0001, True)
    """

    grid_step: float
    """The spacing h of the composed loss grid."""
    window_points: float
    """Grid points of the composed FFT window."""
    inf_mass: float
    """Composed mass at +∞, 1 − Π(1 − inf_i)^{T_i} (counted as +∞ by ``upper``)."""
    truncated_mass: float
    """Σ T_i·(mass each part moved by truncation) (subtracted by ``lower``)."""
    tail_above: float
    """Chernoff bound on the finite composed mass above the window."""
    tail_below: float
    """Chernoff bound on the finite composed mass below the window."""
    fft_error: float
    """Bound on the FFT round-off of the composed masses' queries."""
    compositions: float
    """Σ T_i: the number of composed mechanisms."""


class ComposedPLD:
    """A composed PLD; :meth:`delta` and :meth:`epsilon` return a :class:`Bracket`
    (lower, estimate, upper).

    >>> comp = PrivacyLossDistribution.gaussian(1.0).compose(10)
    >>> lo, est, up = comp.delta(8.0)
    >>> lo <= est <= up
    True
    """

    def __init__(self, core: Any) -> None:
        self._core = core

    @overload
    def delta(self, eps: Scalar) -> Bracket[float]: ...
    @overload
    def delta(self, eps: ArrayLike) -> Bracket[FloatArray]: ...
    def delta(self, eps: ArrayLike) -> Bracket[Any]:
        """δ(ε) as a :class:`Bracket` (lower bound, estimate, valid upper bound), each of the
        shape of ``eps``; ε ∈ [0, +∞].

        >>> b = PrivacyLossDistribution.gaussian(1.0).compose(4).delta(1.0)
        >>> round(b.upper, 6), round(gdp_delta(1.0, 2.0), 6)  # 4 Gaussians of σ = 1: 2-GDP
        (0.509862, 0.509862)
        """
        return _bracket(self._core.delta, "eps", eps)

    @overload
    def epsilon(self, delta: Scalar) -> Bracket[float]: ...
    @overload
    def epsilon(self, delta: ArrayLike) -> Bracket[FloatArray]: ...
    def epsilon(self, delta: ArrayLike) -> Bracket[Any]:
        """ε(δ) as a :class:`Bracket` (lower bound, estimate, valid upper bound), each of the
        shape of ``delta`` ∈ (0, 1); +inf where δ cannot be certified.

        >>> b = PrivacyLossDistribution.gaussian(1.0).compose(10).epsilon(1e-5)
        >>> b.lower <= gdp_epsilon(1e-5, 10**0.5) <= b.upper, round(b.upper, 2)
        (True, 17.86)
        """
        return _bracket(self._core.epsilon, "delta", delta)

    @property
    def error_budget(self) -> ErrorBudget:
        """The error terms of the composition as an :class:`ErrorBudget`."""
        return ErrorBudget(**dict(self._core.budget()))


_MAX_COUNT = 2**53


def compose_plds(
    parts: Sequence[tuple[PrivacyLossDistribution, int]], *, tail_mass: float = _COMPOSE_TAIL
) -> ComposedPLD:
    """Heterogeneous composition Π_i PLD_i^{⊗T_i} by FFT (one window, frequency-domain
    powering). ``parts``: pairs (PLD, T_i), all on the same ``grid_step``, each count T_i an
    integer in [1, 2^53]. ``tail_mass`` ∈ (0, 1e-3) bounds the mass outside the window (added
    to the upper bound). The window (at most 2^22 points) is sized before anything is allocated;
    a wider one is a DomainError on ``grid_step`` (a coarser grid, or fewer compositions,
    narrows it in proportion).

    >>> g = PrivacyLossDistribution.gaussian(2.0, grid_step=1e-3)
    >>> round(compose_plds([(g, 3), (g, 1)]).delta(1.0).upper, 6)  # 1-GDP: 0.126937
    0.126937
    """
    core_parts = []
    for i, (p, t) in enumerate(parts):
        if not isinstance(p, PrivacyLossDistribution):
            raise TypeError(f"parts[{i}] must pair a PrivacyLossDistribution with an integer, "
                            f"got {type(p).__name__}")
        try:
            ti = int_scalar("count", t, lo=1, hi=_MAX_COUNT)
        except DomainError as e:
            if len(parts) > 1:
                e.args = (f"{e.args[0]} at index {i}",)
                e.index = i  # type: ignore[attr-defined]
            raise
        core_parts.append((p._core, ti))
    return ComposedPLD(_core.pld_compose(core_parts, real_scalar("tail_mass", tail_mass)))


# ---------------------------------------------------------------------------------------------
# DP-SGD (the accountant under both neighbouring relations and both samplings): pabi._dpsgd

from ._dpsgd import dpsgd_calibrate_noise_multiplier, dpsgd_delta, dpsgd_epsilon  # noqa: E402,F401


# ---------------------------------------------------------------------------------------------
# Multi-epoch composition of a per-epoch privacy profile (003 §5): pabi._multi_epoch

from ._multi_epoch import MultiEpochEpsilon, _decayed_eps_max, multi_epoch_epsilon  # noqa: E402,F401
