"""The exact ε of DP-SGD's default example, computed without pabi: the pinned value of
tests/test_dpsgd_relations.py::test_defaults_unchanged.

Setting: Poisson sampling at rate q = 0.01, noise multiplier z = 1, T = 1000 steps, add/remove
neighbours, δ = 1e-5. One step is dominated by P = (1-q)N(0, z²) + qN(1, z²) against
Q = N(0, z²), in both orders (docs/derivations/neighbouring.md#add-remove; Zhu–Dong–Wang 2022,
Theorem 10, for the adaptive composition of dominating pairs), so

    δ(ε) = max(E_P^T[(1 - e^{ε - Y})_+], E_Q^T[(1 - e^{ε - Y'})_+]),

Y the sum of T independent losses ln dP/dQ(X), X ~ P ("remove"), Y' the sum of T losses
-ln dP/dQ(X), X ~ Q ("add"). The method is the characteristic-function accountant of
Zhu–Dong–Wang 2022 ("Optimal accounting of differential privacy via characteristic function"):
the characteristic function ψ₁(t) of one step's loss is a smooth integral over x (trapezoid rule in x with step h, spectrally accurate for a Gaussian weight times
a function analytic in a strip), ψ_T = ψ₁^T, and δ(ε) is integrated against the Fourier series
of Y's density on a window [a, b] that holds its mass (Y ≥ T ln(1 - q) for "remove"):

    δ(ε) = (1/P) Σ_k ψ_T(t_k) ∫_ε^b (1 - e^{ε-y}) e^{-i t_k y} dy,   t_k = 2πk/P, P = b - a,

each integral in closed form, k up to |ψ_T(t_k)| < 1e-30. ψ₁ - 1 is summed as E[e^{itY} - 1]
(no cancellation) and ψ_T formed as exp(T·log1p(ψ₁ - 1)), so the terms of size O(1) whose sum
is δ ≈ 1e-5 carry relative errors ~1e-16. ε solves δ(ε) = 1e-5 (Brent).

Nothing here uses pabi or pabi.reference (numpy, scipy's root finder, mpmath). The script checks
itself: (1) the method against the closed form of the Gaussian mechanism (q = 1: μ-GDP,
Dong–Roth–Su 2019, Corollary 2.13), (2) ψ₁ against mpmath's adaptive quadrature at a few t,
(3) three windows/steps agree on ε. It prints the value the test pins; about a minute.

    python tools/gen_dpsgd_default_epsilon.py
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
from scipy.optimize import brentq

Q_RATE, Z, T, DELTA = 0.01, 1.0, 1000, 1e-5


def step_loss(x, q, z):
    """ln dP/dQ at x for P = (1-q)N(0, z²) + qN(1, z²), Q = N(0, z²)."""
    if q == 1.0:
        return (2 * x - 1) / (2 * z * z)
    return np.log1p(q * np.expm1((2 * x - 1) / (2 * z * z)))


def cf_minus_one(t, direction, q, z, h, xspan=40.0):
    """ψ₁(t) - 1 for the loss of one step ("remove": ln dP/dQ under P; "add": -ln dP/dQ under Q)."""
    x = np.arange(math.floor(-xspan * z / h), math.ceil((xspan * z + 1) / h) + 1) * h  # k·h exactly
    g0 = np.exp(-x * x / (2 * z * z)) / (z * math.sqrt(2 * math.pi))
    g1 = np.exp(-(x - 1) ** 2 / (2 * z * z)) / (z * math.sqrt(2 * math.pi))
    loss = step_loss(x, q, z)
    w, y = ((1 - q) * g0 + q * g1, loss) if direction == "remove" else (g0, -loss)
    out = np.empty(len(t), complex)
    for j in range(0, len(t), 64):
        ph = t[j:j + 64, None] * y[None, :]
        out[j:j + 64] = ((-2 * np.sin(ph / 2) ** 2 + 1j * np.sin(ph)) * w[None, :]).sum(axis=1) * h
    return out


def profile(direction, a, b, h, q=Q_RATE, z=Z, steps=T, tcut=1e-30):
    """δ(ε) of the T-fold composition in one direction, Y's mass inside [a, b]."""
    period = b - a
    t = np.arange(0, 6000) * (2 * math.pi / period)
    m1 = cf_minus_one(t, direction, q, z, h)
    tiny = np.nonzero(np.abs(1 + m1) < tcut ** (1 / steps) / 2)[0]  # ψ_T far below the cut
    m1 = m1[:tiny[0]] if len(tiny) else m1
    logpsi = steps * np.array([complex(mp.log1p(complex(v))) for v in m1])
    kmax = int(np.argmax(logpsi.real < math.log(tcut)))
    assert kmax > 10, kmax
    psi, tk = np.exp(logpsi[:kmax]), t[1:kmax]

    def delta(eps):
        i0 = (b - eps) - (1 - math.exp(eps - b))
        it = 1j * tk
        ia = (np.exp(-it * eps) - np.exp(-it * b)) / it
        ib = math.exp(eps) * (np.exp(-(1 + it) * eps) - np.exp(-(1 + it) * b)) / (1 + it)
        return (psi[0].real * i0 + 2 * math.fsum(np.real(psi[1:] * (ia - ib)))) / period

    return delta


