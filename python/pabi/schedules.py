"""Noise schedules of shuffled PNSGD, online decaying noise and their limits δ*.

Sordello, Bu, Dong, *Privacy amplification via iteration for shuffled and online PNSGD*
(paper 003), §4 (Theorems 3, 4) and §6 (Theorems 6, 7); docs/derivations/schedules.md.

Common parameters (all broadcast like numpy ufuncs unless stated; the quantity asked about,
``eps`` or ``steps``/``index`` for a noise level, is positional, the setup keyword-only):

* ``eps`` ≥ 0: privacy level ε (γ = e^ε is never formed).
* ``max_grad_norm`` ≥ 0: bound L on the gradient norm (the Lipschitz constant of the loss).
* ``lr`` > 0: learning rate η. ``smoothness`` β (optional) and ``strong_convexity`` ρ ≥ 0 enter
  only through the contraction factor M = sqrt(1 − 2ηβρ/(β + ρ)) of a gradient step (ρ = 0
  gives M = 1); η ≤ 2/(β + ρ) is required when β is given.
* ``diameter`` > 0: diameter D of the constraint set (for Laplace noise, d = 1, K = [a, b] and
  ``diameter`` = b − a).
* ``c1`` > 0, ``c2`` ≥ 0: the schedule constants C1, C2; ``decay`` > 1: the online exponent α.
* ``steps`` ≥ 1: number n of steps; ``index`` (1-based): the record i that differs (for the
  online noise levels: the step j whose noise is returned).
* ``noise``: ``"gaussian"`` or ``"laplace"`` where one function serves both;
  ``noise_scale``: the noise's standard deviation σ or Laplace scale v (per step for online
  noise).

Rounding: every δ is an upper bound of the formula it implements (never below the exact value),
except the ``*_delta_limit_lower`` functions, which are rounded down (they bracket δ_∞ from
below). Accuracy (measured against ``pabi.reference`` at 50 digits): within 1e-12 relative for
the shuffled schedules; for products of many factors (online), within max(1e-12, 6·2⁻⁴⁶·|ln δ|)
relative, because every log-factor carries the engine's outward rounding 2⁻⁴⁶ (so ln δ itself is
accurate to ≈ 1e-13 relative). Noise levels (σ, v) and the
calibrated ``c1`` are returned to nearest: a larger noise is not the conservative side of a
schedule you apply. Options ``log=True`` return ln δ (δ underflows long before its log).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Literal, Optional, Protocol, TypeVar, Union, cast, overload

import numpy as np

from . import _core
from ._bridge import (ArrayLike, Broadcast, choice, Float, FloatArray, Scalar, call as _call, flag, int_scalar,
                      opt_real_scalar, real_array, real_scalar)
from .pnsgd import _NOISES

__all__ = [
    "laplace_schedule_noise_scale",
    "laplace_schedule_delta",
    "laplace_schedule_epsilon",
    "laplace_schedule_delta_limit",
    "gaussian_schedule_noise_scale",
    "gaussian_schedule_delta",
    "gaussian_schedule_epsilon",
    "gaussian_schedule_delta_limit",
    "schedule_calibrate_c1",
    "online_delta",
    "online_laplace_noise_scale",
    "online_epsilon",
    "online_laplace_delta",
    "online_laplace_epsilon",
    "online_laplace_delta_limit",
    "online_laplace_delta_limit_upper",
    "online_laplace_delta_limit_closed_upper",
    "online_laplace_delta_limit_lower",
    "online_gaussian_noise_scale",
    "online_gaussian_delta",
    "online_gaussian_epsilon",
    "online_gaussian_delta_limit",
    "online_gaussian_delta_limit_upper",
    "online_gaussian_delta_limit_closed_upper",
    "online_gaussian_delta_limit_lower",
]

Noise = Literal["gaussian", "laplace"]
_F = TypeVar("_F")


#: The arguments of the training setup: they cross to the schedule bindings as one tuple.
_SETUP = ("lr", "diameter", "smoothness", "strong_convexity")


def _call_setup(fn: Callable[..., np.ndarray], names: tuple[str, ...], *values: Optional[ArrayLike]) -> Float:
    """``fn`` on the broadcast ``values`` (one array each, of the broadcast length or of length 1, read
    in place by the core): the arguments outside the
    training setup in order, then the setup's as one tuple in the order of ``_SETUP`` (an absent
    ``smoothness`` crosses as ``None``)."""
    b = Broadcast(names, values, optional=("smoothness",))

    def run() -> np.ndarray:
        flat = b.flat
        return fn(*(flat[k] for k in names if k not in _SETUP), tuple(flat[k] for k in _SETUP))

    return b.apply(run)


def _noise_kind(noise: str) -> bool:
    return choice("noise", noise, _NOISES) == "laplace"


def _shaped(shape: Callable[..., Any], impl: Callable[[dict[str, Any]], Float],
            typed: Callable[..., _F]) -> Callable[[Callable[..., Any]], _F]:
    """The public function of a family of bounds: the stub's name and docstring, the signature of
    the family (written once, as the stub function ``shape``: ``inspect.signature``/``help`` see
    it), typed as the protocol ``typed`` (the same signature, scalar overload -> ``float``, array
    overload -> ``NDArray[float64]``) and ``impl`` on the bound arguments (defaults applied).
    Calls bind like the signature: the same positional and keyword arguments and defaults."""
    sig = inspect.signature(shape).replace(return_annotation="Float")
    name = shape.__name__ + "()"

    def deco(stub: Callable[..., Any]) -> _F:
        def f(*args: Any, **kwargs: Any) -> Float:
            # ``shape`` returns its locals(): the interpreter binds the call (~0.3 µs, where
            # ``sig.bind`` and ``apply_defaults`` took ~5 µs of a ~13 µs scalar call)
            try:
                arguments = shape(*args, **kwargs)
            except TypeError as e:  # the interpreter's own message, under the public name
                raise TypeError(str(e).replace(name, stub.__name__ + "()", 1)) from None
            return impl(arguments)

        functools.update_wrapper(f, stub)
        delattr(f, "__wrapped__")  # the stub's (*args, **kwargs) is not the signature
        f.__signature__ = sig  # type: ignore[attr-defined]
        return f  # type: ignore[return-value]

    return deco


# The signatures of the families (each written once; the public functions below take them).
def _noise_shape(steps: ArrayLike, *, c1: ArrayLike, c2: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 smoothness: Optional[ArrayLike] = None, strong_convexity: ArrayLike = 0.0) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


def _delta_shape(eps: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 steps: ArrayLike, c1: ArrayLike, c2: ArrayLike, smoothness: Optional[ArrayLike] = None,
                 strong_convexity: ArrayLike = 0.0) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


def _epsilon_shape(delta: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                   steps: ArrayLike, c1: ArrayLike, c2: ArrayLike, smoothness: Optional[ArrayLike] = None,
                   strong_convexity: ArrayLike = 0.0) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


def _limit_shape(eps: ArrayLike, c1: ArrayLike) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


def _online_noise_shape(index: ArrayLike, *, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike, lr: ArrayLike,
                        diameter: ArrayLike, smoothness: Optional[ArrayLike] = None,
                        strong_convexity: ArrayLike = 0.0) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


def _online_delta_shape(eps: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                        steps: ArrayLike, index: ArrayLike, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike,
                        smoothness: Optional[ArrayLike] = None, strong_convexity: ArrayLike = 0.0,
                        log: bool = False) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


def _online_epsilon_shape(delta: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                          steps: ArrayLike, index: ArrayLike, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike,
                          smoothness: Optional[ArrayLike] = None, strong_convexity: ArrayLike = 0.0) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


def _online_limit_shape(eps: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                        index: ArrayLike, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike,
                        smoothness: Optional[ArrayLike] = None, strong_convexity: ArrayLike = 0.0,
                        log: bool = False) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


def _online_closed_upper_shape(eps: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                               index: ArrayLike, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike,
                               smoothness: Optional[ArrayLike] = None, strong_convexity: ArrayLike = 0.0,
                               variant: Literal["corrected", "as_published"] = "corrected",
                               log: bool = False) -> Any:
    return locals()  # the bound arguments, defaults applied (see _shaped)


# Their exact types: a scalar for every numeric argument gives a float, else a float64 array.
class _NoiseFn(Protocol):
    @overload
    def __call__(self, steps: Scalar, *, c1: Scalar, c2: Scalar, lr: Scalar, diameter: Scalar,
                 smoothness: Optional[Scalar] = ..., strong_convexity: Scalar = ...) -> float: ...
    @overload
    def __call__(self, steps: ArrayLike, *, c1: ArrayLike, c2: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 smoothness: Optional[ArrayLike] = ..., strong_convexity: ArrayLike = ...) -> FloatArray: ...


class _DeltaFn(Protocol):
    @overload
    def __call__(self, eps: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, steps: Scalar,
                 c1: Scalar, c2: Scalar, smoothness: Optional[Scalar] = ...,
                 strong_convexity: Scalar = ...) -> float: ...
    @overload
    def __call__(self, eps: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 steps: ArrayLike, c1: ArrayLike, c2: ArrayLike, smoothness: Optional[ArrayLike] = ...,
                 strong_convexity: ArrayLike = ...) -> FloatArray: ...


class _EpsilonFn(Protocol):
    @overload
    def __call__(self, delta: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, steps: Scalar,
                 c1: Scalar, c2: Scalar, smoothness: Optional[Scalar] = ...,
                 strong_convexity: Scalar = ...) -> float: ...
    @overload
    def __call__(self, delta: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 steps: ArrayLike, c1: ArrayLike, c2: ArrayLike, smoothness: Optional[ArrayLike] = ...,
                 strong_convexity: ArrayLike = ...) -> FloatArray: ...


class _LimitFn(Protocol):
    @overload
    def __call__(self, eps: Scalar, c1: Scalar) -> float: ...
    @overload
    def __call__(self, eps: ArrayLike, c1: ArrayLike) -> FloatArray: ...


class _OnlineNoiseFn(Protocol):
    @overload
    def __call__(self, index: Scalar, *, c1: Scalar, c2: Scalar, decay: Scalar, lr: Scalar, diameter: Scalar,
                 smoothness: Optional[Scalar] = ..., strong_convexity: Scalar = ...) -> float: ...
    @overload
    def __call__(self, index: ArrayLike, *, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike, lr: ArrayLike,
                 diameter: ArrayLike, smoothness: Optional[ArrayLike] = ...,
                 strong_convexity: ArrayLike = ...) -> FloatArray: ...


class _OnlineDeltaFn(Protocol):
    @overload
    def __call__(self, eps: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, steps: Scalar,
                 index: Scalar, c1: Scalar, c2: Scalar, decay: Scalar, smoothness: Optional[Scalar] = ...,
                 strong_convexity: Scalar = ..., log: bool = ...) -> float: ...
    @overload
    def __call__(self, eps: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 steps: ArrayLike, index: ArrayLike, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike,
                 smoothness: Optional[ArrayLike] = ..., strong_convexity: ArrayLike = ...,
                 log: bool = ...) -> FloatArray: ...


class _OnlineEpsilonFn(Protocol):
    @overload
    def __call__(self, delta: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, steps: Scalar,
                 index: Scalar, c1: Scalar, c2: Scalar, decay: Scalar, smoothness: Optional[Scalar] = ...,
                 strong_convexity: Scalar = ...) -> float: ...
    @overload
    def __call__(self, delta: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 steps: ArrayLike, index: ArrayLike, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike,
                 smoothness: Optional[ArrayLike] = ..., strong_convexity: ArrayLike = ...) -> FloatArray: ...


class _OnlineLimitFn(Protocol):
    @overload
    def __call__(self, eps: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, index: Scalar,
                 c1: Scalar, c2: Scalar, decay: Scalar, smoothness: Optional[Scalar] = ...,
                 strong_convexity: Scalar = ..., log: bool = ...) -> float: ...
    @overload
    def __call__(self, eps: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 index: ArrayLike, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike,
                 smoothness: Optional[ArrayLike] = ..., strong_convexity: ArrayLike = ...,
                 log: bool = ...) -> FloatArray: ...


class _OnlineClosedUpperFn(Protocol):
    @overload
    def __call__(self, eps: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, index: Scalar,
                 c1: Scalar, c2: Scalar, decay: Scalar, smoothness: Optional[Scalar] = ...,
                 strong_convexity: Scalar = ..., variant: Literal["corrected", "as_published"] = ...,
                 log: bool = ...) -> float: ...
    @overload
    def __call__(self, eps: ArrayLike, *, max_grad_norm: ArrayLike, lr: ArrayLike, diameter: ArrayLike,
                 index: ArrayLike, c1: ArrayLike, c2: ArrayLike, decay: ArrayLike,
                 smoothness: Optional[ArrayLike] = ..., strong_convexity: ArrayLike = ...,
                 variant: Literal["corrected", "as_published"] = ..., log: bool = ...) -> FloatArray: ...


# The array arguments of each family, in the order the core takes them (its signature's order).
_NOISE_NAMES = tuple(inspect.signature(_noise_shape).parameters)
_DELTA_NAMES = tuple(inspect.signature(_delta_shape).parameters)
_EPSILON_NAMES = tuple(inspect.signature(_epsilon_shape).parameters)
_ONLINE_NOISE_NAMES = tuple(inspect.signature(_online_noise_shape).parameters)
_ONLINE_NAMES = tuple(p for p in inspect.signature(_online_delta_shape).parameters if p != "log")
_ONLINE_EPSILON_NAMES = tuple(inspect.signature(_online_epsilon_shape).parameters)


def _noise(laplace: bool) -> Callable[[dict[str, Any]], Float]:
    fn = functools.partial(_core.schedule_noise, laplace=laplace)
    return lambda a: _call_setup(fn, _NOISE_NAMES, *(a[k] for k in _NOISE_NAMES))


def _fixed(laplace: bool, inverse: bool) -> Callable[[dict[str, Any]], Float]:
    """δ(n) of a shuffled schedule, or with ``inverse`` its ε(δ) (the first argument a δ)."""
    names = _EPSILON_NAMES if inverse else _DELTA_NAMES

    def impl(a: dict[str, Any]) -> Float:
        # broadcast without materializing scalars (length-1 arrays, stride 0 in Rust)
        b = Broadcast(names, tuple(a[k] for k in names), optional=("smoothness",))
        # b.flat holds the arguments in the binding's order (``names``); mypy cannot type a star
        # over a dict's values against fixed positional parameters, hence the cast
        bound = cast(Callable[..., np.ndarray], _core.schedule_bound)
        return b.apply(lambda: bound(*b.flat.values(), laplace=laplace, len=b.size, inverse=inverse))
    return impl


def _limit(laplace: bool) -> Callable[[dict[str, Any]], Float]:
    fn = functools.partial(_core.schedule_delta_star, laplace=laplace)
    return lambda a: _call(fn, ("eps", "c1"), a["eps"], a["c1"])


def _online_noise(laplace: bool) -> Callable[[dict[str, Any]], Float]:
    fn = functools.partial(_core.online_schedule_noise, laplace=laplace)
    return lambda a: _call_setup(fn, _ONLINE_NOISE_NAMES, *(a[k] for k in _ONLINE_NOISE_NAMES))


def _online_epsilon(laplace: bool) -> Callable[[dict[str, Any]], Float]:
    """ε(δ) of the online schedule's δ_n(i) (the exact search of the core)."""
    fn = functools.partial(_core.online_schedule_bound, "delta", laplace=laplace, as_published=False, log=False,
                           inverse=True)
    return lambda a: _call_setup(fn, _ONLINE_EPSILON_NAMES, *(a[k] for k in _ONLINE_EPSILON_NAMES))


