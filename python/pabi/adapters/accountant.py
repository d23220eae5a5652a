"""A privacy accountant for projected noisy SGD (PNSGD) training loops.

PNSGD (see :mod:`pabi.pnsgd`) passes over the ``n`` records one at a time, with Gaussian (or
Laplace) noise on each gradient step and a projection onto a set of diameter D, and only the
last iterate is released. One epoch is (ε, δ(ε))-DP for the privacy profile
:func:`pabi.pnsgd_delta` (Sordello–Bu–Dong Thm 2 for a fresh random permutation per epoch,
Thm 1 for a fixed order and one record ``index``); :class:`PNSGDAccountant` counts steps and
composes the epochs through pabi's privacy-loss distribution (docs/derivations/composition.md), which gives a
valid upper bound on ε(δ) and δ(ε) of the whole run.

The interface says what PNSGD is: the training loop reports the records it processed
(:meth:`PNSGDAccountant.record_steps`, one record per step, or whole epochs with
:meth:`~PNSGDAccountant.record_epochs`), and the accountant answers :meth:`~PNSGDAccountant.epsilon`
and :meth:`~PNSGDAccountant.delta` for the last iterate released now. The setup (noise, step
size, projection diameter, ordering of the records) is fixed at construction — from keywords or
from a :class:`pabi.PNSGD` value (:meth:`~PNSGDAccountant.from_setup`) — because the bounds
assume it constant. It is not an Opacus accountant: DP-SGD with Opacus uses
:class:`pabi.adapters.opacus.PabiAccountant`.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any, Callable, Optional

import numpy as np

from .._bridge import choice, domain_error, int_scalar, opt_real_scalar, real_scalar

__all__ = ["PNSGDAccountant"]

_ORDERS = ("shuffled", "fixed")
_MECHANISM = "pnsgd"  # the state dict's mechanism tag


def epoch_config(*, noise: str, noise_scale: float, max_grad_norm: float, lr: float, diameter: float, steps: int,
                 ordering: str, index: Optional[int], smoothness: Optional[float], strong_convexity: float,
                 grid_step: float, eps_max: Optional[float], orderings: Optional[tuple[str, ...]] = None,
                 why: str = ""
                 ) -> tuple[dict[str, Any], float, Optional[float]]:
    """The one validation of a PNSGD epoch configuration for a PLD of its profile (the
    accountant's and :func:`pabi.adapters.dp_accounting.pnsgd_epoch_pld`'s, one wording): the
    keyword arguments of :func:`pabi.pnsgd_delta` (scalars as Python numbers), the grid step and
    ``eps_max``. ``ordering`` one of ``orderings`` (``why`` says why others are not; None: any
    that :func:`pabi.pnsgd_delta` takes); ``index`` and every range as :func:`pabi.pnsgd_delta`
    checks them (one checker, in the core: DomainError naming the parameter)."""
    from .. import pnsgd_delta

    if orderings is not None:
        choice("ordering", ordering, orderings, why)
    steps = int_scalar("steps", steps, lo=1)
    cfg: dict[str, Any] = dict(
        noise=noise, noise_scale=real_scalar("noise_scale", noise_scale),
        max_grad_norm=real_scalar("max_grad_norm", max_grad_norm), lr=real_scalar("lr", lr),
        diameter=real_scalar("diameter", diameter), steps=steps, ordering=ordering, index=index,
        smoothness=opt_real_scalar("smoothness", smoothness),
        strong_convexity=real_scalar("strong_convexity", strong_convexity))
    h = real_scalar("grid_step", grid_step)
    if not (h > 0 and math.isfinite(h)):
        raise domain_error("grid_step", "> 0 and finite", h)
    if eps_max is not None:
        eps_max = real_scalar("eps_max", eps_max)
        if not (eps_max > 0 and math.isfinite(eps_max)):
            raise domain_error("eps_max", "> 0 and finite", eps_max)
    # validates noise, every parameter's range and the index rule (the core's one checker:
    # DomainError naming the parameter)
    pnsgd_delta(1.0, **cfg)
    if index is not None:
        cfg["index"] = int(real_scalar("index", index))  # an integer in [1, steps], checked above
    return cfg, h, eps_max


def _count(name: str, value: object) -> int:
    return int_scalar(name, value, lo=0)


class PNSGDAccountant:
    """Privacy accountant for a PNSGD training loop (one record per step, ``steps`` steps per
    epoch).

    Parameters are those of :func:`pabi.pnsgd_delta` (scalars): ``noise`` ("gaussian" or
    "laplace"), ``noise_scale`` σ, ``max_grad_norm`` L, ``lr`` η, ``diameter`` D, ``steps``
    records per epoch, ``smoothness`` β and ``strong_convexity`` ρ (contraction factor M,
    η ≤ 2/(β+ρ) enforced), and ``ordering``:

    * ``"shuffled"`` (default): a fresh uniformly random permutation of the records each epoch
      (003 Thm 2);
    * ``"fixed"``: the records in index order every epoch; the guarantee is for record
      ``index`` (1-based; the last record, ``index=steps``, is the worst: δ = A, no amplification).

    ``grid_step`` (default 1e-3) is the loss-grid step of the PLD and ``eps_max`` the largest ε at which
    the per-epoch profile is sampled (default: where it falls below 1e-18; see
    :meth:`pabi.PrivacyLossDistribution.from_profile`).

    Epochs compose (each continues from the previous last iterate; the one-epoch bounds hold
    for any starting point). An epoch in progress (m of n steps done) is accounted as well, so
    :meth:`epsilon` is valid at every step:

    * fixed order: the partial run is PNSGD with m steps, bounded by :func:`pabi.pnsgd_delta`
      with ``steps=m`` (003 Thm 1) if record ``index`` ≤ m was processed, and not at all otherwise;
    * shuffled: the differing record sits at a uniform position p of the permutation; for
      p > m both runs coincide, so by joint convexity (the argument of 003 Thm 2)
      δ ≤ A(1 − B^m)/(n(1 − B)) ≤ A(1 − B^n)/(n(1 − B)): a started epoch is counted as a full
      one (conservative).

    The guarantee is for releasing the current iterate only (PNSGD's assumption): every model
    published along the way (checkpoints) is a separate release to account for.

    Examples (the values equal the direct pabi calls):

    >>> import pabi
    >>> from pabi.adapters import PNSGDAccountant
    >>> kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
    >>> acc = PNSGDAccountant(**kw)
    >>> for _ in range(300):  # three epochs, one record per step
    ...     acc.record_steps()
    >>> acc.steps_taken, acc.epochs
    (300, 3)
    >>> eps = acc.epsilon(1e-5)
    >>> round(eps, 4)
    9.1693
    >>> profile = lambda e: pabi.pnsgd_delta(e, ordering="shuffled", **kw)
    >>> pld = pabi.PrivacyLossDistribution.from_profile(profile, grid_step=1e-3)
    >>> eps == pld.compose(3).epsilon(1e-5)[2]
    True
    >>> acc.delta(eps) <= 1e-5
    True
    >>> one = PNSGDAccountant(**kw)
    >>> one.record_epochs()  # one epoch: close to the direct inverse of the profile
    >>> round(one.epsilon(1e-5), 4), round(pabi.pnsgd_epsilon(1e-5, ordering="shuffled", **kw), 4)
    (7.5819, 7.5819)
    """

    def __init__(
        self,
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
    ) -> None:
        cfg, h, eps_max = epoch_config(
            noise=noise, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter, steps=steps,
            ordering=ordering, index=index, smoothness=smoothness, strong_convexity=strong_convexity,
            grid_step=grid_step, eps_max=eps_max, orderings=_ORDERS,
            why="(a per-epoch random stop is not a step-by-step training loop)")
        self._cfg = cfg
        self._h, self._eps_max = h, eps_max
        self._steps = 0
        self._plds: dict[int, Any] = {}  # steps in the epoch -> PLD of that (partial) epoch
        self._composed: tuple[Any, Any] = (None, None)  # (key, ComposedPLD) of the last query

    @classmethod
    def from_setup(cls, setup: Any, *, grid_step: float = 1e-3,
                   eps_max: Optional[float] = None) -> "PNSGDAccountant":
        """The accountant of a :class:`pabi.PNSGD` setup (its ``epochs`` is what the loop will
        report, not read here). The setup must meet the amplification bounds' assumptions
        (DomainError naming the field otherwise) and use ordering "shuffled" or "fixed".

        >>> import pabi
        >>> run = pabi.PNSGD(records=100, lr=0.5, noise_scale=1.0, max_grad_norm=1.0, diameter=1.0,
        ...                  smoothness=2.0, convex=True, epochs=3)
        >>> acc = PNSGDAccountant.from_setup(run)
        >>> acc.record_epochs(3)
        >>> acc.epsilon(1e-5) == run.epsilon(1e-5)
        True
        """
        setup.replace(epochs=1)._require()  # the amplification bounds' assumptions
        return cls(noise=setup.noise, noise_scale=setup.noise_scale, max_grad_norm=setup.max_grad_norm,
                   lr=setup.lr, diameter=setup.diameter, steps=setup.records, ordering=setup.ordering,
                   index=setup.index if setup.ordering != "fixed" or setup.index is not None else setup.records,
                   smoothness=setup.smoothness, strong_convexity=setup.strong_convexity, grid_step=grid_step,
                   eps_max=eps_max)

    # -- the training loop reports its steps ------------------------------------------------

    def record_steps(self, count: int = 1) -> None:
        """Record ``count`` PNSGD steps (one record each)."""
        self._steps += _count("count", count)

    def record_epochs(self, count: int = 1) -> None:
        """Record ``count`` complete epochs (``count·records`` steps) at an epoch boundary.

        Raises ``ValueError`` in the middle of an epoch (use :meth:`record_steps` there)."""
        count = _count("count", count)
        if self._steps % self.records:
            raise ValueError(f"record_epochs() in the middle of an epoch ({self._steps % self.records} of "
                             f"{self.records} steps done); record the remaining steps with record_steps()")
        self._steps += count * self.records

    @property
    def noise_scale(self) -> float:
        """The noise scale of every step."""
        return float(self._cfg["noise_scale"])

    @property
    def records(self) -> int:
        """Records per epoch (one per step)."""
        return int(self._cfg["steps"])

    @property
    def steps_taken(self) -> int:
        """Steps recorded so far."""
        return self._steps

    @property
    def epochs_completed(self) -> int:
        """Complete epochs so far."""
        return self._steps // self.records

    @property
    def epochs(self) -> int:
        """Epochs accounted: complete ones plus a started one."""
        return -(-self._steps // self.records)

    def epoch_profile(self, eps: Any) -> Any:
        """δ(ε) of one complete epoch: :func:`pabi.pnsgd_delta` with this configuration."""
        from .. import pnsgd_delta

        return pnsgd_delta(eps, **self._cfg)

    def _epoch_pld(self, m: int) -> Any:
        """PLD of an epoch of m steps (m = n: a full epoch)."""
        if m not in self._plds:
            from .. import pnsgd_delta
            from ..composition import PrivacyLossDistribution

            cfg = dict(self._cfg)
            if m != self.records:  # fixed order, record already processed: a run of m steps
                cfg["steps"] = m
            profile: Callable[[np.ndarray], Any] = lambda e: pnsgd_delta(e, **cfg)  # noqa: E731
            if len(self._plds) > 4:  # full epoch + a few partial ones
                self._plds = {k: v for k, v in self._plds.items() if k == self.records}
            self._plds[m] = PrivacyLossDistribution.from_profile(profile, grid_step=self._h,
                                                                 eps_max=self._eps_max)
        return self._plds[m]

    def _parts(self) -> list[tuple[Any, int]]:
        full, m = divmod(self._steps, self.records)
        parts: list[tuple[Any, int]] = []
        if m and self._cfg["ordering"] == "shuffled":
            full, m = full + 1, 0  # a started shuffled epoch is bounded by a full one
        if full:
            parts.append((self._epoch_pld(self.records), full))
        if m and self._cfg["index"] <= m:  # fixed order: protected record already processed
            parts.append((self._epoch_pld(m), 1))
        return parts

    def _composed_pld(self) -> Any:
        from ..composition import compose_plds

        parts = self._parts()
        key = tuple((id(p), k) for p, k in parts)
        if self._composed[0] != key:
            self._composed = (key, compose_plds(parts) if parts else None)
        return self._composed[1]

    def epsilon(self, delta: float, *, conversion: str = "pld") -> float:
        """A valid upper bound on ε such that the run so far is (ε, ``delta``)-DP.

        ``conversion="pld"`` (default): the epochs' privacy-loss distributions composed by FFT
        (the certified upper end of :meth:`pabi.ComposedPLD.epsilon`). ``conversion="best"``: the
        smallest of the valid routes of :func:`pabi.multi_epoch_epsilon` (PLD, single point,
        RDP; slower, ~seconds; complete epochs of shuffled order only, a started one counted
        as full). 0.0 before the first step; +inf if δ cannot be certified.
        """
        delta = real_scalar("delta", delta)
        if not 0 < delta < 1:
            raise domain_error("delta", "in (0, 1)", delta)
        choice("conversion", conversion, ("pld", "best"))
        if conversion == "best" and self._cfg["ordering"] != "shuffled":
            raise ValueError("conversion='best' supports ordering='shuffled' only")
        composed = self._composed_pld()
        if composed is None:
            return 0.0
        eps = float(composed.epsilon(delta)[2])
        if conversion == "best":
            eps = min(eps, self._multi_epoch(delta))
        return eps

    def _multi_epoch(self, delta: float) -> float:
        from ..composition import _decayed_eps_max, multi_epoch_epsilon

        # the RDP route needs the profile to have decayed (≤ 1e-300) at eps_max; the PLD route
        # samples up to the same eps_max
        eps_max = _decayed_eps_max(self.epoch_profile)
        res = multi_epoch_epsilon(delta, profile=self.epoch_profile, epochs=self.epochs, grid_step=self._h,
                                  eps_max=eps_max)
        return min(res.pld, res.single_point, res.rdp)

    def delta(self, eps: float) -> float:
        """A valid upper bound on δ(``eps``) of the run so far (0.0 before the first step)."""
        eps = real_scalar("eps", eps)
        if not (eps >= 0 and math.isfinite(eps)):
            raise domain_error("eps", ">= 0 and finite", eps)
        composed = self._composed_pld()
        if composed is None:
            return 0.0
        return float(composed.delta(eps)[2])

    def to_dp_accounting_pld(self) -> Any:
        """The run so far as a dp-accounting ``PrivacyLossDistribution`` (the same epoch PLDs,
        composed by dp-accounting), to compose with other dp-accounting PLDs of the same
        ``value_discretization_interval`` (= ``h``) and neighbouring relation (replace-one).
        Needs dp-accounting; ``None`` before the protected record was processed.

        >>> acc = PNSGDAccountant(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
        >>> acc.record_epochs(3)
        >>> round(acc.to_dp_accounting_pld().get_epsilon_for_delta(1e-5), 4)
        9.1693
        """
        from .dp_accounting import to_dp_accounting_pld

        out = None
        for pld, times in self._parts():
            part = to_dp_accounting_pld(pld)
            part = part.self_compose(times) if times > 1 else part
            out = part if out is None else out.compose(part)
        return out

    # -- checkpointing ----------------------------------------------------------------------

    def state_dict(self, destination: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        """The accountant's state for a checkpoint: mechanism, configuration and step count.

        >>> a = PNSGDAccountant(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=10)
        >>> a.record_steps(25)
        >>> b = PNSGDAccountant(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=10)
        >>> b.load_state_dict(a.state_dict()); b.steps_taken
        25
        """
        out: dict[str, Any] = OrderedDict() if destination is None else destination
        out["mechanism"] = _MECHANISM
        out["steps"] = self._steps
        out["config"] = dict(self._cfg, grid_step=self._h, eps_max=self._eps_max)
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the step count from :meth:`state_dict`. The configuration must be the same
        (``ValueError`` naming the first differing parameter): a checkpoint of another setup
        would be accounted with the wrong bound."""
        if not isinstance(state_dict, dict) or not state_dict:
            raise ValueError("state_dict must be a non-empty dict from PNSGDAccountant.state_dict()")
        if state_dict.get("mechanism") != _MECHANISM:
            raise ValueError(f"state_dict is for mechanism {state_dict.get('mechanism')!r}, not 'pnsgd'")
        mine = dict(self._cfg, grid_step=self._h, eps_max=self._eps_max)
        theirs = state_dict.get("config", {})
        for key, value in mine.items():
            if theirs.get(key, object()) != value:
                raise ValueError(f"state_dict was saved with {key}={theirs.get(key)!r}, this accountant "
                                 f"has {key}={value!r}")
        self._steps = _count("steps", state_dict.get("steps"))

    def __repr__(self) -> str:
        cfg = ", ".join(f"{k}={v!r}" for k, v in self._cfg.items() if v is not None)
        return f"PNSGDAccountant({cfg}; steps={self._steps}, epochs={self.epochs})"
