"""Reference (mpmath) implementations of the engine: Gaussian tail, θ family, Laplace θ, Lambert W.

>>> import mpmath
>>> from pabi import reference as ref
>>> mpmath.nstr(ref.theta(1.0, 1.0, dps=30), 30)  # mpf values print at mpmath's global precision
'0.126936737506643945800829624758'
"""

from __future__ import annotations

from typing import Union

import mpmath as mp

Real = Union[float, int, "mp.mpf"]

__all__ = [
    "gaussian_tail",
    "theta",
    "theta_complement",
    "laplace_theta",
    "laplace_theta_complement",
    "lambertw",
    "wright_omega",
]

DEFAULT_DPS = 50
MINUS_INV_E_DOUBLE = -0.36787944117144233


def _mpf(x: Real) -> mp.mpf:
    return mp.mpf(x)


def _q(t: mp.mpf) -> mp.mpf:
    """Q(t) = erfc(t/√2)/2 at the current working precision.

    For t > 1e100 by the asymptotic series Q(t) = φ(t)/t·Σ_k (−1)^k (2k − 1)!!/t^{2k}: mpmath's
    erfc raises OverflowError from about t = 1e155 (its series test squares a term count in a
    float). The series alternates with terms falling by ≥ 1e-200 per step, so stopping at the
    first term below the working precision leaves an error below that term."""
    if t > mp.mpf("1e100"):
        tiny = mp.ldexp(1, -mp.mp.prec - 10)
        inv2 = 1 / (t * t)
        total, term, k = mp.mpf(1), mp.mpf(1), 1
        while True:
            term = -term * (2 * k - 1) * inv2
            if abs(term) < tiny:
                break
            total += term
            k += 1
        return mp.exp(-t * t / 2) / (t * mp.sqrt(2 * mp.pi)) * total
    return mp.erfc(t / mp.sqrt(2)) / 2


