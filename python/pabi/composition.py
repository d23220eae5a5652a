"""Composition: f-DP, Gaussian DP, exact (ε,δ) composition, privacy-loss distributions composed
by FFT with certified error bars, and the DP-SGD accountant (docs/derivations/composition.md; paper 003 §5).

Every privacy-loss-distribution (PLD) query returns a triple ``(lower, estimate, upper)``:

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
from typing import Callable, Literal, Sequence, Union, overload

import numpy as np

from . import _core
from ._api import theta
from ._bridge import (
    ArrayLike,
    DomainError,
    Float,
    as_real,
    call as _call,
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
    "PrivacyLossDistribution",
    "ComposedPLD",
    "compose_plds",
    "dpsgd_epsilon",
    "dpsgd_delta",
    "dpsgd_calibrate_noise_multiplier",
    "multi_epoch_epsilon",
]

Bracket = tuple[float, float, float]


def _domain(param: str, allowed: str, value: object) -> DomainError:
    return domain_error(param, allowed, value)


# ---------------------------------------------------------------------------------------------
# f-DP and exact composition


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


def gdp_epsilon(delta: ArrayLike, mu: ArrayLike) -> Float:
    """Smallest ε ≥ 0 with δ_μ(ε) ≤ δ for μ-GDP (an upper bound on the exact inverse).

    δ ∈ (0, 1), μ ≥ 0 finite; broadcasts. Regula falsi on the engine's upper-rounded ln θ,
    bracketed to a few ulp (docs/derivations/composition.md#gdp), in Rust.

    >>> round(gdp_epsilon(gdp_delta(1.0, 1.0), 1.0), 10)
    1.0
    """
    return _call(_core.gdp_epsilon, ("delta", "mu"), delta, mu)


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
_H_MAX = 0.1


def _check_h(h: object) -> float:
    """The grid step as a float in (0, 0.1] (DomainError on ``h`` otherwise)."""
    hf = real_scalar("h", h)
    if not (0.0 < hf <= _H_MAX):
        raise _domain("h", "in (0, 0.1]", h)
    return hf


def _check_positive(name: str, value: object) -> float:
    v = real_scalar(name, value)
    if not (0.0 < v < np.inf):
        raise _domain(name, "> 0 and finite", value)
    return v


def _profile_samples(span: float, h: float, extra: int, param: str, value: object) -> int:
    """ceil(span/h) + extra profile samples, checked against the cap before anything is
    sampled: DomainError on ``h`` if a coarser step (<= 0.1) fits, else on ``param``."""
    need = span / h + extra
    if need <= _MAX_PROFILE:
        return int(np.ceil(span / h)) + extra
    if span / _H_MAX + extra <= _MAX_PROFILE:
        hmin = min(span / (_MAX_PROFILE - extra - 1) * 1.001, _H_MAX)
        raise _domain("h", f"large enough that the profile has at most 2^20 samples (this h "
                           f"needs {need:.3e}; use h >= {hmin:.3e})", h)
    raise _domain(param, f"such that the profile has at most 2^20 samples even at the coarsest "
                         f"h = 0.1 (it needs {span / _H_MAX + extra:.3e})", value)


class PrivacyLossDistribution:
    """A privacy-loss distribution discretised pessimistically on the grid ℓ_k = k·h.

    Build with a constructor (:meth:`gaussian`, :meth:`subsampled_gaussian`, :meth:`laplace`,
    :meth:`from_eps_delta`, :meth:`from_profile`) and compose with :func:`compose_plds` or
    :meth:`compose`. Attributes: ``h``, ``pmf`` (masses), ``losses`` (grid), ``inf`` (mass at +∞).

    Resource limits: the grid step is ``h`` ∈ (0, 0.1]; a PLD has at most 2^21 grid points and a
    sampled profile at most 2^20 samples; a composition's FFT window at most 2^22 points. Sizes
    are checked before anything is allocated: a DomainError names ``h`` (with the coarsest step
    that fits) when a coarser grid would do, else the mechanism's parameter (``sigma``,
    ``sensitivity``, ``scale``, ``eps0``, ``eps_max``).
    """

    def __init__(self, core: object) -> None:
        self._core = core

    @property
    def h(self) -> float:
        return self._core.h  # type: ignore[attr-defined]

    @property
    def pmf(self) -> np.ndarray:
        return self._core.pmf  # type: ignore[attr-defined]

    @property
    def losses(self) -> np.ndarray:
        """The grid points ℓ_k = k·h of ``pmf`` as the core computes and uses them."""
        return self._core.losses  # type: ignore[attr-defined]

    @property
    def inf(self) -> float:
        return self._core.inf  # type: ignore[attr-defined]

    @classmethod
    def subsampled_gaussian(
        cls, q: float, sigma: float, *, neighbour: Literal["remove", "add"] = "remove",
        h: float = 1e-4,
    ) -> PrivacyLossDistribution:
        """Poisson-subsampled Gaussian mechanism: sensitivity 1, noise std σ, sampling rate q.

        ``neighbour="remove"``: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²); ``"add"``: swapped
        (dp-accounting's conventions). q = 1 is the Gaussian mechanism. The grid spans the loss
        over x ∈ [−9.5σ, 1 + 9.5σ], about 1/σ² + 19/σ wide for q = 1: it must fit 2^21 points.
        """
        if neighbour not in ("remove", "add"):
            raise _domain("neighbour", "'remove' or 'add'", neighbour)
        return cls(_core._Pld.subsampled_gaussian(
            real_scalar("q", q), real_scalar("sigma", sigma), neighbour, real_scalar("h", h)))

    @classmethod
    def gaussian(cls, sigma: float, *, sensitivity: float = 1.0, h: float = 1e-4):
        """Gaussian mechanism N(Δ, σ²) vs N(0, σ²) (μ-GDP with μ = Δ/σ); σ, Δ > 0 finite and
        the grid of σ/Δ must fit (see the class doc)."""
        s = _check_positive("sigma", sigma)
        d = _check_positive("sensitivity", sensitivity)
        ratio = s / d
        if not (0.0 < ratio < np.inf):
            raise _domain("sensitivity", f"such that sigma/sensitivity is a positive finite "
                                         f"float (it is {ratio!r})", sensitivity)
        try:
            return cls.subsampled_gaussian(1.0, ratio, h=h)
        except DomainError as exc:
            if getattr(exc, "param", None) == "sigma" and d != 1.0:
                raise _domain("sensitivity", f"small enough relative to sigma that the loss "
                                             f"grid of sigma/sensitivity = {ratio!r} fits its "
                                             f"cap of 2^21 points even at the coarsest h = 0.1",
                              sensitivity) from None
            raise

    @classmethod
    def from_eps_delta(cls, eps0: float, delta0: float, *, h: float = 1e-4):
        """The four-point PLD of f_{ε0,δ0} (Kairouz–Oh–Viswanath, Thm 3.4): +∞ w.p. δ0, ±ε0
        otherwise. The grid spans [−ε0 − h, ε0 + h] and must fit 2^21 points (ε0 ≤ ~1e5 at
        h = 0.1)."""
        return cls(_core._Pld.eps_delta(real_scalar("eps0", eps0), real_scalar("delta0", delta0),
                                        real_scalar("h", h)))

    @classmethod
    def from_profile(
        cls,
        delta: Union[Callable[[np.ndarray], np.ndarray], ArrayLike],
        *,
        h: float = 1e-3,
        eps_max: float | None = None,
        tail: float = 1e-18,
    ) -> PrivacyLossDistribution:
        """The PLD dominating every mechanism with the **symmetric** privacy profile δ(ε).

        ``delta`` is a vectorized callable ε ↦ δ(ε) (ε ≥ 0) or an array of δ(k·h), k = 0..J.
        The profile is sampled at ε_k = k·h up to ``eps_max`` (default: the first power-of-two
        multiple of 1 where δ ≤ ``tail``, ``tail`` ∈ (0, 1)); the mass δ(ε_J) goes to +∞.
        Since a true profile is convex in e^ε, the convex hull (in e^ε) of the samples
        dominates it between samples. At most 2^20 samples (eps_max/h + 1), checked before
        the callable is evaluated. Raises DomainError if δ is not in [0, 1], not
        non-increasing, or inconsistent.
        """
        hf = _check_h(h)
        if callable(delta):
            tl = real_scalar("tail", tail)
            if not (0.0 < tl < 1.0):
                raise _domain("tail", "in (0, 1)", tail)
            if eps_max is None:
                # the first of 1, 2, 4, ..., 8192 where δ ≤ tail (at most 14 evaluations)
                found = _decay_point(delta, tl, 1.0, 13)
                if found is None:
                    raise _domain("delta", f"a profile reaching {tl} for eps <= 1e4", delta)
                em = found
            else:
                em = _check_positive("eps_max", eps_max)
            n = _profile_samples(em, hf, 1, "eps_max", eps_max if eps_max is not None else em)
            vals = real_array("delta", delta(np.arange(n) * hf)).reshape(-1)
        else:
            vals = real_array("delta", delta).reshape(-1)
        return cls(_core._Pld.from_profile(hf, vals))

    @classmethod
    def laplace(cls, scale: float, *, sensitivity: float = 1.0, h: float = 1e-4):
        """Laplace mechanism Lap(Δ, b) vs Lap(0, b) via its exact profile (pabi.laplace_theta),
        sampled at ⌈(Δ/b)/h⌉ + 2 ≤ 2^20 points; b, Δ > 0 finite, h ∈ (0, 0.1]."""
        from ._api import laplace_theta

        b = _check_positive("scale", scale)
        d = _check_positive("sensitivity", sensitivity)
        hf = _check_h(h)
        r = d / b
        mech, mval = ("sensitivity", sensitivity) if d != 1.0 else ("scale", scale)
        if not (r < np.inf):
            raise _domain(mech, f"such that sensitivity/scale is finite (it is {r!r})", mval)
        n = _profile_samples(r, hf, 2, mech, mval)
        return cls.from_profile(laplace_theta(np.arange(n) * hf, r), h=hf)

    def compose(self, times: int, *, tail: float = 1e-15) -> ComposedPLD:
        """The ``times``-fold self-composition (``times`` an integer in [1, 2^53])."""
        return compose_plds([(self, times)], tail=tail)


def _bracket(query: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]],
             name: str, x: ArrayLike) -> tuple[Float, Float, Float]:
    """(lower, estimate, upper) of a core composition query at every element of ``x``; a
    domain error reports the caller's n-d index (as the elementwise functions do)."""
    from ._bridge import relocate

    a = np.asarray(as_real(name, x), dtype=np.float64)
    try:
        lo, es, up = query(np.ascontiguousarray(a.ravel()))
    except DomainError as exc:
        raise relocate(exc, a.shape, a.ndim == 0) from None
    if a.ndim == 0:
        return float(lo[0]), float(es[0]), float(up[0])
    return lo.reshape(a.shape), es.reshape(a.shape), up.reshape(a.shape)


class ComposedPLD:
    """A composed PLD; :meth:`delta` and :meth:`epsilon` return (lower, estimate, upper)."""

    def __init__(self, core: object) -> None:
        self._core = core

    def delta(self, eps: ArrayLike) -> tuple[Float, Float, Float]:
        """δ(ε) as (lower bound, estimate, valid upper bound). ε ∈ [0, +∞]."""
        return _bracket(self._core.delta, "eps", eps)  # type: ignore[attr-defined]

    def epsilon(self, delta: ArrayLike) -> tuple[Float, Float, Float]:
        """ε(δ) as (lower bound, estimate, valid upper bound); +inf if δ cannot be certified."""
        return _bracket(self._core.epsilon, "delta", delta)  # type: ignore[attr-defined]

    @property
    def error_budget(self) -> dict[str, float]:
        """The error terms: +∞ mass, truncated mass, Chernoff tails, FFT round-off, ..."""
        return dict(self._core.budget())  # type: ignore[attr-defined]


_MAX_TIMES = 2**53


def compose_plds(
    parts: Sequence[tuple[PrivacyLossDistribution, int]], *, tail: float = 1e-15
) -> ComposedPLD:
    """Heterogeneous composition Π_i PLD_i^{⊗T_i} by FFT (one window, frequency-domain
    powering). All parts must share the grid step h; each T_i is an integer in [1, 2^53].
    ``tail`` ∈ (0, 1e-3) bounds the mass outside the window. The window (at most 2^22 points)
    is sized before anything is allocated; a wider one is a DomainError on ``h`` (a coarser h,
    or fewer compositions, narrows it in proportion).
    """
    core_parts = []
    for i, (p, t) in enumerate(parts):
        if not isinstance(p, PrivacyLossDistribution):
            raise TypeError(f"parts[{i}] must pair a PrivacyLossDistribution with an integer, "
                            f"got {type(p).__name__}")
        try:
            ti = int_scalar("times", t, lo=1, hi=_MAX_TIMES)
        except DomainError as e:
            if len(parts) > 1:
                e.args = (f"{e.args[0]} at index {i}",)
                e.index = i  # type: ignore[attr-defined]
            raise
        core_parts.append((p._core, ti))
    return ComposedPLD(_core.pld_compose(core_parts, real_scalar("tail", tail)))


# ---------------------------------------------------------------------------------------------
# DP-SGD


def _check_steps(steps: object) -> float:
    """The ``steps`` count of the DP-SGD accountant (an integer ≥ 1, see pabi._bridge), as the
    float the core takes (exact below 2^53)."""
    return float(int_scalar("steps", steps))


_scalar = real_scalar


@overload
def dpsgd_epsilon(delta: float, *, sample_rate: float, noise_multiplier: float, steps: int,
                  grid_step: float = ..., bracket: Literal[False] = ...) -> float: ...
@overload
def dpsgd_epsilon(delta: float, *, sample_rate: float, noise_multiplier: float, steps: int,
                  grid_step: float = ..., bracket: Literal[True]) -> Bracket: ...
def dpsgd_epsilon(delta, *, sample_rate, noise_multiplier, steps, grid_step=1e-4, bracket=False):
    """ε(δ) of DP-SGD: ``steps`` compositions of the Poisson-subsampled Gaussian mechanism
    (``sample_rate`` q, ``noise_multiplier`` z = noise std / clipping norm), add-or-remove-one
    neighbours (worse direction), by the PLD/FFT accountant. Returns the **valid upper bound**;
    ``bracket=True`` returns (lower, estimate, upper).

    Matches dp-accounting's PLD accountant and prv-accountant to ~1e-5 (their tight values
    1.828 / 6.188 / 25.573 for q = 0.01, z = 1, δ = 1e-5, T = 1e3 / 1e4 / 1e5).
    q ∈ [0, 1], z > 0, steps an integer in [1, 1e12], δ ∈ (0, 1); ``grid_step`` h of the loss
    grid ∈ [1e-6, 0.1] (default 1e-4).

    Resource limits: the single-step PLD has at most 2^21 grid points and the composed FFT
    window at most 2^22. Where h is too fine for them the accountant uses the finest
    h·2^k (or 0.1) that fits (still a valid, slightly looser bound; at most 18 rounds, sizes
    checked before allocation); if nothing fits at h = 0.1, z is too small for ``steps``
    compositions and a DomainError names ``noise_multiplier``.

    >>> round(dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000), 3)
    1.828
    """
    r = _core.dpsgd_epsilon(_scalar("sample_rate", sample_rate), _scalar("noise_multiplier", noise_multiplier),
                            _check_steps(steps), _scalar("delta", delta), _scalar("grid_step", grid_step))
    return tuple(r) if bracket else r[2]


def dpsgd_delta(eps: float, *, sample_rate: float, noise_multiplier: float, steps: int,
                grid_step: float = 1e-4) -> Bracket:
    """δ(ε) of DP-SGD as (lower, estimate, valid upper bound), ε ∈ [0, +∞]; see
    :func:`dpsgd_epsilon` (same parameters, domains and resource limits)."""
    return tuple(_core.dpsgd_delta(_scalar("sample_rate", sample_rate),
                                   _scalar("noise_multiplier", noise_multiplier), _check_steps(steps),
                                   _scalar("eps", eps), _scalar("grid_step", grid_step)))


def dpsgd_calibrate_noise_multiplier(
    eps: float, delta: float, *, sample_rate: float, steps: int, grid_step: float = 1e-4,
    rtol: float = 1e-4
) -> float:
    """Smallest noise multiplier z (to relative tolerance ``rtol``) whose certified upper ε of
    DP-SGD is ≤ ``eps`` at ``delta``. The returned z is certified (its upper ε ≤ eps).

    Domains, checked before any work: ``eps`` ∈ (0, 100], ``delta`` ∈ (0, 1), ``sample_rate`` ∈
    (0, 1], ``steps`` an integer in [1, 1e12], ``grid_step`` ∈ [1e-6, 0.1], ``rtol`` ∈
    [1e-12, 0.1). An ε above 100 certifies nothing (e^100 ≈ 2.7e43), and the z it would call for
    can be so small that its loss grid exceeds the caps of :func:`dpsgd_epsilon`: such a target
    is a DomainError on ``eps`` up front. z is searched in [1e-3, 1e6] (a ValueError says which
    end was hit) with every loop bounded up front: geometric bracketing on a 10× coarser grid,
    then Illinois regula falsi safeguarded by bisection in ln z (≤ 3·log2(ln 2/rtol) + 3 steps
    per phase), a few hundred evaluations at the very most. An error while evaluating ε(z) is
    raised, never read as "target not met"; if the search reaches a z whose grid exceeds the
    caps, the DomainError names ``eps`` (the target is too loose to certify within them).

    >>> z = dpsgd_calibrate_noise_multiplier(1.828, 1e-5, sample_rate=0.01, steps=1000)
    >>> abs(z - 1.0) < 1e-3
    True
    """
    return _core.dpsgd_calibrate_sigma(
        _scalar("eps", eps), _scalar("delta", delta), _scalar("sample_rate", sample_rate),
        _check_steps(steps), _scalar("grid_step", grid_step), _scalar("rtol", rtol)
    )


# ---------------------------------------------------------------------------------------------
# Multi-epoch composition of a per-epoch privacy profile (003 §5)


# The RDP route takes a profile as 0 beyond eps_max, which needs δ(eps_max) ≤ 1e-300 (an
# upper bound that underflows is a few subnormal ulps, never 0): the default eps_max is the
# first of 64·2^k, k = 0..6, where the profile has decayed (:func:`_decayed_eps_max`, the one
# search; multi_epoch_epsilon, the accountant's method="best" and the CLI report use it).
_DECAYED = 1e-300
_EPS_MAX_START, _EPS_MAX_DOUBLINGS = 64.0, 6


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


def _decayed_eps_max(delta: Callable[[np.ndarray], np.ndarray]) -> float:
    """The smallest eps_max in 64·2^k (k ≤ 6: at most 4096) with δ(eps_max) ≤ 1e-300; a
    DomainError on ``delta`` if the profile has not decayed by 4096."""
    em = _decay_point(delta, _DECAYED, _EPS_MAX_START, _EPS_MAX_DOUBLINGS)
    if em is None:
        top = _EPS_MAX_START * 2.0**_EPS_MAX_DOUBLINGS
        raise _domain("delta", f"a profile that decays to <= {_DECAYED:g} at some eps <= {top:g} "
                               f"(64*2^k): give eps_max", delta)
    return em


def _profile_rdp_curve(
    delta: Callable[[np.ndarray], np.ndarray], orders: np.ndarray, eps_max: float, h: float
) -> np.ndarray:
    """ε_R(α) of a profile at each order, by the core's profile → RDP bound (the one
    implementation, docs/derivations/composition.md#profile-to-rdp; one array call over the
    orders, each value bit-identical to :func:`pabi.rdp.profile_to_rdp`) on the grid 0, h, ...,
    eps_max. The grid points k·h are rounded to nearest: they are the points where the profile
    is evaluated, so the samples are upper bounds at exactly those doubles."""
    grid = np.arange(int(np.ceil(eps_max / h)) + 1) * h
    values = np.array(delta(grid), dtype=float)
    # Beyond eps_max the profile is taken as 0, which requires it to have decayed there:
    # checked as δ(eps_max) ≤ 1e-300 (assumption documented in multi_epoch_epsilon).
    if not values[-1] <= _DECAYED:
        raise _domain("eps_max", f"large enough that the profile has decayed (delta(eps_max) = {values[-1]:.3g} "
                      "> 1e-300): increase eps_max", eps_max)
    values[-1] = 0.0
    return _core.profile_to_rdp_curve(np.ascontiguousarray(orders, dtype=np.float64), grid, values)


def _check_rdp_grid(eps_max: float, h: float) -> None:
    """The RDP route's profile grid 0, h, ..., eps_max has at most 2^25 points (as in the
    PLD's limit)."""
    if eps_max / h > 2**25:
        raise _domain("h", f"large enough that eps_max/h <= 2^25 (eps_max = {eps_max})", h)


def multi_epoch_epsilon(
    delta: Callable[[np.ndarray], np.ndarray],
    epochs: int,
    target_delta: float,
    *,
    h: float = 1e-3,
    eps_max: float | None = None,
    orders: ArrayLike | None = None,
    log_delta: Callable[[np.ndarray], np.ndarray] | None = None,
) -> dict[str, float]:
    """ε after composing ``epochs`` epochs of a per-epoch symmetric privacy profile δ(ε)
    (e.g. the shuffled-PNSGD bound of 003 Thm 2), by four routes (003 §5; docs/derivations/composition.md):

    * ``"single_point"``: the paper's route, one (ε0, δ(ε0)) point composed exactly
      (f_{ε0,δ0}^{⊗E}, KOV), minimised over ε0 ∈ {0.05, 0.1, ..., 20};
    * ``"pld"``: the whole profile composed through the PLD (valid upper bound);
    * ``"rdp"``: profile → RDP (sound, docs/derivations/composition.md#profile-to-rdp;
    :func:`pabi.rdp.profile_to_rdp`), composed,
      Mironov conversion;
    * ``"gdp"``: the GDP pair (μ*, δ_J) of :func:`gdp_dominating_pair` over every ε ≥ 0, from
      the samples ε = 0, h, 2h, ... up to the first ε ≥ 1 where δ ≤ 1e-300 (ln δ ≤ −690.8;
      at most 1e4), composed to 1 − (1−δ_J)^E + (1−δ_J)^E δ_{√E μ*} and inverted.

    All four are valid upper bounds (the smallest is the best certificate). Pass ``log_delta``,
    ε ↦ ln δ(ε), so that large ε do not underflow in the GDP route. The RDP route takes the
    profile as 0 beyond ``eps_max`` and requires δ(eps_max) ≤ 1e-300 (default: the first of
    64, 128, ..., 4096 where it holds; the PLD route then samples up to its own default, see
    :meth:`PrivacyLossDistribution.from_profile`).
    """
    E = int_scalar("epochs", epochs)
    target_delta, h = real_scalar("target_delta", target_delta), real_scalar("h", h)
    eps_max = opt_real_scalar("eps_max", eps_max)
    if not (h > 0 and math.isfinite(h)):
        raise _domain("h", "> 0 and finite", h)
    if eps_max is not None and not (eps_max > 0 and math.isfinite(eps_max)):
        raise _domain("eps_max", "> 0 and finite", eps_max)
    if eps_max is not None:
        _check_rdp_grid(eps_max, h)
    if not (0 < target_delta < 1):
        raise _domain("target_delta", "in (0, 1)", target_delta)
    a = np.asarray(real_array("orders", orders, ndim=1) if orders is not None else np.concatenate(
        [np.linspace(1.05, 2, 20), np.linspace(2.1, 20, 180), np.linspace(21, 64, 44)]))
    if a.size == 0:
        raise ValueError("orders must be a non-empty 1-D array")
    bad = ~((a > 1) & (a < np.inf))
    if bad.any():
        k = int(np.argmax(bad))
        raise domain_error("orders", "> 1 and finite", float(a[k]), k)
    rdp_eps_max = eps_max if eps_max is not None else _decayed_eps_max(delta)
    _check_rdp_grid(rdp_eps_max, h)
    pld = PrivacyLossDistribution.from_profile(delta, h=h, eps_max=eps_max)
    res: dict[str, float] = {"pld": pld.compose(E).epsilon(target_delta)[2]}
    e0 = np.linspace(0.0, 20.0, 401)[1:]
    d0 = np.ascontiguousarray(np.asarray(delta(e0), dtype=float))
    res["single_point"] = _core.single_point_composed_epsilon(
        np.ascontiguousarray(e0), d0, float(E), float(target_delta))
    from .rdp import rdp_to_dp_epsilon
    from .rdp._conversions import _rdp_scale as rdp_scale

    rdp = _profile_rdp_curve(delta, a, rdp_eps_max, h)
    res["rdp"] = rdp_to_dp_epsilon(target_delta, orders=a, rdp=rdp_scale(rdp, E, "epochs"), conversion="classical")[0]

    # the GDP grid ends at the first ε = 2^k ≥ 1 (k ≤ 13) where δ ≤ 1e-300 (ln δ ≤ −690.8), else 2^14
    if log_delta is not None:
        top = _decay_point(log_delta, -690.8, 1.0, 13)
    else:
        top = _decay_point(delta, math.exp(-690.8), 1.0, 13)
    top = 2.0**14 if top is None else top
    if top / h > 2**25:
        raise _domain("h", f"large enough that the GDP route's grid up to eps = {top} has <= 2^25 points", h)
    grid = np.arange(int(np.ceil(top / h)) + 1) * h
    if log_delta is not None:
        mu, dj = gdp_dominating_pair(grid, log_delta=np.asarray(log_delta(grid), dtype=float))
    else:
        mu, dj = gdp_dominating_pair(grid, delta=np.asarray(delta(grid), dtype=float))
    res["gdp"] = _core.gdp_composed_epsilon(float(target_delta), mu, dj, float(E))
    return res
