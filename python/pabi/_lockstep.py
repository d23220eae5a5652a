"""The setups' calibrations for many targets at once (``setup.least_noise``): the exact search of
:func:`pabi.setups._least_noise` run in lock-step over every target (``_core.first_ok_many``),
each round one array evaluation of the setup's forward bound for all still-running searches.

Why each element is the scalar ``calibrate``'s value to the bit: the core's lock-step search
probes, for element k, exactly the doubles the scalar search ``_core.first_ok`` probes for
target k, in the same order (one state machine drives both), so it suffices that every probe
gets the scalar verdict and the scalar ratio of the bound to its target (which guides where
both searches probe next): each setup's ``_met_many`` returns its bound's values, each the
scalar one, and the ratios are formed by the same division. A probe at or above the end of the accepted values is met (as in the
scalar search); any other is judged by the setup's ``_met_many`` (its flat functions broadcast
over the calibrated field, each element bit-identical to the scalar call; for multi-epoch PNSGD,
one PLD per element, built and composed in parallel by the core). Where that array
call raises a DomainError (the bound is undefined at some probe, e.g. too little noise), the
batch is split in halves until each undefined probe is judged alone by the scalar rule
(:func:`_meets_one`: a rejected or undefined value misses the target). A target that no
accepted value meets, and any error of the setup itself, is raised by the scalar
``calibrate`` of the first such element, at its index (the same error and message as the
per-target loop). Where the accepted values end above per target (the online Laplace
schedule's C1, whose bound is undefined beyond an end that depends on ε), that end is found
first by the same lock-step search over the distinct ε, each probe judged by the setup's array
test of acceptance (one core call a round that reports, per element, whether the bound is
defined, instead of raising for the whole call).

Also the setups' one search for an ε (:func:`_smallest_eps`).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional, TypeVar

import numpy as np
from numpy.typing import NDArray

from ._bridge import DomainError

__all__ = ["least_noise_many", "composed_pnsgd_met", "failed_elements"]

Bools = NDArray[np.bool_]
_T = TypeVar("_T")


def _accepts_one(setup: Any, field: str, x: float, defined: Optional[Any] = None) -> bool:
    """Whether ``setup`` accepts ``x`` as its ``field`` (and ``defined`` holds there): the
    accepted values of :func:`_least_noise`."""
    try:
        s = setup.replace(**{field: x})
        return defined is None or bool(defined(s))
    except DomainError:
        return False


def _accepts_one_by(accepted_many: Optional[Callable[[NDArray[np.float64]], Bools]], setup: Any, field: str,
                    x: float, defined: Optional[Any] = None) -> bool:
    """:func:`_accepts_one` through the setup's array test of acceptance (the ``many`` of
    :func:`least_noise_many`'s ``defined``, at the search's ε) at the one element x, which tells
    it without ``replace``'s checks; where it raises a DomainError (or None is given),
    :func:`_accepts_one` itself."""
    if accepted_many is None:
        return _accepts_one(setup, field, x, defined)
    try:
        return bool(np.asarray(accepted_many(np.array([x])), dtype=bool)[0])
    except DomainError:
        return _accepts_one(setup, field, x, defined)


def _met(s: Any, eps: float, delta: float, question: str) -> bool:
    """Whether setup ``s`` meets the target: ε(δ) ≤ eps, or δ(ε) ≤ delta (``question="delta"``)."""
    return _met_ratio(s, eps, delta, question)[0]


def _met_ratio(s: Any, eps: float, delta: float, question: str) -> tuple[bool, float]:
    """:func:`_met` and the ratio of the bound to its target (ε(δ)/eps or δ(ε)/delta), which
    guides the core's search (``_core.first_ok``: > 1 missed, ≤ 1 met; the verdict decides)."""
    v, t = float(s.epsilon(delta)) if question == "epsilon" else float(s.delta(eps)), _target(eps, delta, question)
    return bool(v <= t), v / t


def _target(eps: _T, delta: _T, question: str) -> _T:
    """The target the bound is held to: eps for ε(δ), delta for δ(ε) (``question="delta"``);
    scalars or the arrays of :func:`least_noise_many`."""
    return eps if question == "epsilon" else delta


def _meets_one(setup: Any, field: str, x: float, eps: float, delta: float, question: str,
               undefined: Optional[list[DomainError]] = None) -> tuple[bool, float]:
    """The scalar verdict of :func:`_least_noise` below the end of the accepted values, with the
    ratio of :func:`_met_ratio` (NaN: none): a value the setup rejects, or where its bound is
    undefined, misses the target (the error is kept in ``undefined``)."""
    try:
        return _met_ratio(setup.replace(**{field: x}), eps, delta, question)
    except DomainError as err:
        if undefined is not None:
            undefined[:] = [err]
        return False, math.nan


