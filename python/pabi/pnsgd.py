"""Privacy amplification by iteration for projected noisy SGD (PNSGD).

PNSGD runs w_t = Π_K(w_{t−1} − η(∇ℓ(w_{t−1}, x_t) + Z_t)) over n records and releases only the
last iterate. Because the noisy projected steps contract the hockey-stick divergence, a record
processed early is more private than one processed late. The bounds here are those of

* Asoodeh, Diaz, Calmon, *Privacy amplification of iterative algorithms via contraction
  coefficients* (ISIT 2020; "000"): Thms 3–5 and Proposition 1;
* Sordello, Bu, Dong, *Privacy amplification via iteration for shuffled and online PNSGD*
  ("003"): Thms 1–2 and §1.

Parameters shared by every function (the question asked, ``eps`` or ``delta``, is positional;
the training setup is keyword-only; all numeric arguments broadcast like numpy, and a scalar for
every argument gives a ``float``):

* ``noise``: ``"gaussian"`` (N(0, σ² I) added to the gradient; ``noise_scale`` = σ) or
  ``"laplace"`` (d = 1, Lap(0, v) with density e^{−|z|/v}/(2v); ``noise_scale`` = the scale v
  and ``diameter`` = b − a for K = [a, b]).
* ``max_grad_norm`` L ≥ 0: bound on ‖∇ℓ‖ (the Lipschitz constant of the loss); ``lr`` η > 0;
  ``diameter`` D ≥ 0 of K;
* ``smoothness`` β (None: no smoothness assumed) and ``strong_convexity`` ρ ≥ 0 (ρ > 0 needs
  β and ρ ≤ β). They set the contraction factor M = sqrt(1 − 2ηβρ/(β+ρ)) of a gradient step,
  valid only for η ≤ 2/(β + ρ), which is enforced (docs/errata.md#p-t10: beyond it the bound is
  false). ρ = 0 gives M = 1.
* ``steps``: number n of records/steps, an integer in [1, 2^53) (floats holding integers
  accepted).
* ``ordering``: ``"shuffled"`` (default: one random permutation; no ``index``), ``"fixed"``
  (records in index order; ``index`` = the 1-based position i of the differing record,
  required) or ``"random_stop"`` (output w_T for T uniform on 1..n; ``index`` optional, None =
  worst case).
* ``variant``: ``"corrected"`` (default) or ``"as_published"`` (random_stop only: 000 eq. (16)).
* ``log``: return ln δ instead of δ (for δ that underflows a double).

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

from typing import Any, Callable, NamedTuple, Optional, Union, overload

import numpy as np

from . import _core
from ._bridge import ArrayLike, Broadcast, call_named, choice, Float, FloatArray, Scalar, flag, int_scalar, real_array

__all__ = [
    "pnsgd_delta",
    "pnsgd_epsilon",
    "pnsgd_calibrate_noise_scale",
    "pnsgd_factors",
    "PNSGDFactors",
    "pnsgd_rdp_delta",
    "pnsgd_rdp_epsilon",
    "pnsgd_rdp_slope",
    "pnsgd_stepwise_delta",
    "pnsgd_stepwise_epsilon",
]

_NOISES = ("gaussian", "laplace")
_ORDERINGS = ("fixed", "shuffled", "random_stop")
_VARIANTS = ("corrected", "as_published")


class PNSGDFactors(NamedTuple):
    """The factors of the PNSGD bounds at one ε (:func:`pnsgd_factors`); tuple unpacking
    ``A, B, u = pnsgd_factors(...)`` keeps working. Each field is a ``float`` for scalar
    arguments, an array for array arguments."""

    #: A = h(ε, 2L/σ): the divergence after the step on the differing record, rounded up.
    divergence: Float
    #: B = h(ε, M·D/(ησ)): the contraction coefficient of every later step, rounded up.
    contraction: Float
    #: 1 − B, computed directly (not by subtraction) and rounded down.
    contraction_gap: Float


def _run(fn: Callable[..., Any], numeric: dict[str, Optional[ArrayLike]], optional: tuple[str, ...],
         **options: object) -> Any:
    """``fn(**arrays, **options, len=size)``: the numeric arguments broadcast (stride 0 for a
    single value, see :class:`pabi._bridge.Broadcast`) and passed by name, like the options."""
    return call_named(fn, numeric, optional, options)


def _check_noise(noise: str) -> None:
    choice("noise", noise, _NOISES)


def _check_options(noise: str, ordering: str, variant: str) -> None:
    _check_noise(noise)
    choice("ordering", ordering, _ORDERINGS)
    choice("variant", variant, _VARIANTS)
    if variant == "as_published" and ordering != "random_stop":
        raise ValueError("variant='as_published' only applies to ordering='random_stop'")


def _amplification(fn: Callable[..., np.ndarray], numeric: dict[str, Optional[ArrayLike]], noise: str,
                   ordering: str, variant: str, **flags: bool) -> Float:
    """An amplification-bound binding on ``numeric`` (name → value, in the public signature's
    order, for the order of error checks) and the options, all passed by name."""
    _check_options(noise, ordering, variant)
    return _run(fn, numeric, ("index", "smoothness"), noise=noise, ordering=ordering, variant=variant,
                **flags)


@overload
def pnsgd_delta(eps: Scalar, *, noise: str = ..., noise_scale: Scalar, max_grad_norm: Scalar, lr: Scalar,
                diameter: Scalar, steps: Scalar, ordering: str = ..., index: Optional[Scalar] = ...,
                smoothness: Optional[Scalar] = ..., strong_convexity: Scalar = ..., variant: str = ...,
                log: bool = ...) -> float: ...
@overload
def pnsgd_delta(eps: ArrayLike, *, noise: str = ..., noise_scale: ArrayLike, max_grad_norm: ArrayLike,
                lr: ArrayLike, diameter: ArrayLike, steps: ArrayLike, ordering: str = ...,
                index: Optional[ArrayLike] = ..., smoothness: Optional[ArrayLike] = ...,
                strong_convexity: ArrayLike = ..., variant: str = ..., log: bool = ...) -> FloatArray: ...
def pnsgd_delta(
    eps: ArrayLike,
    *,
    noise: str = "gaussian",
    noise_scale: ArrayLike,
    max_grad_norm: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    steps: ArrayLike,
    ordering: str = "shuffled",
    index: Optional[ArrayLike] = None,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
    variant: str = "corrected",
    log: bool = False,
) -> Float:
    """δ(ε) for which PNSGD is (ε, δ)-DP (for its ``index``-th record with ``ordering="fixed"``).

    See the module docstring for the parameters and formulas: δ_i = A·B^{n−i} (fixed, 003
    Thm 1 / 000 Thms 3–4), A(1 − B^n)/(n(1 − B)) (shuffled, 003 Thm 2),
    A(1 − B^{n−i+1})/(n(1 − B)) (random_stop, corrected form of 000 Thm 5 from 003 §1; with
    ``index=None`` the worst case i = 1, equal to the shuffled value). ``eps`` ≥ 0 (finite);
    ``noise_scale`` > 0 is the noise's standard deviation σ (Gaussian) or scale v (Laplace), in
    the units of the gradient; ``steps`` the number n of records (one pass).

    ``variant="as_published"`` (random_stop only) gives 000 eq. (16), A/(n(1 − B)), clamped to
    1. It is a valid but looser bound that exceeds 1 (is vacuous) whenever n(1 − B) < A, e.g.
    for a large diameter; prefer the default corrected form.

    The result is never below the exact value and lies in [0, 1]. A whole privacy profile is
    one call with an array of ``eps``. ``log=True`` returns ln δ (never below the exact value;
    −inf where δ = 0), for δ that underflows a double (e.g. a record processed 1e15 steps
    before the end).

    >>> kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
    >>> pnsgd_delta(1.0, **kw)  # shuffled (the default)
    0.0104024031278...
    >>> round(pnsgd_delta(1.0, ordering="fixed", index=100, **kw), 12)  # i = n: delta = A
    0.509861660055
    >>> pnsgd_delta(1.0, ordering="fixed", index=1, **kw)  # the first record: A B^99
    5.56205867125...e-30
    >>> pnsgd_delta([0.5, 1.0, 2.0], **kw).round(6)
    array([0.014949, 0.010402, 0.004968])
    >>> pnsgd_delta(0.1, noise="laplace", ordering="fixed", index=3, steps=5, noise_scale=1.0,
    ...             max_grad_norm=1.0, lr=0.5, diameter=1.0)  # (1 - e^{-0.95})(1 - e^{-0.95})^2
    0.2306384664295...
    >>> pnsgd_delta(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=10**15,
    ...             ordering="fixed", index=1, log=True)  # exact: -673615844854766.10, rounded up
    -67361584485476...
    """
    return _amplification(_core.pnsgd_delta, dict(
        eps=eps, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter,
        steps=steps, index=index, smoothness=smoothness, strong_convexity=strong_convexity), noise,
        ordering, variant, log=flag("log", log))


@overload
def pnsgd_epsilon(delta: Scalar, *, noise: str = ..., noise_scale: Scalar, max_grad_norm: Scalar, lr: Scalar,
                  diameter: Scalar, steps: Scalar, ordering: str = ..., index: Optional[Scalar] = ...,
                  smoothness: Optional[Scalar] = ..., strong_convexity: Scalar = ...,
                  variant: str = ...) -> float: ...
@overload
def pnsgd_epsilon(delta: ArrayLike, *, noise: str = ..., noise_scale: ArrayLike, max_grad_norm: ArrayLike,
                  lr: ArrayLike, diameter: ArrayLike, steps: ArrayLike, ordering: str = ...,
                  index: Optional[ArrayLike] = ..., smoothness: Optional[ArrayLike] = ...,
                  strong_convexity: ArrayLike = ..., variant: str = ...) -> FloatArray: ...
def pnsgd_epsilon(
    delta: ArrayLike,
    *,
    noise: str = "gaussian",
    noise_scale: ArrayLike,
    max_grad_norm: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    steps: ArrayLike,
    ordering: str = "shuffled",
    index: Optional[ArrayLike] = None,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
    variant: str = "corrected",
) -> Float:
    """The smallest ε ≥ 0 (to one ulp) whose :func:`pnsgd_delta` does not exceed ``delta``.

    ``delta`` in (0, 1); other parameters as in :func:`pnsgd_delta`, all broadcasting. δ is
    non-increasing in ε: the result ε satisfies pnsgd_delta(ε) ≤ delta, while the next smaller
    double does not; 0 when δ(0) ≤ delta. Bracketing plus bisection on the double grid (at most
    ~600 evaluations per element). Raises ``ValueError`` when no finite ε reaches the target.

    >>> kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
    >>> e = pnsgd_epsilon(1e-5, **kw)
    >>> round(e, 10)
    7.581893014...
    >>> pnsgd_delta(e, **kw) <= 1e-5
    True
    """
    return _amplification(_core.pnsgd_epsilon, dict(
        delta=delta, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter,
        steps=steps, index=index, smoothness=smoothness, strong_convexity=strong_convexity), noise,
        ordering, variant)


@overload
def pnsgd_calibrate_noise_scale(eps: Scalar, delta: Scalar, *, noise: str = ..., max_grad_norm: Scalar,
                                lr: Scalar, diameter: Scalar, steps: Scalar, ordering: str = ...,
                                index: Optional[Scalar] = ..., smoothness: Optional[Scalar] = ...,
                                strong_convexity: Scalar = ..., variant: str = ...) -> float: ...
@overload
def pnsgd_calibrate_noise_scale(eps: ArrayLike, delta: ArrayLike, *, noise: str = ...,
                                max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                                steps: ArrayLike, ordering: str = ..., index: Optional[ArrayLike] = ...,
                                smoothness: Optional[ArrayLike] = ..., strong_convexity: ArrayLike = ...,
                                variant: str = ...) -> FloatArray: ...
def pnsgd_calibrate_noise_scale(
    eps: ArrayLike,
    delta: ArrayLike,
    *,
    noise: str = "gaussian",
    max_grad_norm: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    steps: ArrayLike,
    ordering: str = "shuffled",
    index: Optional[ArrayLike] = None,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
    variant: str = "corrected",
) -> Float:
    """The smallest ``noise_scale`` (Gaussian σ or Laplace scale v, to one ulp) for which PNSGD
    is (``eps``, ``delta``)-DP under the selected bound.

    δ is non-increasing in the noise: pnsgd_delta at the returned scale is ≤ ``delta``, at the
    next smaller double it is not. 0.0 when every scale > 0 works (e.g. ``max_grad_norm=0``).
    Raises ``ValueError`` when no scale ≤ 1e300 reaches the target. Parameters as in
    :func:`pnsgd_delta` (without ``noise_scale``), all broadcasting; ``eps`` ≥ 0, ``delta`` in
    (0, 1).

    >>> kw = dict(max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
    >>> s = pnsgd_calibrate_noise_scale(1.0, 1e-5, **kw)
    >>> round(s, 8)
    5.14987873
    >>> pnsgd_delta(1.0, noise_scale=s, **kw) <= 1e-5
    True
    """
    return _amplification(_core.pnsgd_calibrate_noise_scale, dict(
        eps=eps, delta=delta, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter, steps=steps,
        index=index, smoothness=smoothness, strong_convexity=strong_convexity), noise, ordering, variant)


def pnsgd_factors(
    eps: ArrayLike,
    *,
    noise: str = "gaussian",
    noise_scale: ArrayLike,
    max_grad_norm: ArrayLike,
    lr: ArrayLike,
    diameter: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
) -> PNSGDFactors:
    """The factors (A, B, 1 − B) of the PNSGD bounds, as a :class:`PNSGDFactors`
    ``(divergence, contraction, contraction_gap)`` (docs/derivations/pnsgd.md#factors; 003
    eqs. (4)–(5)).

    A = h(ε, 2L/σ) is the divergence after the step on the differing record, B = h(ε, M·D/(ησ))
    the contraction coefficient of every later step. A and B are rounded up, 1 − B is computed
    directly (not as 1 − B) and rounded down, so it stays accurate when B is within 1e-300 of 1.

    >>> f = pnsgd_factors(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=0.05, diameter=1.0)
    >>> round(f.divergence, 8), f.contraction, f.contraction_gap  # D/(eta sigma) = 20: B is 1
    (0.50986166, 1.0, 2.5095237742...e-23)
    >>> A, B, u = f  # a tuple too
    """
    _check_noise(noise)
    return PNSGDFactors(*_run(_core.pnsgd_factors, dict(
        eps=eps, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter,
        smoothness=smoothness, strong_convexity=strong_convexity), ("smoothness",), noise=noise))


@overload
def pnsgd_rdp_delta(eps: Scalar, *, noise_scale: Scalar, max_grad_norm: Scalar, lr: Scalar, steps: Scalar,
                    index: Scalar, smoothness: Optional[Scalar] = ..., strong_convexity: Scalar = ...,
                    log: bool = ...) -> float: ...
@overload
def pnsgd_rdp_delta(eps: ArrayLike, *, noise_scale: ArrayLike, max_grad_norm: ArrayLike, lr: ArrayLike,
                    steps: ArrayLike, index: ArrayLike, smoothness: Optional[ArrayLike] = ...,
                    strong_convexity: ArrayLike = ..., log: bool = ...) -> FloatArray: ...
def pnsgd_rdp_delta(
    eps: ArrayLike,
    *,
    noise_scale: ArrayLike,
    max_grad_norm: ArrayLike,
    lr: ArrayLike,
    steps: ArrayLike,
    index: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
    log: bool = False,
) -> Float:
    """The RDP-based comparison bound of Asoodeh–Diaz–Calmon Proposition 1 (Gaussian noise,
    fixed ordering, record ``index``): δ_B = exp(−(ε − c_i)²/(4 c_i)) for ε > c_i, else 1.

    PNSGD is (α, α c_i)-RDP for record i (shifted-Rényi analysis of Feldman et al. Thm 23 for
    M = 1 and Balle et al. Thm 5 for M < 1), with
    c_i = (2L²/σ²)·M^{2k}(1 − M²)/(1 − M^{2(k+1)}), k = n − i, which is 2L²/(σ²(k+1)) at
    M = 1; δ_B is its Mironov (α → ε, δ) conversion optimized over α
    (docs/derivations/pnsgd.md#rdp-comparison; the constant is a reconstruction of the garbled
    text, docs/errata.md#p-r7). c_i is evaluated in the stable form
    x e^{k log1p(−x)}/(−expm1((k+1) log1p(−x))) with x = 1 − M² = 2ηβρ/(β+ρ) and
    log1p(−x) = ln M² carried in double-double (its condition number k·x/(1 − x) reaches
    thousands). It does not depend on the diameter. Where c_i = 0 (``max_grad_norm=0``, or M = 0
    with ``index < steps``) the two output distributions are equal: δ_B = 0 for every ε ≥ 0, and
    :func:`pnsgd_rdp_epsilon` gives 0. ``log=True`` returns ln δ_B = −(ε − c_i)²/(4 c_i) (0 for
    ε ≤ c_i), for δ_B that underflows.

    Which bound is smaller depends on D/(ησ) (docs/errata.md#p-t2): for D/(ησ) = 20, n = 100, ε = 1 the
    amplification bound gives δ ≈ 0.51 for every record while δ_B(i = 1) ≈ 6e-6; for
    D/(ησ) = 2 the amplification bound wins (5.6e-30 vs 6.1e-6):

    >>> kw = dict(noise_scale=1.0, max_grad_norm=1.0, steps=100, index=1)
    >>> pnsgd_rdp_delta(1.0, lr=0.05, **kw)
    6.1135679663...e-06
    >>> round(pnsgd_delta(1.0, lr=0.05, diameter=1.0, ordering="fixed", **kw), 2)
    0.51
    >>> pnsgd_delta(1.0, lr=0.5, diameter=1.0, ordering="fixed", **kw)
    5.56205867125...e-30
    >>> pnsgd_rdp_delta(100.0, lr=0.1, log=True, **kw)
    -124950.00499999...
    """
    return _run(_core.pnsgd_rdp_delta, dict(
        eps=eps, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, steps=steps, index=index,
        smoothness=smoothness, strong_convexity=strong_convexity), ("smoothness",), log=flag("log", log))


@overload
def pnsgd_rdp_epsilon(delta: Scalar, *, noise_scale: Scalar, max_grad_norm: Scalar, lr: Scalar,
                      steps: Scalar, index: Scalar, smoothness: Optional[Scalar] = ...,
                      strong_convexity: Scalar = ...) -> float: ...
@overload
def pnsgd_rdp_epsilon(delta: ArrayLike, *, noise_scale: ArrayLike, max_grad_norm: ArrayLike, lr: ArrayLike,
                      steps: ArrayLike, index: ArrayLike, smoothness: Optional[ArrayLike] = ...,
                      strong_convexity: ArrayLike = ...) -> FloatArray: ...
def pnsgd_rdp_epsilon(
    delta: ArrayLike,
    *,
    noise_scale: ArrayLike,
    max_grad_norm: ArrayLike,
    lr: ArrayLike,
    steps: ArrayLike,
    index: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
) -> Float:
    """ε(δ) = c_i + 2√(c_i ln(1/δ)) of the RDP comparison bound (000 Prop. 1), never below the
    exact value; ``delta`` in (0, 1). Inverse of :func:`pnsgd_rdp_delta`, to the ulp: the
    smallest double ε with ``pnsgd_rdp_delta(ε) <= delta`` (for a subnormal ``delta``, with
    ``pnsgd_rdp_delta(ε, log=True)`` at most ln(delta)); 0 where c_i = 0.

    >>> round(pnsgd_rdp_epsilon(1e-5, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=100, index=1), 10)
    0.9797051824
    """
    return _run(_core.pnsgd_rdp_epsilon, dict(
        delta=delta, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, steps=steps, index=index,
        smoothness=smoothness, strong_convexity=strong_convexity), ("smoothness",))


@overload
def pnsgd_rdp_slope(*, noise_scale: Scalar, max_grad_norm: Scalar, lr: Scalar, steps: Scalar, index: Scalar,
                    smoothness: Optional[Scalar] = ..., strong_convexity: Scalar = ...) -> float: ...
@overload
def pnsgd_rdp_slope(*, noise_scale: ArrayLike, max_grad_norm: ArrayLike, lr: ArrayLike, steps: ArrayLike,
                    index: ArrayLike, smoothness: Optional[ArrayLike] = ...,
                    strong_convexity: ArrayLike = ...) -> FloatArray: ...
def pnsgd_rdp_slope(
    *,
    noise_scale: ArrayLike,
    max_grad_norm: ArrayLike,
    lr: ArrayLike,
    steps: ArrayLike,
    index: ArrayLike,
    smoothness: Optional[ArrayLike] = None,
    strong_convexity: ArrayLike = 0.0,
) -> Float:
    """c_i of the RDP comparison bound (000 Prop. 1), rounded up: record ``index`` of
    fixed-ordering Gaussian PNSGD is (α, α c_i)-RDP for every α > 1, i.e. c_i-zCDP, with
    c_i = (2L²/σ²)·M^{2k}(1 − M²)/(1 − M^{2(k+1)}), k = n − i (2L²/(σ²(k+1)) at M = 1).
    :func:`pnsgd_rdp_delta` and :func:`pnsgd_rdp_epsilon` convert it to (ε, δ).

    >>> pnsgd_rdp_slope(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=100, index=1)  # 2/100 (M = 1)
    0.02000000000...
    """
    return _run(_core.pnsgd_rdp_slope, dict(
        noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, steps=steps, index=index,
        smoothness=smoothness, strong_convexity=strong_convexity), ("smoothness",))


# ---------------------------------------------------------------------------------------------
# Per-step parameters (learning-rate, clipping and noise schedules)


#: A per-step argument: a scalar, a 1-D array (one entry per step or per piece) or a vectorised
#: callable of the 1-based step numbers (an int64 array) returning one value per step.
StepValues = Union[ArrayLike, Callable[[np.ndarray], ArrayLike]]



def _step_values(name: str, f: Callable[[np.ndarray], ArrayLike], t: np.ndarray) -> np.ndarray:
    """``f(t)`` as float64 values, one per step of ``t`` (a ValueError naming ``name`` when the
    callable does not return an array of ``t``'s shape)."""
    v = np.asarray(f(t))
    if v.shape != t.shape:
        raise ValueError(f"{name}: a callable per-step argument must be vectorised: called with the "
                         f"int64 array of {t.size} step numbers it must return {t.size} values (shape "
                         f"{t.shape}), got shape {v.shape}")
    return real_array(name, v)


def _step_source(values: dict[str, object]) -> Callable[[int, int], tuple[Optional[np.ndarray], ...]]:
    """The chunk function of the per-step arguments (callables evaluated on the 1-based steps
    start + 1 ..= stop, the others as given): the core reads the steps through it."""
    def chunk(start: int, stop: int) -> tuple[Optional[np.ndarray], ...]:
        t = np.arange(start + 1, stop + 1, dtype=np.int64)
        return tuple(_step_values(k, v, t) if callable(v) else v  # type: ignore[misc]
                     for k, v in values.items())
    return chunk


def _stepwise(fn: Callable[..., np.ndarray], lead: tuple[str, ArrayLike], *, noise: str,
              ordering: str, index: Optional[Scalar], run_lengths: Optional[ArrayLike],
              steps: Optional[Scalar], values: dict[str, Any], **flags: bool) -> Float:
    """``fn`` on the lead argument (``eps`` or ``delta``, a scalar or 1-D array: one value per
    element) and the per-step arguments ``values`` (each a scalar or a 1-D array, one entry
    per step or, with ``run_lengths``, per piece; or callables of the step with ``steps``),
    passed as one tuple."""
    _check_options(noise, ordering, "corrected")
    name, value = lead
    x = real_array(name, value)
    if x.ndim > 1:
        raise ValueError(f"{name} must be a scalar or a 1-D array, got shape {x.shape}")
    sourced = any(callable(v) for v in values.values())
    arrs: dict[str, object] = {}
    for k, v in values.items():
        if callable(v) or (v is None and k == "smoothness"):
            arrs[k] = v
        elif np.ndim(v) == 0 or sourced:
            arrs[k] = real_array(k, v, ndim=0).reshape(-1) if sourced else real_array(k, v).reshape(-1)
        else:
            arrs[k] = real_array(k, v, ndim=1)
    runs = None if run_lengths is None or sourced else real_array("run_lengths", run_lengths, ndim=1)
    ix = None if index is None else float(int_scalar("index", index))
    args: tuple[Any, ...]
    if sourced:
        if run_lengths is not None:
            raise ValueError("run_lengths does not apply to callable per-step arguments (give steps)")
        if steps is None:
            raise ValueError("steps (the number of steps) is required with callable per-step arguments")
        args = (None,) * 7 + (ix, noise, ordering, _step_source(arrs), float(int_scalar("steps", steps)))
    else:
        if steps is not None:
            raise ValueError("steps applies only to callable per-step arguments (with arrays the number "
                             "of steps is their length or the sum of run_lengths)")
        args = tuple(arrs.values()) + (runs, ix, noise, ordering, None, None)
    out = fn(np.ascontiguousarray(x.reshape(-1)), args, *flags.values())
    return float(out[0]) if np.ndim(value) == 0 else out


@overload
def pnsgd_stepwise_delta(eps: Scalar, *, noise: str = ..., noise_scale: StepValues, max_grad_norm: StepValues,
                         lr: StepValues, diameter: StepValues, ordering: str = ..., index: Optional[Scalar] = ...,
                         smoothness: Optional[StepValues] = ..., strong_convexity: StepValues = ...,
                         run_lengths: Optional[ArrayLike] = ..., steps: Optional[Scalar] = ..., log: bool = ...) -> float: ...
@overload
def pnsgd_stepwise_delta(eps: ArrayLike, *, noise: str = ..., noise_scale: StepValues, max_grad_norm: StepValues,
                         lr: StepValues, diameter: StepValues, ordering: str = ..., index: Optional[Scalar] = ...,
                         smoothness: Optional[StepValues] = ..., strong_convexity: StepValues = ...,
                         run_lengths: Optional[ArrayLike] = ..., steps: Optional[Scalar] = ..., log: bool = ...) -> FloatArray: ...
def pnsgd_stepwise_delta(
    eps: ArrayLike,
    *,
    noise: str = "gaussian",
    noise_scale: StepValues,
    max_grad_norm: StepValues,
    lr: StepValues,
    diameter: StepValues,
    ordering: str = "shuffled",
    index: Optional[Scalar] = None,
    smoothness: Optional[StepValues] = None,
    strong_convexity: StepValues = 0.0,
    run_lengths: Optional[ArrayLike] = None,
    steps: Optional[Scalar] = None,
    log: bool = False,
) -> Float:
    """δ(ε) of PNSGD whose noise, clipping norm, learning rate, diameter, smoothness and strong
    convexity change from step to step (learning-rate warm-up and decay, clipping or noise
    schedules; docs/derivations/pnsgd.md#per-step).

    Each of ``noise_scale`` (σ_t or v_t), ``max_grad_norm`` (L_t), ``lr`` (η_t), ``diameter``
    (D_t: the diameter of a set holding the iterate that enters step t), ``smoothness`` (β_t)
    and ``strong_convexity`` (ρ_t) is a scalar (the same at every step) or a 1-D array: one
    entry per step, or, with ``run_lengths`` (integers ≥ 1), one entry per piece of a
    piecewise-constant schedule whose piece k lasts ``run_lengths[k]`` steps. The number of
    steps n is the length of the arrays (or the sum of the run lengths; below 2^53). The cost is
    O(number of pieces) — a schedule of 1e9 steps in a few pieces takes microseconds — and O(1)
    extra memory. Beyond 2^16 pieces the pieces are folded in blocks of 2^16 on the thread pool
    (:func:`pabi.set_num_threads`), with the same result for any number of threads.

    Each per-step argument may instead be a callable of the step, with ``steps`` = n (the other
    per-step arguments then scalars, no ``run_lengths``). The callable must be vectorised: it
    is called with an int64 numpy array of 1-based step numbers (consecutive, up to 2^16 of
    them per call, the chunks in any order) and must return one value per step (an array of
    the same shape), e.g. ``lr=lambda t: 0.1 * np.minimum(1.0, t / 1000)`` for a linear
    warm-up. The values are read chunk by chunk and folded as they come (O(1) extra memory for
    any n, one pass over the steps for δ); each chunk is checked (a bad value raises
    ``DomainError`` naming the parameter and the 0-based index t − 1 of the first bad step) and
    the result is bit for bit that of the array of the same values. An exception raised by the
    callable propagates as it is.

    With A_t = h(ε, 2L_t/σ_t) and B_t = h(ε, M_t·D_t/(η_t σ_t)) (h = θ or the Laplace
    divergence, M_t the contraction of step t; 000 Lemma 3, 003 eq. (11)):

    * ``ordering="fixed"``: δ = A_i·∏_{t>i} B_t for the record processed at step ``index`` = i;
    * ``"shuffled"``: the average of that over i = 1..n (``index`` not given);
    * ``"random_stop"``: (1/n)·Σ_{T≥i} A_i·∏_{i<t≤T} B_t for the record at step i, or its
      maximum over i when ``index`` is None.

    ``eps`` is a scalar (a ``float`` is returned) or a 1-D array (one δ per ε). The result is
    never below the exact value; ``log=True`` returns ln δ. A constant schedule gives exactly
    (to the bit) :func:`pnsgd_delta` with ``steps=n``.

    >>> kw = dict(noise_scale=1.0, max_grad_norm=1.0, diameter=1.0)
    >>> pnsgd_stepwise_delta(1.0, lr=0.5, run_lengths=[100], **kw) == pnsgd_delta(1.0, lr=0.5, steps=100, **kw)
    True
    >>> round(pnsgd_stepwise_delta(1.0, lr=[0.5, 0.1], run_lengths=[50, 50], **kw), 12)  # lr cut at step 51
    0.265326867735
    >>> pnsgd_stepwise_delta(1.0, lr=[0.5, 0.1], run_lengths=[5 * 10**8] * 2, ordering="fixed", index=1,
    ...                      log=True, **kw)  # 1e9 steps in two pieces
    -336808392.83771...
    >>> warm_up = lambda t: 0.5 * np.minimum(1.0, t / 100)  # a callable of the step (vectorised)
    >>> pnsgd_stepwise_delta(1.0, lr=warm_up, steps=1000, **kw) == pnsgd_stepwise_delta(
    ...     1.0, lr=warm_up(np.arange(1, 1001)), **kw)
    True
    """
    return _stepwise(_core.pnsgd_stepwise_delta, ("eps", eps), noise=noise, ordering=ordering, index=index,
                     run_lengths=run_lengths, steps=steps, values=dict(
                         noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter,
                         smoothness=smoothness, strong_convexity=strong_convexity),
                     log=flag("log", log), dispatch=True)


@overload
def pnsgd_stepwise_epsilon(delta: Scalar, *, noise: str = ..., noise_scale: StepValues,
                           max_grad_norm: StepValues, lr: StepValues, diameter: StepValues, ordering: str = ...,
                           index: Optional[Scalar] = ..., smoothness: Optional[StepValues] = ...,
                           strong_convexity: StepValues = ..., run_lengths: Optional[ArrayLike] = ..., steps: Optional[Scalar] = ...) -> float: ...
@overload
def pnsgd_stepwise_epsilon(delta: ArrayLike, *, noise: str = ..., noise_scale: StepValues,
                           max_grad_norm: StepValues, lr: StepValues, diameter: StepValues, ordering: str = ...,
                           index: Optional[Scalar] = ..., smoothness: Optional[StepValues] = ...,
                           strong_convexity: StepValues = ...,
                           run_lengths: Optional[ArrayLike] = ..., steps: Optional[Scalar] = ...) -> FloatArray: ...
def pnsgd_stepwise_epsilon(
    delta: ArrayLike,
    *,
    noise: str = "gaussian",
    noise_scale: StepValues,
    max_grad_norm: StepValues,
    lr: StepValues,
    diameter: StepValues,
    ordering: str = "shuffled",
    index: Optional[Scalar] = None,
    smoothness: Optional[StepValues] = None,
    strong_convexity: StepValues = 0.0,
    run_lengths: Optional[ArrayLike] = None,
    steps: Optional[Scalar] = None,
) -> Float:
    """The smallest ε ≥ 0 (to one ulp) whose :func:`pnsgd_stepwise_delta` does not exceed
    ``delta`` (in (0, 1); a scalar or a 1-D array), by an exact search over the doubles: the
    returned ε is never below the exact inverse. Other parameters as in
    :func:`pnsgd_stepwise_delta`; a constant schedule gives :func:`pnsgd_epsilon` to the bit.
    ~130 evaluations of δ per target, each O(number of pieces); with callables (more than 2^16
    steps) each evaluation reads the steps again (~130 passes over the callables per target).

    >>> kw = dict(noise_scale=1.0, max_grad_norm=1.0, diameter=1.0, lr=[0.5, 0.1], run_lengths=[50, 50])
    >>> e = pnsgd_stepwise_epsilon(1e-5, **kw)
    >>> pnsgd_stepwise_delta(e, **kw) <= 1e-5 < pnsgd_stepwise_delta(e - 1e-12, **kw)
    True
    """
    return _stepwise(_core.pnsgd_stepwise_epsilon, ("delta", delta), noise=noise, ordering=ordering,
                     index=index, run_lengths=run_lengths, steps=steps, values=dict(
                         noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter,
                         smoothness=smoothness, strong_convexity=strong_convexity), dispatch=True)
