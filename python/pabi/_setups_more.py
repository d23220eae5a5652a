"""More training setups (issue 16): per-step PNSGD, online decaying noise, the last-iterate
theorems one at a time, and ERM with output perturbation — each with the four questions of
:mod:`pabi.setups` (δ(ε), ε(δ), the profile, and ``calibrate``: the least noise, or the
constant that scales it, whose certified bound meets a target (ε, δ)).

Every calibration is the exact search over the doubles of :func:`pabi.setups._least_noise`:
the smallest double of the calibrated field at which the setup's own certified bound meets the
target, checked once more on the returned setup, so the noise is never too small. The RDP
setups (:class:`LastIterateSGD`, :class:`ERMGradientDescent`) test ε(δ) (their forward
question: the RDP curve converted by ``pabi.rdp_to_dp_epsilon``); the amplification-by-iteration
setups (:class:`StepwisePNSGD`, :class:`OnlinePNSGD`) test δ(ε), whose exact smallest-double
inverse is their ε(δ). ``least_noise`` over many targets runs the same search in lock-step
(:mod:`pabi._lockstep`; each element the scalar ``calibrate``'s to the bit); for
:class:`StepwisePNSGD` each round's candidate noise sequences are one parallel core call
(``_core.pnsgd_stepwise_delta_factors``). Derivations: docs/derivations/pnsgd.md#per-step-calibration,
docs/derivations/schedules.md#online-calibration, docs/derivations/rdp.md#last-iterate-calibration
and docs/derivations/rdp.md#erm-calibration.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Optional

import numpy as np
from numpy.typing import NDArray

from ._bridge import DomainError, choice, domain_error, int_scalar, real_array, real_scalar
from .setups import (Neighboring, Noise, _check_target, _least_noise, _nonneg, _opt_nonneg,
                     _opt_positive, _positive, _Questions, _set)
from ._lockstep import _smallest_eps

__all__ = ["StepwisePNSGD", "OnlinePNSGD", "LastIterateSGD", "ERMGradientDescent"]


def _seq(name: str, value: Any) -> Any:
    """A per-step argument: a float for a scalar, else a read-only 1-D float64 array."""
    if np.ndim(value) == 0:
        return real_scalar(name, value)
    arr = real_array(name, value, ndim=1).copy()
    arr.setflags(write=False)
    return arr


def _replace_one(setup: Any) -> None:
    if setup.neighboring != "replace_one":
        raise DomainError(f"the {type(setup).__name__} bounds are for replace-one neighbours "
                          "(neighboring = 'add_remove')")


# ---------------------------------------------------------------------------------------------
# PNSGD with per-step parameters


@dataclass(frozen=True, eq=False)
class StepwisePNSGD(_Questions):
    """PNSGD whose noise, clipping norm, learning rate, diameter, smoothness and strong convexity
    change from step to step (warm-up, decay, clipping schedules), one record per step, the
    last iterate released; replace-one neighbours (docs/derivations/pnsgd.md#per-step).

    Each of ``noise_scale`` (the noise shape σ_t⁰ or v_t⁰), ``max_grad_norm`` L_t, ``lr`` η_t,
    ``diameter`` D_t, ``smoothness`` β_t and ``strong_convexity`` ρ_t is a scalar or a 1-D array
    (one entry per step, or per piece with ``run_lengths``), as in
    :func:`pabi.pnsgd_stepwise_delta`. The noise of step t is ``noise_factor`` × σ_t⁰ (each
    product rounded to nearest, and that rounded sequence is what is bounded): ``calibrate``
    scales the whole noise sequence by the least factor c that meets a target. For a constant
    noise with per-step lr/clipping, pass ``noise_scale=1.0`` and read the noise off
    ``noise_factor``.

    Primary bound: :func:`pabi.pnsgd_stepwise_delta` / ``pnsgd_stepwise_epsilon`` (ordering
    ``"shuffled"``, ``"random_stop"`` or ``"fixed"`` with ``index``).

    >>> import pabi
    >>> run = pabi.StepwisePNSGD(noise_scale=1.0, max_grad_norm=1.0, lr=[0.5, 0.1], diameter=1.0,
    ...                          run_lengths=[50, 50])
    >>> out = run.calibrate(1.0, 1e-5)
    >>> out.delta(1.0) <= 1e-5 < run.replace(noise_factor=out.noise_factor * (1 - 1e-9)).delta(1.0)
    True
    """

    noise_scale: Any
    max_grad_norm: Any
    lr: Any
    diameter: Any
    noise_factor: float = 1.0
    run_lengths: Optional[Any] = None
    ordering: Literal["shuffled", "random_stop", "fixed"] = "shuffled"
    index: Optional[int] = None
    smoothness: Optional[Any] = None
    strong_convexity: Any = 0.0
    noise: Noise = "gaussian"
    neighboring: Neighboring = "replace_one"

    calibrated_field: ClassVar[str] = "noise_factor"

    def __post_init__(self) -> None:
        _set(self, noise_scale=_seq("noise_scale", self.noise_scale),
             max_grad_norm=_seq("max_grad_norm", self.max_grad_norm), lr=_seq("lr", self.lr),
             diameter=_seq("diameter", self.diameter), noise_factor=_positive("noise_factor", self.noise_factor),
             strong_convexity=_seq("strong_convexity", self.strong_convexity),
             ordering=choice("ordering", self.ordering, ("shuffled", "random_stop", "fixed")),
             noise=choice("noise", self.noise, ("gaussian", "laplace")),
             neighboring=choice("neighboring", self.neighboring, ("replace_one", "add_remove")))
        if self.smoothness is not None:
            _set(self, smoothness=_seq("smoothness", self.smoothness))
        if self.run_lengths is not None:
            _set(self, run_lengths=_seq("run_lengths", self.run_lengths))
        if self.index is not None:
            _set(self, index=int_scalar("index", self.index))
        import pabi

        pabi.pnsgd_stepwise_delta(1.0, **self.bound_arguments())  # every check of the bound, up front

    @property
    def noise_scales(self) -> Any:
        """The noise of each step (or piece): ``noise_factor`` × ``noise_scale``, rounded to nearest."""
        with np.errstate(over="ignore"):  # an overflow is +inf, which the bound rejects
            return np.multiply(self.noise_factor, self.noise_scale)

    def bound_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``pabi.pnsgd_stepwise_delta`` / ``pnsgd_stepwise_epsilon``."""
        return dict(noise=self.noise, noise_scale=self.noise_scales, max_grad_norm=self.max_grad_norm, lr=self.lr,
                    diameter=self.diameter, ordering=self.ordering, index=self.index, smoothness=self.smoothness,
                    strong_convexity=self.strong_convexity, run_lengths=self.run_lengths)

    def _delta_all(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        import pabi

        _replace_one(self)
        return np.asarray(pabi.pnsgd_stepwise_delta(eps, **self.bound_arguments()), dtype=np.float64)

    def _epsilon(self, delta: float) -> float:
        import pabi

        _replace_one(self)
        return float(pabi.pnsgd_stepwise_epsilon(delta, **self.bound_arguments()))

    def calibrate(self, eps: float, delta: float) -> "StepwisePNSGD":
        """A copy whose ``noise_factor`` c is the smallest double with δ(``eps``) ≤ ``delta`` for
        the noise sequence c·σ_t⁰ (equivalently ε(``delta``) ≤ ``eps``), by the exact search over
        the doubles; DomainError naming ``noise_factor`` when no finite factor meets the target."""
        e, d = _check_target(eps, delta)
        _replace_one(self)
        return _least_noise(self, "noise_factor", e, d, question="delta")

    def _met_many(self, x: NDArray[np.float64], eps: NDArray[np.float64],
                  delta: NDArray[np.float64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.float64]]:
        """``calibrate``'s test at noise factors ``x``, targets (``eps``, ``delta``): (δ(eps) ≤
        delta, undefined), every candidate sequence x[j]·σ_t⁰ in one core call (in parallel),
        each δ the scalar bound's to the bit; an element where the bound fails misses the target or
        is undefined (:func:`pabi._lockstep.failed_elements`)."""
        from . import _core
        from ._lockstep import failed_elements
        from .pnsgd import _stepwise

        kw = dict(self.bound_arguments(), noise_scale=self.noise_scale)
        xs = np.ascontiguousarray(x, dtype=np.float64)
        r: Any = _stepwise(lambda lead, args, *_: _core.pnsgd_stepwise_delta_factors(lead, xs, args, True),
                           ("eps", eps), noise=kw.pop("noise"), ordering=kw.pop("ordering"),
                           index=kw.pop("index"), run_lengths=kw.pop("run_lengths"), steps=None, values=kw)
        d, errors = r  # the binding's pair: (δ, the failed elements' errors)
        missed, undefined = failed_elements(x.size, errors)
        return (np.asarray(d) <= delta) & ~missed, undefined, np.where(missed, np.nan, d)

    def _least_noise_all(self, eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...]) -> NDArray[np.float64]:
        from ._lockstep import least_noise_many  # the lock-step search over every target

        return least_noise_many(self, "noise_factor", eps, delta, shape, self._met_many,
                                lambda: _replace_one(self), question="delta")


# ---------------------------------------------------------------------------------------------
# Online PNSGD with decaying noise


@dataclass(frozen=True)
class OnlinePNSGD(_Questions):
    """Online PNSGD (Sordello–Bu–Dong §6): a stream of records, one per step, with the decaying
    noise schedule of step j, Laplace v_j = M·D/(2η·ln(j^α/C1 + C2)) (eq. (12), Thm 6) or
    Gaussian σ_j = M·D/(2η·sqrt(W0(j^{2α}/(2πC1²) + C2))) (eq. (14), Thm 7), α = ``decay`` > 1;
    the privacy of the record at step ``index`` after ``steps`` steps (None: the limit n → ∞,
    through the certified upper bound of δ_∞). ``max_grad_norm`` L, ``lr`` η, ``diameter`` D,
    ``smoothness``/``strong_convexity`` (they set the step contraction M). Replace-one
    neighbours; convex loss.

    Primary bound: ``pabi.online_*_delta`` / ``online_*_epsilon`` at a horizon, and
    ``pabi.online_*_delta_limit_upper`` in the limit, whose ε is the smallest double that
    meets δ (``pabi._lockstep._smallest_eps``, the setups' one search for an ε; its exact mpmath
    counterpart is ``pabi.reference._calibrate.smallest_eps``). ``calibrate`` sets ``c1`` (C1
    scales the noise up) for a target at this horizon, or for the limit target with
    ``steps=None`` (docs/derivations/schedules.md#online-calibration).

    >>> import pabi
    >>> run = pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=100.0,
    ...                        decay=1.5, steps=1000)
    >>> out = run.calibrate(1.0, 1e-10)
    >>> out.delta(1.0) <= 1e-10 < run.replace(c1=out.c1 * (1 - 1e-9)).delta(1.0)
    True
    """

    index: int
    lr: float
    max_grad_norm: float
    diameter: float
    c1: float
    c2: float
    decay: float
    steps: Optional[float] = None
    noise: Noise = "gaussian"
    smoothness: Optional[float] = None
    strong_convexity: float = 0.0
    neighboring: Neighboring = "replace_one"

    calibrated_field: ClassVar[str] = "c1"

    def __post_init__(self) -> None:
        _set(self, index=int_scalar("index", self.index), lr=_positive("lr", self.lr),
             max_grad_norm=_nonneg("max_grad_norm", self.max_grad_norm), diameter=_positive("diameter", self.diameter),
             c1=_positive("c1", self.c1), c2=_nonneg("c2", self.c2), decay=_positive("decay", self.decay),
             noise=choice("noise", self.noise, ("gaussian", "laplace")),
             smoothness=_opt_positive("smoothness", self.smoothness),
             strong_convexity=_nonneg("strong_convexity", self.strong_convexity),
             neighboring=choice("neighboring", self.neighboring, ("replace_one", "add_remove")))
        if self.steps is not None:
            _set(self, steps=float(int_scalar("steps", self.steps, self.index, 2**53 - 1)))
        # the bound's own checks (decay > 1, the domain at ε = 0), up front; for the limit through
        # the one-step bound δ_i(i) = A_i, which makes the same checks at no cost
        self._forward(np.zeros(1), self.steps if self.steps is not None else float(self.index))

    def _bound_name(self, question: Literal["delta", "epsilon", "delta_limit_upper"]) -> str:
        """The name of the flat function of this noise family answering ``question``:
        ``online_gaussian_delta``, ``online_laplace_epsilon``, ... (``"delta_limit_upper"``: the
        certified upper bound of the limit δ_∞, the bound of ``steps=None``)."""
        return f"online_{'gaussian' if self.noise == 'gaussian' else 'laplace'}_{question}"

    def bound_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``pabi.online_*_delta`` / ``online_*_epsilon`` at the horizon
        ``steps``; with ``steps=None`` (no ``steps`` key) those of ``online_*_delta_limit_upper``."""
        return self._arguments(self.c1, self.steps)

    def _arguments(self, c1: Any, steps: Optional[float]) -> dict[str, Any]:
        """:meth:`bound_arguments` with the constant ``c1`` (a scalar or an array) and the horizon
        ``steps`` (None: the limit, no ``steps`` key)."""
        horizon = {} if steps is None else {"steps": steps}
        return dict(max_grad_norm=self.max_grad_norm, lr=self.lr, diameter=self.diameter, **horizon,
                    index=self.index, c1=c1, c2=self.c2, decay=self.decay, smoothness=self.smoothness,
                    strong_convexity=self.strong_convexity)

    def _forward(self, eps: NDArray[np.float64], steps: Optional[float] = None) -> NDArray[np.float64]:
        return self._forward_with(eps, self.c1, self.steps if steps is None else steps)

    def _delta_all(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        _replace_one(self)
        return self._forward(eps)

    def _epsilon(self, delta: float) -> float:
        import pabi

        _replace_one(self)
        if self.steps is None:
            return _smallest_eps(lambda e: float(self._forward(np.array([e]))[0]), delta, self.noise == "laplace")
        return float(getattr(pabi, self._bound_name("epsilon"))(delta, **self.bound_arguments()))

    def calibrate(self, eps: float, delta: float) -> "OnlinePNSGD":
        """A copy whose schedule constant ``c1`` is the smallest double with δ(``eps``) ≤ ``delta``
        at this horizon (``steps``; None: the limit δ_∞), by the exact search over the doubles;
        the Laplace bound at ε is defined only for C1·(e^{ε/2} − C2) < index^α, and the search
        stays below that end. DomainError naming ``c1`` when no accepted C1 meets it (e.g. a floor of δ as
        C1 → ∞ when C2 > 0)."""
        e, d = _check_target(eps, delta)
        _replace_one(self)
        # each probe judged by the array tests of least_noise (one core call, no replace)
        return _least_noise(self, "c1", e, d, question="delta",
                            defined=None if self.noise == "gaussian" else lambda s: self._defined(s, e),
                            met_many=self._met_many, accepted_many=lambda x: self._accepted_many(x, np.full(x.size, e)))

    @staticmethod
    def _defined(s: "OnlinePNSGD", e: float) -> bool:
        """Whether the Laplace bound of ``s`` is defined at ε = e: it needs index^α + C1·C2 >
        C1·e^{ε/2}, so it ends above in C1."""
        try:
            s.delta(e)
        except DomainError:
            return False
        return True

    def _forward_defined(self, eps: NDArray[np.float64], c1: NDArray[np.float64],
                         values: bool = True) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """The primary bound at ``eps`` with constants ``c1`` (arrays of one length), element by
        element the scalar values (NaN where undefined), and where C1 is accepted and the bound
        defined: ``replace(c1=x)`` accepts x and ``_defined`` holds at ε (in one core call,
        ``pabi.schedules._online_defined``; ``values`` False: the mask only). A C1 that is not
        positive and finite is replace's error (not passed on); for the others, the bound
        defined at ε is defined at ε = 0, the check replace makes (the Laplace domain only
        shrinks as ε grows, ``OnlineSchedule::defined_at`` in the core; replace's other checks
        hold at every C1 or are this call's too). A DomainError where the core rejects some
        element otherwise (none is known: those are judged one by one)."""
        from .schedules import _online_defined

        ok = (c1 > 0) & (c1 < np.inf)
        vals, defined = np.full(c1.size, np.nan), np.zeros(c1.size, dtype=bool)
        if ok.any():
            v, d = _online_defined(eps[ok], self.noise == "laplace", values, **self._arguments(c1[ok], self.steps))
            vals[ok], defined[ok] = v, d
        return vals, defined

    def _met_many(self, x: NDArray[np.float64], eps: NDArray[np.float64],
                  delta: NDArray[np.float64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.float64]]:
        """:meth:`calibrate`'s test at constants ``x``: (verdicts, undefined), the bound of every
        element in one core call; a C1 replace rejects or where the bound is undefined is
        judged one by one (the scalar rule)."""
        vals, defined = self._forward_defined(eps, x)
        return vals <= delta, ~defined, vals

    def _accepted_many(self, x: NDArray[np.float64], eps: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Whether each C1 of ``x`` is an accepted value of :meth:`calibrate`'s Laplace search at
        ε = ``eps`` (replace accepts it and ``_defined`` holds): the mask of
        :meth:`_forward_defined`, no bound computed."""
        return self._forward_defined(eps, x, values=False)[1]

    def _forward_with(self, eps: NDArray[np.float64], c1: Any, steps: Optional[float]) -> NDArray[np.float64]:
        """The primary bound at ``eps`` with constant ``c1`` (a scalar or an array) after ``steps``
        steps (None: the limit)."""
        import pabi

        fn = getattr(pabi, self._bound_name("delta_limit_upper" if steps is None else "delta"))
        return np.asarray(fn(eps, **self._arguments(c1, steps)), dtype=np.float64)

    def _least_noise_all(self, eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...]) -> NDArray[np.float64]:
        from ._lockstep import least_noise_many  # the lock-step search over every target

        # the end of the accepted values by the mask of the core (no replace, no bound computed;
        # the Gaussian bound is defined wherever C1 is accepted)
        one = self._defined if self.noise == "laplace" else lambda s, e: True
        return least_noise_many(self, "c1", eps, delta, shape, self._met_many, lambda: _replace_one(self), "delta",
                                (one, self._accepted_many))


# ---------------------------------------------------------------------------------------------
# The last-iterate theorems (Kong–Ribero), one at a time


class _RdpSetup(_Questions):
    """A setup answered by an RDP curve over ``pabi.DEFAULT_ORDERS`` (``_curve``), converted to
    (ε, δ) by ``pabi.rdp_to_dp_epsilon`` / ``rdp_to_dp_delta`` (tight conversion)."""

    def _curve(self) -> NDArray[np.float64]:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def rdp(self) -> NDArray[np.float64]:
        """The RDP curve of the setup at ``pabi.DEFAULT_ORDERS`` (each value rounded up)."""
        return self._curve()

    def _epsilon(self, delta: float) -> float:
        import pabi

        return float(pabi.rdp_to_dp_epsilon(delta, orders=pabi.DEFAULT_ORDERS, rdp=self._curve()).eps)

    def _delta_all(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        import pabi

        # one core call for every ε (the loop in the core)
        return np.asarray(pabi.rdp_to_dp_delta(eps, orders=pabi.DEFAULT_ORDERS, rdp=self._curve())[0],
                          dtype=np.float64)

    def calibrate(self, eps: float, delta: float) -> Any:
        """A copy whose ``noise_scale`` is the smallest double with ε(``delta``) ≤ ``eps`` (the
        RDP curve converted by ``pabi.rdp_to_dp_epsilon``), by the exact search over the
        doubles; DomainError naming ``noise_scale`` when no finite value meets the target."""
        e, d = _check_target(eps, delta)
        _replace_one(self)
        return _least_noise(self, "noise_scale", e, d)

    def _curves_at(self, x: NDArray[np.float64]) -> NDArray[np.float64]:  # pragma: no cover - overridden
        """The RDP curves at ``pabi.DEFAULT_ORDERS`` with ``noise_scale`` = each x: shape (x.size, orders)."""
        raise NotImplementedError

    def _met_many(self, x: NDArray[np.float64], eps: NDArray[np.float64],
                  delta: NDArray[np.float64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.float64]]:
        """:meth:`calibrate`'s test at noise scales ``x`` (verdicts, none undefined, ε): every curve in one call (orders × x
        broadcast), converted row by row in one core call (``_core.rdp_to_dp_epsilon_rows``)."""
        import pabi

        from . import _core

        if not np.all((x > 0) & (x < np.inf)):
            raise DomainError("a noise scale replace rejects: judged one by one")
        o = np.asarray(pabi.DEFAULT_ORDERS, dtype=np.float64)
        rows = np.ascontiguousarray(np.broadcast_to(self._curves_at(x), (x.size, o.size)), dtype=np.float64)
        e = np.asarray(_core.rdp_to_dp_epsilon_rows(o, rows.reshape(-1), delta))
        return e <= eps, np.zeros(x.size, dtype=bool), e

    def _least_noise_all(self, eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...]) -> NDArray[np.float64]:
        from ._lockstep import least_noise_many  # the lock-step search over every target

        return least_noise_many(self, "noise_scale", eps, delta, shape, self._met_many, lambda: _replace_one(self))


def _need(setup: Any, names: tuple[str, ...], why: str) -> None:
    for n in names:
        if getattr(setup, n) is None:
            raise domain_error(n, f"given ({why})", None)


@dataclass(frozen=True)
class LastIterateSGD(_RdpSetup):
    """The last iterate of noisy (clipped) SGD bounded by one chosen theorem of Kong–Ribero, with
    the noise ``noise_scale`` σ given on the iterate (for DP-SGD's noise multiplier z on a
    batch sum, σ = lr·z·C/b; :class:`pabi.CyclicDPSGD` takes the best applicable theorem):

    * ``theorem="general"`` (Thm 4.3, any loss): ``steps`` T; with ``batch_size`` and
      ``batches_per_epoch`` the exact residual sum of its proof, else the printed 8αT(λC/σ)²
      (:func:`pabi.last_iterate_rdp_general`);
    * ``"bounded"`` (Thm 4.4, a projection set of ``diameter`` D): ``batch_size``,
      ``weak_convexity``, ``smoothness`` (:func:`pabi.last_iterate_rdp_bounded`);
    * ``"cyclic"`` (Thm 4.5, corrected indexing): ``steps``, ``batch_size``,
      ``batches_per_epoch``, ``weak_convexity``, ``smoothness``, optional ``index`` t*
      (:func:`pabi.last_iterate_rdp_cyclic`).

    ``lr`` λ, ``max_grad_norm`` C (the clipping norm), ``contraction`` of the clipped step
    (``"triangle"``, proven). Replace-one neighbours. Answers through the RDP curve at
    ``pabi.DEFAULT_ORDERS`` and ``pabi.rdp_to_dp_epsilon``/``rdp_to_dp_delta``;
    ``calibrate`` sets ``noise_scale`` (docs/derivations/rdp.md#last-iterate-calibration).

    >>> import pabi
    >>> run = pabi.LastIterateSGD(theorem="general", lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100)
    >>> out = run.calibrate(1.0, 1e-5)
    >>> out.epsilon(1e-5) <= 1.0 < run.replace(noise_scale=out.noise_scale * (1 - 1e-9)).epsilon(1e-5)
    True
    """

    theorem: Literal["general", "bounded", "cyclic"]
    lr: float
    max_grad_norm: float
    noise_scale: float
    steps: Optional[int] = None
    batch_size: Optional[int] = None
    batches_per_epoch: Optional[int] = None
    index: Optional[int] = None
    diameter: Optional[float] = None
    weak_convexity: float = 0.0
    smoothness: float = 0.0
    contraction: Literal["triangle", "as_published"] = "triangle"
    neighboring: Neighboring = "replace_one"

    calibrated_field: ClassVar[str] = "noise_scale"

    def __post_init__(self) -> None:
        _set(self, theorem=choice("theorem", self.theorem, ("general", "bounded", "cyclic")),
             lr=_positive("lr", self.lr), max_grad_norm=_nonneg("max_grad_norm", self.max_grad_norm),
             noise_scale=_positive("noise_scale", self.noise_scale), diameter=_opt_nonneg("diameter", self.diameter),
             weak_convexity=_nonneg("weak_convexity", self.weak_convexity),
             smoothness=_nonneg("smoothness", self.smoothness),
             contraction=choice("contraction", self.contraction, ("triangle", "as_published")),
             neighboring=choice("neighboring", self.neighboring, ("replace_one", "add_remove")))
        for n in ("steps", "batch_size", "batches_per_epoch", "index"):
            if getattr(self, n) is not None:
                _set(self, **{n: int_scalar(n, getattr(self, n))})
        if self.theorem == "bounded":
            _need(self, ("batch_size", "diameter"), "theorem = 'bounded'")
            for n in ("steps", "batches_per_epoch", "index"):  # Thm 4.4 is one step's bound: no T, ℓ, t*
                if getattr(self, n) is not None:
                    raise domain_error(n, "None for theorem = 'bounded'", getattr(self, n))
        elif self.theorem == "cyclic":
            _need(self, ("steps", "batch_size", "batches_per_epoch"), "theorem = 'cyclic'")
        else:
            _need(self, ("steps",), "theorem = 'general'")
            if (self.batch_size is None) != (self.batches_per_epoch is None):
                missing = "batch_size" if self.batch_size is None else "batches_per_epoch"
                raise domain_error(missing, "given with the other (the exact residual sum) or neither (the "
                                   "printed bound)", None)
            if self.index is not None and self.batch_size is None:
                raise domain_error("index", "None for the printed bound (no batch_size)", self.index)
        self._curve()  # the theorem's own checks (lr against the smoothness, index range...), up front

    def curve_arguments(self) -> tuple[str, dict[str, Any]]:
        """(name of the flat function, its keyword arguments) of the chosen theorem's RDP curve:
        ``pabi.<name>(pabi.DEFAULT_ORDERS, **kwargs)`` is :meth:`rdp` (``pabi.bounds`` writes
        its repro with it)."""
        kw: dict[str, Any] = dict(lr=self.lr, max_grad_norm=self.max_grad_norm, noise_scale=self.noise_scale)
        if self.theorem == "general":
            kw.update(steps=self.steps, batch_size=self.batch_size, batches_per_epoch=self.batches_per_epoch,
                      index=self.index)
            return "last_iterate_rdp_general", kw
        kw.update(batch_size=self.batch_size, weak_convexity=self.weak_convexity, smoothness=self.smoothness,
                  contraction=self.contraction)
        if self.theorem == "bounded":
            kw.update(diameter=self.diameter)
            return "last_iterate_rdp_bounded", kw
        kw.update(steps=self.steps, batches_per_epoch=self.batches_per_epoch, index=self.index)
        return "last_iterate_rdp_cyclic", kw

    def _curve(self) -> NDArray[np.float64]:
        import pabi

        name, kw = self.curve_arguments()
        return np.asarray(getattr(pabi, name)(pabi.DEFAULT_ORDERS, **kw), dtype=np.float64)

    def _curves_at(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        import pabi

        name, kw = self.curve_arguments()
        o = np.asarray(pabi.DEFAULT_ORDERS, dtype=np.float64)
        return np.asarray(getattr(pabi, name)(o[None, :], **dict(kw, noise_scale=x[:, None])), dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# ERM: mini-batch gradient descent with output perturbation (Chen–Lee–Kifer)


@dataclass(frozen=True)
class ERMGradientDescent(_RdpSetup):
    """Mini-batch gradient descent on a loss of strong convexity ``strong_convexity`` μ and
    smoothness ``smoothness`` L whose per-example gradients are bounded by ``max_grad_norm`` R, run noiselessly
    for ``epochs`` passes (None: to convergence, k → ∞) over ``batches_per_epoch`` m batches of
    ``batch_size`` records with step ``lr``, then released with Gaussian noise of standard
    deviation ``noise_scale`` σ on the output (Chen–Lee–Kifer, Prop. 2 and 3; replace-one
    neighbours).

    ``batch_order="fixed"``: the record is in batch ``batch_index`` (None: the worst, m), the
    Gaussian mechanism's RDP αΔ_j²/(2σ²) with the multi-epoch sensitivity Δ_j of
    :func:`pabi.sensitivity_multi_epoch`; ``"random"``: the record's batch is uniform over the m
    batches (a random partition), the averaged RDP of Prop. 3 (:func:`pabi.averaged_rdp`) over
    Δ_1..Δ_m (default). Answers through the RDP curve at ``pabi.DEFAULT_ORDERS``; ``calibrate`` sets
    ``noise_scale`` (docs/derivations/rdp.md#erm-calibration).

    >>> import pabi
    >>> run = pabi.ERMGradientDescent(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0,
    ...                               batch_size=10, batches_per_epoch=10, noise_scale=1.0)
    >>> out = run.calibrate(1.0, 1e-5)
    >>> out.epsilon(1e-5) <= 1.0 < run.replace(noise_scale=out.noise_scale * (1 - 1e-9)).epsilon(1e-5)
    True
    """

    lr: float
    strong_convexity: float
    smoothness: float
    max_grad_norm: float
    batch_size: int
    batches_per_epoch: int
    noise_scale: float
    epochs: Optional[int] = None
    batch_order: Literal["fixed", "random"] = "random"
    batch_index: Optional[int] = None
    neighboring: Neighboring = "replace_one"

    calibrated_field: ClassVar[str] = "noise_scale"

    def __post_init__(self) -> None:
        _set(self, lr=_positive("lr", self.lr), strong_convexity=_positive("strong_convexity", self.strong_convexity),
             smoothness=_positive("smoothness", self.smoothness),
             max_grad_norm=_nonneg("max_grad_norm", self.max_grad_norm),
             batch_size=int_scalar("batch_size", self.batch_size),
             batches_per_epoch=int_scalar("batches_per_epoch", self.batches_per_epoch),
             noise_scale=_positive("noise_scale", self.noise_scale),
             batch_order=choice("batch_order", self.batch_order, ("fixed", "random")),
             neighboring=choice("neighboring", self.neighboring, ("replace_one", "add_remove")))
        if self.epochs is not None:
            _set(self, epochs=int_scalar("epochs", self.epochs))
        if self.batch_index is not None:
            if self.batch_order != "fixed":
                raise domain_error("batch_index", "None unless batch_order = 'fixed'", self.batch_index)
            _set(self, batch_index=int_scalar("batch_index", self.batch_index, 1, self.batches_per_epoch))
        if self.batches_per_epoch > 10**6:
            raise domain_error("batches_per_epoch", "an integer in [1, 10^6]", self.batches_per_epoch)
        self._curve()  # the checks of the bound (lr < 2/smoothness, strong_convexity <= smoothness), up front

    @property
    def record_batch(self) -> int:
        """The batch j of the differing record under ``batch_order="fixed"``: ``batch_index``,
        default the worst, m."""
        return self.batch_index if self.batch_index is not None else self.batches_per_epoch

    def sensitivity_arguments(self, batch_index: Any) -> dict[str, Any]:
        """The keyword arguments of :func:`pabi.sensitivity_multi_epoch` for the batch (or array
        of batches) ``batch_index`` (``pabi.bounds`` writes its repro with them)."""
        return dict(lr=self.lr, strong_convexity=self.strong_convexity, smoothness=self.smoothness,
                    max_grad_norm=self.max_grad_norm, batch_size=float(self.batch_size),
                    batches_per_epoch=self.batches_per_epoch, batch_index=batch_index, epochs=self.epochs)

    def curve_arguments(self, sensitivity: Any, batch_order: Optional[Literal["fixed", "random"]] = None
                        ) -> tuple[str, dict[str, Any]]:
        """(name of the flat function, its keyword arguments) of the RDP curve for
        ``batch_order`` (default the setup's): ``pabi.<name>(pabi.DEFAULT_ORDERS, **kwargs)``.
        ``"random"``: :func:`pabi.averaged_rdp` over ``sensitivity`` = Δ_1..Δ_m (Prop. 3);
        ``"fixed"``: :func:`pabi.gaussian_mechanism_rdp` with ``sensitivity`` = Δ_j of the
        record's batch (Prop. 2)."""
        if (self.batch_order if batch_order is None else batch_order) == "random":
            return "averaged_rdp", dict(noise_scale=self.noise_scale, sensitivities=sensitivity)
        return "gaussian_mechanism_rdp", dict(sensitivity=sensitivity, noise_scale=self.noise_scale)

    def sensitivities(self) -> NDArray[np.float64]:
        """Δ_j of each batch j = 1..m (``batch_order="random"``) or of the record's batch (a
        1-element array), rounded up (:func:`pabi.sensitivity_multi_epoch`)."""
        return self._sensitivities.copy()

    @functools.cached_property
    def _sensitivities(self) -> NDArray[np.float64]:
        """:meth:`sensitivities`, computed once per setup (read-only): they do not depend on the
        noise, so the lock-step rounds of ``least_noise`` share them."""
        import pabi

        j: Any = (self.record_batch if self.batch_order == "fixed"
                  else np.arange(1, self.batches_per_epoch + 1, dtype=np.float64))
        s = np.atleast_1d(np.asarray(pabi.sensitivity_multi_epoch(**self.sensitivity_arguments(j)), dtype=np.float64))
        s.setflags(write=False)
        return s

    def _curve_at(self, orders: Any, noise_scale: Any) -> NDArray[np.float64]:
        """The RDP curve of the setup's batch order at ``orders`` with ``noise_scale`` (arrays
        broadcast: one curve a row)."""
        import pabi

        s = self._sensitivities
        name, kw = self.curve_arguments(float(s[0]) if self.batch_order == "fixed" else s)
        return np.asarray(getattr(pabi, name)(orders, **dict(kw, noise_scale=noise_scale)), dtype=np.float64)

    def _curve(self) -> NDArray[np.float64]:
        import pabi

        return self._curve_at(pabi.DEFAULT_ORDERS, self.noise_scale)

    def _curves_at(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """The RDP curves at every noise scale of ``x`` (rows) over ``pabi.DEFAULT_ORDERS``."""
        import pabi

        return self._curve_at(np.asarray(pabi.DEFAULT_ORDERS, dtype=np.float64)[None, :], x[:, None])
