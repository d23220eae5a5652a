"""Reference (mpmath) implementations of the Rényi-DP family (the defining formulas).

* :func:`sampled_gaussian_rdp`: Thudi et al. 2024 Thm 3.2, the binomial sum at ⌈α⌉.
* :func:`dpsgd_per_instance_rdp`: Thm 3.3 in its printed weighted form
  (1/(α−1))·Σ_i (p−1)^i/p^{i+1} ln E e^{p(β_i−1)D} + (1/(α−1))((p−1)/p)^{n−1}(β_{n−1}−1)·max D,
  with the corrected or the printed order map.
* :func:`rdp_to_dp_epsilon`, :func:`rdp_to_dp_delta`, :func:`profile_to_rdp` (by quadrature of a
  callable profile), :func:`gaussian_profile`.

>>> import mpmath
>>> from pabi import reference as ref
>>> mpmath.nstr(ref.sampled_gaussian_rdp(2, 1, 1), 10)
'1.0'
"""

from __future__ import annotations

import math
from typing import Callable, Sequence, Union

import mpmath as mp

Real = Union[float, int, "mp.mpf"]

__all__ = [
    "sampled_gaussian_rdp",
    "sampled_gaussian_rdp_quad",
    "holder_order_map",
    "dpsgd_per_instance_rdp",
    "rdp_to_dp_epsilon",
    "rdp_to_dp_delta",
    "gaussian_profile",
    "profile_to_rdp",
    "shift_weight",
    "averaged_rdp",
    "sensitivity_multi_epoch",
    "lp_per_instance_epsilon_delta",
]

DEFAULT_DPS = 50