def _variant(variant: str) -> bool:
    return choice("variant", variant, ("corrected", "as_published")) == "as_published"


def _online(quantity: str, laplace: bool) -> Callable[[dict[str, Any]], Float]:
    """The online bound ``quantity``; the limits and the paper's bounds take n = 1 (unused)."""
    def impl(a: dict[str, Any]) -> Float:
        as_published = _variant(a.get("variant", "corrected"))
        fn = functools.partial(_core.online_schedule_bound, quantity, laplace=laplace,
                               as_published=as_published, log=flag("log", a["log"]))
        return _call_setup(fn, _ONLINE_NAMES, *(a.get(k, 1.0) if k == "steps" else a[k] for k in _ONLINE_NAMES))
    return impl


def _online_defined(eps: ArrayLike, laplace: bool, values: bool, **args: Any) -> tuple[Any, Any]:
    """The online schedule's bound of :class:`pabi.OnlinePNSGD` at ``eps`` with where it is
    defined: (values, defined) for the keyword ``args`` of ``online_*_delta`` (with ``steps``)
    or of ``online_*_delta_limit_upper`` (without), broadcast as they do. Each value is that
    function's, to the bit; where the Laplace bound is undefined (index^α + C1·C2 ≤ C1·e^{ε/2})
    it is NaN and ``defined`` False instead of that function's DomainError; every other error
    is that function's. ``values`` False: the mask only (O(1) an element; the values NaN)."""
    quantity = "delta" if "steps" in args else "limit_bound"
    fn = functools.partial(_core.online_schedule_bound, quantity, laplace=laplace, as_published=False,
                           log=False, defined=True, values=values)
    a = {"smoothness": None, "strong_convexity": 0.0, **args, "eps": eps}  # (the flat functions' defaults)
    both = cast(Callable[..., np.ndarray], fn)  # (a pair of arrays, shaped by the broadcast as one)
    return cast(tuple[Any, Any], _call_setup(both, _ONLINE_NAMES, *(a.get(k, 1.0) if k == "steps" else a[k]
                                                                     for k in _ONLINE_NAMES)))


