"""Training setups as values: one small frozen, validated type per algorithm pabi bounds.

A setup states what was run (the algorithm, its noise, its sampling) and what is known about
the loss (convexity, smoothness, the projection set). Every setup answers the same questions
the same way:

* ``setup.delta(eps)`` — a certified upper bound on δ at ``eps`` (scalar or array);
* ``setup.epsilon(delta)`` — a certified upper bound on ε at ``delta``;
* ``setup.profile(eps)`` — δ over a grid of ε (the privacy profile; an array);
* ``setup.calibrate(eps, delta)`` — a copy of the setup whose noise meets the target (ε, δ),
  certified on the safe side (the noise is never too small).

Each question is answered by the setup's primary bound (named in the class docstring); every
other bound that applies to the setup, ranked, comes from :func:`pabi.bounds`. A question whose
theorem's assumptions the setup does not meet is a :class:`pabi.DomainError` naming the missing
assumption, never a number; a question pabi cannot answer yet for a setup raises
``NotImplementedError`` saying so.

Parameter names are the glossary's (docs/glossary.md): ``noise_scale`` is the standard
deviation (Laplace: the scale) of the noise in the units of the gradient it is added to, and
``noise_multiplier`` DP-SGD's noise standard deviation over the clipping norm.

>>> import pabi
>>> run = pabi.PNSGD(records=1000, lr=0.05, noise_scale=4.0, max_grad_norm=1.0, diameter=1.0,
...                  smoothness=10.0, convex=True)
>>> round(run.epsilon(1e-5), 6)
1.561742
>>> quieter = run.calibrate(1.0, 1e-5)
>>> quieter.noise_scale > run.noise_scale and quieter.epsilon(1e-5) <= 1.0
True
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Optional, TypeVar, Union, overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._bridge import DomainError, _index, as_real, choice, domain_error, flag, int_scalar, real_scalar, rename
from ._lockstep import _accepts_one_by, _meets_one_by, _met, composed_pnsgd_met

__all__ = ["PNSGD", "DPSGD", "CyclicDPSGD", "ScheduledPNSGD", "Setup"]

Noise = Literal["gaussian", "laplace"]
Neighboring = Literal["replace_one", "add_remove"]
S = TypeVar("S", bound="_Questions")


def _positive(name: str, value: object) -> float:
    v = real_scalar(name, value)
    if not (v > 0 and math.isfinite(v)):
        raise domain_error(name, "> 0 and finite", v)
    return v


def _nonneg(name: str, value: object) -> float:
    v = real_scalar(name, value)
    if not (v >= 0 and math.isfinite(v)):
        raise domain_error(name, ">= 0 and finite", v)
    return v


def _opt_positive(name: str, value: object) -> Optional[float]:
    return None if value is None else _positive(name, value)


def _opt_nonneg(name: str, value: object) -> Optional[float]:
    return None if value is None else _nonneg(name, value)


class _fields_named:
    """Re-label a DomainError of the flat function a setup calls with the setup's field name
    (PNSGD's ``records`` is the flat functions' ``steps``)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ: Any, exc: Any, tb: Any) -> None:
        if isinstance(exc, DomainError) and getattr(exc, "param", None) in self.names:
            raise rename(exc, exc.param, self.names[exc.param]) from None  # type: ignore[attr-defined]


def _set(obj: object, **values: Any) -> None:
    for k, v in values.items():
        object.__setattr__(obj, k, v)