def sampled_gaussian_rdp(order: Real, sample_rate: Real, r: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """ε(⌈α⌉) = ln(Σ_k C(a,k)(1−q)^{a−k} q^k e^{r²(k²−k)/2})/(a − 1), a = max(2, ⌈α⌉), at
    α = ``order``, q = ``sample_rate`` and r = noise_multiplier⁻¹ (sensitivity/noise std)."""
    a = max(2, int(math.ceil(float(order))))
    with mp.workdps(dps + 20):
        q = mp.mpf(sample_rate)
        c = mp.mpf(r) ** 2 / 2
        # A - 1 = Σ_{k≥2} pmf_k expm1(c k(k-1)): positive terms, no cancellation
        s = mp.fsum(
            mp.binomial(a, k) * (1 - q) ** (a - k) * q**k * mp.expm1(c * (k * k - k))
            for k in range(2, a + 1)
        )
        return +(mp.log1p(s) / (a - 1))


def sampled_gaussian_rdp_quad(alpha: Real, q: Real, r: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """D_α((1 − q)N(0, 1) + qN(r, 1) ‖ N(0, 1)) at any real α > 1 by numerical integration.

    A_α − 1 = E_{N(0,1)}[(1 + q(L − 1))^α − 1 − αq(L − 1)] (L the likelihood ratio, E[L] = 1;
    the integrand is ≥ 0, so no cancellation), integrated by tanh-sinh quadrature on
    intervals split at 0, the crossing point z0 = ln((1 − q)/q)/r + r/2 and multiples of 1;
    ε = log1p(A − 1)/(α − 1). Agrees with :func:`sampled_gaussian_rdp` at integer orders.
    """
    with mp.workdps(dps + 15):
        a, q, r = mp.mpf(alpha), mp.mpf(q), mp.mpf(r)
        if q == 0 or r == 0:
            return mp.mpf(0)
        if q == 1:
            return a * r * r / 2
        return +(mp.log1p(sampled_gaussian_am1_quad(a, q, r)) / (a - 1))


def sampled_gaussian_am1_quad(alpha: Real, q: Real, r: Real) -> mp.mpf:
    """A_α − 1 of the sampled Gaussian mechanism for q ∈ (0, 1), r > 0, by the quadrature of
    :func:`sampled_gaussian_rdp_quad`, at the caller's working precision (the golden table of
    the fractional-order series' error bound, tools/gen_rdp_frac_bound.py, uses it too)."""
    a, q, r = mp.mpf(alpha), mp.mpf(q), mp.mpf(r)

    def f(x):
        y = q * mp.expm1(r * x - r * r / 2)
        return mp.npdf(x) * ((1 + y) ** a - 1 - a * y)

    pts = {mp.mpf(0), r / 2, r}
    z0 = mp.log((1 - q) / q) / r + r / 2
    pts.add(z0)
    centre = a * r  # the tilted mass sits near α r for large orders
    for k in range(-12, 13):
        pts.add(mp.mpf(k))
        pts.add(centre + k)
    cut = max(abs(p) for p in pts) + 60
    splits = sorted(p for p in pts if abs(p) < cut)
    return mp.quad(f, [-mp.inf] + splits + [mp.inf])


def holder_order_map(alpha: Real, p: Real, i: int, variant: str = "corrected") -> mp.mpf:
    """g_p^i(α) by iterating the map (corrected (pα−1)/(p−1) or printed pα/(p−1) − 1/p)."""
    with mp.workdps(DEFAULT_DPS + 10):
        b, p = mp.mpf(alpha), mp.mpf(p)
        for _ in range(i):
            b = (p * b - 1) / (p - 1) if variant == "corrected" else p / (p - 1) * b - 1 / p
        return b


def dpsgd_per_instance_rdp(
    order: Real,
    sample_rate: Real,
    noise_scale: Real,
    sensitivities: Sequence[Sequence[Real]],
    holder_exponent: Real = None,
    variant: str = "corrected",
    dps: int = 30,
    fractional: str = "exact",
) -> mp.mpf:
    """Thm 3.3 with plug-in means, in the printed weighted form (not the soft-max form); the
    per-step RDP at the order β_i itself (``fractional="exact"``: the defining integral,
    :func:`sampled_gaussian_rdp_quad`, at a non-integer β_i) or at ⌈β_i⌉ (``"ceil"``).

    ln E e^{tD} is log1p(mean expm1(tD)) (t = p(β_i − 1) → 0 as α → 1: the former
    ln(mean e^{tD}) cancelled against 1, 4.8e-11 relative off at α = 1 + 2^-52, q = 1e-8), and
    the working precision is raised by the digits of 1/(α − 1) (the quadrature's integrand
    (1 + y)^β − 1 − βy and β_i − 1 lose them)."""
    if fractional not in ("exact", "ceil"):
        raise ValueError(f"fractional must be one of ('exact', 'ceil'), got {fractional!r}")
    alpha, q, sigma, p = order, sample_rate, noise_scale, holder_exponent
    n = len(sensitivities)
    p = 3 * n if p is None else p
    with mp.workdps(dps + 10):
        am1 = mp.mpf(order) - 1
    extra = max(0, int(-mp.log10(am1)) + 5) if 0 < am1 < 1 else 0
    dps = dps + extra
    with mp.workdps(dps + 10):
        a, pp, sg = mp.mpf(alpha), mp.mpf(p), mp.mpf(sigma)
        total = mp.mpf(0)
        # β_i − 1 iterated as itself at the working precision (no cancellation near α = 1):
        # corrected p(β − 1)/(p − 1), printed p(β − 1)/(p − 1) + 1/(p(p − 1))
        em1 = a - 1
        for i in range(n):
            row = sensitivities[n - 1 - i]
            if i:
                em1 = pp * em1 / (pp - 1) + (0 if variant == "corrected" else 1 / (pp * (pp - 1)))
            beta = 1 + em1
            if fractional == "ceil" or beta == mp.floor(beta):
                ds = [sampled_gaussian_rdp(mp.ceil(beta), q, mp.mpf(s) / sg, dps=dps) for s in row]
            else:
                ds = [sampled_gaussian_rdp_quad(beta, q, mp.mpf(s) / sg, dps=dps) for s in row]
            if i == n - 1:
                w = ((pp - 1) / pp) ** (n - 1) * em1 / (a - 1)
                total += w * max(ds)
            else:
                w = (pp - 1) ** i / pp ** (i + 1) / (a - 1)
                t = pp * em1
                total += w * mp.log1p(mp.fsum(mp.expm1(t * d) for d in ds) / len(ds))
        return total


def _min_over_orders(orders, rdp, bound):
    """(min over the orders α of ``bound(α, ε_R(α))``, the first α attaining it); (inf, None)
    for no orders. At the caller's precision."""
    best = (mp.inf, None)
    for a, r in zip(orders, rdp):
        a = mp.mpf(a)
        v = bound(a, mp.mpf(r))
        if v < best[0]:
            best = (v, a)
    return best


def rdp_to_dp_epsilon(orders, rdp, delta, conversion: str = "tight", dps: int = DEFAULT_DPS):
    """(ε, order): min over orders of the classical (Mironov) or tight (CKS Prop. 12 + KL)
    conversion (the arguments in the order of the data, not the public question-first one)."""
    with mp.workdps(dps):
        d = mp.mpf(delta)

        def eps_at(a, r):
            if conversion == "classical":
                e = r + mp.log(1 / d) / (a - 1)
            elif d**2 + mp.expm1(-r) > 0:
                e = mp.mpf(0)
            else:
                e = r + mp.log1p(-1 / a) - (mp.log(d) + mp.log(a)) / (a - 1)
            return max(e, mp.mpf(0))

        return _min_over_orders(orders, rdp, eps_at)


def rdp_to_dp_delta(orders, rdp, eps, conversion: str = "tight", dps: int = DEFAULT_DPS):
    """(δ, order): min over orders of the classical or tight conversion, δ ≤ 1."""
    with mp.workdps(dps):
        e = mp.mpf(eps)

        def log_delta_at(a, r):
            if conversion == "classical":
                return (a - 1) * (r - e)
            kl = -mp.inf if r == 0 else mp.log(-mp.expm1(-r)) / 2  # −expm1: no cancellation at tiny r
            return min(kl, (a - 1) * (r - e + mp.log1p(-1 / a)) - mp.log(a))

        best = _min_over_orders(orders, rdp, log_delta_at)
        return (min(mp.exp(best[0]), mp.mpf(1)), best[1])


def gaussian_profile(eps: Real, mu: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) of the Gaussian mechanism with r = μ."""
    with mp.workdps(dps + 20):
        m, e = mp.mpf(mu), mp.mpf(eps)
        return +(mp.ncdf(m / 2 - e / m) - mp.exp(e) * mp.ncdf(-m / 2 - e / m))


def profile_to_rdp(order: Real, delta: Callable[[mp.mpf], mp.mpf], dps: int = 30) -> mp.mpf:
    """(1/(α−1))·ln(1 + α(α−1)∫_0^∞ (e^{(α−1)ε} + e^{−αε}) δ(ε) dε) by quadrature, α = ``order``."""
    with mp.workdps(dps):
        a = mp.mpf(order)
        f = lambda e: (mp.exp((a - 1) * e) + mp.exp(-a * e)) * delta(e)  # noqa: E731
        integral = mp.quad(f, [0, 1, 4, 16, 64, mp.inf])
        return mp.log1p(a * (a - 1) * integral) / (a - 1)


def shift_weight(step_lipschitz: Real, steps: int, dps: int = DEFAULT_DPS) -> mp.mpf:
    """The shift weight θ_L(s), Kong–Ribero eq. (6), by its definition L^{2(s−1)}/Σ_{j<s} L^{2j}
    (L = ``step_lipschitz``, integer s = ``steps``)."""
    s = steps
    with mp.workdps(dps + 10):
        L = mp.mpf(step_lipschitz)
        if s == 0:
            return mp.mpf(0)
        return L ** (2 * (s - 1)) / mp.fsum(L ** (2 * j) for j in range(s))


def averaged_rdp(order: Real, noise_scale: Real, sensitivities, dps: int = DEFAULT_DPS) -> mp.mpf:
    """Paper 001 Prop. 3: (1/(α−1)) ln mean_j exp(α(α−1)Δ_j²/(2σ²))."""
    sens = sensitivities
    with mp.workdps(dps + 10):
        a, s = mp.mpf(order), mp.mpf(noise_scale)
        v = mp.fsum(mp.exp(a * (a - 1) * mp.mpf(d) ** 2 / (2 * s * s)) for d in sens) / len(sens)
        return mp.log(v) / (a - 1)


def sensitivity_multi_epoch(lr, strong_convexity, smoothness, max_grad_norm, batch_size, batches_per_epoch,
                            batch_index, epochs=None, dps=DEFAULT_DPS):
    """Paper 001 eq. (7) with ρ = max{|1 − ημ|, |1 − ηL|} (η = ``lr``, μ = ``strong_convexity``,
    L = ``smoothness``; m = ``batches_per_epoch``, j = ``batch_index``)."""
    m, j = batches_per_epoch, batch_index
    with mp.workdps(dps + 10):
        eta, mu, L = mp.mpf(lr), mp.mpf(strong_convexity), mp.mpf(smoothness)
        rho = max(abs(1 - eta * mu), abs(1 - eta * L))
        num = 1 if epochs is None else 1 - rho ** (epochs * m)
        return rho ** (m - j) * 2 * eta * mp.mpf(max_grad_norm) / mp.mpf(batch_size) * num / (1 - rho**m)


def lp_per_instance_epsilon_delta(sample_rate, lp_exponent, delta, delta_prime, noise_scale, sens, dps=DEFAULT_DPS):
    """Thudi et al. Cor. 3.1 as printed: a_p = q (E e^{pCΔ})^{1/p},
    ε' = ln(a_p^{p/(p−1)} δ'^{−1/(p−1)} + 1 − q), δ'' = qδ + δ' (q = ``sample_rate``,
    p = ``lp_exponent``, σ = ``noise_scale``)."""
    q, p, sigma = sample_rate, lp_exponent, noise_scale
    with mp.workdps(dps + 10):
        q, p, dl, dp_ = mp.mpf(q), mp.mpf(p), mp.mpf(delta), mp.mpf(delta_prime)
        c = mp.sqrt(2 * mp.log(mp.mpf(1.25) / dl)) / mp.mpf(sigma)
        ap = q * (mp.fsum(mp.exp(p * c * mp.mpf(d)) for d in sens) / len(sens)) ** (1 / p)
        return mp.log(ap ** (p / (p - 1)) * dp_ ** (-1 / (p - 1)) + 1 - q), q * dl + dp_