@_shaped(_noise_shape, _noise(True), _NoiseFn)
def laplace_schedule_noise_scale(*args: Any, **kwargs: Any) -> Any:
    """Laplace noise scale v(n) = M·D/(2η·ln(n/C1 + C2)) for a run of n steps (003 Thm 3, eq. (7)).

    Requires n/C1 + C2 > 1. To nearest.

    >>> laplace_schedule_noise_scale(1e6, c1=1e5, c2=2.0, lr=0.1, diameter=1.0)
    2.01214802190...
    """


@_shaped(_delta_shape, _fixed(True, inverse=False), _DeltaFn)
def laplace_schedule_delta(*args: Any, **kwargs: Any) -> Any:
    """δ(n) of shuffled PNSGD under the Laplace schedule (003 Thm 3;
    docs/derivations/schedules.md#laplace-schedule).

    δ(n) = A_n·(1 − B_n^n)/(n(1 − B_n)) with 1 − B_n = e^{ε/2}/(n/C1 + C2) exactly and
    A_n = (1 − e^{ε/2}(n/C1 + C2)^{−κ_L})_+, κ_L = 2ηL/(M·D). Stable for n up to 1e15 and beyond.
    δ(n) → δ* (:func:`laplace_schedule_delta_limit`) at rate n^{−min(1, κ_L)} (docs/errata.md#p-t7: the
    paper's O(1/n) needs κ_L ≥ 1).

    Fig. 2 of 003 (L = 10, η = 0.1, ε = 1, [a, b] = [0, 1], C1 = 1e5, C2 = 2):

    >>> d = laplace_schedule_delta(1.0, max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=1e12, c1=1e5, c2=2.0)
    >>> round(1e12 * (d - laplace_schedule_delta_limit(1.0, c1=1e5)), 4)
    1.2131
    """