def _meets_one_by(met_many: Optional[Callable[..., Any]], setup: Any, field: str, x: float, eps: float,
                  delta: float, question: str, undefined: Optional[list[DomainError]] = None) -> tuple[bool, float]:
    """:func:`_meets_one` through the setup's array test ``met_many`` (that of
    :func:`least_noise_many`; None: :func:`_meets_one` itself) at the one element x, without
    ``replace``: the same verdict and ratio, since each of its elements is the scalar bound's
    (which the lock-step search relies on too). An element it reports undefined or missed by an
    error (NaN), or a DomainError of the call, is judged by :func:`_meets_one` (which keeps the
    error). (Multi-epoch PNSGD: the core skips the FFT where the composed ε is +∞ by the +∞ mass
    alone; the online schedules: no bound computed twice, once by ``replace``'s checks.)"""
    if met_many is None:
        return _meets_one(setup, field, x, eps, delta, question, undefined)
    try:
        verdicts, undef, values = met_many(np.array([x]), np.array([eps]), np.array([delta]))
    except DomainError:
        return _meets_one(setup, field, x, eps, delta, question, undefined)
    v = float(np.asarray(values, dtype=np.float64)[0])
    if bool(np.asarray(undef)[0]) or math.isnan(v):
        return _meets_one(setup, field, x, eps, delta, question, undefined)
    return bool(np.asarray(verdicts)[0]), v / _target(eps, delta, question)


def failed_elements(n: int, errors: list[tuple[int, BaseException]]) -> tuple[Bools, Bools]:
    """The failed elements of a many-target core call of ``n`` elements (its ``(index,
    exception)`` pairs, each the one-by-one route's exception) as (missed, undefined): an element
    whose bound raised a DomainError misses the target (the verdict of :func:`_meets_one`, without
    running it again); one with any other error is undefined (judged one by one, which raises it)."""
    missed, undefined = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    for i, err in errors:
        (missed if isinstance(err, DomainError) else undefined)[i] = True
    return missed, undefined


def _by_halves(many: Callable[[NDArray[np.intp]], Bools], one: Callable[[int], bool], n: int) -> Bools:
    """``many(sel)`` (the verdicts of the positions ``sel``, or a DomainError when one of them is
    undefined) for all n positions, splitting a batch that raises in halves down to single
    positions; ``one`` judges a single position where ``many`` raises too. (A single position is
    tried by ``many`` first, as the scalar search tries the array test on its one element,
    :func:`_meets_one_by`: judged by ``one`` at once, the last search still running took the
    scalar route at every round, 0.3 s a probe for multi-epoch PNSGD instead of the core's.)"""
    out = np.zeros(n, dtype=bool)
    stack = [np.arange(n)]
    while stack:
        sel = stack.pop()
        if sel.size == 0:
            continue
        try:
            out[sel] = np.asarray(many(sel), dtype=bool)
        except DomainError:
            if sel.size == 1:
                out[sel[0]] = one(int(sel[0]))
            else:
                h = sel.size // 2
                stack += [sel[h:], sel[:h]]
    return out


