"""Reference (mpmath) implementations of the noise schedules, online decaying noise and δ*.

Sordello–Bu–Dong (003) §4, §6; docs/derivations/schedules.md. Each function evaluates the defining formula
at ``dps`` digits (plus guard digits): finite products and sums directly, infinite ones as a
direct sum to ``T`` plus the Euler–Maclaurin tail with 6 correction terms (derivatives by
mpmath's numerical differentiation), integrals by tanh–sinh quadrature after x = e^u.
Float inputs are exact binary values; M = sqrt(1 − 2ηβρ/(β+ρ)) is recomputed exactly.

>>> import mpmath
>>> mpmath.nstr(laplace_schedule_delta_limit(1.0, 1e5), 10)
'6.065306597e-6'
"""

from __future__ import annotations

import inspect
from typing import Optional, Sequence, Union

import mpmath as mp

from ._engine import laplace_theta, theta, theta_complement
from ._pnsgd import _h, pnsgd_contraction

Real = Union[float, int, "mp.mpf"]

__all__ = [
    "step_contraction_m",
    "laplace_schedule_noise_scale",
    "laplace_schedule_delta",
    "laplace_schedule_delta_limit",
    "gaussian_schedule_noise_scale",
    "gaussian_schedule_delta",
    "gaussian_schedule_delta_limit",
    "schedule_calibrate_c1",
    "online_delta",
    "online_epsilon",
    "online_laplace_epsilon",
    "online_gaussian_epsilon",
    "online_laplace_noise_scale",
    "online_gaussian_noise_scale",
    "online_schedule_log_factor",
    "online_schedule_delta",
    "online_schedule_delta_limit",
    "online_schedule_log_delta_limit",
    "online_schedule_delta_star_upper",
    "online_schedule_delta_star_lower",
    "theta_complement_asymptotic",
    "online_laplace_delta",
    "online_laplace_delta_limit",
    "online_laplace_delta_limit_closed_upper",
    "online_laplace_delta_limit_lower",
    "online_gaussian_delta",
    "online_gaussian_delta_limit",
    "online_gaussian_delta_limit_closed_upper",
    "online_gaussian_delta_limit_lower",
]

DEFAULT_DPS = 50


def step_contraction_m(lr: Real, smoothness: Optional[Real] = None, strong_convexity: Real = 0) -> mp.mpf:
    """M = sqrt(1 − 2ηβρ/(β+ρ)) (1 when ρ = 0): :func:`pabi.reference.pnsgd_contraction`'s M."""
    return pnsgd_contraction(lr, smoothness, strong_convexity)[0]


def _mdl(lr, diameter, smoothness, strong_convexity):
    return step_contraction_m(lr, smoothness, strong_convexity) * mp.mpf(diameter) / mp.mpf(lr)


def _geom(u, n):
    """(1 − (1−u)^n)/(n u), u ∈ [0, 1]."""
    if u == 0:
        return mp.mpf(1)
    return -mp.expm1(n * mp.log1p(-u)) / (n * u) if u < 1 else 1 / mp.mpf(n)


def laplace_schedule_noise_scale(steps, c1, c2, lr, diameter, smoothness=None, strong_convexity=0, dps=DEFAULT_DPS):
    """v(n) = M D/(2η ln(n/C1 + C2)) (003 eq. (7))."""
    with mp.workdps(dps + 10):
        v = _mdl(lr, diameter, smoothness, strong_convexity) / (2 * mp.log(mp.mpf(steps) / c1 + c2))
    with mp.workdps(dps):
        return +v


def laplace_schedule_delta(eps, max_grad_norm, lr, diameter, steps, c1, c2, smoothness=None, strong_convexity=0,
                           dps=DEFAULT_DPS):
    """δ(n) = A_n (1 − B_n^n)/(n(1 − B_n)) with v(n) of eq. (7) in eq. (5) (003 Thm 3, Thm 2)."""
    with mp.workdps(dps + 20):
        v = laplace_schedule_noise_scale(steps, c1, c2, lr, diameter, smoothness, strong_convexity, dps + 20)
        a = laplace_theta(eps, 2 * mp.mpf(max_grad_norm) / v, dps + 20)
        mdl = _mdl(lr, diameter, smoothness, strong_convexity)
        u = min(mp.mpf(1), mp.exp(mp.mpf(eps) / 2 - mdl / (2 * v)))
        val = a * _geom(u, mp.mpf(steps))
    with mp.workdps(dps):
        return +val