@_shaped(_epsilon_shape, _fixed(True, inverse=True), _EpsilonFn)
def laplace_schedule_epsilon(*args: Any, **kwargs: Any) -> Any:
    """ε(δ) of shuffled PNSGD under the Laplace schedule: the smallest ε (a double) whose
    certified δ(n) (:func:`laplace_schedule_delta`) is ≤ ``delta`` ∈ (0, 1), by an exact search
    over the doubles (docs/derivations/schedules.md#inversions). Certified: the run is
    (ε, δ)-DP for the returned ε (``laplace_schedule_delta(result, ...) <= delta``); 0 when
    δ(0) ≤ ``delta``.

    >>> kw = dict(max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=1e6, c1=1e5, c2=2.0)
    >>> e = laplace_schedule_epsilon(1e-5, **kw)
    >>> laplace_schedule_delta(e, **kw) <= 1e-5 < laplace_schedule_delta(float(np.nextafter(e, 0)), **kw)
    True
    """


@_shaped(_limit_shape, _limit(True), _LimitFn)
def laplace_schedule_delta_limit(*args: Any, **kwargs: Any) -> Any:
    """Limit δ* = (1 − e^{−x})/x, x = C1·e^{ε/2}, of the Laplace schedule (003 eq. (8)). Rounded up.

    >>> laplace_schedule_delta_limit(1.0, c1=1e5)
    6.06530659712...e-06
    """


@_shaped(_noise_shape, _noise(False), _NoiseFn)
def gaussian_schedule_noise_scale(*args: Any, **kwargs: Any) -> Any:
    """Gaussian noise σ(n) = M·D/(2η·sqrt(W0(n²/(2πC1²) + C2))) (003 Thm 4, eq. (9)). To nearest.

    W0 is evaluated from ln z (Wright omega), so n may be as large as 1e300.

    >>> gaussian_schedule_noise_scale(1e300, c1=1e5, c2=100.0, lr=0.1, diameter=1.0)
    0.13610898699...
    """


@_shaped(_delta_shape, _fixed(False, inverse=False), _DeltaFn)
def gaussian_schedule_delta(*args: Any, **kwargs: Any) -> Any:
    """δ(n) of shuffled PNSGD under the Gaussian (Lambert-W) schedule (003 Thm 4;
    docs/derivations/schedules.md#gaussian-schedule).

    δ(n) = θ(ε, κ_G·r_B)·G(1 − θ(ε, r_B), n), r_B = 2·sqrt(W0(z_n)), κ_G = 2ηL/(M·D), with the
    complement 1 − θ computed directly (1 − B_n ≈ 1e-13 at n = 1e15). δ(n) → δ* at rate 1/log n:
    (δ − δ*)·W(z_n)/δ* → (1 + ε²/8)·h(x_G) (docs/derivations/schedules.md#gaussian-schedule; Fig. 3 of 003):

    >>> ds = gaussian_schedule_delta_limit(1.0, c1=1e5)
    >>> d = gaussian_schedule_delta(1.0, max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=1e300, c1=1e5, c2=100.0)
    >>> w = float(np.exp(2 * np.log(2 * gaussian_schedule_noise_scale(1e300, c1=1e5, c2=100.0, lr=0.1, diameter=1.0) * 0.1) * -1))
    >>> round((d - ds) * w / ds, 4)
    1.1234
    """


