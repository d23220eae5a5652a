"""numpy-friendly wrappers around the Rust core (``pabi._core``).

Every function accepts Python scalars or array-likes of real numbers, broadcasts them like a
numpy ufunc, returns a ``float`` when every argument is a scalar and a float64 ``ndarray`` of
the broadcast shape otherwise. Arguments outside their domain raise :class:`DomainError`
(a ``ValueError``) naming the parameter, its allowed range and, for arrays, the index of the
first bad element; non-numeric input raises ``TypeError``. A bug caught in the Rust core (a
panic) raises :class:`InternalError` (a ``RuntimeError``); Ctrl-C interrupts long calls.
"""

from __future__ import annotations

from typing import overload

import numpy as np

from . import _core
from ._bridge import ArrayLike, DomainError, Float, FloatArray, Scalar, call as _call, flag as _flag
from ._bridge import domain_error as _domain_error

InternalError = _core.InternalError

#: Largest accepted :func:`set_num_threads` argument (``pabi_core::batch::MAX_THREADS``).
MAX_THREADS = 1024

__all__ = [
    "DomainError",
    "InternalError",
    "gaussian_tail",
    "theta",
    "theta_complement",
    "laplace_theta",
    "laplace_theta_complement",
    "lambertw",
    "wright_omega",
    "set_num_threads",
    "get_num_threads",
    "simd_level",
]


@overload
def gaussian_tail(x: Scalar, *, log: bool = False) -> float: ...
@overload
def gaussian_tail(x: ArrayLike, *, log: bool = False) -> FloatArray: ...
def gaussian_tail(x: ArrayLike, *, log: bool = False) -> Float:
    """Gaussian tail Q(x) = P(N(0,1) > x) = erfc(x/√2)/2, for every real x.

    Accurate to a few ulp wherever Q is a normal double (x ≤ 37.5); underflows gradually
    beyond and is 0 from x ≈ 38.6 (use ``log=True`` there). The argument x/√2 is carried in
    double-double so the x²-ulp loss of ``erfc(x/sqrt(2))/2`` does not occur.

    ``log=True`` returns ln Q(x), finite for |x| < 1.896e154; beyond, the exact value is below
    the most negative double and −1.7976931348623157e308 (the nearest double not below it) is
    returned; −inf only for x = +inf. Never NaN.

    >>> gaussian_tail(0.0)
    0.5
    >>> round(gaussian_tail(1.959963984540054), 12)
    0.025
    >>> gaussian_tail(1e4, log=True)  # Q(1e4) underflows; its log does not
    -50000010.1292789...
    """
    return _call(_core.log_gaussian_tail if _flag("log", log) else _core.gaussian_tail, ("x",), x)


@overload
def theta(eps: Scalar, shift: Scalar, *, log: bool = False) -> float: ...
@overload
def theta(eps: ArrayLike, shift: ArrayLike, *, log: bool = False) -> FloatArray: ...
def theta(eps: ArrayLike, shift: ArrayLike, *, log: bool = False) -> Float:
    """Gaussian hockey-stick divergence θ_{e^ε}(r) = E_{e^ε}(N(r,1) ‖ N(0,1)) at r = ``shift``.

    θ = Q(ε/r − r/2) − e^ε·Q(ε/r + r/2): the smallest δ for which the Gaussian mechanism with
    sensitivity-to-noise ratio r is (ε, δ)-DP. Never returned below the exact value (relative
    error ≤ 2e-14, rounded outward). θ(ε, 0) = 0, θ(ε, ∞) = 1.

    ``eps`` ≥ 0 is the privacy level ε = log γ (γ = e^ε is never formed, so ε up to 1e300 is
    fine) and ``shift`` ≥ 0 the mean shift in units of the noise standard deviation; both
    broadcast. ``log=True`` returns ln θ, finite wherever θ > 0 even when θ underflows, never
    below the exact value.

    Paper: Sordello, Bu, Dong, *Privacy amplification via iteration for shuffled and online
    PNSGD*, eq. (3); Asoodeh, Diaz, Calmon, *Privacy amplification of iterative algorithms via
    contraction coefficients*, Lemma 2 (docs/derivations/theta.md#divided-difference).

    >>> theta(1.0, 1.0)
    0.1269367375066...
    >>> theta([0.5, 1.0, 2.0], 1.0).round(6)
    array([0.238422, 0.126937, 0.020924])
    >>> theta(1.0, 1e-3, log=True)  # θ itself underflows
    -500021.1422074...
    """
    return _call(_core.log_theta if _flag("log", log) else _core.theta, ("eps", "shift"), eps, shift)


