"""Reference (mpmath) implementations of the hockey-stick divergence of given distributions and
the contraction coefficient of a finite kernel (Asoodeh–Diaz–Calmon Thm 2): the defining sums,
each p_y − e^ε q_y at high precision with the masses taken as exact binary values."""

from __future__ import annotations

from typing import Sequence

import mpmath as mp

__all__ = ["hockey_stick_divergence", "contraction_coefficient"]

DEFAULT_DPS = 50


def hockey_stick_divergence(p_mass: Sequence[float], q_mass: Sequence[float], eps: float = 0.0,
                            dps: int = DEFAULT_DPS) -> mp.mpf:
    """Σ_y (p_y − e^ε q_y)_+ (ε = +inf: the mass of P where Q is 0)."""
    with mp.workdps(dps + 20):
        e = mp.mpf(eps)
        total = mp.mpf(0)
        for p, q in zip(p_mass, q_mass):
            p, q = mp.mpf(p), mp.mpf(q)
            if q == 0:
                total += p
            elif not mp.isinf(e):
                total += max(mp.mpf(0), p - mp.exp(e) * q)
    with mp.workdps(dps):
        return +total


def contraction_coefficient(kernel: Sequence[Sequence[float]], eps: float = 0.0,
                            dps: int = DEFAULT_DPS) -> mp.mpf:
    """max over ordered pairs of distinct rows of E_{e^ε}(K(x)‖K(x'))."""
    best = mp.mpf(0)
    for i, a in enumerate(kernel):
        for j, b in enumerate(kernel):
            if i != j:
                best = max(best, hockey_stick_divergence(a, b, eps, dps))
    return best