def epsilon(a, b, h, q=Q_RATE, z=Z, steps=T, delta=DELTA):
    rem = profile("remove", a, b, h, q, z, steps)
    add = profile("add", a - 15, b, h, q, z, steps)
    eps = brentq(lambda e: max(rem(e), add(e)) - delta, 0.5, 4.0, xtol=1e-14, rtol=1e-15)
    return eps, rem(eps), add(eps)


def check_gaussian_closed_form():
    """q = 1: T steps of N(1, z²) vs N(0, z²) are μ-GDP with μ = √T/z; δ(ε) in closed form."""
    z, steps = 30.0, 1000
    mu = math.sqrt(steps) / z
    mean, sd = mu * mu / 2, mu
    f = profile("remove", mean - 40 * sd, mean + 40 * sd, 0.5, q=1.0, z=z, steps=steps)
    for eps in (0.5, 1.0, 2.0):
        exact = mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)
        assert abs(f(eps) - exact) < 1e-14, (eps, f(eps), exact)


def check_cf_against_quad():
    """ψ₁(t) - 1 (trapezoid) against mpmath's adaptive quadrature at 30 digits."""
    mp.mp.dps = 30
    q, z = mp.mpf(Q_RATE), mp.mpf(Z)

    def loss(x):
        return mp.log(1 - q + q * mp.exp((2 * x - 1) / (2 * z * z)))

    for t in (0.5, 3.0, 12.0):
        m1 = cf_minus_one(np.array([t]), "remove", Q_RATE, Z, 0.005)[0]
        dens = lambda x: ((1 - q) * mp.npdf(x, 0, z) + q * mp.npdf(x, 1, z))  # noqa: E731
        re = mp.quad(lambda x: dens(x) * (mp.cos(t * loss(x)) - 1), [-mp.inf, -5, 0, 1, 6, mp.inf])
        im = mp.quad(lambda x: dens(x) * mp.sin(t * loss(x)), [-mp.inf, -5, 0, 1, 6, mp.inf])
        assert abs(m1 - complex(re, im)) < 1e-17 + 1e-13 * abs(complex(re, im)), (t, m1, re, im)
    mp.mp.dps = 15


def main():
    check_gaussian_closed_form()
    check_cf_against_quad()
    runs = [epsilon(a, b, h) for a, b, h in ((-10.1, 25.0, 0.01), (-10.2, 30.0, 0.005), (-25.0, 25.0, 0.005))]
    for eps, rem, add in runs:
        print(f"eps {eps!r}  delta_remove {rem!r}  delta_add {add!r}")
    spread = max(r[0] for r in runs) - min(r[0] for r in runs)
    print(f"exact eps = {runs[-1][0]!r} (spread over three windows/steps {spread:.1e})")
    assert spread < 1e-10


if __name__ == "__main__":
    main()