def _star(x):
    return -mp.expm1(-x) / x


def laplace_schedule_delta_limit(eps, c1, dps=DEFAULT_DPS):
    """δ* = (1 − e^{−x})/x, x = C1 e^{ε/2} (003 eq. (8))."""
    with mp.workdps(dps + 10):
        val = _star(mp.mpf(c1) * mp.exp(mp.mpf(eps) / 2))
    with mp.workdps(dps):
        return +val


def gaussian_schedule_delta_limit(eps, c1, dps=DEFAULT_DPS):
    """δ* = (1 − e^{−x})/x, x = 2 C1 e^{ε/2} (003 eq. (10))."""
    with mp.workdps(dps + 10):
        val = _star(2 * mp.mpf(c1) * mp.exp(mp.mpf(eps) / 2))
    with mp.workdps(dps):
        return +val


def _w_sched(n, c1, c2, power=2):
    z = mp.mpf(n) ** power / (2 * mp.pi * mp.mpf(c1) ** 2) + c2
    return mp.lambertw(z).real


def gaussian_schedule_noise_scale(steps, c1, c2, lr, diameter, smoothness=None, strong_convexity=0, dps=DEFAULT_DPS):
    """σ(n) = M D/(2η sqrt(W0(n²/(2πC1²) + C2))) (003 eq. (9))."""
    with mp.workdps(dps + 10):
        v = _mdl(lr, diameter, smoothness, strong_convexity) / (2 * mp.sqrt(_w_sched(steps, c1, c2)))
    with mp.workdps(dps):
        return +v


def gaussian_schedule_delta(eps, max_grad_norm, lr, diameter, steps, c1, c2, smoothness=None, strong_convexity=0,
                         dps=DEFAULT_DPS):
    """δ(n) = θ(2L/σ) (1 − B^n)/(n(1 − B)), B = θ(MD/(ησ)), σ = σ(n) of eq. (9) (003 Thm 4)."""
    with mp.workdps(dps + 20):
        s = gaussian_schedule_noise_scale(steps, c1, c2, lr, diameter, smoothness, strong_convexity, dps + 20)
        a = theta(eps, 2 * mp.mpf(max_grad_norm) / s, dps + 20)
        u = theta_complement(eps, _mdl(lr, diameter, smoothness, strong_convexity) / s, dps + 20)
        val = a * _geom(u, mp.mpf(steps))
    with mp.workdps(dps):
        return +val


def schedule_calibrate_c1(eps, delta, noise="gaussian", dps=DEFAULT_DPS):
    """C1 with δ*(C1) = delta (root of (1 − e^{−x})/x = δ*, then x → C1)."""
    with mp.workdps(dps + 10):
        ds = mp.mpf(delta)
        # (1 − e^{−x})/x decreases from 1 (x → 0) and is < 1/x: the root lies in (0, 1/δ*];
        # bisection to the working precision (mp.findroot's anderson solver on (1e-30, 2/δ* + 2)
        # stopped at its bracket edge ≈ 2/δ* for tiny δ*)
        lo, hi = mp.mpf(0), 1 / ds
        while hi - lo > hi * mp.mpf(2) ** (8 - mp.mp.prec):
            mid = (lo + hi) / 2
            if _star(mid) > ds:
                lo = mid
            else:
                hi = mid
        x = (lo + hi) / 2
        c1 = x * mp.exp(-mp.mpf(eps) / 2)
        if noise == "gaussian":
            c1 /= 2
    with mp.workdps(dps):
        return +c1