@overload
def theta_complement(eps: Scalar, shift: Scalar, *, log: bool = False) -> float: ...
@overload
def theta_complement(eps: ArrayLike, shift: ArrayLike, *, log: bool = False) -> FloatArray: ...
def theta_complement(eps: ArrayLike, shift: ArrayLike, *, log: bool = False) -> Float:
    """1 − θ_{e^ε}(r) without cancellation, accurate even when θ is within 1e-300 of 1.

    Never returned above the exact value (the conservative side when 1 − θ is a contraction
    gap 1 − B, as in the amplification bounds). Arguments as in :func:`theta`; ``log=True``
    returns ln(1 − θ), finite wherever θ < 1 (e.g. r = 1e3), never above the exact value.

    >>> theta_complement(1.0, 50.0)  # 1 - theta(1, 50) would be 0.0
    1.00772724994...e-137
    >>> theta_complement(1.0, 1e3, log=True)
    -125005.940403...
    """
    fn = _core.log_theta_complement if _flag("log", log) else _core.theta_complement
    return _call(fn, ("eps", "shift"), eps, shift)


@overload
def laplace_theta(eps: Scalar, shift: Scalar) -> float: ...
@overload
def laplace_theta(eps: ArrayLike, shift: ArrayLike) -> FloatArray: ...
def laplace_theta(eps: ArrayLike, shift: ArrayLike) -> Float:
    """Laplace hockey-stick divergence E_{e^ε}(Lap(r,1) ‖ Lap(0,1)) = max(0, 1 − e^{(ε−r)/2}).

    ``shift`` r is the shift in units of the Laplace scale. Never below the exact value.
    Paper: Asoodeh et al., Lemma 1; Sordello et al., eq. (5) (docs/derivations/theta.md#laplace).

    >>> laplace_theta(1.0, 3.0)  # 1 - e^{-1}
    0.632120558828...
    >>> laplace_theta(3.0, 1.0)
    0.0
    """
    return _call(_core.laplace_theta, ("eps", "shift"), eps, shift)


@overload
def laplace_theta_complement(eps: Scalar, shift: Scalar) -> float: ...
@overload
def laplace_theta_complement(eps: ArrayLike, shift: ArrayLike) -> FloatArray: ...
def laplace_theta_complement(eps: ArrayLike, shift: ArrayLike) -> Float:
    """1 − laplace_theta = min(1, e^{(ε−r)/2}), never above the exact value.

    >>> laplace_theta_complement(1.0, 3.0)
    0.367879441171...
    """
    return _call(_core.laplace_theta_complement, ("eps", "shift"), eps, shift)


@overload
def lambertw(x: Scalar) -> float: ...
@overload
def lambertw(x: ArrayLike) -> FloatArray: ...
def lambertw(x: ArrayLike) -> Float:
    """Principal branch W0(x) of the Lambert W function, x ≥ −1/e (W e^W = x).

    Within a few ulp on the whole domain, including the branch point and tiny |x|.
    The Gaussian noise schedule of Sordello et al. (eq. (9)) uses W0(n²/(2πC²) + C₂).

    >>> lambertw(1.0)  # the omega constant
    0.5671432904097838
    >>> lambertw(-0.36787944117144233)  # -1/e rounded to double: the branch point
    -1.0
    """
    return _call(_core.lambertw, ("x",), x)


@overload
def wright_omega(x: Scalar) -> float: ...
@overload
def wright_omega(x: ArrayLike) -> FloatArray: ...
def wright_omega(x: ArrayLike) -> Float:
    """Wright omega ω(x) = W0(e^x), computed without forming e^x (x up to 1e300).

    >>> wright_omega(0.0) == lambertw(1.0)
    True
    >>> wright_omega(1e6)  # W0(e^1e6), far beyond the double range of e^x
    999986.184...
    """
    return _call(_core.wright_omega, ("x",), x)


def set_num_threads(threads: int) -> None:
    """Set the number of worker threads used for large arrays, 1 to 1024 (1 disables
    parallelism). The pool is built by the first call on a large array (scalar and small calls
    never use it).

    The default is the ``PABI_NUM_THREADS`` environment variable, else the number of CPUs (at
    most 1024). The cap: the kernels are CPU-bound, so workers beyond the hardware threads only
    add overhead, and a fixed bound (rather than a multiple of the CPU count) keeps a script
    valid on every machine while bounding the one-off cost of spawning the pool.

    Raises ``TypeError`` unless ``threads`` is an ``int`` or a numpy integer (bools and floats
    are refused) and :class:`DomainError` (``param == "threads"``) outside 1..1024.
    """
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads must be an int, got {type(threads).__name__}")
    k = int(threads)
    if not 1 <= k <= MAX_THREADS:
        allowed = f"an integer >= 1 and <= {MAX_THREADS}"
        raise _domain_error("threads", allowed, k)
    _core.set_num_threads(k)


def get_num_threads() -> int:
    """Number of worker threads used for large arrays."""
    return int(_core.get_num_threads())


def simd_level() -> str:
    """SIMD instruction set used by the vectorized kernels on this CPU ('avx512', 'avx2+fma', 'neon' or 'portable')."""
    return str(_core.simd_level())