@_shaped(_epsilon_shape, _fixed(False, inverse=True), _EpsilonFn)
def gaussian_schedule_epsilon(*args: Any, **kwargs: Any) -> Any:
    """ε(δ) of shuffled PNSGD under the Gaussian (Lambert-W) schedule: the smallest ε (a double)
    whose certified δ(n) (:func:`gaussian_schedule_delta`) is ≤ ``delta`` ∈ (0, 1), by an exact
    search over the doubles (docs/derivations/schedules.md#inversions). Certified on the safe
    side, like :func:`laplace_schedule_epsilon`.

    >>> kw = dict(max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=1e6, c1=1e5, c2=100.0)
    >>> e = gaussian_schedule_epsilon([1e-5, 1e-7], **kw)
    >>> bool(np.all(gaussian_schedule_delta(e, **kw) <= [1e-5, 1e-7]) and e[0] < e[1])
    True
    """


@_shaped(_limit_shape, _limit(False), _LimitFn)
def gaussian_schedule_delta_limit(*args: Any, **kwargs: Any) -> Any:
    """Limit δ* = (1 − e^{−x})/x, x = 2·C1·e^{ε/2}, of the Gaussian schedule (003 eq. (10)). Rounded up.

    >>> gaussian_schedule_delta_limit(1.0, c1=1e5)
    3.0326532985...e-06
    """


@overload
def schedule_calibrate_c1(eps: Scalar, delta: Scalar, *, noise: Noise = ...) -> float: ...
@overload
def schedule_calibrate_c1(eps: ArrayLike, delta: ArrayLike, *, noise: Noise = ...) -> FloatArray: ...
def schedule_calibrate_c1(eps: ArrayLike, delta: ArrayLike, *, noise: Noise = "gaussian") -> Float:
    """The schedule constant C1 whose limit δ* (:func:`laplace_schedule_delta_limit`,
    :func:`gaussian_schedule_delta_limit`) at ``eps`` equals ``delta`` ∈ (0, 1), for the
    schedule of ``noise`` (docs/derivations/schedules.md#laplace-schedule; check
    docs/errata.md#p-c24).

    Solves (1 − e^{−x})/x = δ* by x = 1/δ* + W0(−e^{−1/δ*}/δ*) (δ* ≤ 1/2) or by Newton on the
    cancellation-free series of 1 − (1 − e^{−x})/x (δ* > 1/2); C1 = x·e^{−ε/2} (Laplace, eq. (8))
    or x·e^{−ε/2}/2 (Gaussian, eq. (10)). To nearest.

    >>> schedule_calibrate_c1(1.0, 6.065306597126334e-06, noise="laplace")
    100000.0000...
    """
    fn = functools.partial(_core.schedule_calibrate_c1, laplace=_noise_kind(noise))
    return _call(fn, ("eps", "delta"), eps, delta)


def _run_setup(max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, smoothness: Optional[Scalar],
               strong_convexity: Scalar) -> dict[str, Optional[float]]:
    """The scalar setup of a run with a given noise array (:func:`online_delta`,
    :func:`online_epsilon`), each value checked (β last: it is optional)."""
    setup: dict[str, Optional[float]] = {
        nm: real_scalar(nm, v) for nm, v in (("max_grad_norm", max_grad_norm), ("lr", lr), ("diameter", diameter),
                                             ("strong_convexity", strong_convexity))}
    setup["smoothness"] = opt_real_scalar("smoothness", smoothness)
    return setup


@overload
def online_delta(eps: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, noise_scale: ArrayLike,
                 index: None = ..., noise: Noise = ..., smoothness: Optional[Scalar] = ...,
                 strong_convexity: Scalar = ..., log: bool = ...) -> FloatArray: ...
@overload
def online_delta(eps: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, noise_scale: ArrayLike,
                 index: int, noise: Noise = ..., smoothness: Optional[Scalar] = ...,
                 strong_convexity: Scalar = ..., log: bool = ...) -> float: ...
def online_delta(eps: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, noise_scale: ArrayLike,
                 index: Optional[int] = None, noise: Noise = "gaussian", smoothness: Optional[Scalar] = None,
                 strong_convexity: Scalar = 0.0, log: bool = False) -> Union[float, FloatArray]:
    """δ_n(i) = A_i·∏_{t=i+1}^n B_t of online PNSGD with any per-step noise (003 eq. (11);
    docs/derivations/schedules.md#online).

    ``noise_scale`` is the 1-D array (σ_1, …, σ_n) (``noise="gaussian"``: standard deviations)
    or (v_1, …, v_n) (``noise="laplace"``: Laplace scales) of the n steps; A_i and B_t are
    eqs. (4)/(5) with the step's own noise. With ``index=None`` returns the array of δ_n(i) for
    every i = 1..n in one O(n) suffix scan (log space, Neumaier compensation); with ``index``
    (1-based) the single value. The other parameters are scalars.

    >>> online_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0, 2.0, 2.0]).round(6)
    array([0.121873, 0.124379, 0.126937])
    """
    laplace = _noise_kind(noise)
    arr = real_array("noise_scale", noise_scale, ndim=1)
    e = real_scalar("eps", eps)
    setup = _run_setup(max_grad_norm, lr, diameter, smoothness, strong_convexity)
    log = flag("log", log)
    i = None if index is None else float(int_scalar("index", index))
    return _core.online_delta(arr, e, setup, laplace, log, i)


@overload
def online_epsilon(delta: Scalar, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar, noise_scale: ArrayLike,
                   index: int, noise: Noise = ..., smoothness: Optional[Scalar] = ...,
                   strong_convexity: Scalar = ...) -> float: ...