def online_delta(eps, max_grad_norm, lr, diameter, noise_scale: Sequence[Real], index: int, noise="gaussian",
                 smoothness=None, strong_convexity=0, dps=DEFAULT_DPS):
    """δ_n(i) = A_i ∏_{t=i+1}^n B_t (003 eq. (11)), brute-force product, noise_scale = (s_1..s_n)."""
    with mp.workdps(dps + 20):
        mdl = _mdl(lr, diameter, smoothness, strong_convexity)
        i = int(index)
        val = _h(noise, eps, 2 * mp.mpf(max_grad_norm) / mp.mpf(noise_scale[i - 1]), dps + 20)
        for s in noise_scale[i:]:
            val *= _h(noise, eps, mdl / mp.mpf(s), dps + 20)
    with mp.workdps(dps):
        return +val


def online_laplace_noise_scale(index, c1, c2, decay, lr, diameter, smoothness=None, strong_convexity=0,
                         dps=DEFAULT_DPS):
    """v_j = M D/(2η ln(j^α/C1 + C2)) (003 eq. (12))."""
    with mp.workdps(dps + 10):
        v = _mdl(lr, diameter, smoothness, strong_convexity) / (
            2 * mp.log(mp.mpf(index) ** decay / c1 + c2))
    with mp.workdps(dps):
        return +v


def online_gaussian_noise_scale(index, c1, c2, decay, lr, diameter, smoothness=None, strong_convexity=0,
                       dps=DEFAULT_DPS):
    """σ_j = M D/(2η sqrt(W0(j^{2α}/(2πC1²) + C2))) (003 eq. (14))."""
    with mp.workdps(dps + 10):
        v = _mdl(lr, diameter, smoothness, strong_convexity) / (
            2 * mp.sqrt(_w_sched(index, c1, c2, 2 * mp.mpf(decay))))
    with mp.workdps(dps):
        return +v


def _sched_noise(mechanism, t, c1, c2, decay, lr, diameter, smoothness, strong_convexity, dps):
    f = online_laplace_noise_scale if mechanism == "laplace" else online_gaussian_noise_scale
    return f(t, c1, c2, decay, lr, diameter, smoothness, strong_convexity, dps)


def online_schedule_log_factor(mechanism, t, eps, lr, diameter, c1, c2, decay, smoothness=None,
                               strong_convexity=0, dps=None):
    """g(t) = ln B_t under the online schedule (t real ≥ 1). ``dps=None`` works at the current
    mpmath precision (needed by the numerical derivatives of the Euler–Maclaurin terms)."""
    dps = mp.mp.dps if dps is None else dps
    with mp.workdps(dps + 10):
        s = _sched_noise(mechanism, t, c1, c2, decay, lr, diameter, smoothness, strong_convexity, dps + 10)
        r = _mdl(lr, diameter, smoothness, strong_convexity) / s
        if mechanism == "laplace":
            val = mp.log1p(-mp.exp(mp.mpf(eps) / 2 - r / 2))
        else:
            # ln θ directly: log1p(−(1 − θ)) loses θ below 10^-(dps+10) (−inf at huge ε)
            val = theta(eps, r, dps + 10, log=True)
    with mp.workdps(dps):
        return +val


def _a_i(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay, smoothness, strong_convexity, dps,
         as_published=False):
    s = _sched_noise(mechanism, index, c1, c2, decay, lr, diameter, smoothness, strong_convexity, dps)
    r = 2 * mp.mpf(max_grad_norm) / s
    if mechanism == "laplace" and as_published:
        return max(mp.mpf(0), 1 - mp.exp(-mp.mpf(eps) / 2 - r / 2))
    return _h(mechanism, eps, r, dps)


