"""pabi results as `dp-accounting <https://github.com/google/differential-privacy>`_ objects.

dp-accounting (Google) composes *events* (``DpEvent``: Gaussian, Laplace, Poisson-sampled, ...)
in its accountants, and *privacy-loss distributions* (PLDs) directly. It has no event for an
arbitrary privacy profile or (ε, δ) pair, and its ``PLDAccountant`` cannot take a PLD from
outside. What pabi can soundly hand over is therefore:

* a **PLD** (:class:`dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution`)
  for any privacy profile δ(ε) pabi computes — e.g. one epoch of shuffled PNSGD
  (:func:`pnsgd_epoch_pld`), or any profile / :class:`pabi.PrivacyLossDistribution`
  (:func:`pld_from_profile`, :func:`to_dp_accounting_pld`). The PLD is pabi's pessimistic
  discretisation (connect-the-dots on the grid k·h, docs/derivations/composition.md) of the pair
  dominating every mechanism with that symmetric profile, copied exactly into a dp-accounting dense
  PMF with
  ``pessimistic_estimate=True``: every δ(ε) dp-accounting computes from it, also after
  ``compose`` / ``self_compose`` with other dp-accounting PLDs of the same
  ``value_discretization_interval``, is an upper bound for the mechanism up to
  dp-accounting's floating-point (FFT) error, which dp-accounting does not bound — pabi's own
  :func:`pabi.compose_plds` adds it to its certified upper value.
* a **zCDP event** for the RDP comparison bound of PNSGD (Asoodeh–Diaz–Calmon Prop. 1): record
  ``index`` of fixed-order PNSGD is (α, α c_i)-RDP for every α > 1, i.e. c_i-zCDP, which is
  exactly :class:`dp_accounting.ZCDpEvent` (``rho = c_i``); dp-accounting's ``RdpAccountant``
  composes it with its other events (:func:`pnsgd_zcdp_event`).

For a single (ε, δ) guarantee use dp-accounting's own
``privacy_loss_distribution.from_privacy_parameters(DifferentialPrivacyParameters(eps, delta))``
(the four-point PLD, same as :meth:`pabi.PrivacyLossDistribution.from_eps_delta`).

Neighbouring relation: the PNSGD bounds are for datasets differing in one record (replace-one)
and the profile PLDs are symmetric. Compose them only with dp-accounting PLDs/events built for
the same relation (e.g. ``neighboring_relation=NeighboringRelation.REPLACE_ONE``); mixing
relations is not checked by either library.

dp-accounting is imported lazily: ``pip install dp-accounting``.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, Union

import numpy as np

from .._bridge import ArrayLike, domain_error

__all__ = ["to_dp_accounting_pld", "pld_from_profile", "pnsgd_epoch_pld", "pnsgd_zcdp_rho",
           "pnsgd_zcdp_event"]


def _dp_accounting() -> Any:
    try:
        import dp_accounting  # noqa: F401
        from dp_accounting.pld import pld_pmf, privacy_loss_distribution
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("pabi.adapters.dp_accounting needs dp-accounting: pip install dp-accounting") from exc
    return pld_pmf, privacy_loss_distribution


def to_dp_accounting_pld(pld: Any) -> Any:
    """A :class:`pabi.PrivacyLossDistribution` as a dp-accounting ``PrivacyLossDistribution``.

    The masses, the grid step h (dp-accounting's ``value_discretization_interval``), the grid
    offset and the mass at +∞ are copied unchanged into a symmetric ``DensePLDPmf`` marked
    pessimistic, so dp-accounting's δ(ε) of the result equals pabi's discretised estimate and
    both are upper bounds for the mechanism.

    >>> import pabi
    >>> p = pabi.PrivacyLossDistribution.from_eps_delta(1.0, 1e-6, grid_step=1e-3)
    >>> q = to_dp_accounting_pld(p)
    >>> d_dp, d_pabi = q.get_delta_for_epsilon(0.5), p.compose(1).delta(0.5)[1]
    >>> round(float(d_dp), 12), bool(abs(d_dp - d_pabi) < 1e-12 * d_pabi)
    (0.287649848996, True)
    """
    from ..composition import PrivacyLossDistribution

    if not isinstance(pld, PrivacyLossDistribution):
        raise TypeError(f"pld must be a pabi.PrivacyLossDistribution, got {type(pld).__name__}")
    pld_pmf, privacy_loss_distribution = _dp_accounting()
    h = float(pld.grid_step)
    lower = int(round(float(pld.losses[0]) / h)) if len(pld.pmf) else 0
    probs = np.array(pld.pmf, dtype=np.float64)  # a copy: dp-accounting may keep the array
    pmf = pld_pmf.DensePLDPmf(h, lower, probs, float(pld.inf), True)
    return privacy_loss_distribution.PrivacyLossDistribution(pmf)


def pld_from_profile(
    profile: Union[Callable[[np.ndarray], np.ndarray], ArrayLike],
    *,
    grid_step: float = 1e-3,
    eps_max: Optional[float] = None,
    tail_mass: float = 1e-18,
) -> Any:
    """The dp-accounting PLD dominating every mechanism with the symmetric privacy profile δ(ε).

    ``profile``: a vectorized callable ε ↦ δ(ε) (an upper bound of the profile, e.g. a pabi
    function) or the array δ(k·h), k = 0..J, h = ``grid_step`` > 0. Built by
    :meth:`pabi.PrivacyLossDistribution.from_profile` (same ``grid_step``, ``eps_max``,
    ``tail_mass``; raises ``DomainError`` naming ``profile`` for a profile that is not in
    [0, 1] or not non-increasing) and converted by :func:`to_dp_accounting_pld`.

    >>> import numpy as np, pabi
    >>> prof = lambda e: pabi.gdp_delta(e, 0.5)  # 0.5-GDP
    >>> q = pld_from_profile(prof, grid_step=1e-3).self_compose(4)
    >>> round(q.get_epsilon_for_delta(1e-5), 3), round(pabi.gdp_epsilon(1e-5, 1.0), 3)  # 1-GDP
    (4.377, 4.377)
    """
    from ..composition import PrivacyLossDistribution

    if not (isinstance(grid_step, (int, float)) and grid_step > 0 and math.isfinite(grid_step)):
        raise domain_error("grid_step", "> 0 and finite", grid_step)
    return to_dp_accounting_pld(PrivacyLossDistribution.from_profile(profile, grid_step=grid_step, eps_max=eps_max,
                                                                     tail_mass=tail_mass))


def pnsgd_epoch_pld(
    *,
    noise: str = "gaussian",
    noise_scale: float,
    max_grad_norm: float,
    lr: float,
    diameter: float,
    steps: int,
    ordering: str = "shuffled",
    index: Optional[int] = None,
    smoothness: Optional[float] = None,
    strong_convexity: float = 0.0,
    grid_step: float = 1e-3,
    eps_max: Optional[float] = None,
) -> Any:
    """dp-accounting PLD of one PNSGD run (one epoch over ``steps`` records, last iterate
    released) from its privacy profile :func:`pabi.pnsgd_delta` (Sordello–Bu–Dong Thm 2 for
    ``ordering="shuffled"``, Thm 1 for ``"fixed"`` with ``index``; see :mod:`pabi.pnsgd`), on
    the privacy-loss grid of spacing ``grid_step``.

    Several epochs (fresh permutation each, continuing from the last iterate) compose as
    ``pld.self_compose(epochs)``; other mechanisms on the same data as ``pld.compose(other)``.
    All scalar parameters, validated as :class:`pabi.adapters.PNSGDAccountant` validates them
    (``DomainError`` naming the parameter).

    >>> kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
    >>> pld = pnsgd_epoch_pld(**kw)
    >>> round(pld.self_compose(3).get_epsilon_for_delta(1e-5), 2)
    9.17
    """
    from .. import pnsgd_delta
    from .accountant import epoch_config

    kw, h, eps_max = epoch_config(noise=noise, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr,
                                  diameter=diameter, steps=steps, ordering=ordering, index=index,
                                  smoothness=smoothness, strong_convexity=strong_convexity, grid_step=grid_step,
                                  eps_max=eps_max)

    def profile(e: np.ndarray) -> np.ndarray:
        return np.asarray(pnsgd_delta(e, **kw))

    return pld_from_profile(profile, grid_step=h, eps_max=eps_max)


def pnsgd_zcdp_rho(
    *,
    noise_scale: float,
    max_grad_norm: float,
    lr: float,
    steps: int,
    index: int,
    smoothness: Optional[float] = None,
    strong_convexity: float = 0.0,
) -> float:
    """ρ = c_i such that record ``index`` of fixed-order Gaussian PNSGD is ρ-zCDP, i.e.
    (α, α c_i)-RDP for all α > 1 (Asoodeh–Diaz–Calmon Prop. 1): :func:`pabi.pnsgd_rdp_slope`
    (rounded up by the engine), as a plain float.

    >>> pnsgd_zcdp_rho(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=100, index=1)  # 2/100
    0.02000000000...
    """
    from .. import pnsgd_rdp_slope
    from .._bridge import opt_real_scalar, real_scalar

    # scalars only (TypeError naming the argument); every range, steps and index included, is
    # checked once, by pnsgd_rdp_slope's checker (DomainError naming the parameter)
    return float(pnsgd_rdp_slope(
        noise_scale=real_scalar("noise_scale", noise_scale), max_grad_norm=real_scalar("max_grad_norm", max_grad_norm),
        lr=real_scalar("lr", lr), steps=real_scalar("steps", steps), index=real_scalar("index", index),
        smoothness=opt_real_scalar("smoothness", smoothness),
        strong_convexity=real_scalar("strong_convexity", strong_convexity)))


def pnsgd_zcdp_event(
    *,
    noise_scale: float,
    max_grad_norm: float,
    lr: float,
    steps: int,
    index: int,
    smoothness: Optional[float] = None,
    strong_convexity: float = 0.0,
) -> Any:
    """``dp_accounting.ZCDpEvent(rho=c_i)`` for record ``index`` of fixed-order Gaussian PNSGD
    (see :func:`pnsgd_zcdp_rho`), to compose in dp-accounting's ``RdpAccountant``. The worst
    record of a fixed-order run is the last one (index = steps: ρ = 2L²/σ², no amplification).

    >>> import dp_accounting
    >>> ev = pnsgd_zcdp_event(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=100, index=1)
    >>> acc = dp_accounting.rdp.RdpAccountant().compose(ev, 10)
    >>> round(float(acc.get_epsilon(1e-5)), 3)  # pabi: 0.2 + 2*sqrt(0.2 ln 1e5) = 3.235
    2.814
    """
    import dp_accounting

    rho = pnsgd_zcdp_rho(noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, steps=steps, index=index,
                         smoothness=smoothness, strong_convexity=strong_convexity)
    return dp_accounting.ZCDpEvent(rho=rho)