def least_noise_many(setup: Any, field: str, eps: NDArray[np.float64], delta: NDArray[np.float64],
                     shape: tuple[int, ...], met_many: Callable[..., Any],
                     precheck: Callable[[], Any], question: str = "epsilon",
                     defined: Optional[tuple[Callable[[Any, float], bool],
                                             Callable[[NDArray[np.float64], NDArray[np.float64]], Bools]]] = None
                     ) -> NDArray[np.float64]:
    """``setup.least_noise`` on flat, checked targets by the lock-step search.

    ``met_many(x, eps, delta)``: for the setup with ``field`` = x[j] and the target (eps[j],
    delta[j]) (arrays of one length), the triple (verdicts, undefined, the bound: ε, or δ for
    ``question="delta"``, each element the scalar bound's, NaN where an error missed the target;
    or a guide in the bound's unit whose ratio to the target only steers the probes, as
    :func:`composed_pnsgd_met`'s),
    or a DomainError when the bound is undefined at some element. Undefined elements are judged
    one by one (for a bound computed element by element, which reports each failure); the
    bound's ratios to the targets guide each element's probes as :func:`pabi.setups._least_noise`'s
    scalar ratios guide its own (so both probe the same doubles). ``precheck()``: the setup's own checks that ``calibrate`` makes before its
    search. ``defined``: for a setup whose accepted values end above per target, a pair
    (``one(s, e)``, the ``defined`` of :func:`pabi.setups._least_noise` at ε = e; ``many(x, e)``,
    whether the setup accepts ``field`` = x[j] and ``one`` holds at e[j], for arrays of one
    length, or a DomainError where it cannot tell: those are judged one by one by
    :func:`_accepts_one`). That end is found for every distinct ε by the lock-step search too
    (one call of ``many`` a round), each element probing the scalar search's doubles."""
    from . import _core
    from .setups import _Questions

    try:
        precheck()
    except (DomainError, NotImplementedError):  # the per-target loop raises it, at the first target
        return _Questions._least_noise_all(setup, eps, delta, shape)
    n = eps.size
    x0 = float(getattr(setup, field))
    if defined is None:
        end = np.full(n, _core.first_ok(lambda x: not _accepts_one(setup, field, x), x0))
    else:  # the end depends on ε: the lock-step search over the distinct ε
        defined_one, defined_many = defined
        ue, inv = np.unique(eps, return_inverse=True)

        def rejected(x: NDArray[np.float64], k: NDArray[np.int64]) -> Bools:
            def many(sel: NDArray[np.intp]) -> Bools:
                return ~np.asarray(defined_many(x[sel], ue[k[sel]]), dtype=bool)

            # (one element too: defined_many computes no bound, the scalar test a whole one)
            return _by_halves(many, lambda j: not _accepts_one(setup, field, float(x[j]),
                                                               lambda s: defined_one(s, float(ue[k[j]]))), x.size)

        end = np.asarray(_core.first_ok_many(rejected, np.full(ue.size, x0)), dtype=np.float64)[inv.reshape(-1)]

    target = _target(eps, delta, question)

    def round_(x: NDArray[np.float64], k: NDArray[np.int64]) -> tuple[Bools, NDArray[np.float64]]:
        out = x >= end[k]
        ratio = np.full(x.size, math.nan)  # the scalar search's ratios (NaN: none), guiding the probes
        todo = np.flatnonzero(~out)
        if todo.size:
            xt, kt = x[todo], k[todo]
            rt = np.full(todo.size, math.nan)

            def many(sel: NDArray[np.intp]) -> Bools:
                verdicts, undefined, values = met_many(xt[sel], eps[kt[sel]], delta[kt[sel]])
                v, undefined = np.array(verdicts, dtype=bool), np.asarray(undefined, dtype=bool)
                # the bound's values, each the scalar one (NaN where it missed by an error): the
                # scalar search's ratios, so that both probe the same doubles
                rt[sel] = np.asarray(values, dtype=np.float64) / target[kt[sel]]
                for j in np.flatnonzero(undefined):  # (verdicts, undefined): those judged one by one
                    v[j] = one(int(sel[j]))
                return v

            def one(j: int) -> bool:
                i = int(kt[j])
                ok, rt[j] = _meets_one(setup, field, float(xt[j]), float(eps[i]), float(delta[i]), question)
                return ok

            out[todo] = _by_halves(many, one, todo.size)
            ratio[todo] = rt
        return out, ratio

    res = np.asarray(_core.first_ok_many(round_, np.full(n, x0)), dtype=np.float64)
    for i in np.flatnonzero(res >= end):  # no accepted value meets it: the scalar calibrate's error
        res[i] = setup._calibrated_at(float(eps[i]), float(delta[i]), int(i), shape)
    if not np.all(res < math.inf):  # pragma: no cover - a search below its end is finite
        raise AssertionError("least_noise: a lock-step search ended at +inf")
    return res