def _int_from(g, x0):
    f = lambda u: g(mp.exp(u)) * mp.exp(u)  # noqa: E731
    u0 = mp.log(x0)
    # At huge ε the mass lies far out (ln x up to ≈ ε/(2α) for the Gaussian schedule, where
    # x^α ≈ C1·e^{ε/2} for Laplace) and its edge is sharp: a coarse scan (step 10, at 15 digits,
    # until |f| has fallen 30 orders below its peak) finds the peak, and breakpoints surround it.
    cuts = {0, 1, 3, 10, 30, 60, 100, 150, 200, 300, 500, 1000, 3000}
    with mp.workdps(15):
        best, peak, c = mp.mpf(0), 0, 0
        while c <= 3000:
            v = abs(f(u0 + c))
            if v > best:
                best, peak = v, c
            elif v < best * mp.mpf(10) ** -30:
                break
            c += 10
    cuts |= {peak + d for d in (-30, -10, -3, 0, 3, 10, 30) if peak + d > 0}
    return mp.quad(f, [u0 + c for c in sorted(cuts)] + [mp.inf])


def _em_tail(g, a, K=6):
    s = _int_from(g, a) + g(a) / 2
    for k in range(1, K + 1):
        s -= mp.bernoulli(2 * k) / mp.factorial(2 * k) * mp.diff(g, a, 2 * k - 1)
    return s


def _g(mechanism, eps, lr, diameter, c1, c2, decay, smoothness, strong_convexity, dps):
    # dps unused: g follows the working precision (mp.diff raises it for high derivatives)
    return lambda t: online_schedule_log_factor(mechanism, t, eps, lr, diameter, c1, c2, decay, smoothness,
                                                strong_convexity, None)


def online_schedule_delta(mechanism, eps, max_grad_norm, lr, diameter, steps, index, c1, c2, decay, smoothness=None,
                          strong_convexity=0, dps=DEFAULT_DPS, T=2000):
    """δ_n(i) = A_i ∏_{t=i+1}^n B_t under the online schedule; for n − i > T as the sum to i + T
    plus Euler–Maclaurin tails (tail(i+T+1) − tail(n+1))."""
    with mp.workdps(dps + 15):
        g = _g(mechanism, eps, lr, diameter, c1, c2, decay, smoothness, strong_convexity, dps + 15)
        a = _a_i(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay, smoothness, strong_convexity,
                 dps + 15)
        i, n = int(index), int(steps)
        if n - i <= T:
            s = mp.fsum(g(t) for t in range(i + 1, n + 1))
        else:
            s = mp.fsum(g(t) for t in range(i + 1, i + T + 1)) + _em_tail(g, i + T + 1) - _em_tail(g, n + 1)
        val = a * mp.exp(s)
    with mp.workdps(dps):
        return +val


def _limit_parts(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay, smoothness, strong_convexity,
                 dps, T):
    g = _g(mechanism, eps, lr, diameter, c1, c2, decay, smoothness, strong_convexity, dps)
    a = _a_i(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay, smoothness, strong_convexity, dps)
    i = int(index)
    return a, mp.fsum(g(t) for t in range(i + 1, i + T + 1)) + _em_tail(g, i + T + 1)


def online_schedule_delta_limit(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay,
                                smoothness=None, strong_convexity=0, dps=DEFAULT_DPS, T=2000):
    """δ_∞(i) = A_i ∏_{t>i} B_t (direct sum to i + T, Euler–Maclaurin tail with 6 terms)."""
    with mp.workdps(dps + 15):
        a, s = _limit_parts(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay, smoothness,
                            strong_convexity, dps + 15, T)
        val = a * mp.exp(s)
    with mp.workdps(dps):
        return +val


def online_schedule_log_delta_limit(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay,
                                    smoothness=None, strong_convexity=0, dps=DEFAULT_DPS, T=2000):
    """ln δ_∞(i) = ln A_i + Σ_{t>i} ln B_t, as :func:`online_schedule_delta_limit` but in logs (at
    huge ε the sum is far below any float exponent: ≈ −3.9e94 at ε = 1e3 with the Fig. 5 schedule)."""
    with mp.workdps(dps + 15):
        a, s = _limit_parts(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay, smoothness,
                            strong_convexity, dps + 15, T)
        val = mp.log(a) + s
    with mp.workdps(dps):
        return +val