@overload
def online_epsilon(delta: ArrayLike, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar,
                   noise_scale: ArrayLike, index: int, noise: Noise = ..., smoothness: Optional[Scalar] = ...,
                   strong_convexity: Scalar = ...) -> FloatArray: ...
def online_epsilon(delta: ArrayLike, *, max_grad_norm: Scalar, lr: Scalar, diameter: Scalar,
                   noise_scale: ArrayLike, index: int, noise: Noise = "gaussian", smoothness: Optional[Scalar] = None,
                   strong_convexity: Scalar = 0.0) -> Float:
    """ε(δ) of online PNSGD with any per-step noise: the smallest ε (a double) whose certified
    δ_n(``index``) (:func:`online_delta`) is ≤ ``delta`` ∈ (0, 1), by an exact search over the
    doubles (docs/derivations/schedules.md#online-inversion). Certified: the record ``index``
    (1-based, required) is (ε, δ)-DP for the returned ε; 0 when δ_n(index) at ε = 0 is ≤
    ``delta``. ``delta`` may be an array (one search per target); the setup keywords are those
    of :func:`online_delta`.

    >>> kw = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0] * 50, index=10)
    >>> e = online_epsilon(1e-5, **kw)
    >>> round(e, 6), online_delta(e, **kw) <= 1e-5 < online_delta(float(np.nextafter(e, 0)), **kw)
    (3.715123, True)
    """
    laplace = _noise_kind(noise)
    arr = real_array("noise_scale", noise_scale, ndim=1)
    setup = _run_setup(max_grad_norm, lr, diameter, smoothness, strong_convexity)
    i = float(int_scalar("index", index))
    fn = functools.partial(_core.online_epsilon_at, arr, i, setup=setup, laplace=laplace)
    return _call(fn, ("delta",), delta)


@_shaped(_online_noise_shape, _online_noise(True), _OnlineNoiseFn)
def online_laplace_noise_scale(*args: Any, **kwargs: Any) -> Any:
    """Online Laplace scale of step j: v_j = M(b−a)/(2η·ln(j^α/C1 + C2)), α = ``decay`` > 1 (003 eq. (12)).

    Requires j^α/C1 + C2 > 1. To nearest.

    >>> online_laplace_noise_scale(100, c1=100.0, c2=100.0, decay=1.5, lr=0.01, diameter=1.0)
    10.6372106910...
    """


@_shaped(_online_noise_shape, _online_noise(False), _OnlineNoiseFn)
def online_gaussian_noise_scale(*args: Any, **kwargs: Any) -> Any:
    """Online Gaussian std of step j: σ_j = M·D/(2η·sqrt(W0(j^{2α}/(2πC1²) + C2))) (003 eq. (14)). To nearest.

    >>> online_gaussian_noise_scale(100, c1=100.0, c2=100.0, decay=1.5, lr=0.01, diameter=1.0)
    26.7258318121...
    """


@_shaped(_online_delta_shape, _online("delta", True), _OnlineDeltaFn)
def online_laplace_delta(*args: Any, **kwargs: Any) -> Any:
    """δ_n(i) = A_i·∏_{t=i+1}^n B_t of online PNSGD under the Laplace (eq. (12)) schedule (003 Thm 6).

    For any n ≥ ``index`` up to 1e15 and beyond: the first 2^18 factors are summed in log space
    (each rounded up), the rest Σ_{t=a}^n g (g = ln B) by a certified upper bound (trapezoid rule
    with its proven defect for concave g, certified quadrature of ∫_a^n g; see
    ``pabi_core::schedules::online``). A proven upper bound of the exact product, within
    max(1e-12, 6·2⁻⁴⁶·|ln δ|) relative (tests against mpmath at 50 digits up to n = 1e15). The
    convergence to :func:`online_laplace_delta_limit` is algebraic, ≈ δ_∞·c·n^{1−α}/(α−1) (docs/errata.md#p-t9: not the
    1/log n the paper reports).

    Domain: ``decay`` α > 1 and index^α + C1·C2 > C1·e^{ε/2} (every B_t > 0), else ValueError naming ``index``. Fig. 4 of 003:


    >>> online_laplace_delta(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=10**12, index=100, c1=100.0, c2=100.0, decay=1.5)
    1.5475503430...e-08
"""


@_shaped(_online_epsilon_shape, _online_epsilon(True), _OnlineEpsilonFn)
def online_laplace_epsilon(*args: Any, **kwargs: Any) -> Any:
    """ε(δ) of online PNSGD under the Laplace (eq. (12)) schedule: the smallest ε (a double)
    whose certified δ_n(i) (:func:`online_laplace_delta`) is ≤ ``delta`` ∈ (0, 1), by an exact
    search over the doubles (docs/derivations/schedules.md#online-inversion).

    The bound is defined only for ε < 2·ln((index^α + C1·C2)/C1) (every B_t > 0): the search
    stays there, and returns +inf where no ε of that domain meets ``delta`` (the theorem then
    certifies no finite ε; this happens only when κ_L = 2ηL/(M·D) > 1). An index outside the
    domain at ε = 0 is a DomainError naming ``index``.

    >>> kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=1000, index=100, c1=100.0, c2=100.0, decay=1.5)
    >>> e = online_laplace_epsilon(1e-5, **kw)
    >>> online_laplace_delta(e, **kw) <= 1e-5 < online_laplace_delta(float(np.nextafter(e, 0)), **kw)
    True
    """


