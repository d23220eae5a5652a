"""Reference (mpmath) implementations of the hockey-stick divergence of given distributions and
the contraction coefficient of a finite kernel (Asoodeh–Diaz–Calmon Thm 2): the defining sums,
each p_y − e^ε q_y at high precision with the masses taken as exact binary values; and E_γ of
two Gaussian mixtures from the roots of p − e^ε q (the set {p > e^ε q} is a finite union of
intervals between consecutive roots, each interval's P − e^ε Q by the normal CDF)."""

from __future__ import annotations

from typing import Sequence

import mpmath as mp

__all__ = ["hockey_stick_divergence", "contraction_coefficient", "mixture_hockey_stick_divergence"]

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


def mixture_hockey_stick_divergence(p_weights: Sequence[float], p_means: Sequence[float],
                                    p_stds: Sequence[float], q_weights: Sequence[float],
                                    q_means: Sequence[float], q_stds: Sequence[float],
                                    eps: float = 0.0, dps: int = DEFAULT_DPS,
                                    grid: int = 4000, sigmas: float = 40.0) -> mp.mpf:
    """∫ (p − e^ε q)_+ for 1-D Gaussian mixtures: the roots of f = p − e^ε q are located as sign
    changes of f on a uniform grid of ``grid`` cells over ``sigmas`` standard deviations around
    every component (and the change of sign of ln p − ln q − ε, which survives underflow), refined to
    full precision by bisection; then Σ over the intervals where f > 0 of P − e^ε Q, by
    mp.ncdf. Pairs of roots closer than the grid step are missed (choose the grid for the
    mixtures at hand). ε = +∞ gives 0 (q > 0 everywhere)."""
    with mp.workdps(dps + 20):
        P = [(mp.mpf(w), mp.mpf(m), mp.mpf(s)) for w, m, s in zip(p_weights, p_means, p_stds)
             if w > 0]
        Q = [(mp.mpf(w), mp.mpf(m), mp.mpf(s)) for w, m, s in zip(q_weights, q_means, q_stds)
             if w > 0]
        if mp.isinf(mp.mpf(eps)):
            return mp.mpf(0)
        e = mp.mpf(eps)

        def g(x: mp.mpf) -> mp.mpf:  # sign of p − γq, in logs
            terms_p = [mp.log(w) - mp.log(s) - (x - m) ** 2 / (2 * s * s) for w, m, s in P]
            terms_q = [mp.log(w) - mp.log(s) - (x - m) ** 2 / (2 * s * s) for w, m, s in Q]
            mp_ = max(terms_p)
            mq = max(terms_q)
            lp = mp_ + mp.log(mp.fsum(mp.exp(t - mp_) for t in terms_p))
            lq = mq + mp.log(mp.fsum(mp.exp(t - mq) for t in terms_q))
            return lp - lq - e

        lo = min(m - sigmas * s for _, m, s in P + Q)
        hi = max(m + sigmas * s for _, m, s in P + Q)
        xs = [lo + (hi - lo) * i / grid for i in range(grid + 1)]
        gs = [g(x) for x in xs]
        cuts = []
        for a, b, ga, gb in zip(xs, xs[1:], gs, gs[1:]):
            if (ga > 0) != (gb > 0):
                for _ in range(mp.mp.prec + 10):
                    c = (a + b) / 2
                    if (g(c) > 0) == (ga > 0):
                        a = c
                    else:
                        b = c
                cuts.append((a + b) / 2)
        # the intervals between consecutive cuts (and ±∞) where g > 0
        ends = [mp.ninf] + cuts + [mp.inf]
        signs = [gs[0] > 0]
        for _ in cuts:
            signs.append(not signs[-1])
        gamma = mp.exp(e)

        def cell(a: mp.mpf, b: mp.mpf, m: mp.mpf, s: mp.mpf) -> mp.mpf:
            # P(a < X < b) for X ~ N(m, s²), from the nearer tail: above the mean as
            # Φ(−(a − m)/s) − Φ(−(b − m)/s), whose terms are small (Φ(b) − Φ(a) rounded both
            # to 1 there and lost a right-hand interval's whole mass: 3.6e-13 of one value)
            if a >= m:
                return mp.ncdf(-(a - m) / s) - mp.ncdf(-(b - m) / s)
            return mp.ncdf(b, m, s) - mp.ncdf(a, m, s)

        def mass(mix: list, a: mp.mpf, b: mp.mpf) -> mp.mpf:
            return mp.fsum(w * cell(a, b, m, s) for w, m, s in mix)

        total = mp.mpf(0)
        for (a, b), positive in zip(zip(ends, ends[1:]), signs):
            if positive:
                total += mass(P, a, b) - gamma * mass(Q, a, b)
    with mp.workdps(dps):
        return +max(total, mp.mpf(0))