class _Questions:
    """The four questions, in terms of the two a setup implements (δ(ε) and ε(δ))."""

    def _delta(self, eps: float) -> float:
        return float(self._delta_all(np.array([eps]))[0])

    def _epsilon(self, delta: float) -> float:  # pragma: no cover - every setup overrides it
        raise NotImplementedError

    @overload
    def delta(self, eps: float) -> float: ...
    @overload
    def delta(self, eps: NDArray[Any] | list[float]) -> NDArray[np.float64]: ...
    def delta(self, eps: ArrayLike) -> Union[float, NDArray[np.float64]]:
        """A certified upper bound on δ at ``eps`` ≥ 0 (a float for a scalar, else an array)."""
        arr = np.asarray(eps, dtype=float)
        if arr.ndim == 0:
            return self._delta(_nonneg("eps", float(arr)))
        bad = ~(arr >= 0)
        if bad.any():
            k = int(np.argmax(bad.reshape(-1)))
            raise domain_error("eps", ">= 0", float(arr.reshape(-1)[k]), k)
        flat = np.ascontiguousarray(arr.reshape(-1))
        return np.asarray(self._delta_all(flat), dtype=float).reshape(arr.shape)

    def _delta_all(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        """δ at every ε of a 1-D array (each ≥ 0, checked): one vectorised call of the setup's
        bound (each setup overrides this)."""
        raise NotImplementedError  # pragma: no cover

    def epsilon(self, delta: float) -> float:
        """A certified upper bound on ε at ``delta`` ∈ (0, 1)."""
        d = real_scalar("delta", delta)
        if not 0 < d < 1:
            raise domain_error("delta", "in (0, 1)", d)
        return self._epsilon(d)

    def profile(self, eps: ArrayLike) -> NDArray[np.float64]:
        """The privacy profile: certified upper bounds on δ at each ``eps`` (always an array)."""
        return np.atleast_1d(np.asarray(self.delta(np.asarray(eps, dtype=float)), dtype=float))

    def replace(self: S, **changes: Any) -> S:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    #: the field ``calibrate`` sets (the noise, or the constant that scales it)
    calibrated_field: ClassVar[str] = ""

    def calibrate(self: S, eps: float, delta: float) -> S:  # pragma: no cover - every setup overrides it
        raise NotImplementedError

    def least_noise(self, eps: ArrayLike, delta: ArrayLike) -> NDArray[np.float64]:
        """The calibrated value of ``calibrated_field`` (``noise_scale``, ``noise_multiplier``,
        ``noise_factor`` or ``c1``) for every target: ``eps`` and ``delta`` broadcast together
        (numpy rules) and the result, an array of the broadcast shape (0-d for two scalars),
        holds at each element exactly ``getattr(self.calibrate(e, d), self.calibrated_field)``.
        Every target is checked first (``eps`` > 0 and finite, ``delta`` in (0, 1): a
        DomainError with the first bad index of that argument); a target no value meets is the
        scalar ``calibrate``'s DomainError, located at its index in the broadcast shape.

        How: one-epoch :class:`PNSGD` and :class:`DPSGD` are one core call (DP-SGD's targets in
        parallel); the other setups run the exact search of ``calibrate`` for every target in
        lock-step (:func:`pabi._lockstep.least_noise_many`: per round one array evaluation of the
        bound, or for multi-epoch PNSGD one parallel core call building a PLD per target, each
        element probing the scalar search's doubles; for ``StepwisePNSGD`` one parallel core
        call over the round's candidate noise sequences; for the online Laplace schedule the end
        of C1's domain at each ε too, one core call a round)."""
        e = np.asarray(as_real("eps", eps), dtype=np.float64)
        d = np.asarray(as_real("delta", delta), dtype=np.float64)
        shape = np.broadcast_shapes(e.shape, d.shape)
        for name, arr, ok in (("eps", e, (e > 0) & (e < math.inf)), ("delta", d, (d > 0) & (d < 1))):
            if not ok.all():
                k = int(np.argmin(ok.reshape(-1)))
                where = None if arr.ndim == 0 else _index(k, arr.shape)
                raise domain_error(name, "> 0 and finite" if name == "eps" else "in (0, 1)",
                                   float(arr.reshape(-1)[k]), tuple(int(i) for i in where)
                                   if isinstance(where, tuple) else where)
        ef = np.ascontiguousarray(np.broadcast_to(e, shape)).reshape(-1)
        df = np.ascontiguousarray(np.broadcast_to(d, shape)).reshape(-1)
        return self._least_noise_all(ef, df, shape).reshape(shape)

    def _least_noise_all(self, eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...]) -> NDArray[np.float64]:
        """:meth:`least_noise` on checked, flat, equally long targets: the scalar ``calibrate``
        per distinct target (a setup with an array calibration overrides this)."""
        out = np.empty(eps.size, dtype=np.float64)
        seen: dict[tuple[float, float], float] = {}
        for i, (e, d) in enumerate(zip(eps.tolist(), delta.tolist())):
            if (e, d) not in seen:
                seen[(e, d)] = self._calibrated_at(e, d, i, shape)
            out[i] = seen[(e, d)]
        return out

    def _or_scalar_error(self, out: NDArray[np.float64], eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...], errors: Optional[dict[int, BaseException]] = None
                         ) -> NDArray[np.float64]:
        """``out``, the calibrated values of an array calibration, where each element that is not
        a positive finite double (a failed target, or a value ``replace`` rejects) is the scalar
        ``calibrate``'s: its error, at the first such index (``errors``: the scalar calibration's
        exception of the targets that failed, raised without calibrating them again)."""
        for i in np.flatnonzero(~((out > 0) & (out < math.inf))):
            if errors is not None and int(i) in errors:
                raise self._located(errors[int(i)], int(i), shape)
            out[i] = self._calibrated_at(float(eps[i]), float(delta[i]), int(i), shape)
        return out

    def _calibrated_at(self, eps: float, delta: float, i: int, shape: tuple[int, ...]) -> float:
        """The calibrated field of the scalar ``calibrate(eps, delta)`` for target ``i`` of
        :meth:`least_noise`: its error as :meth:`_located` raises it."""
        try:
            return float(getattr(self.calibrate(eps, delta), self.calibrated_field))
        except DomainError as exc:
            raise self._located(exc, i, shape)

    @staticmethod
    def _located(exc: BaseException, i: int, shape: tuple[int, ...]) -> BaseException:
        """The scalar ``calibrate``'s error ``exc`` for target ``i`` of :meth:`least_noise`: a
        DomainError located at that index of ``shape`` (chained to ``exc``); an error of the
        setup itself, without a parameter, as it is."""
        if not isinstance(exc, DomainError) or getattr(exc, "param", None) is None:
            return exc
        located = domain_error(exc.param, exc.allowed, exc.value,  # type: ignore[attr-defined]
                               None if not shape else _index(i, shape))
        located.__cause__ = exc
        return located