@_shaped(_online_limit_shape, _online("limit", True), _OnlineLimitFn)
def online_laplace_delta_limit(*args: Any, **kwargs: Any) -> Any:
    """The exact limit δ_∞(i) = A_i·∏_{t>i} B_t of online PNSGD under the Laplace (eq. (12)) schedule (003 Thm 6).

    Direct sum of the first 2^18 log-factors, then the Euler–Maclaurin tail
    ∫_a^∞ g + g(a)/2 − g'(a)/12 (integral by tanh–sinh quadrature); rounded up, within
    max(1e-12, 6·2⁻⁴⁶·|ln δ|) relative of the exact product. Lies strictly between the paper's integral bounds
    :func:`online_laplace_delta_limit_lower` and :func:`online_laplace_delta_limit_closed_upper`.

    Domain: ``decay`` α > 1 and index^α + C1·C2 > C1·e^{ε/2} (every B_t > 0), else ValueError naming ``index``. Fig. 4 of 003:


    >>> online_laplace_delta_limit(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    1.5470401313...e-08
"""


@_shaped(_online_limit_shape, _online("limit_bound", True), _OnlineLimitFn)
def online_laplace_delta_limit_upper(*args: Any, **kwargs: Any) -> Any:
    """Certified upper bound of δ_∞(i) for the Laplace (eq. (12)) schedule, tighter than eq. (13).

    After the direct sum of the first 2^18 log-factors (each rounded up), the tail Σ_{t≥a} g(t),
    a = i + 2^18 + 1, g = ln B, is bounded by Ī + g(a)/2 (Hermite–Hadamard) where g is proven
    concave on [a, ∞),
    i.e. whenever a^α ≥ C1·C2(α−1)/(α+1) or C1·C2 ≤ C1·e^{ε/2}, minus the trapezoid defect g'(a+2)/12 where g''' ≥ 0 is proven too;
    otherwise by Ī alone (g is increasing). Ī is a certified upper bound of ∫_a^∞ g: piecewise
    exponential envelopes of g' with interval bounds of the derivatives of ln g', every rounding
    bounded (relative width ≈ 2e-13). Nothing is estimated, so the result is a proven upper bound
    of δ_∞, within ≈ 1e-12 relative of it, against the paper's ≈ 1 %. At huge ε, where most of
    ln δ_∞ lies at ln t of order ε, the quadrature's work is capped (2^17 pieces) and the bound
    is the smaller of its partial bound and a first-order monotone bound: still proven, but
    looser (measured 1.2e-3 relative for the Gaussian and 1.6e-4 for the Laplace schedule at
    ε = 1e3); −f64::MAX where the exact value is below the double range.

    Domain: ``decay`` α > 1 and index^α + C1·C2 > C1·e^{ε/2} (every B_t > 0), else ValueError naming ``index``. Fig. 4 of 003:


    >>> online_laplace_delta_limit_upper(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    1.5470401313...e-08
"""


@_shaped(_online_closed_upper_shape, _online("star_upper", True), _OnlineClosedUpperFn)
def online_laplace_delta_limit_closed_upper(*args: Any, **kwargs: Any) -> Any:
    """The paper's closed bound δ* ≥ δ_∞(i) for the Laplace (eq. (12)) schedule: A_i·exp(∫_{i+1}^∞ ln B_x dx) (003 eq. (13)).

    ``variant="corrected"`` (default) applies the erratum docs/errata.md#p-t5 (first factor e^{+ε/2−κ_L·ln(i^α/C1+C2)}, as in the proof). ``variant="as_published"``
    evaluates the printed formula: e^{−ε/2} in the first factor, still an upper bound but looser (3.34e-8 against 1.56e-8 at the Fig. 4 parameters).

    Domain: ``decay`` α > 1 and index^α + C1·C2 > C1·e^{ε/2} (every B_t > 0), else ValueError naming ``index``. Fig. 4 of 003:


    >>> online_laplace_delta_limit_closed_upper(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    1.5587524304...e-08
    >>> online_laplace_delta_limit_closed_upper(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5, variant="as_published", log=True)
    -17.21441464...
"""


@_shaped(_online_limit_shape, _online("star_lower", True), _OnlineLimitFn)
def online_laplace_delta_limit_lower(*args: Any, **kwargs: Any) -> Any:
    """The paper's lower bound A_i·exp(∫_i^∞ ln B_x dx) ≤ δ_∞(i) for the Laplace (eq. (12)) schedule (003 §6).

    Rounded DOWN (it brackets δ_∞ from below).

    Domain: ``decay`` α > 1 and index^α + C1·C2 > C1·e^{ε/2} (every B_t > 0), else ValueError naming ``index``. Fig. 4 of 003:


    >>> online_laplace_delta_limit_lower(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    1.5354052055...e-08
"""


@_shaped(_online_delta_shape, _online("delta", False), _OnlineDeltaFn)
def online_gaussian_delta(*args: Any, **kwargs: Any) -> Any:
    """δ_n(i) = A_i·∏_{t=i+1}^n B_t of online PNSGD under the Gaussian (eq. (14)) schedule (003 Thm 7).

    For any n ≥ ``index`` up to 1e15 and beyond: the first 2^18 factors are summed in log space
    (each rounded up), the rest Σ_{t=a}^n g (g = ln B) by a certified upper bound (trapezoid rule
    with its proven defect for concave g, certified quadrature of ∫_a^n g; see
    ``pabi_core::schedules::online``). A proven upper bound of the exact product, within
    max(1e-12, 6·2⁻⁴⁶·|ln δ|) relative (tests against mpmath at 50 digits up to n = 1e15). The
    convergence to :func:`online_gaussian_delta_limit` is algebraic, ≈ δ_∞·c·n^{1−α}/(α−1) (docs/errata.md#p-t9: not the
    1/log n the paper reports).

    Domain: ``decay`` α > 1, index ≥ 1. Fig. 5 of 003:


    >>> online_gaussian_delta(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=10**12, index=100, c1=100.0, c2=100.0, decay=1.5)
    2.858025336...e-23
"""