def online_schedule_delta_star_upper(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay,
                                     smoothness=None, strong_convexity=0, variant="corrected",
                                     dps=DEFAULT_DPS):
    """003 eq. (13)/(15): corrected A_i exp(∫_{i+1}^∞ g); ``as_published``: eq. (13) with e^{−ε/2}
    in A_i, eq. (15) as θ(2L/σ_i · exp(∫_{i+1}^∞ g)) (unsound)."""
    with mp.workdps(dps + 15):
        g = _g(mechanism, eps, lr, diameter, c1, c2, decay, smoothness, strong_convexity, dps + 15)
        integral = _int_from(g, int(index) + 1)
        pub = variant == "as_published"
        if pub and mechanism == "gaussian":
            s = online_gaussian_noise_scale(index, c1, c2, decay, lr, diameter, smoothness, strong_convexity, dps + 15)
            val = theta(eps, 2 * mp.mpf(max_grad_norm) / s * mp.exp(integral), dps + 15)
        else:
            val = _a_i(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay, smoothness,
                       strong_convexity, dps + 15, as_published=pub) * mp.exp(integral)
    with mp.workdps(dps):
        return +val


def online_schedule_delta_star_lower(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay,
                                     smoothness=None, strong_convexity=0, dps=DEFAULT_DPS):
    """A_i exp(∫_i^∞ g) ≤ δ_∞(i)."""
    with mp.workdps(dps + 15):
        g = _g(mechanism, eps, lr, diameter, c1, c2, decay, smoothness, strong_convexity, dps + 15)
        a = _a_i(mechanism, eps, max_grad_norm, lr, diameter, index, c1, c2, decay, smoothness, strong_convexity,
                 dps + 15)
        val = a * mp.exp(_int_from(g, int(index)))
    with mp.workdps(dps):
        return +val


def theta_complement_asymptotic(eps, c, sigma, order=2, dps=DEFAULT_DPS):
    """003 Lemma 5, corrected (docs/derivations/schedules.md#lemma-5): 1 − θ_{e^ε}(c/σ) ≈ e^{ε/2}
    e^{−c²/(8σ²)}/sqrt(2π) · (4σ/c − (16 + 2ε²)σ³/c³); ``order=1`` keeps the leading term only. Test
    oracle."""
    with mp.workdps(dps + 10):
        eps, c, sigma = mp.mpf(eps), mp.mpf(c), mp.mpf(sigma)
        br = 4 * sigma / c
        if order >= 2:
            br -= (16 + 2 * eps ** 2) * sigma ** 3 / c ** 3
        val = mp.exp(eps / 2) * mp.exp(-c ** 2 / (8 * sigma ** 2)) / mp.sqrt(2 * mp.pi) * br
    with mp.workdps(dps):
        return +val


# Same names and argument order as the public functions in ``pabi.schedules``.

def _for_noise(family, noise, name, doc):
    """The reference function ``name``: ``family`` with its first parameter (the mechanism) set to
    ``noise``; its signature is the family's other parameters (less the quadrature cut ``T``)."""
    def f(*args, **kwargs):
        return family(noise, *args, **kwargs)

    params = list(inspect.signature(family).parameters.values())[1:]
    f.__signature__ = inspect.Signature([q for q in params if q.name != "T"])
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


online_laplace_delta = _for_noise(online_schedule_delta, "laplace", "online_laplace_delta",
                                  "δ_n(i) under the online Laplace schedule (003 Thm 6, eq. (11)).")
online_gaussian_delta = _for_noise(online_schedule_delta, "gaussian", "online_gaussian_delta",
                                   "δ_n(i) under the online Gaussian schedule (003 Thm 7, eq. (11)).")
online_laplace_delta_limit = _for_noise(online_schedule_delta_limit, "laplace", "online_laplace_delta_limit",
                                        "δ_∞(i) under the online Laplace schedule.")
online_gaussian_delta_limit = _for_noise(online_schedule_delta_limit, "gaussian", "online_gaussian_delta_limit",
                                         "δ_∞(i) under the online Gaussian schedule.")
online_laplace_delta_limit_closed_upper = _for_noise(
    online_schedule_delta_star_upper, "laplace", "online_laplace_delta_limit_closed_upper",
    "003 eq. (13), corrected (default) or as printed.")