def _check_target(eps: object, delta: object) -> tuple[float, float]:
    e = _positive("eps", eps)
    d = real_scalar("delta", delta)
    if not 0 < d < 1:
        raise domain_error("delta", "in (0, 1)", d)
    return e, d


def _least_noise(setup: S, field: str, eps: float, delta: float, question: Literal["epsilon", "delta"] = "epsilon",
                 defined: Optional[Any] = None, met_many: Any = None, accepted_many: Any = None) -> S:
    """A copy of ``setup`` whose ``field`` (its noise, or the constant that scales it) is the
    smallest double x with ``setup.replace(field=x).epsilon(delta) <= eps``, for a setup whose ε
    falls as ``field`` grows. ``question="delta"``: the target is tested through the forward
    bound instead, ``setup.replace(field=x).delta(eps) <= delta`` (the same set of x where ε(δ)
    is the exact smallest-double inverse of that δ(ε); one evaluation of δ instead of a search).
    ``defined(s)``: for a bound whose domain ends ABOVE (undefined for every larger value, e.g.
    the online Laplace schedule at a given ε), the values it rejects end the accepted values too.
    ``met_many``, ``accepted_many``: the setup's array tests (of ``least_noise``), which judge each
    probe where cheaper (:func:`pabi._lockstep._meets_one_by`: the same verdicts and ratios).

    The core's exact search over the bit patterns of doubles (``_core.first_ok``; ``num::bisect``)
    is guided by the ratio ε(x)/eps (or δ(x)/delta) at each probe, ~10-25 evaluations where it is
    smooth, ≤ ~2·64 + 8 always; the verdicts alone decide (the result meets the target, its
    predecessor misses it). A value the setup rejects, or where its bound is undefined (a
    DomainError, e.g. too little noise for the PLD's grid), misses the target; at or above the end
    of the accepted values (the first value rejected above the current one, found by the same
    search) the target counts as met (a monotone predicate): a search ending there finds no
    accepted value that meets it, a DomainError naming ``field``. The result is checked once more."""
    from . import _core

    end = _core.first_ok(lambda x: not _accepts_one_by(accepted_many, setup, field, x, defined), getattr(setup, field))
    undefined: list[DomainError] = []  # the bound's errors met on the way (the last one is kept)

    def meets(x: float) -> tuple[bool, float]:
        return (True, math.nan) if x >= end else _meets_one_by(met_many, setup, field, x, eps, delta, question, undefined)

    x = _core.first_ok(meets, float(getattr(setup, field)))
    if x >= end:
        why = f"; the bound was undefined at some values: {undefined[0]}" if undefined else ""
        what = f"epsilon <= {eps!r} at delta = {delta!r}" if question == "epsilon" else \
            f"delta <= {delta!r} at eps = {eps!r}"
        raise domain_error(field, f"a value with {what} (none "
                           f"{'is finite' if end == math.inf else f'below {end!r}, where the setup ends'}{why})",
                           end) from (undefined[0] if undefined else None)
    out = setup.replace(**{field: x})
    if not _met(out, eps, delta, question):  # pragma: no cover - the search returns a value that meets it
        raise AssertionError(f"calibrated {field} = {x!r} misses the target")
    return out


# ---------------------------------------------------------------------------------------------
# PNSGD


