"""Reference answers for the setups of ``pabi._setups_more`` (issue 16): the exact forward value
of each setup's primary bound in mpmath, with the calibrated field set to any real (an
``mpmath.mpf``, not only a double), and the exact calibration, the least value of the field
whose exact forward value meets a target, by bisection on it.

* :class:`pabi.StepwisePNSGD` (field ``noise_factor`` c): δ(ε) of
  :func:`pnsgd_stepwise_delta` with the noise sequence c·σ_t⁰ (exact products);
* :class:`pabi.OnlinePNSGD` (field ``c1``): δ_n(i) (:func:`online_laplace_delta` /
  :func:`online_gaussian_delta`), or the limit δ_∞(i) when ``steps`` is None;
* :class:`pabi.LastIterateSGD`, :class:`pabi.ERMGradientDescent` (field ``noise_scale``):
  ε(δ) of the RDP curve at ``pabi.DEFAULT_ORDERS`` by :func:`rdp_to_dp_epsilon` (tight).
  The last-iterate curves are α·K/σ² (Kong–Ribero Thms 4.3–4.5), so the curve is evaluated
  once at σ = 1 and scaled by 1/σ² exactly.

The setups' one search for an ε (``pabi._lockstep._smallest_eps``, the online limit's ε(δ)) has
its exact counterpart in :func:`pabi.reference._pnsgd.smallest_eps` (bisection on an exact δ(ε),
with an optional end of the domain), re-exported here.

The question each one answers (``"delta"``: δ at the target ε, ``"epsilon"``: ε at the target
δ) is the one the setup's ``calibrate`` tests; both fall as the field grows.
"""

from __future__ import annotations

from typing import Any, Callable

import mpmath as mp

from ._last_iterate import last_iterate_rdp_bounded, last_iterate_rdp_cyclic, last_iterate_rdp_general
from ._pnsgd import bisect_least, pnsgd_stepwise_delta, smallest_eps
from ._rdp import averaged_rdp, rdp_to_dp_epsilon, sensitivity_multi_epoch
from ._rdp_extra import gaussian_mechanism_rdp
from ._schedules import online_schedule_delta, online_schedule_delta_limit

__all__ = ["setup_question", "setup_forward", "setup_calibration", "smallest_eps"]

DEFAULT_DPS = 30

_FIELD = {"StepwisePNSGD": "noise_factor", "OnlinePNSGD": "c1", "LastIterateSGD": "noise_scale",
          "ERMGradientDescent": "noise_scale"}


def setup_question(setup: Any) -> tuple[str, str]:
    """(calibrated field, question) of a setup: ``("noise_factor", "delta")`` etc."""
    name = type(setup).__name__
    return _FIELD[name], ("delta" if name in ("StepwisePNSGD", "OnlinePNSGD") else "epsilon")


def _orders() -> list:
    import pabi

    return [float(a) for a in pabi.DEFAULT_ORDERS]


def _last_iterate_unit_curve(s: Any, dps: int) -> list:
    """The last-iterate RDP curve of ``s`` at σ = 1 (the curve at σ is this over σ²)."""
    out = []
    for a in _orders():
        if s.theorem == "general":
            out.append(last_iterate_rdp_general(a, s.lr, s.max_grad_norm, 1, s.steps, s.batch_size,
                                                s.batches_per_epoch, s.index, dps=dps + 10))
        elif s.theorem == "bounded":
            out.append(last_iterate_rdp_bounded(a, s.lr, s.max_grad_norm, s.batch_size, 1, s.diameter,
                                                s.weak_convexity, s.smoothness, s.contraction, dps=dps + 10))
        else:
            out.append(last_iterate_rdp_cyclic(a, s.lr, s.max_grad_norm, s.batch_size, 1, s.steps,
                                               s.batches_per_epoch, s.weak_convexity, s.smoothness, s.index,
                                               contraction=s.contraction, dps=dps + 10))
    return out


def _erm_curve(s: Any, sigma: Any, dps: int) -> list:
    m = s.batches_per_epoch
    if s.batch_order == "fixed":
        j = s.batch_index if s.batch_index is not None else m
        d = sensitivity_multi_epoch(s.lr, s.strong_convexity, s.smoothness, s.max_grad_norm, s.batch_size, m, j,
                                    s.epochs, dps=dps + 10)
        return [gaussian_mechanism_rdp(a, d, sigma, dps=dps + 10) for a in _orders()]
    ds = [sensitivity_multi_epoch(s.lr, s.strong_convexity, s.smoothness, s.max_grad_norm, s.batch_size, m, j,
                                  s.epochs, dps=dps + 10) for j in range(1, m + 1)]
    return [averaged_rdp(a, sigma, ds, dps=dps + 10) for a in _orders()]