def _gaussian_tail(t: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """Q(t) = P(N(0,1) > t) = erfc(t/√2)/2."""
    with mp.workdps(dps + 10):
        return +_q(_mpf(t))


def _log_gaussian_tail(t: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """ln Q(t); for t < 0 as log1p(−Q(−t)) so that ln(1 − tiny) keeps its digits."""
    t = _mpf(t)
    with mp.workdps(dps + 10):
        val = mp.log1p(-_q(-t)) if t < 0 else mp.log(_q(t))
    with mp.workdps(dps):
        return +val


def _theta_guard(eps: mp.mpf, r: mp.mpf) -> int:
    """Decimal digits lost in Q(a) − e^ε Q(b): about log10(max(1, a)/r) by the cancellation,
    plus log10(max(1, ε, a²)) because e^ε·Q(b) = exp(ε − b²/2 + ...) needs the exponent to
    that many digits before the terms cancel (ε = 1e154 lost every digit without it)."""
    a = abs(eps / r - r / 2)
    cancel = mp.log10(max(mp.mpf(1), a) / min(r, mp.mpf(1)))
    exponent = mp.log10(max(mp.mpf(1), eps, a * a))
    return int(mp.ceil(cancel)) + int(mp.ceil(exponent)) + 15


def _theta(eps: Real, r: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """θ_{e^ε}(r) = Q(ε/r − r/2) − e^ε·Q(ε/r + r/2)  (Sordello–Bu–Dong eq. (3)).

    θ(ε, 0) = 0 and θ(ε, ∞) = 1.
    """
    eps, r = _mpf(eps), _mpf(r)
    if eps < 0 or r < 0:
        raise ValueError("eps and shift must be >= 0")
    if r == 0 or mp.isinf(eps):
        return mp.mpf(0)
    if mp.isinf(r):
        return mp.mpf(1)
    with mp.workdps(dps + _theta_guard(eps, r)):
        a = eps / r - r / 2
        b = eps / r + r / 2
        val = _q(a) - mp.exp(eps) * _q(b)
    with mp.workdps(dps):
        return +val


def _log_of(f, complement, eps: Real, r: Real, dps: int) -> mp.mpf:
    """ln f(ε, r) for one of θ and 1 − θ (``complement`` the other): log1p(−complement) where
    f > 1/2, so that ln(1 − tiny) keeps its digits; −inf where f = 0."""
    val = f(eps, r, dps + 5)
    with mp.workdps(dps + 5):
        if val > 0.5:
            return mp.log1p(-complement(eps, r, dps + 5))
        return mp.log(val) if val > 0 else mp.mpf("-inf")


def _log_theta(eps: Real, r: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """ln θ_{e^ε}(r) (−inf where θ = 0; log1p(−(1 − θ)) where θ > 1/2)."""
    return _log_of(_theta, _theta_complement, eps, r, dps)


def _theta_complement(eps: Real, r: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """1 − θ_{e^ε}(r), evaluated as Q(−a) + e^ε·Q(b) (a sum of positive terms)."""
    eps, r = _mpf(eps), _mpf(r)
    if r == 0 or mp.isinf(eps):
        return mp.mpf(1)
    if mp.isinf(r):
        return mp.mpf(0)
    with mp.workdps(dps + 15):
        a = eps / r - r / 2
        b = eps / r + r / 2
        val = _q(-a) + mp.exp(eps) * _q(b)
    with mp.workdps(dps):
        return +val


def _log_theta_complement(eps: Real, r: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """ln(1 − θ_{e^ε}(r)) (log1p(−θ) where 1 − θ > 1/2)."""
    return _log_of(_theta_complement, _theta, eps, r, dps)


def gaussian_tail(x: Real, dps: int = DEFAULT_DPS, *, log: bool = False) -> mp.mpf:
    """Q(x) = P(N(0,1) > x) = erfc(x/√2)/2; ``log=True``: ln Q(x), for x < 0 as log1p(−Q(−x))
    so that ln(1 − tiny) keeps its digits."""
    return _log_gaussian_tail(x, dps) if log else _gaussian_tail(x, dps)


def theta(eps: Real, shift: Real, dps: int = DEFAULT_DPS, *, log: bool = False) -> mp.mpf:
    """θ_{e^ε}(r) = Q(ε/r − r/2) − e^ε·Q(ε/r + r/2) at r = ``shift`` (Sordello–Bu–Dong eq. (3));
    θ(ε, 0) = 0 and θ(ε, ∞) = 1. ``log=True``: ln θ (−inf where θ = 0; log1p(−(1 − θ)) where
    θ > 1/2)."""
    return _log_theta(eps, shift, dps) if log else _theta(eps, shift, dps)


def theta_complement(eps: Real, shift: Real, dps: int = DEFAULT_DPS, *, log: bool = False) -> mp.mpf:
    """1 − θ_{e^ε}(r), as Q(−a) + e^ε·Q(b) (a sum of positive terms); ``log=True``: its ln
    (log1p(−θ) where 1 − θ > 1/2)."""
    return _log_theta_complement(eps, shift, dps) if log else _theta_complement(eps, shift, dps)


def laplace_theta(eps: Real, shift: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """E_{e^ε}(Lap(r,1) ‖ Lap(0,1)) = max(0, 1 − e^{(ε−r)/2})  (Asoodeh et al. Lemma 1)."""
    eps, r = _mpf(eps), _mpf(shift)
    with mp.workdps(dps + 10):
        # −expm1, not 1 − exp: the subtraction lost every digit for |ε − r| ≲ 10^-(dps+10)
        # (θ(4.2e-61, 8.7e-61) was 3% off at dps = 50)
        val = max(mp.mpf(0), -mp.expm1((eps - r) / 2))
    with mp.workdps(dps):
        return +val


def laplace_theta_complement(eps: Real, shift: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """1 − laplace_theta = min(1, e^{(ε−r)/2})."""
    eps, r = _mpf(eps), _mpf(shift)
    with mp.workdps(dps + 10):
        val = min(mp.mpf(1), mp.exp((eps - r) / 2))
    with mp.workdps(dps):
        return +val


def lambertw(x: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """Principal branch W0(x), x ≥ −1/e.

    The double nearest to −1/e (−0.36787944117144233) lies 3.4e-17 *below* −1/e; like SciPy and
    Boost, it is taken as the branch point and gives −1.
    """
    x = _mpf(x)
    if x == MINUS_INV_E_DOUBLE:
        return mp.mpf(-1)
    with mp.workdps(dps + 10):
        if x < -mp.exp(-1):
            raise ValueError("x must be >= -1/e")
        val = mp.lambertw(x).real
    with mp.workdps(dps):
        return +val


def wright_omega(x: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """ω(x) = W0(e^x)."""
    x = _mpf(x)
    with mp.workdps(dps + 10):
        val = mp.lambertw(mp.exp(x)).real
    with mp.workdps(dps):
        return +val