@_shaped(_online_epsilon_shape, _online_epsilon(False), _OnlineEpsilonFn)
def online_gaussian_epsilon(*args: Any, **kwargs: Any) -> Any:
    """ε(δ) of online PNSGD under the Gaussian (eq. (14)) schedule: the smallest ε (a double)
    whose certified δ_n(i) (:func:`online_gaussian_delta`) is ≤ ``delta`` ∈ (0, 1), by an exact
    search over the doubles (docs/derivations/schedules.md#online-inversion); 0 when δ_n(i) at
    ε = 0 is ≤ ``delta``.

    >>> kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=1000, index=1000, c1=100.0, c2=100.0, decay=1.5)
    >>> e = online_gaussian_epsilon(1e-5, **kw)
    >>> online_gaussian_delta(e, **kw) <= 1e-5 < online_gaussian_delta(float(np.nextafter(e, 0)), **kw)
    True
    """


@_shaped(_online_limit_shape, _online("limit", False), _OnlineLimitFn)
def online_gaussian_delta_limit(*args: Any, **kwargs: Any) -> Any:
    """The exact limit δ_∞(i) = A_i·∏_{t>i} B_t of online PNSGD under the Gaussian (eq. (14)) schedule (003 Thm 7).

    Direct sum of the first 2^18 log-factors, then the Euler–Maclaurin tail
    ∫_a^∞ g + g(a)/2 − g'(a)/12 (integral by tanh–sinh quadrature); rounded up, within
    max(1e-12, 6·2⁻⁴⁶·|ln δ|) relative of the exact product. Lies strictly between the paper's integral bounds
    :func:`online_gaussian_delta_limit_lower` and :func:`online_gaussian_delta_limit_closed_upper`.

    Domain: ``decay`` α > 1, index ≥ 1. Fig. 5 of 003:


    >>> online_gaussian_delta_limit(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    2.856168977...e-23
"""


@_shaped(_online_limit_shape, _online("limit_bound", False), _OnlineLimitFn)
def online_gaussian_delta_limit_upper(*args: Any, **kwargs: Any) -> Any:
    """Certified upper bound of δ_∞(i) for the Gaussian (eq. (14)) schedule, tighter than eq. (15).

    After the direct sum of the first 2^18 log-factors (each rounded up), the tail Σ_{t≥a} g(t),
    a = i + 2^18 + 1, g = ln B, is bounded by Ī + g(a)/2 (Hermite–Hadamard) where g is proven
    concave on [a, ∞),
    i.e. whenever α·max(ρ·B(w), B(w)) + 2α(1 − ρ) < 1 at x = a, with w = W0(z_a), ρ = 1 − C2/z_a,
    B(w) = −1 + 2/(1+w)² + ε²/(4w(1+w)): this bounds d ln(x·g'(x))/d ln x from above on
    [a, ∞) (proof in the module doc of pabi_core::schedules::online); it holds at a = i + 2^18 + 1
    unless C1 or C2 is huge, minus the trapezoid defect g'(a+2)/12 where g''' ≥ 0 is proven too;
    otherwise by Ī alone (g is increasing). Ī is a certified upper bound of ∫_a^∞ g: piecewise
    exponential envelopes of g' with interval bounds of the derivatives of ln g', every rounding
    bounded (relative width ≈ 2e-13). Nothing is estimated, so the result is a proven upper bound
    of δ_∞, within ≈ 1e-12 relative of it, against the paper's ≈ 1 %. At huge ε, where most of
    ln δ_∞ lies at ln t of order ε, the quadrature's work is capped (2^17 pieces) and the bound
    is the smaller of its partial bound and a first-order monotone bound: still proven, but
    looser (measured 1.2e-3 relative for the Gaussian and 1.6e-4 for the Laplace schedule at
    ε = 1e3); −f64::MAX where the exact value is below the double range.

    Domain: ``decay`` α > 1, index ≥ 1. Fig. 5 of 003:


    >>> online_gaussian_delta_limit_upper(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    2.856168977...e-23
"""


@_shaped(_online_closed_upper_shape, _online("star_upper", False), _OnlineClosedUpperFn)
def online_gaussian_delta_limit_closed_upper(*args: Any, **kwargs: Any) -> Any:
    """The paper's closed bound δ* ≥ δ_∞(i) for the Gaussian (eq. (14)) schedule: A_i·exp(∫_{i+1}^∞ ln B_x dx) (003 eq. (15)).

    ``variant="corrected"`` (default) applies the erratum docs/errata.md#p-t6 (the exponential multiplies θ(2L/σ_i) instead of sitting inside θ). ``variant="as_published"``
    evaluates the printed formula: θ_{e^ε}(2L/σ_i·exp(∫…)), which is UNSOUND: it certifies δ ≈ 10^(−1e42) at the Fig. 5 parameters where the true δ_∞ is 2.86e-23 (use log=True to see it). Note also (docs/errata.md#p-t15) that eq. (15) is an integral bound, not a closed form of the limit: it is 5.3 % above δ_∞ there; use :func:`online_gaussian_delta_limit` for the limit itself.

    Domain: ``decay`` α > 1, index ≥ 1. Fig. 5 of 003:


    >>> online_gaussian_delta_limit_closed_upper(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    3.008038658...e-23
    >>> online_gaussian_delta_limit_closed_upper(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5, variant="as_published", log=True)
    -2.41812055...e+42
"""


@_shaped(_online_limit_shape, _online("star_lower", False), _OnlineLimitFn)
def online_gaussian_delta_limit_lower(*args: Any, **kwargs: Any) -> Any:
    """The paper's lower bound A_i·exp(∫_i^∞ ln B_x dx) ≤ δ_∞(i) for the Gaussian (eq. (14)) schedule (003 §6).

    Rounded DOWN (it brackets δ_∞ from below).

    Domain: ``decay`` α > 1, index ≥ 1. Fig. 5 of 003:


    >>> online_gaussian_delta_limit_lower(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    2.711776184...e-23
"""
