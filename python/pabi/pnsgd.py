"""Privacy amplification by iteration for projected noisy SGD (PNSGD).

PNSGD runs w_t = Π_K(w_{t−1} − η(∇ℓ(w_{t−1}, x_t) + Z_t)) over n records and releases only the
last iterate. Because the noisy projected steps contract the hockey-stick divergence, a record
processed early is more private than one processed late. The bounds here are those of

* Asoodeh, Diaz, Calmon, *Privacy amplification of iterative algorithms via contraction
  coefficients* (ISIT 2020; "000"): Thms 3–5 and Proposition 1;
* Sordello, Bu, Dong, *Privacy amplification via iteration for shuffled and online PNSGD*
  ("003"): Thms 1–2 and §1.

Parameters shared by every function (all numeric ones broadcast like numpy; a scalar for every
argument gives a ``float``):

* ``noise``: ``"gaussian"`` (N(0, σ² I) added to the gradient; ``sigma`` = σ) or
  ``"laplace"`` (d = 1, Lap(0, v) with density e^{−|z|/v}/(2v); ``sigma`` = the scale v and
  ``diameter`` = b − a for K = [a, b]).
* ``lipschitz`` L ≥ 0: bound on ‖∇ℓ‖; ``lr`` η > 0; ``diameter`` D ≥ 0 of K;
* ``smoothness`` β (None: no smoothness assumed) and ``strong_convexity`` ρ ≥ 0 (ρ > 0 needs
  β and ρ ≤ β). They set the contraction factor M = sqrt(1 − 2ηβρ/(β+ρ)) of a gradient step,
  valid only for η ≤ 2/(β + ρ), which is enforced (docs/errata.md#p-t10: beyond it the bound is
  false). ρ = 0 gives M = 1.
* ``n``: number of records/steps, an integer in [1, 2^53) (floats holding integers accepted).
* ``order``: ``"fixed"`` (records in index order; ``index`` = the 1-based position i of the
  differing record, required), ``"shuffled"`` (one random permutation; no ``index``) or
  ``"random_stop"`` (output w_T for T uniform on 1..n; ``index`` optional, None = worst case).

With r_A = 2L/σ and r_B = M·D/(η σ), A = h(ε, r_A) and B = h(ε, r_B), where h is
:func:`pabi.theta` (Gaussian, 003 eq. (4)) or :func:`pabi.laplace_theta` (Laplace, 003 eq. (5):
A = (1 − e^{ε/2 − L/v})_+, B = (1 − e^{ε/2 − M(b−a)/(2ηv)})_+). Then

* fixed:       δ_i = A·B^{n−i}                                   (003 Thm 1; 000 Thms 3, 4)
* shuffled:    δ = A(1 − B^n)/(n(1 − B))                          (003 Thm 2)
* random_stop: δ_i = A(1 − B^{n−i+1})/(n(1 − B))                  (003 §1; max over i at i = 1
  equals the shuffled bound exactly, docs/errata.md#p-t12)

Every δ is returned as an upper bound of the formula at the given inputs (never below the exact
value; relative error a few 1e-14 times 1 + |(n−i)·ln B|), computed without forming 1 − B by
subtraction, for n up to 2^53 and 1 − B down to 1e-300.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from . import _core
from ._bridge import ArrayLike, Broadcast, Float

__all__ = [
    "pnsgd_delta",
    "pnsgd_log_delta",
    "pnsgd_epsilon",
    "pnsgd_calibrate_sigma",
    "pnsgd_factors",
    "pnsgd_rdp_delta",
    "pnsgd_rdp_log_delta",
    "pnsgd_rdp_epsilon",
    "pnsgd_rdp_slope",
]

_NOISES = ("gaussian", "laplace")
_ORDERS = ("fixed", "shuffled", "random_stop")
_VARIANTS = ("refined", "as_published")


def _run(fn: Callable[..., Any], numeric: dict[str, Optional[ArrayLike]], optional: tuple[str, ...],
         **options: object) -> Any:
    """``fn(**arrays, **options, len=size)``: the numeric arguments broadcast (stride 0 for a
    single value, see :class:`pabi._bridge.Broadcast`) and passed by name, like the options."""
    b = Broadcast(tuple(numeric), tuple(numeric.values()), optional)
    return b.apply(lambda: fn(**b.flat, **options, len=b.size))


def _check_noise(noise: str) -> None:
    if noise not in _NOISES:
        raise ValueError(f"noise must be one of {_NOISES}, got {noise!r}")


def _check_options(noise: str, order: str, variant: str) -> None:
    _check_noise(noise)
    if order not in _ORDERS:
        raise ValueError(f"order must be one of {_ORDERS}, got {order!r}")
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be one of {_VARIANTS}, got {variant!r}")
    if variant == "as_published" and order != "random_stop":
        raise ValueError("variant='as_published' only applies to order='random_stop'")


def _amplification(fn: Callable[..., np.ndarray], numeric: dict[str, Optional[ArrayLike]], noise: str,
                   order: str, variant: str, **flags: bool) -> Float:
    """An amplification-bound binding on ``numeric`` (name → value, in the public signature's
    order, for the order of error checks) and the options, all passed by name."""
    _check_options(noise, order, variant)
    return _run(fn, numeric, ("index", "smoothness"), noise=noise, order=order, variant=variant, **flags)


def pnsgd_delta(
    eps: ArrayLike,
    *,
    noise: str = "gaussian",
    sigma: ArrayLike,
    lipschitz: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    n: ArrayLike,
    order: str = "fixed",
    index: Optional[ArrayLike] = None,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
    variant: str = "refined",
) -> Float:
    """δ(ε) for which PNSGD is (ε, δ)-DP (for its ``index``-th record with ``order="fixed"``).

    See the module docstring for the parameters and formulas: δ_i = A·B^{n−i} (fixed, 003
    Thm 1 / 000 Thms 3–4), A(1 − B^n)/(n(1 − B)) (shuffled, 003 Thm 2),
    A(1 − B^{n−i+1})/(n(1 − B)) (random_stop, refined form of 000 Thm 5 from 003 §1; with
    ``index=None`` the worst case i = 1, equal to the shuffled value). ``eps`` ≥ 0 (finite).

    ``variant="as_published"`` (random_stop only) gives 000 eq. (16), A/(n(1 − B)), clamped to
    1. It is a valid but looser bound that exceeds 1 (is vacuous) whenever n(1 − B) < A, e.g.
    for a large diameter; prefer the default refined form.

    The result is never below the exact value and lies in [0, 1]. A whole privacy profile is
    one call with an array of ``eps``.

    >>> kw = dict(sigma=1.0, lipschitz=1.0, lr=0.5, diameter=1.0, n=100)
    >>> round(pnsgd_delta(1.0, order="fixed", index=100, **kw), 12)  # i = n: delta = A
    0.509861660055
    >>> pnsgd_delta(1.0, order="fixed", index=1, **kw)  # the first record: A B^99
    5.56205867125...e-30
    >>> pnsgd_delta(1.0, order="shuffled", **kw)
    0.0104024031278...
    >>> pnsgd_delta([0.5, 1.0, 2.0], order="shuffled", **kw).round(6)
    array([0.014949, 0.010402, 0.004968])
    >>> pnsgd_delta(0.1, noise="laplace", order="fixed", index=3, n=5, sigma=1.0,
    ...             lipschitz=1.0, lr=0.5, diameter=1.0)  # (1 - e^{-0.95})(1 - e^{-0.95})^2
    0.2306384664295...
    """
    return _amplification(_core.pnsgd_delta, dict(
        eps=eps, sigma=sigma, lipschitz=lipschitz, lr=lr, diameter=diameter, n=n, index=index,
        smoothness=smoothness, strong_convexity=strong_convexity), noise, order, variant,
        log=False)


def pnsgd_log_delta(
    eps: ArrayLike,
    *,
    noise: str = "gaussian",
    sigma: ArrayLike,
    lipschitz: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    n: ArrayLike,
    order: str = "fixed",
    index: Optional[ArrayLike] = None,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
    variant: str = "refined",
) -> Float:
    """ln of :func:`pnsgd_delta` (never below the exact value; −inf where δ = 0), for δ that
    underflows a double (e.g. a record processed 1e15 steps before the end).

    >>> pnsgd_log_delta(1.0, sigma=1.0, lipschitz=1.0, lr=0.5, diameter=1.0, n=10**15,
    ...                 order="fixed", index=1)  # exact: -673615844854766.10, rounded up
    -67361584485476...
    """
    return _amplification(_core.pnsgd_delta, dict(
        eps=eps, sigma=sigma, lipschitz=lipschitz, lr=lr, diameter=diameter, n=n, index=index,
        smoothness=smoothness, strong_convexity=strong_convexity), noise, order, variant,
        log=True)


def pnsgd_epsilon(
    delta: ArrayLike,
    *,
    noise: str = "gaussian",
    sigma: ArrayLike,
    lipschitz: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    n: ArrayLike,
    order: str = "fixed",
    index: Optional[ArrayLike] = None,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
    variant: str = "refined",
) -> Float:
    """The smallest ε ≥ 0 (to one ulp) whose :func:`pnsgd_delta` does not exceed ``delta``.

    ``delta`` in (0, 1); other parameters as in :func:`pnsgd_delta`, all broadcasting. δ is
    non-increasing in ε: the result ε satisfies pnsgd_delta(ε) ≤ delta, while the next smaller
    double does not; 0 when δ(0) ≤ delta. Bracketing plus bisection on the double grid (at most
    ~600 evaluations per element). Raises ``ValueError`` when no finite ε reaches the target.

    >>> kw = dict(sigma=1.0, lipschitz=1.0, lr=0.5, diameter=1.0, n=100, order="shuffled")
    >>> e = pnsgd_epsilon(1e-5, **kw)
    >>> round(e, 10)
    7.581893014...
    >>> pnsgd_delta(e, **kw) <= 1e-5
    True
    """
    return _amplification(_core.pnsgd_epsilon, dict(
        delta=delta, sigma=sigma, lipschitz=lipschitz, lr=lr, diameter=diameter, n=n, index=index,
        smoothness=smoothness, strong_convexity=strong_convexity), noise, order, variant)


def pnsgd_calibrate_sigma(
    eps: ArrayLike,
    delta: ArrayLike,
    *,
    noise: str = "gaussian",
    lipschitz: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    n: ArrayLike,
    order: str = "fixed",
    index: Optional[ArrayLike] = None,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
    variant: str = "refined",
) -> Float:
    """The smallest noise (Gaussian σ or Laplace scale v, to one ulp) for which PNSGD is
    (``eps``, ``delta``)-DP under the selected bound.

    δ is non-increasing in the noise: pnsgd_delta at the returned σ is ≤ ``delta``, at the next
    smaller double it is not. 0.0 when every σ > 0 works (e.g. ``lipschitz=0``). Raises
    ``ValueError`` when no σ ≤ 1e300 reaches the target. Parameters as in :func:`pnsgd_delta`
    (without ``sigma``), all broadcasting; ``eps`` ≥ 0, ``delta`` in (0, 1).

    >>> kw = dict(lipschitz=1.0, lr=0.5, diameter=1.0, n=100, order="shuffled")
    >>> s = pnsgd_calibrate_sigma(1.0, 1e-5, **kw)
    >>> round(s, 8)
    5.14987873
    >>> pnsgd_delta(1.0, sigma=s, **kw) <= 1e-5
    True
    """
    return _amplification(_core.pnsgd_calibrate_sigma, dict(
        eps=eps, delta=delta, lipschitz=lipschitz, lr=lr, diameter=diameter, n=n, index=index,
        smoothness=smoothness, strong_convexity=strong_convexity), noise, order, variant)


def pnsgd_factors(
    eps: ArrayLike,
    *,
    noise: str = "gaussian",
    sigma: ArrayLike,
    lipschitz: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
) -> tuple[Float, Float, Float]:
    """The factors ``(A, B, 1 − B)`` of the PNSGD bounds (docs/derivations/pnsgd.md#factors; 003
    eqs. (4)–(5)).

    A = h(ε, 2L/σ) is the divergence after the step on the differing record, B = h(ε, M·D/(ησ))
    the contraction coefficient of every later step. A and B are rounded up, 1 − B is computed
    directly (not as 1 − B) and rounded down, so it stays accurate when B is within 1e-300 of 1.

    >>> A, B, u = pnsgd_factors(1.0, sigma=1.0, lipschitz=1.0, lr=0.05, diameter=1.0)
    >>> round(A, 8), B, u   # D/(eta sigma) = 20: B is 1 to double precision
    (0.50986166, 1.0, 2.5095237742...e-23)
    """
    _check_noise(noise)
    return _run(_core.pnsgd_factors, dict(eps=eps, sigma=sigma, lipschitz=lipschitz, lr=lr, diameter=diameter,
                                          smoothness=smoothness, strong_convexity=strong_convexity),
                ("smoothness",), noise=noise)


def pnsgd_rdp_delta(
    eps: ArrayLike,
    *,
    sigma: ArrayLike,
    lipschitz: ArrayLike,
    lr: ArrayLike,
    n: ArrayLike,
    index: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
) -> Float:
    """The RDP-based comparison bound of Asoodeh–Diaz–Calmon Proposition 1 (Gaussian noise,
    fixed order, record ``index``): δ_B = exp(−(ε − c_i)²/(4 c_i)) for ε > c_i, else 1.

    PNSGD is (α, α c_i)-RDP for record i (shifted-Rényi analysis of Feldman et al. Thm 23 for
    M = 1 and Balle et al. Thm 5 for M < 1), with
    c_i = (2L²/σ²)·M^{2k}(1 − M²)/(1 − M^{2(k+1)}), k = n − i, which is 2L²/(σ²(k+1)) at
    M = 1; δ_B is its Mironov (α → ε, δ) conversion optimized over α
    (docs/derivations/pnsgd.md#rdp-comparison; the constant is a reconstruction of the garbled
    text, docs/errata.md#p-r7). c_i is evaluated in the stable form
    x e^{k log1p(−x)}/(−expm1((k+1) log1p(−x))) with x = 1 − M² = 2ηβρ/(β+ρ) and
    log1p(−x) = ln M² carried in double-double (its condition number k·x/(1 − x) reaches
    thousands). It does not depend on the diameter. Where c_i = 0 (``lipschitz=0``, or M = 0
    with ``index < n``) the two output distributions are equal: δ_B = 0 for every ε ≥ 0, and
    :func:`pnsgd_rdp_epsilon` gives 0.

    Which bound is smaller depends on D/(ησ) (docs/errata.md#p-t2): for D/(ησ) = 20, n = 100, ε = 1 the
    amplification bound gives δ ≈ 0.51 for every record while δ_B(i = 1) ≈ 6e-6; for
    D/(ησ) = 2 the amplification bound wins (5.6e-30 vs 6.1e-6):

    >>> kw = dict(sigma=1.0, lipschitz=1.0, n=100, index=1)
    >>> pnsgd_rdp_delta(1.0, lr=0.05, **kw)
    6.1135679663...e-06
    >>> round(pnsgd_delta(1.0, lr=0.05, diameter=1.0, **kw), 2)
    0.51
    >>> pnsgd_delta(1.0, lr=0.5, diameter=1.0, **kw)
    5.56205867125...e-30
    """
    return _run(_core.pnsgd_rdp_delta, dict(
        eps=eps, sigma=sigma, lipschitz=lipschitz, lr=lr, n=n, index=index, smoothness=smoothness,
        strong_convexity=strong_convexity), ("smoothness",), log=False)


def pnsgd_rdp_log_delta(
    eps: ArrayLike,
    *,
    sigma: ArrayLike,
    lipschitz: ArrayLike,
    lr: ArrayLike,
    n: ArrayLike,
    index: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
) -> Float:
    """ln δ_B = −(ε − c_i)²/(4 c_i) (0 for ε ≤ c_i) of :func:`pnsgd_rdp_delta`, for δ_B that
    underflows.

    >>> pnsgd_rdp_log_delta(100.0, sigma=1.0, lipschitz=1.0, lr=0.1, n=100, index=1)
    -124950.00499999...
    """
    return _run(_core.pnsgd_rdp_delta, dict(
        eps=eps, sigma=sigma, lipschitz=lipschitz, lr=lr, n=n, index=index, smoothness=smoothness,
        strong_convexity=strong_convexity), ("smoothness",), log=True)


def pnsgd_rdp_epsilon(
    delta: ArrayLike,
    *,
    sigma: ArrayLike,
    lipschitz: ArrayLike,
    lr: ArrayLike,
    n: ArrayLike,
    index: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
) -> Float:
    """ε(δ) = c_i + 2√(c_i ln(1/δ)) of the RDP comparison bound (000 Prop. 1), never below the
    exact value; ``delta`` in (0, 1). Inverse of :func:`pnsgd_rdp_delta`, to the ulp: the
    smallest double ε with ``pnsgd_rdp_delta(ε) <= delta`` (for a subnormal ``delta``, with
    :func:`pnsgd_rdp_log_delta` at most ln(delta)); 0 where c_i = 0.

    >>> round(pnsgd_rdp_epsilon(1e-5, sigma=1.0, lipschitz=1.0, lr=0.1, n=100, index=1), 10)
    0.9797051824
    """
    return _run(_core.pnsgd_rdp_epsilon, dict(
        delta=delta, sigma=sigma, lipschitz=lipschitz, lr=lr, n=n, index=index, smoothness=smoothness,
        strong_convexity=strong_convexity), ("smoothness",))


def pnsgd_rdp_slope(
    *,
    sigma: ArrayLike,
    lipschitz: ArrayLike,
    lr: ArrayLike,
    n: ArrayLike,
    index: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
) -> Float:
    """c_i of the RDP comparison bound (000 Prop. 1), rounded up: record ``index`` of
    fixed-order Gaussian PNSGD is (α, α c_i)-RDP for every α > 1, i.e. c_i-zCDP, with
    c_i = (2L²/σ²)·M^{2k}(1 − M²)/(1 − M^{2(k+1)}), k = n − i (2L²/(σ²(k+1)) at M = 1).
    :func:`pnsgd_rdp_delta` and :func:`pnsgd_rdp_epsilon` convert it to (ε, δ).

    >>> pnsgd_rdp_slope(sigma=1.0, lipschitz=1.0, lr=0.1, n=100, index=1)  # 2/100 (M = 1)
    0.02000000000...
    """
    return _run(_core.pnsgd_rdp_slope, dict(
        sigma=sigma, lipschitz=lipschitz, lr=lr, n=n, index=index, smoothness=smoothness,
        strong_convexity=strong_convexity), ("smoothness",))