online_gaussian_delta_limit_closed_upper = _for_noise(
    online_schedule_delta_star_upper, "gaussian", "online_gaussian_delta_limit_closed_upper",
    "003 eq. (15), corrected parenthesisation (default) or as printed (unsound).")
online_laplace_delta_limit_lower = _for_noise(online_schedule_delta_star_lower, "laplace",
                                              "online_laplace_delta_limit_lower", "A_i exp(∫_i^∞ g) ≤ δ_∞(i), Laplace.")
online_gaussian_delta_limit_lower = _for_noise(online_schedule_delta_star_lower, "gaussian",
                                               "online_gaussian_delta_limit_lower",
                                               "A_i exp(∫_i^∞ g) ≤ δ_∞(i), Gaussian.")


# ε(δ): the exact inverse of a δ(ε) that is non-increasing in ε, by bisection.

def _inverse(delta_of, delta, eps_end=mp.inf, dps=DEFAULT_DPS, iterations=200):
    """inf{ε ≥ 0 : δ(ε) ≤ δ} for ε below ``eps_end`` (where δ(ε) is defined), by bisection in
    mpmath after doubling to a bracket; +inf when no ε below ``eps_end`` meets δ, 0 when δ(0) ≤ δ."""
    with mp.workdps(dps + 10):
        target = mp.mpf(delta)
        if delta_of(mp.mpf(0)) <= target:
            return mp.mpf(0)
        lo, hi = mp.mpf(0), mp.mpf(1)
        if eps_end < mp.inf:
            hi = eps_end * (1 - mp.mpf(10) ** (-dps))  # just inside the domain
            if delta_of(hi) > target:
                return mp.inf
        else:
            while delta_of(hi) > target:
                lo, hi = hi, 2 * hi
        for _ in range(iterations):
            mid = (lo + hi) / 2
            if delta_of(mid) <= target:
                hi = mid
            else:
                lo = mid
            if hi - lo <= hi * mp.mpf(10) ** (-dps):
                break
    with mp.workdps(dps):
        return +hi


def online_epsilon(delta, max_grad_norm, lr, diameter, noise_scale: Sequence[Real], index: int, noise="gaussian",
                   smoothness=None, strong_convexity=0, dps=DEFAULT_DPS):
    """ε(δ) of :func:`online_delta` (any per-step noise): the exact inverse inf{ε : δ_n(i)(ε) ≤ δ}."""
    return _inverse(lambda e: online_delta(e, max_grad_norm, lr, diameter, noise_scale, index, noise, smoothness,
                                           strong_convexity, dps + 10), delta, dps=dps)


def online_laplace_epsilon(delta, max_grad_norm, lr, diameter, steps, index, c1, c2, decay, smoothness=None,
                           strong_convexity=0, dps=DEFAULT_DPS):
    """ε(δ) of :func:`online_laplace_delta` on its domain ε < 2·ln((i^α + C1·C2)/C1) (every
    B_t > 0); +inf when no ε of the domain meets δ."""
    with mp.workdps(dps + 10):
        end = 2 * mp.log((mp.mpf(index) ** mp.mpf(decay) + mp.mpf(c1) * mp.mpf(c2)) / mp.mpf(c1))
    return _inverse(lambda e: online_laplace_delta(e, max_grad_norm, lr, diameter, steps, index, c1, c2, decay,
                                                   smoothness, strong_convexity, dps + 10), delta, end, dps)


def online_gaussian_epsilon(delta, max_grad_norm, lr, diameter, steps, index, c1, c2, decay, smoothness=None,
                            strong_convexity=0, dps=DEFAULT_DPS):
    """ε(δ) of :func:`online_gaussian_delta`: the exact inverse inf{ε : δ_n(i)(ε) ≤ δ}."""
    return _inverse(lambda e: online_gaussian_delta(e, max_grad_norm, lr, diameter, steps, index, c1, c2, decay,
                                                    smoothness, strong_convexity, dps + 10), delta, dps=dps)