def composed_pnsgd_met(setup: Any, x: NDArray[np.float64], eps: NDArray[np.float64],
                       delta: NDArray[np.float64]) -> tuple[Bools, Bools, NDArray[np.float64]]:
    """Multi-epoch :class:`pabi.PNSGD`'s ``calibrate`` test at noise scales ``x``, targets (``eps``,
    ``delta``): (verdicts, undefined, the guide of :func:`_guide`: the composed ε, or where the
    mass it takes from δ comes near δ that mass in ε's unit; NaN where missed). Each verdict is
    what ``PNSGD._composed`` at that noise scale computes, step by step: the decay point of
    ``PrivacyLossDistribution.from_profile`` (the first ε = 2^k, k ≤ 13, with δ ≤ its
    ``tail_mass``), its samples of the epoch profile at ε = k·h (one ``pabi.pnsgd_delta`` call
    for every element), then the PLD, its composition and ε(δ) by the core, element by
    element in parallel (``_core.pld_profiles_composed_epsilon``). An element where the core
    raised a DomainError misses the target (:func:`failed_elements`); one where another step
    fails (no decay point, too many samples, another error of the core) is undefined: judged
    one by one."""
    import pabi

    from . import _core
    from .composition import _COMPOSE_TAIL, _MAX_PROFILE, _PROFILE_DOUBLINGS, _PROFILE_GRID_STEP, _PROFILE_TAIL

    if not np.all((x > 0) & (x < math.inf)):
        raise DomainError("a noise scale replace rejects: judged one by one")
    h, tail, doublings = _PROFILE_GRID_STEP, _PROFILE_TAIL, _PROFILE_DOUBLINGS  # from_profile's defaults
    kw = setup.bound_arguments()
    pts = 2.0 ** np.arange(doublings + 1)
    dec = np.asarray(pabi.pnsgd_delta(pts[None, :], **dict(kw, noise_scale=x[:, None])), dtype=np.float64)
    stop = ~(dec > tail)
    em = pts[np.argmax(stop, axis=1)]
    ok = stop.any(axis=1) & (em / h + 1 <= _MAX_PROFILE)
    counts = np.where(ok, np.ceil(em / h) + 1, 0).astype(np.int64)
    if counts.sum() > 2**24:  # (memory) fewer elements at a time
        raise DomainError("too many profile samples in one round: judged in halves")
    offsets = np.concatenate([[0], np.cumsum(counts)])
    grid = (np.arange(offsets[-1]) - np.repeat(offsets[:-1], counts)) * h
    vals = np.asarray(pabi.pnsgd_delta(grid, **dict(kw, noise_scale=np.repeat(x, counts))), dtype=np.float64)
    up, mass, errors = _core.pld_profiles_composed_epsilon(h, np.ascontiguousarray(vals), offsets.tolist(),
                                                          setup.epochs, _COMPOSE_TAIL, np.ascontiguousarray(delta))
    missed, undefined = failed_elements(x.size, errors)
    return (np.asarray(up) <= eps) & ~missed, ~ok | undefined, np.where(missed, math.nan, _guide(up, mass, eps, delta))


def _guide(up: NDArray[np.float64], mass: NDArray[np.float64], eps: NDArray[np.float64],
           delta: NDArray[np.float64]) -> NDArray[np.float64]:
    """The value whose ratio to ``eps`` guides the search for the least noise of multi-epoch
    PNSGD (never the verdict): with r = ``eps``·(``mass`` / δ), ``mass`` being what the certified
    upper ε takes from δ before solving (the composed +∞ mass, the tails and the round-off; the ε
    is +∞ once it reaches δ), max(ε, r) where ε is finite, r where it is +∞. Its ratio
    to ``eps`` is continuous across the edge where ε jumps from a finite value to +∞ as the
    noise falls (there the mass crosses δ: the ratio crosses 1), so the value-guided search
    interpolates to that edge (the answer of a loose target) in a few probes instead of
    bisecting ~50 doubles across the jump; away from it (the mass far below δ) the guide is ε.
    A met element (finite ε ≤ eps, mass < δ) keeps a ratio ≤ 1, a missed one ≥ 1."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = eps * (np.asarray(mass, dtype=np.float64) / delta)
        up = np.asarray(up, dtype=np.float64)
        return np.where(up < math.inf, np.maximum(up, r), r)


def _smallest_eps(delta_at: Any, delta: float, bounded_domain: bool) -> float:
    """The smallest double ε ≥ 0 with ``delta_at(ε) <= delta``, for a certified δ(ε) that is
    non-increasing in ε: the setups' one search for an ε where no core inverse exists (the
    online schedule's limit δ_∞, :class:`pabi.OnlinePNSGD` with ``steps=None``), by the same
    exact search over the bit patterns of doubles as :func:`_least_noise` (``_core.first_ok``,
    guided by the ratio δ(ε)/delta).
    ``bounded_domain``: the ε at which ``delta_at`` is undefined (a DomainError; from some ε on)
    end the search: +inf when no ε below them meets the target. Its exact counterpart is
    ``pabi.reference._calibrate.smallest_eps`` (bisection in mpmath on the exact δ)."""
    from . import _core

    def met(x: float) -> tuple[bool, float]:  # the verdict, and δ(x)/delta to guide the probes
        d = float(delta_at(x))
        return bool(d <= delta), d / delta

    if not bounded_domain:
        return _core.first_ok(met, 1.0)

    def undefined(e: float) -> bool:
        try:
            delta_at(e)
        except DomainError:
            return True
        return False

    end = _core.first_ok(undefined, 1.0)
    e = _core.first_ok(lambda x: (True, math.nan) if x >= end else met(x), 1.0)
    return math.inf if e >= end else e