@dataclass(frozen=True)
class PNSGD(_Questions):
    """Projected noisy SGD: one record per step, the per-record gradient plus noise, the
    iterates projected onto a convex set of diameter ``diameter``, the last iterate released
    (Asoodeh–Diaz–Calmon §3; Sordello–Bu–Dong §2); replace-one neighbours.

    Fields: ``records`` n (an epoch is n steps), ``lr`` η, ``noise_scale`` (std of the Gaussian
    noise on each gradient, or the Laplace scale), ``max_grad_norm`` L (every per-record
    gradient norm ≤ L), ``diameter`` D of the projection set (None: unconstrained),
    ``smoothness`` β and ``strong_convexity`` ρ of the loss (None / 0: not assumed), ``convex``
    (the loss is convex), ``weak_convexity`` m of a non-convex loss (used by the last-iterate
    bounds of :func:`pabi.bounds`), ``noise`` ``"gaussian"``/``"laplace"``, ``ordering`` of the records
    (``"shuffled"``: a fresh random permutation per epoch; ``"random_stop"``: one epoch, output
    at a uniform step; ``"fixed"``: a fixed order, the differing record at ``index``, default
    the worst, n), ``epochs`` E, ``dimension`` of the parameters (Laplace noise needs 1),
    ``neighboring`` (the bounds are for ``"replace_one"``).

    Primary bound: amplification by iteration (``pabi.pnsgd_delta``/``pnsgd_epsilon``, Sordello–
    Bu–Dong Thms 1–2); for ``epochs`` > 1 with shuffled order the per-epoch profile composed by
    the PLD (``pabi.multi_epoch_epsilon``'s certified ``pld`` route, Sordello–Bu–Dong §5). It
    needs a convex, β-smooth loss with η ≤ 2/(β + ρ), a bounded projection set, and Gaussian
    noise or Laplace noise in dimension 1.
    """

    records: int
    lr: float
    noise_scale: float
    max_grad_norm: float
    diameter: Optional[float] = None
    smoothness: Optional[float] = None
    strong_convexity: float = 0.0
    convex: bool = False
    weak_convexity: float = 0.0
    noise: Noise = "gaussian"
    ordering: Literal["shuffled", "random_stop", "fixed"] = "shuffled"
    index: Optional[int] = None
    epochs: int = 1
    dimension: Optional[int] = None
    neighboring: Neighboring = "replace_one"

    calibrated_field: ClassVar[str] = "noise_scale"

    def __post_init__(self) -> None:
        _set(self, records=int_scalar("records", self.records), lr=_positive("lr", self.lr),
             noise_scale=_positive("noise_scale", self.noise_scale),
             max_grad_norm=_nonneg("max_grad_norm", self.max_grad_norm),
             diameter=_opt_nonneg("diameter", self.diameter),
             smoothness=_opt_positive("smoothness", self.smoothness),
             strong_convexity=_nonneg("strong_convexity", self.strong_convexity),
             convex=flag("convex", self.convex), weak_convexity=_nonneg("weak_convexity", self.weak_convexity),
             noise=choice("noise", self.noise, ("gaussian", "laplace")),
             ordering=choice("ordering", self.ordering, ("shuffled", "random_stop", "fixed")),
             epochs=int_scalar("epochs", self.epochs),
             neighboring=choice("neighboring", self.neighboring, ("replace_one", "add_remove")))
        if self.index is not None:
            if self.ordering != "fixed":
                raise domain_error("index", "None unless ordering = 'fixed'", self.index)
            _set(self, index=int_scalar("index", self.index, 1, self.records))
        if self.dimension is not None:
            _set(self, dimension=int_scalar("dimension", self.dimension))
        if self.smoothness is not None and self.strong_convexity > self.smoothness:
            raise domain_error("strong_convexity", f"<= smoothness ({self.smoothness})", self.strong_convexity)
        if self.strong_convexity > 0 and self.smoothness is None:
            raise domain_error("strong_convexity", "0 unless smoothness is given", self.strong_convexity)

    # -- the theorem's assumptions, each (text, satisfied, detail): pabi.bounds lists them
    def assumptions(self) -> list[tuple[str, bool, str]]:
        """The assumptions of the amplification-by-iteration bounds, each as (text, satisfied
        by this setup, detail)."""
        beta, rho = self.smoothness, self.strong_convexity
        lr_max = None if beta is None else 2.0 / (beta + rho)
        noise_ok = self.noise == "gaussian" or self.dimension == 1
        return [
            ("convex loss", self.convex, "" if self.convex else "convex = False"),
            ("bounded convex constraint set (diameter D)", self.diameter is not None,
             "" if self.diameter is not None else "diameter not given"),
            ("beta-smooth loss with lr <= 2/(beta + rho) (gradient step M-Lipschitz)",
             lr_max is not None and self.lr <= lr_max,
             "smoothness not given" if lr_max is None else f"lr = {self.lr:g}, 2/(beta+rho) = {lr_max:.6g}"),
            ("Gaussian noise, or Laplace noise in dimension 1", noise_ok,
             "" if noise_ok else f"Laplace noise needs dimension = 1 (dimension = {self.dimension})"),
            ("replace-one neighbours", self.neighboring == "replace_one", f"neighboring = {self.neighboring}"),
        ]

    def _require(self) -> None:
        fields = {"convex": "convex", "bounded": "diameter", "beta-smooth": "smoothness" if self.smoothness is None
                  else "lr", "Gaussian": "dimension", "replace-one": "neighboring"}
        for text, ok, detail in self.assumptions():
            if not ok:
                field = next(f for k, f in fields.items() if text.startswith(k))
                err = DomainError(f"PNSGD amplification by iteration needs: {text} ({detail})")
                err.param, err.allowed, err.value, err.index = (  # type: ignore[attr-defined]
                    field, text, getattr(self, field), None)
                raise err
        if self.epochs > 1 and self.ordering != "shuffled":
            raise NotImplementedError(f"PNSGD with ordering = {self.ordering!r} over {self.epochs} epochs: "
                                      "pabi composes epochs for the shuffled ordering only")

    def bound_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``pabi.pnsgd_delta``/``pnsgd_epsilon`` for one epoch."""
        kw: dict[str, Any] = dict(noise=self.noise, noise_scale=self.noise_scale, max_grad_norm=self.max_grad_norm,
                                  lr=self.lr, diameter=self.diameter, steps=self.records, ordering=self.ordering,
                                  smoothness=self.smoothness, strong_convexity=self.strong_convexity)
        if self.ordering == "fixed":
            kw["index"] = self.records if self.index is None else self.index
        return kw

    def epoch_profile(self, eps: ArrayLike) -> Any:
        """δ(ε) of ONE epoch (``pabi.pnsgd_delta``), the profile the epochs compose."""
        import pabi

        return pabi.pnsgd_delta(eps, **self.bound_arguments())

    def epoch_log_profile(self, eps: ArrayLike) -> Any:
        """ln δ(ε) of one epoch (``pabi.pnsgd_delta(..., log=True)``)."""
        import pabi

        return pabi.pnsgd_delta(eps, **self.bound_arguments(), log=True)

    def _composed(self) -> Any:
        import pabi

        return pabi.PrivacyLossDistribution.from_profile(self.epoch_profile).compose(self.epochs)

    def _delta_all(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        self._require()
        with _fields_named({"steps": "records"}):
            if self.epochs == 1:
                return np.asarray(self.epoch_profile(eps), dtype=float)
            return np.asarray(self._composed().delta(eps).upper, dtype=float)

    def _epsilon(self, delta: float) -> float:
        import pabi

        self._require()
        with _fields_named({"steps": "records"}):
            if self.epochs == 1:
                return float(pabi.pnsgd_epsilon(delta, **self.bound_arguments()))
            return float(self._composed().epsilon(delta).upper)

    def calibrate(self, eps: float, delta: float) -> "PNSGD":
        """A copy whose ``noise_scale`` is the smallest (certified) one with ε ≤ ``eps`` at
        ``delta``: one epoch by ``pabi.pnsgd_calibrate_noise_scale``; several epochs by the exact
        search over the doubles of the composed ε (see :func:`_least_noise`), the smallest
        double whose composed certified ε meets the target."""
        import pabi

        e, d = _check_target(eps, delta)
        self._require()
        if self.epochs > 1:
            return _least_noise(self, "noise_scale", e, d, met_many=lambda *a: composed_pnsgd_met(self, *a))
        kw = self.bound_arguments()
        del kw["noise_scale"]
        with _fields_named({"steps": "records"}):
            return self.replace(noise_scale=float(pabi.pnsgd_calibrate_noise_scale(e, d, **kw)))

    def _least_noise_all(self, eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...]) -> NDArray[np.float64]:
        """One epoch: ``pabi.pnsgd_calibrate_noise_scale`` over the arrays in one call (element-wise,
        the scalar calibration's values; a value ``calibrate`` rejects is its error, at the first
        such index); several epochs: the lock-step search (:func:`pabi._lockstep.least_noise_many`),
        each round's PLDs, one per target, built and composed by the core in parallel
        (:func:`pabi._lockstep.composed_pnsgd_met`)."""
        import pabi

        if self.epochs > 1:
            from .composition import _MAX_COUNT

            if self.epochs > _MAX_COUNT:  # beyond compose's count: every target is calibrate's error
                return super()._least_noise_all(eps, delta, shape)
            from ._lockstep import composed_pnsgd_met, least_noise_many

            return least_noise_many(self, "noise_scale", eps, delta, shape,
                                    lambda x, e, d: composed_pnsgd_met(self, x, e, d), self._require)
        self._require()
        kw = self.bound_arguments()
        del kw["noise_scale"]
        with _fields_named({"steps": "records"}):
            out = np.asarray(pabi.pnsgd_calibrate_noise_scale(eps, delta, **kw), dtype=np.float64).reshape(-1)
        return self._or_scalar_error(out, eps, delta, shape)


# ---------------------------------------------------------------------------------------------
# DP-SGD with Poisson sampling


@dataclass(frozen=True)
class DPSGD(_Questions):
    """DP-SGD with subsampled batches: ``sampling="poisson"`` (default; every record joins each
    step's batch independently with probability ``sample_rate``) or ``"without_replacement"``
    (a uniformly random batch of fixed size b out of n records each step, ``sample_rate`` =
    b/n); the clipped gradients' sum gets Gaussian noise of standard deviation
    ``noise_multiplier`` × clipping norm; ``steps`` steps. ``neighboring``: ``"add_remove"``
    (default; Poisson sampling only, the worse direction) or ``"replace_one"``
    (docs/derivations/neighbouring.md). Primary bound: the certified PLD accountant
    (``pabi.dpsgd_delta``/``dpsgd_epsilon``, grid ``grid_step``); calibration of the noise
    multiplier by ``pabi.dpsgd_calibrate_noise_multiplier``.

    >>> import pabi
    >>> round(pabi.DPSGD(sample_rate=0.01, noise_multiplier=1.0, steps=1000).epsilon(1e-5), 3)
    1.828
    >>> round(pabi.DPSGD(sample_rate=0.01, noise_multiplier=1.0, steps=1000,
    ...                  neighboring="replace_one").epsilon(1e-5), 3)
    2.843
    """

    sample_rate: float
    noise_multiplier: float
    steps: int
    neighboring: Neighboring = "add_remove"
    grid_step: float = 1e-4
    sampling: Literal["poisson", "without_replacement"] = "poisson"

    calibrated_field: ClassVar[str] = "noise_multiplier"

    def __post_init__(self) -> None:
        from ._dpsgd import relation

        q = real_scalar("sample_rate", self.sample_rate)
        if not 0 < q <= 1:
            raise domain_error("sample_rate", "in (0, 1]", q)
        nb, sa = relation(self.neighboring, self.sampling)
        _set(self, sample_rate=q, noise_multiplier=_positive("noise_multiplier", self.noise_multiplier),
             steps=int_scalar("steps", self.steps, 1, 10**12), neighboring=nb, sampling=sa,
             grid_step=_positive("grid_step", self.grid_step))

    def _relation(self) -> dict[str, Any]:
        """``neighboring``/``sampling`` where they are not the accountant's defaults."""
        r: dict[str, Any] = {}
        if self.neighboring != "add_remove":
            r["neighboring"] = self.neighboring
        if self.sampling != "poisson":
            r["sampling"] = self.sampling
        return r

    def bound_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``pabi.dpsgd_delta``/``dpsgd_epsilon``."""
        return dict(sample_rate=self.sample_rate, noise_multiplier=self.noise_multiplier, steps=self.steps,
                    grid_step=self.grid_step, **self._relation())

    def _delta_all(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        from . import _core

        # one composition (pair) for every ε (the profile of the run)
        return np.asarray(_core.dpsgd_delta_upper_all(self.sample_rate, self.noise_multiplier, float(self.steps),
                                                      eps, self.grid_step, self.neighboring, self.sampling))

    def _epsilon(self, delta: float) -> float:
        import pabi

        return float(pabi.dpsgd_epsilon(delta, **self.bound_arguments()))

    def calibrate(self, eps: float, delta: float) -> "DPSGD":
        """A copy whose ``noise_multiplier`` is the smallest (certified, to relative 1e-4) with
        ε ≤ ``eps`` at ``delta``."""
        import pabi

        e, d = _check_target(eps, delta)
        z = pabi.dpsgd_calibrate_noise_multiplier(e, d, sample_rate=self.sample_rate, steps=self.steps,
                                                  grid_step=self.grid_step, **self._relation())
        return self.replace(noise_multiplier=float(z))

    def _least_noise_all(self, eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...]) -> NDArray[np.float64]:
        """Every distinct target calibrated by the core in one call, in parallel
        (:func:`pabi._dpsgd.calibrate_many`: each element the scalar calibration's value); a
        target it cannot calibrate is :meth:`calibrate`'s error at its first index (the core's,
        not calibrated again)."""
        from ._dpsgd import calibrate_many

        out, errors = calibrate_many(eps, delta, sample_rate=self.sample_rate, steps=self.steps,
                                     grid_step=self.grid_step, neighboring=self.neighboring, sampling=self.sampling)
        return self._or_scalar_error(out, eps, delta, shape, errors)


# ---------------------------------------------------------------------------------------------
# DP-SGD with fixed-size batches in cyclic or shuffled order (last-iterate analyses)


@dataclass(frozen=True)
class CyclicDPSGD(_Questions):
    """DP-SGD with fixed-size batches: ``records`` split into batches of ``batch_size`` taken
    in a fixed (``ordering="cyclic"``) or reshuffled order each epoch, ``epochs`` passes, step
    size ``lr``, per-record gradients clipped to ``max_grad_norm`` C, Gaussian noise of standard
    deviation ``noise_multiplier`` × C on the clipped sum, the last iterate released;
    replace-one neighbours (Kong–Ribero, Alg. 1: the noise on the iterate is lr·z·C/b).

    Loss facts (optional): ``weak_convexity`` m, ``smoothness`` M, ``diameter`` of the domain,
    ``clipping_inactive`` (every per-record gradient norm is ≤ C, so clipping never acts).

    Primary bound: the smallest last-iterate Rényi DP bound whose assumptions hold (Kong–Ribero
    Thms 4.3–4.5, Cor. C.3), converted to (ε, δ) over ``pabi.DEFAULT_ORDERS``; ``calibrate``
    sets ``noise_multiplier`` for it.
    """

    records: int
    batch_size: int
    epochs: int
    lr: float
    max_grad_norm: float
    noise_multiplier: float
    ordering: Literal["cyclic", "shuffled"] = "cyclic"
    weak_convexity: float = 0.0
    smoothness: Optional[float] = None
    diameter: Optional[float] = None
    clipping_inactive: bool = False
    neighboring: Neighboring = "replace_one"

    calibrated_field: ClassVar[str] = "noise_multiplier"

    def __post_init__(self) -> None:
        _set(self, records=int_scalar("records", self.records), epochs=int_scalar("epochs", self.epochs),
             lr=_positive("lr", self.lr), max_grad_norm=_positive("max_grad_norm", self.max_grad_norm),
             noise_multiplier=_positive("noise_multiplier", self.noise_multiplier),
             ordering=choice("ordering", self.ordering, ("cyclic", "shuffled")),
             weak_convexity=_nonneg("weak_convexity", self.weak_convexity),
             smoothness=_opt_nonneg("smoothness", self.smoothness), diameter=_opt_nonneg("diameter", self.diameter),
             clipping_inactive=flag("clipping_inactive", self.clipping_inactive),
             neighboring=choice("neighboring", self.neighboring, ("replace_one", "add_remove")))
        _set(self, batch_size=int_scalar("batch_size", self.batch_size, 1, self.records))
        from ._dpsgd import iterate_noise_std

        if not iterate_noise_std(self.lr, self.noise_multiplier, self.max_grad_norm, float(self.batch_size)) > 0:
            raise domain_error("noise_multiplier", "large enough that the noise on the iterate, "
                               "lr * noise_multiplier * max_grad_norm / batch_size, is a positive double",
                               self.noise_multiplier)

    @property
    def batches_per_epoch(self) -> int:
        """ℓ = records // batch_size (the analyses need batch_size to divide records)."""
        return self.records // self.batch_size

    @property
    def steps(self) -> int:
        """T = epochs × batches_per_epoch."""
        return self.epochs * self.batches_per_epoch

    def _curves(self, noise: Optional[NDArray[np.float64]] = None) -> list[tuple[str, Any]]:
        """(bound id, RDP curve over pabi.DEFAULT_ORDERS) of every last-iterate bound whose
        assumptions hold; with ``noise`` (iterate noise stds, 1-D) each curve at every one of
        them instead of the setup's: an array of shape (noise.size, orders), one call a bound."""
        import pabi

        from ._bounds import _last_iterate_entries

        orders: Any = pabi.DEFAULT_ORDERS
        over: dict[str, Any] = {}
        if noise is not None:
            orders, over = np.asarray(orders, dtype=np.float64)[None, :], {"noise_scale": noise[:, None]}
        out = []
        for e in _last_iterate_entries(self, 0.5):  # which bounds apply does not depend on the noise
            if e.expr is not None:
                fn, kw = e.extra["curve"]
                out.append((e.id, getattr(pabi, fn.split(".")[1])(orders, **dict(kw, **over))))
        if not out:
            why = "; ".join(a.text + (f" ({a.detail})" if a.detail else "")
                            for e in _last_iterate_entries(self, 0.5) for a in e.assumptions if not a.satisfied)
            raise DomainError(f"no last-iterate bound applies to this setup: {why}")
        return out

    def _epsilon(self, delta: float) -> float:
        import pabi

        return min(float(pabi.rdp_to_dp_epsilon(delta, orders=pabi.DEFAULT_ORDERS, rdp=c).eps)
                   for _, c in self._curves())

    def _delta_all(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        import pabi

        # each curve once, converted at every ε in one core call; the smallest δ per ε
        return np.minimum.reduce([np.asarray(pabi.rdp_to_dp_delta(eps, orders=pabi.DEFAULT_ORDERS, rdp=c)[0],
                                             dtype=float) for _, c in self._curves()])

    def calibrate(self, eps: float, delta: float) -> "CyclicDPSGD":
        """A copy whose ``noise_multiplier`` is the smallest double with ε ≤ ``eps`` at ``delta``
        for the primary bound (the smallest ε of the last-iterate bounds that apply), by the exact
        search over the doubles (see :func:`_least_noise`); DomainError naming
        ``noise_multiplier`` when no finite value meets the target."""
        e, d = _check_target(eps, delta)
        self._curves()  # a setup no last-iterate bound applies to is an error before the search
        return _least_noise(self, "noise_multiplier", e, d)

    def _met_many(self, x: NDArray[np.float64], eps: NDArray[np.float64],
                  delta: NDArray[np.float64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.float64]]:
        """:meth:`calibrate`'s test at noise multipliers ``x`` (verdicts, none undefined, ε),
        targets (``eps``, ``delta``): each applicable curve with the iterate noise of every x in one call (orders × x broadcast),
        converted row by row in one core call (``_core.rdp_to_dp_epsilon_rows``)."""
        import pabi

        from . import _core
        from ._dpsgd import iterate_noise_std

        if not np.all((x > 0) & (x < math.inf)):
            raise DomainError("a noise multiplier calibrate's replace rejects: judged one by one")
        noise = np.asarray(iterate_noise_std(self.lr, x, self.max_grad_norm, float(self.batch_size)),
                           dtype=np.float64)
        if not np.all(noise > 0):
            raise DomainError("no noise on the iterate: judged one by one")
        o = np.asarray(pabi.DEFAULT_ORDERS, dtype=np.float64)
        best = np.full(x.size, math.inf)
        for _, curves in self._curves(noise):
            rows = np.ascontiguousarray(np.broadcast_to(curves, (x.size, o.size)), dtype=np.float64)
            best = np.minimum(best, _core.rdp_to_dp_epsilon_rows(o, rows.reshape(-1), delta))
        return best <= eps, np.zeros(x.size, dtype=bool), best

    def _least_noise_all(self, eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...]) -> NDArray[np.float64]:
        from ._lockstep import least_noise_many  # the lock-step search over every target

        return least_noise_many(self, "noise_multiplier", eps, delta, shape, self._met_many, self._curves)


# ---------------------------------------------------------------------------------------------
# PNSGD with a noise schedule (fixed horizon)


@dataclass(frozen=True)
class ScheduledPNSGD(_Questions):
    """Shuffled PNSGD over ``steps`` records (one epoch, one record per step) whose noise
    follows a fixed-horizon schedule (Sordello–Bu–Dong §4): Laplace scale
    v(n) = M·D/(2η·ln(n/C1 + C2)) (Thm 3) or Gaussian σ(n) = M·D/(2η·sqrt(W0(n²/(2πC1²) + C2)))
    (Thm 4), with ``c1``, ``c2`` the schedule's constants; ``max_grad_norm`` L, ``lr`` η,
    ``diameter`` D of the projection set, ``smoothness``/``strong_convexity`` of the loss (they
    set the step contraction M). Replace-one neighbours; the loss is convex (the theorems' setting).

    Primary bound: δ(n) of the schedule (``pabi.gaussian_schedule_delta`` /
    ``laplace_schedule_delta``) and its exact inversion in ε (``*_schedule_epsilon``).
    ``noise_scale`` is the noise the schedule applies; ``calibrate`` sets ``c1`` (the constant
    that scales it) for a target at this horizon (``pabi.schedule_calibrate_c1`` calibrates the
    limit δ*).

    >>> import pabi
    >>> run = pabi.ScheduledPNSGD(steps=10**6, lr=0.1, max_grad_norm=10.0, diameter=1.0, c1=1e5, c2=100.0)
    >>> run.delta(run.epsilon(1e-5)) <= 1e-5
    True
    """

    steps: float
    lr: float
    max_grad_norm: float
    diameter: float
    c1: float
    c2: float
    noise: Noise = "gaussian"
    smoothness: Optional[float] = None
    strong_convexity: float = 0.0
    neighboring: Neighboring = "replace_one"

    calibrated_field: ClassVar[str] = "c1"

    def __post_init__(self) -> None:
        _set(self, steps=_positive("steps", self.steps), lr=_positive("lr", self.lr),
             max_grad_norm=_nonneg("max_grad_norm", self.max_grad_norm), diameter=_positive("diameter", self.diameter),
             c1=_positive("c1", self.c1), c2=_nonneg("c2", self.c2),
             noise=choice("noise", self.noise, ("gaussian", "laplace")),
             smoothness=_opt_positive("smoothness", self.smoothness),
             strong_convexity=_nonneg("strong_convexity", self.strong_convexity),
             neighboring=choice("neighboring", self.neighboring, ("replace_one", "add_remove")))
        # the setup's own checks (integral steps, lr against the smoothness, ...), up front
        self._bound_function("delta")(1.0, **self.bound_arguments())

    def _bound_function(self, question: Literal["delta", "epsilon"]) -> Any:
        """The flat function answering ``question`` for this schedule."""
        import pabi

        family = "gaussian" if self.noise == "gaussian" else "laplace"
        return getattr(pabi, f"{family}_schedule_{question}")

    def bound_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``pabi.*_schedule_delta`` / ``*_schedule_epsilon``."""
        return dict(max_grad_norm=self.max_grad_norm, lr=self.lr, diameter=self.diameter, steps=self.steps,
                    c1=self.c1, c2=self.c2, smoothness=self.smoothness, strong_convexity=self.strong_convexity)

    @property
    def noise_scale(self) -> float:
        """The noise level the schedule applies at this horizon (σ(n) or v(n), to nearest)."""
        import pabi

        fn = pabi.gaussian_schedule_noise_scale if self.noise == "gaussian" else pabi.laplace_schedule_noise_scale
        return float(fn(self.steps, c1=self.c1, c2=self.c2, lr=self.lr, diameter=self.diameter,
                        smoothness=self.smoothness, strong_convexity=self.strong_convexity))

    def _require(self) -> None:
        if self.neighboring != "replace_one":
            raise DomainError("the schedule bounds are for replace-one neighbours (neighboring = 'add_remove')")

    def _delta_all(self, eps: NDArray[np.float64]) -> NDArray[np.float64]:
        self._require()
        return np.asarray(self._bound_function("delta")(eps, **self.bound_arguments()), dtype=float)

    def _epsilon(self, delta: float) -> float:
        self._require()
        return float(self._bound_function("epsilon")(delta, **self.bound_arguments()))

    def calibrate(self, eps: float, delta: float) -> "ScheduledPNSGD":
        """A copy whose schedule constant ``c1`` is the smallest double with ε ≤ ``eps`` at
        ``delta`` at this horizon (C1 scales the noise up: v(n) and σ(n) grow with it, and δ(n)
        falls), by the exact search over the doubles (see :func:`_least_noise`); the Laplace
        schedule's C1 ends where steps/C1 + C2 reaches 1. DomainError naming ``c1`` when no
        accepted C1 meets the target. (``pabi.schedule_calibrate_c1`` calibrates the limit δ*.)"""
        e, d = _check_target(eps, delta)
        self._require()
        return _least_noise(self, "c1", e, d)

    def _met_many(self, x: NDArray[np.float64], eps: NDArray[np.float64],
                  delta: NDArray[np.float64]) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.float64]]:
        """:meth:`calibrate`'s test at constants ``x``: ε(δ) of the schedule, broadcast over C1
        (verdicts, none undefined, ε)."""
        kw = dict(self.bound_arguments(), c1=x)
        e = np.asarray(self._bound_function("epsilon")(delta, **kw), dtype=np.float64)
        return e <= eps, np.zeros(x.size, dtype=bool), e

    def _least_noise_all(self, eps: NDArray[np.float64], delta: NDArray[np.float64],
                         shape: tuple[int, ...]) -> NDArray[np.float64]:
        from ._lockstep import least_noise_many  # the lock-step search over every target

        return least_noise_many(self, "c1", eps, delta, shape, self._met_many, self._require)


from ._setups_more import ERMGradientDescent, LastIterateSGD, OnlinePNSGD, StepwisePNSGD  # noqa: E402

__all__ += ["StepwisePNSGD", "OnlinePNSGD", "LastIterateSGD", "ERMGradientDescent"]

# the setups pabi.bounds ranks bounds for
Setup = Union[PNSGD, DPSGD, CyclicDPSGD, ScheduledPNSGD, StepwisePNSGD, OnlinePNSGD, LastIterateSGD, ERMGradientDescent]
