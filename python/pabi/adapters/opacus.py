"""pabi's certified DP-SGD accountant as an Opacus accountant (``IAccountant``).

Import explicitly (it imports Opacus)::

    from pabi.adapters.opacus import PabiAccountant

Importing this module registers the accountant under the name ``"pabi"`` in Opacus's accountant
registry, so every place of Opacus that takes an accountant name takes pabi's too::

    engine = opacus.PrivacyEngine(accountant="pabi")
    sigma = opacus.accountants.utils.get_noise_multiplier(
        target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=1000, accountant="pabi")

What it computes: Opacus calls :meth:`PabiAccountant.step` once per optimiser step with the
step's noise multiplier and sample rate (Poisson sampling, add-or-remove-one neighbours: the
setting of Opacus's own ``rdp``/``prv`` accountants). The history is kept in Opacus's format,
a list of ``(noise_multiplier, sample_rate, steps)`` runs. :meth:`get_epsilon` composes the
history's privacy-loss distributions by FFT (docs/derivations/composition.md) and returns the
**upper end of pabi's certified bracket**: a valid ε for the whole run, never below the exact ε
of the subsampled Gaussian mechanism. A history of one run returns exactly
:func:`pabi.dpsgd_epsilon`. Where Opacus's RDP accountant over-reports ε by 5–15 % (RDP
conversion), this accountant is tight to the grid step (``grid_step``, default 1e-4).

``state_dict``/``load_state_dict`` are Opacus's (``history`` and ``mechanism``), so checkpoints
written by this accountant load back into it and Opacus refuses to load them into another one.
"""

from __future__ import annotations

import math
from typing import Any

from .._bridge import DomainError, domain_error, real_scalar

try:  # Opacus's accountant base class and registry (torch is imported by Opacus itself)
    from opacus.accountants import IAccountant, register_accountant
except ImportError as exc:  # the message a user without Opacus sees
    raise ImportError(
        "pabi.adapters.opacus needs Opacus (https://opacus.ai): pip install 'pabi[opacus]'"
    ) from exc

__all__ = ["PabiAccountant"]

MECHANISM = "pabi"


class PabiAccountant(IAccountant):  # type: ignore[misc]
    """Opacus accountant backed by pabi's certified privacy-loss distribution (PLD).

    ``grid_step`` is the loss-grid spacing h of the PLD (default 1e-4; see
    :func:`pabi.dpsgd_epsilon` for its range and the resource limits). Opacus creates the
    accountant with no arguments (``create_accountant("pabi")``).

    >>> acc = PabiAccountant()
    >>> for _ in range(1000):
    ...     acc.step(noise_multiplier=1.0, sample_rate=0.01)
    >>> len(acc), acc.history
    (1000, [(1.0, 0.01, 1000)])
    >>> round(acc.get_epsilon(delta=1e-5), 3)
    1.828
    """

    def __init__(self, *, grid_step: float = 1e-4) -> None:
        super().__init__()
        h = real_scalar("grid_step", grid_step)
        if not (1e-6 <= h <= 0.1):
            raise domain_error("grid_step", "in [1e-6, 0.1]", grid_step)
        self.grid_step = h

    @classmethod
    def mechanism(cls) -> str:
        """The name under which Opacus's registry knows this accountant: ``"pabi"``."""
        return MECHANISM

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one optimiser step (Opacus calls this through its optimiser hook)."""
        z = real_scalar("noise_multiplier", noise_multiplier)
        q = real_scalar("sample_rate", sample_rate)
        if not (z > 0 and math.isfinite(z)):
            raise domain_error("noise_multiplier", "> 0 and finite", noise_multiplier)
        if not (0.0 <= q <= 1.0):
            raise domain_error("sample_rate", "in [0, 1]", sample_rate)
        if self.history and self.history[-1][:2] == (z, q):
            self.history[-1] = (z, q, self.history[-1][2] + 1)
        else:
            self.history.append((z, q, 1))

    def __len__(self) -> int:
        """Number of steps recorded."""
        return sum(int(n) for _, _, n in self.history)

    def get_epsilon(self, delta: float, *args: Any, **kwargs: Any) -> float:
        """Certified ε(δ) of the steps so far: the upper end of pabi's PLD bracket (0.0 before
        the first step). Extra arguments Opacus passes to other accountants (``eps_error``,
        ``alphas``, ...) are accepted and ignored: pabi's bracket needs none."""
        import pabi

        d = real_scalar("delta", delta)
        if not (0.0 < d < 1.0):
            raise domain_error("delta", "in (0, 1)", delta)
        runs = [(float(z), float(q), int(n)) for z, q, n in self.history if q > 0.0 and n > 0]
        if not runs:
            return 0.0
        try:
            if len(runs) == 1:
                z, q, n = runs[0]
                return float(pabi.dpsgd_epsilon(d, sample_rate=q, noise_multiplier=z, steps=n, grid_step=self.grid_step))
            return self._heterogeneous_epsilon(runs, d)
        except DomainError as e:
            # A noise multiplier so small that its loss grid exceeds pabi's resource caps even at
            # the coarsest step: nothing finite is certified, and +inf is the valid answer (it
            # also lets Opacus's get_noise_multiplier search upward instead of failing).
            if getattr(e, "param", None) in ("noise_multiplier", "grid_step"):
                return math.inf
            raise

    def _heterogeneous_epsilon(self, runs: list[tuple[float, float, int]], delta: float) -> float:
        """Runs with different (noise multiplier, sample rate): the runs' PLDs composed by FFT in
        each add/remove direction (the pair of datasets is the same for every step), the worse
        direction's certified upper ε."""
        import pabi

        worst = 0.0
        for direction in ("remove", "add"):
            parts = [(pabi.PrivacyLossDistribution.subsampled_gaussian(
                sample_rate=q, noise_multiplier=z, direction=direction, grid_step=self.grid_step), n)
                for z, q, n in runs]
            worst = max(worst, float(pabi.compose_plds(parts).epsilon(delta).upper))
        return worst

    def get_privacy_spent(self, *, delta: float) -> tuple[float, None]:
        """(ε, None): Opacus's RDP accountant returns (ε, best order); a PLD has no order."""
        return self.get_epsilon(delta), None


register_accountant(MECHANISM, PabiAccountant, force=True)