def _c1_end(s: Any, eps: float, dps: int) -> Any:
    """Where the online Laplace bound at ``eps`` ends in C1: it needs i^α + C1·C2 > C1·e^{ε/2},
    i.e. C1 < i^α/(e^{ε/2} − C2) when C2 < e^{ε/2}; None where it does not end (Gaussian)."""
    if type(s).__name__ != "OnlinePNSGD" or s.noise != "laplace":
        return None
    with mp.workdps(dps + 10):
        gap = mp.exp(mp.mpf(eps) / 2) - mp.mpf(s.c2)
        return mp.mpf(s.index) ** mp.mpf(s.decay) / gap if gap > 0 else None


def _forward_fn(setup: Any, target: float, dps: int) -> Callable[[Any], mp.mpf]:
    """x ↦ the exact forward value of ``setup`` with its field set to x, at ``target`` (ε for
    the δ question, δ for the ε question)."""
    s = setup
    name = type(s).__name__
    if name == "StepwisePNSGD":
        kw = s.bound_arguments()
        del kw["noise_scale"]
        base = s.noise_scale

        def f(x: Any) -> mp.mpf:
            with mp.workdps(dps + 10):
                c = mp.mpf(x)
                ns = [c * mp.mpf(float(v)) for v in base] if hasattr(base, "__len__") else c * mp.mpf(base)
            return pnsgd_stepwise_delta(target, noise_scale=ns, dps=dps, **kw)
        return f
    if name == "OnlinePNSGD":
        args = dict(max_grad_norm=s.max_grad_norm, lr=s.lr, diameter=s.diameter, index=s.index, c2=s.c2,
                    decay=s.decay, smoothness=s.smoothness, strong_convexity=s.strong_convexity, dps=dps)
        cap = _c1_end(s, target, dps)

        def h(x: Any) -> mp.mpf:
            if cap is not None and mp.mpf(x) >= cap:
                return mp.inf  # outside the Laplace bound's domain: nothing is certified
            if s.steps is None:
                return online_schedule_delta_limit(s.noise, target, c1=x, **args)
            return online_schedule_delta(s.noise, target, steps=int(s.steps), c1=x, **args)
        return h
    orders = _orders()
    if name == "LastIterateSGD":
        unit = _last_iterate_unit_curve(s, dps)

        def g(x: Any) -> mp.mpf:
            with mp.workdps(dps + 10):
                curve = [u / mp.mpf(x) ** 2 for u in unit]
            return rdp_to_dp_epsilon(orders, curve, target, dps=dps + 10)[0]
        return g
    if name == "ERMGradientDescent":
        return lambda x: rdp_to_dp_epsilon(orders, _erm_curve(s, x, dps), target, dps=dps + 10)[0]
    raise TypeError(f"no reference for {name}")


def setup_forward(setup: Any, x: Any, target: float, dps: int = DEFAULT_DPS) -> mp.mpf:
    """The exact forward value of ``setup``'s primary bound with its calibrated field set to
    ``x`` (any real): δ at ε = ``target`` (PNSGD setups) or ε at δ = ``target`` (RDP setups)."""
    return _forward_fn(setup, target, dps)(x)


def setup_calibration(setup: Any, eps: float, delta: float, dps: int = DEFAULT_DPS, rel: float = 1e-13) -> mp.mpf:
    """The exact calibration: the least x with forward(x) ≤ target (δ(``eps``) ≤ ``delta``, or
    ε(``delta``) ≤ ``eps``), by doubling to a bracket from the setup's current value, then
    bisection to relative width ``rel``; returns the upper end of the last bracket (it meets
    the target). The online Laplace bound's domain ends above in C1 (:func:`_c1_end`): the
    bracket approaches that end geometrically instead of doubling past it."""
    field, question = setup_question(setup)
    f = _forward_fn(setup, eps if question == "delta" else delta, dps)
    goal = mp.mpf(delta if question == "delta" else eps)
    with mp.workdps(dps + 10):
        cap = _c1_end(setup, eps, dps)
        x = mp.mpf(getattr(setup, field))
        if cap is not None and x >= cap:
            x = cap / 2
        lo, hi = x, x
        for _ in range(4000):
            if f(hi) <= goal:
                break
            lo, hi = hi, (hi * 2 if cap is None else min(hi * 2, (hi + cap) / 2))
        else:
            raise ValueError("the target is not met below the end of the bound's domain (or at any C1 found)")
        while lo == hi or f(lo) <= goal:
            lo = lo / 2
        return bisect_least(f, goal, lo, hi, rel)
