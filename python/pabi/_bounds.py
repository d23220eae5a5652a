"""``pabi.bounds(setup, delta)``: every bound pabi has for a training setup, ranked.

Each bound is a :class:`Bound` record: its value (ε at the target δ), the assumptions it needs
(each marked satisfied or not by the setup), the paper and section it rests on, whether it is a
certificate, and a ``repro`` string — a Python expression over ``pabi`` (and ``np``) that
evaluates to exactly the same number. The value is computed FROM that expression's parts
(:class:`_Expr` builds the text and the computation from one description), so the two cannot
drift; tests/test_bounds.py evaluates every ``repro`` of the example configurations.

Ranking: a bound is **valid** when every assumption holds, it is a certificate (the GDP route of
several PNSGD epochs is optimistic, docs/errata.md#p-c23) and it is not **vacuous**. A finite ε
is vacuous at δ when ε > ln(1/δ): then e^{-ε} < δ, and the (ε, δ) guarantee allows a membership
test whose false-positive rate is below δ to have power above 1 − e^{-ε}·(1 − δ) > 1 − δ — it
protects nothing beyond what δ itself concedes (the hypothesis-testing reading of (ε, δ)-DP,
Kairouz–Oh–Viswanath Thm 2.1). Valid bounds are ranked by ε, smallest first; the smallest is
the best certificate. ``pabi report`` prints this list.

Neighbouring relations: every bound is for one relation (``Bound.neighboring``: the PNSGD,
schedule, last-iterate and per-epoch baselines for replace-one; the DP-SGD accountant for the
setup's own relation, docs/derivations/neighbouring.md; the sampled-Gaussian RDP route for
add-or-remove). Only bounds for the setup's relation are ranked together: an ε under add/remove
and one under replace-one are not the same guarantee.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Optional

from ._bridge import domain_error, real_scalar
import numpy as np

from .setups import (DPSGD, PNSGD, CyclicDPSGD, ERMGradientDescent, LastIterateSGD, OnlinePNSGD, ScheduledPNSGD,
                     Setup, StepwisePNSGD)

__all__ = ["bounds", "Bound", "Assumption", "PROFILE_ORDERS"]

#: Rényi orders of the profile → RDP route of several PNSGD epochs (a 25-point grid on (1, 64]).
PROFILE_ORDERS = (1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 14.0,
                  16.0, 20.0, 24.0, 28.0, 32.0, 40.0, 48.0, 56.0, 64.0)


class Assumption(NamedTuple):
    """One assumption of a bound: its ``text``, whether the setup ``satisfied`` it, and a
    ``detail`` (the values that decided it)."""

    text: str
    satisfied: bool
    detail: str = ""


class Bound(NamedTuple):
    """One bound for a setup at the target ``delta``. ``epsilon`` is None when the bound does
    not apply (an assumption fails) or could not be computed (``note`` says why). ``valid``:
    applicable, certified, finite and not vacuous; ``rank`` 1, 2, ... among the valid ones."""

    id: str
    name: str
    family: str
    source: str
    assumptions: tuple[Assumption, ...]
    delta: float
    epsilon: Optional[float]
    applicable: bool
    certified: bool
    vacuous: bool
    valid: bool
    rank: Optional[int]
    repro: str
    note: str = ""
    seconds: Optional[float] = None
    neighboring: str = ""

    @property
    def unmet(self) -> str:
        """The assumptions that fail, as one line."""
        return "; ".join(a.text + (f" ({a.detail})" if a.detail else "") for a in self.assumptions if not a.satisfied)

    def as_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (``pabi report --json``)."""
        d = dict(self._asdict())
        d["assumptions"] = [{"text": a.text, "satisfied": a.satisfied, "detail": a.detail} for a in self.assumptions]
        return d


# ------------------------------------------------------------------------ expressions


class _Expr:
    """An expression over the public API: its source text and its (memoised) value, built from
    one description so that the value is exactly what evaluating the text gives."""

    def __init__(self, text: str, thunk: Callable[[], Any]) -> None:
        self.text, self._thunk, self._done, self._value = text, thunk, False, None

    def value(self) -> Any:
        if not self._done:
            self._value, self._done = self._thunk(), True
        return self._value

    def __getitem__(self, i: Any) -> "_Expr":
        return _Expr(f"{self.text}[{i!r}]", lambda: self.value()[i])

    def attr(self, name: str) -> "_Expr":
        return _Expr(f"{self.text}.{name}", lambda: getattr(self.value(), name))


class _Named:
    """A public constant written by name (``pabi.DEFAULT_ORDERS``)."""

    def __init__(self, text: str, value: Any) -> None:
        self.text, self.value = text, value


def _text(v: Any) -> str:
    if isinstance(v, (_Expr, _Named)):
        return v.text
    if isinstance(v, float):
        return repr(float(v))
    if isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype == np.float64:  # per-step parameters
        return f"np.array({[float(x) for x in v]!r})"
    return repr(v)


def _val(v: Any) -> Any:
    if isinstance(v, _Expr):
        return v.value()
    if isinstance(v, _Named):
        return v.value
    return v


def _resolve(path: str) -> Any:
    import pabi

    obj: Any = pabi
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def call(path: str, *args: Any, **kw: Any) -> _Expr:
    """``path(*args, **kw)`` as an expression (``path`` = ``"pabi.name"`` or ``"pabi.Class.m"``)."""
    parts = [_text(a) for a in args] + [f"{k}={_text(v)}" for k, v in kw.items()]
    text = f"{path}({', '.join(parts)})"
    return _Expr(text, lambda: _resolve(path)(*[_val(a) for a in args], **{k: _val(v) for k, v in kw.items()}))


def _method(obj: _Expr, name: str, *args: Any, **kw: Any) -> _Expr:
    parts = [_text(a) for a in args] + [f"{k}={_text(v)}" for k, v in kw.items()]
    return _Expr(f"{obj.text}.{name}({', '.join(parts)})",
                 lambda: getattr(obj.value(), name)(*[_val(a) for a in args], **{k: _val(v) for k, v in kw.items()}))


def _setup_expr(setup: Setup) -> _Expr:
    fields = {f.name: getattr(setup, f.name) for f in dataclasses.fields(setup)}  # no ClassVar
    return call(f"pabi.{type(setup).__name__}", **fields)


def _orders() -> _Named:
    import pabi

    return _Named("pabi.DEFAULT_ORDERS", pabi.DEFAULT_ORDERS)


def _rdp_eps(delta: float, curve: _Expr) -> _Expr:
    """ε at ``delta`` of an RDP curve over :data:`pabi.DEFAULT_ORDERS` (the tight conversion)."""
    return call("pabi.rdp_to_dp_epsilon", delta, orders=_orders(), rdp=curve).attr("eps")


def _noise_std_down(lr: float, multiplier: float, clip: float, batch: float) -> float:
    """:func:`pabi._dpsgd.iterate_noise_std` of scalars, as a float."""
    from ._dpsgd import iterate_noise_std

    return float(iterate_noise_std(float(lr), float(multiplier), float(clip), float(batch)))


# ------------------------------------------------------------------------ the catalogue


@dataclass
class _Entry:
    id: str
    name: str
    family: str
    source: str
    assumptions: list[Assumption]
    expr: Optional[_Expr]
    certified: bool = True
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    #: the neighbouring relation the bound is for
    relation: str = "replace_one"


PNSGD_TEXT = "PNSGD: one record per step, noised gradient, last iterate released"


def _replace_one(s: Setup) -> Assumption:
    """The assumption of replace-one neighbours."""
    return Assumption("replace-one neighbours", s.neighboring == "replace_one", f"neighboring = {s.neighboring}")


def _kind(s: Setup, cls: type | tuple[type, ...], text: str) -> Assumption:
    """The assumption that ``s`` is a ``cls`` (its detail names the setup's type when not)."""
    ok = isinstance(s, cls)
    return Assumption(text, ok, "" if ok else f"setup = {type(s).__name__}")


def _pnsgd_entries(s: Setup, delta: float) -> list[_Entry]:
    pn = s if isinstance(s, PNSGD) else None
    kind = [_kind(s, PNSGD, PNSGD_TEXT)]
    common = kind + ([Assumption(t, ok, d) for t, ok, d in pn.assumptions()] if pn is not None else [])
    out: list[_Entry] = []
    E = pn.epochs if pn is not None else 1
    ordering = pn.ordering if pn is not None else None
    one = Assumption("one epoch", E == 1, f"epochs = {E}")
    for oid, order, name, src in [
        ("pnsgd_shuffled", "shuffled", "PNSGD shuffled, amplification by iteration", "Sordello-Bu-Dong Thm 2"),
        ("pnsgd_random_stop", "random_stop", "PNSGD random stop (worst record)",
         "Asoodeh-Diaz-Calmon Thm 5, refined (Sordello-Bu-Dong Sec. 1)"),
        ("pnsgd_fixed", "fixed", "PNSGD fixed order, worst record unless index is given",
         "Sordello-Bu-Dong Thm 1 / Asoodeh-Diaz-Calmon Thms 3-4"),
    ]:
        a = common + [Assumption(f"{order} ordering", ordering == order, f"ordering = {ordering}"), one]
        expr = (call("pabi.pnsgd_epsilon", delta, **pn.bound_arguments())
                if pn is not None and all(x.satisfied for x in a) else None)
        out.append(_Entry(oid, name, "pnsgd", src, a, expr))

    several = Assumption("shuffled ordering, several epochs (each a fresh permutation)",
                         ordering == "shuffled" and E >= 2, f"ordering = {ordering}, epochs = {E}")
    multi: Optional[_Expr] = None
    if pn is not None and all(x.satisfied for x in common) and several.satisfied:
        setup = _setup_expr(pn)
        multi = call("pabi.multi_epoch_epsilon", delta, profile=setup.attr("epoch_profile"), epochs=E,
                     orders=list(PROFILE_ORDERS), log_profile=setup.attr("epoch_log_profile"))
    for route, name, src, cert in [
        ("pld", "whole per-epoch profile composed (PLD)", "Sordello-Bu-Dong Thm 2 + PLD composition", True),
        ("rdp", "per-epoch profile -> RDP, composed", "Sordello-Bu-Dong Thm 2 + profile->RDP bound", True),
        ("single_point", "one (eps, delta) point composed exactly", "Sordello-Bu-Dong Sec. 5 (KOV)", True),
        ("gdp", "dominating GDP mu composed", "Sordello-Bu-Dong Sec. 5 (GDP route)", False),
    ]:
        out.append(_Entry(f"pnsgd_shuffled_epochs_{route}", f"PNSGD shuffled, {E} epochs: {name}", "pnsgd", src,
                          common + [several], None if multi is None else multi.attr(route), certified=cert,
                          note="" if cert else "GDP route: sup of mu over a finite eps range, optimistic "
                          "for the shuffled profile (docs/errata.md#p-c23): not a certificate"))

    # RDP comparison bound (Asoodeh-Diaz-Calmon Prop. 1): fixed order, worst record, epochs added
    rdp_common = kind + ([Assumption(t, ok, d) for t, ok, d in pn.assumptions()
                          if not t.startswith(("bounded", "Gaussian noise,"))] if pn is not None else [])
    a = rdp_common + [Assumption("Gaussian noise", pn is not None and pn.noise == "gaussian",
                                 f"noise = {pn.noise}" if pn is not None else ""),
                      Assumption("fixed ordering", ordering == "fixed", f"ordering = {ordering}")]
    expr = None
    if pn is not None and all(x.satisfied for x in a):
        # RDP adds over epochs: E·c(sigma) = c(sigma/sqrt(E)), sigma/sqrt(E) rounded down
        from . import _core

        sig = pn.noise_scale if E == 1 else float(_core.noise_over_sqrt_count(pn.noise_scale, float(E)))
        expr = call("pabi.pnsgd_rdp_epsilon", delta, noise_scale=sig, max_grad_norm=pn.max_grad_norm, lr=pn.lr,
                    steps=pn.records, index=pn.records if pn.index is None else pn.index,
                    smoothness=pn.smoothness, strong_convexity=pn.strong_convexity)
    out.append(_Entry("pnsgd_rdp", "PNSGD fixed order, worst record, RDP (Feldman/Balle)"
                      + ("" if E == 1 else f", {E} epochs added"), "pnsgd", "Asoodeh-Diaz-Calmon Prop. 1", a, expr))
    return out


class _Run(NamedTuple):
    """The quantities of the last-iterate analyses (Kong–Ribero Alg. 1) for one run."""

    lr: float
    clip: float
    b: int
    divides: bool
    noise: float
    T: int
    ell: int
    m: float
    M: Optional[float]
    diameter: Optional[float]
    ordering: Optional[str]
    unclipped: bool
    gaussian: bool
    neighboring: str


#: the placeholder run of a setup the last-iterate analyses do not model: its values only fill
#: the details of assumptions that fail anyway
_NO_RUN = _Run(lr=1.0, clip=1.0, b=1, divides=False, noise=1.0, T=1, ell=1, m=0.0, M=None, diameter=None,
               ordering=None, unclipped=False, gaussian=False, neighboring="")


def _last_iterate_view(s: Setup) -> Optional[_Run]:
    """The last-iterate run of a setup: PNSGD is the case b = 1, C = L, iterate noise
    lr·noise_scale, clipping inactive; None for a setup these analyses do not model."""
    if isinstance(s, PNSGD):
        return _Run(lr=s.lr, clip=s.max_grad_norm, b=1, divides=True, noise=_noise_std_down(s.lr, s.noise_scale, 1.0, 1.0),
                    T=s.epochs * s.records, ell=s.records, m=0.0 if s.convex else s.weak_convexity,
                    M=s.smoothness, diameter=s.diameter, ordering={"fixed": "cyclic"}.get(s.ordering, s.ordering),
                    unclipped=True, gaussian=s.noise == "gaussian", neighboring=s.neighboring)
    if isinstance(s, CyclicDPSGD):
        return _Run(lr=s.lr, clip=s.max_grad_norm, b=s.batch_size, divides=s.records % s.batch_size == 0,
                    noise=_noise_std_down(s.lr, s.noise_multiplier, s.max_grad_norm, s.batch_size),
                    T=s.steps, ell=s.batches_per_epoch, m=s.weak_convexity, M=s.smoothness, diameter=s.diameter,
                    ordering=s.ordering, unclipped=s.clipping_inactive, gaussian=True, neighboring=s.neighboring)
    return None


def _last_iterate_entries(s: Setup, delta: float) -> list[_Entry]:
    run = _last_iterate_view(s)
    v = _NO_RUN if run is None else run
    base = [Assumption("Gaussian noise", v.gaussian, "" if run is None or v.gaussian else "Laplace noise"),
            Assumption("fixed-size batches in cyclic or shuffled order, b divides n",
                       v.ordering in ("cyclic", "shuffled") and v.divides,
                       f"setup = {type(s).__name__}" if run is None else f"ordering = {v.ordering}, batch_size = {v.b}"),
            Assumption("replace-one neighbours", v.neighboring == "replace_one",
                       "" if run is None else f"neighboring = {v.neighboring}")]
    m, M, lam = v.m, v.M, v.lr
    lam_max = math.inf if M is None or (m + M) == 0 else 1.0 / (2.0 * (m + M))
    step_ok = M is not None and lam <= lam_max
    step_txt = "step size lr <= 1/(2(m + M))"
    step_detail = ("smoothness M not given" if M is None
                   else f"lr = {lam:g}, 1/(2(m+M)) = {lam_max:.6g}")
    Mv = 0.0 if M is None else float(M)
    T, ell = v.T, v.ell
    E = T // ell if ell >= 1 else 0
    model = "as_published" if v.unclipped else "triangle"
    model_txt = ("L_lr = 1 + lr max(m, M) (proven with clipping)" if model == "triangle"
                 else "L_lr from eq. (12) (valid when clipping is inactive); clipping never acts "
                 "(||grad|| <= C), so eq. (12) holds (docs/errata.md#r-k1)")
    cyclic = v.ordering == "cyclic"
    common = dict(max_grad_norm=v.clip, noise_scale=v.noise)
    rows: list[tuple[str, str, str, list[Assumption], str, dict[str, Any]]] = [
        ("last_iterate_general", "last iterate, no curvature assumption", "Kong-Ribero Thm 4.3",
         [Assumption("clipped gradients (or every ||grad|| <= C)", True),
          Assumption("batches chosen independently of the data (any order)", True)],
         "pabi.last_iterate_rdp_general", dict(lr=lam, **common, steps=T)),
        ("last_iterate_bounded", "last iterate, bounded domain", "Kong-Ribero Thm 4.4",
         [Assumption("bounded domain (diameter d)", v.diameter is not None,
                     "" if v.diameter is not None else "diameter not given"),
          Assumption("curvature bounds m (weak convexity), M (smoothness) known", M is not None, step_detail),
          Assumption(step_txt, step_ok, step_detail), Assumption(model_txt, True)],
         "pabi.last_iterate_rdp_bounded", dict(lr=lam, **common, batch_size=v.b, diameter=v.diameter,
                                                weak_convexity=m, smoothness=Mv, contraction=model)),
        ("last_iterate_cyclic", "last iterate, cyclic batches (corrected indexing)",
         "Kong-Ribero Thm 4.5 / Prop. A.4, corrected indexing (docs/errata.md#r-k3)",
         [Assumption("cyclic (fixed) batch order", cyclic, f"ordering = {v.ordering}"),
          Assumption(step_txt, step_ok, step_detail),
          Assumption("T >= ell (at least one full pass)", T >= ell, f"T = {T}, ell = {ell}"),
          Assumption(model_txt, True)],
         "pabi.last_iterate_rdp_cyclic", dict(lr=lam, **common, batch_size=v.b, steps=T, batches_per_epoch=ell,
                                               weak_convexity=m, smoothness=Mv, contraction=model)),
    ]
    cap = min(1.0 / math.sqrt(E), lam_max) if E >= 1 else 0.0
    rows.append(("last_iterate_small_step", "last iterate, small step size", "Kong-Ribero Cor. C.3",
                 [Assumption("cyclic (fixed) batch order", cyclic, f"ordering = {v.ordering}"),
                  Assumption("T >= ell", T >= ell, f"T = {T}, ell = {ell}"),
                  Assumption("lr <= min(1/sqrt(E), 1/(2(m + M))), E = floor(T/ell)", M is not None and lam <= cap,
                             step_detail if M is None else f"lr = {lam:g}, cap = {cap:.6g}"),
                  Assumption(model_txt, True)],
                 "pabi.last_iterate_rdp_small_step", dict(lr=lam, **common, batch_size=v.b, batches_per_epoch=ell,
                                                           weak_convexity=m, smoothness=Mv, contraction=model)))
    out = []
    for oid, name, src, extra, fn, kw in rows:
        a = base + extra
        expr = None
        if all(x.satisfied for x in a):
            expr = _rdp_eps(delta, call(fn, _orders(), **kw))
        out.append(_Entry(oid, name, "last_iterate", src, a, expr, extra={"curve": (fn, kw)}))
    return out


def _baseline_entries(s: Setup, delta: float) -> list[_Entry]:
    out: list[_Entry] = []
    dp = s if isinstance(s, DPSGD) else None
    rel = dp.neighboring if dp is not None else "add_remove"
    samp = dp.sampling if dp is not None else "poisson"
    rel_txt = {"add_remove": "add-or-remove neighbours", "replace_one": "replace-one neighbours"}[rel]
    samp_txt = {"poisson": "Poisson sampling", "without_replacement": "fixed-size batches without replacement"}[samp]
    sampled = [Assumption("Gaussian noise", True),
               _kind(s, DPSGD, f"{samp_txt} (DP-SGD)"),
               Assumption(rel_txt, dp is not None, f"neighboring = {s.neighboring}")]
    ok = all(a.satisfied for a in sampled)
    desc = f", q = {dp.sample_rate:.6g}, {dp.steps} steps" if dp is not None else ""
    how = "" if (rel, samp) == ("add_remove", "poisson") else f", {rel_txt}, {samp_txt}"
    out.append(_Entry("dpsgd_pld", f"DP-SGD accountant{desc} (PLD{how})", "dpsgd",
                      "PLD/FFT accountant (Koskela et al.; DRS composition)"
                      + ("" if rel == "add_remove" else "; replace-one pair: docs/derivations/neighbouring.md"
                         " (dominating pairs: Zhu-Dong-Wang 2022, Def. 7, Thm 10)")
                      + ("; symmetrised pair (docs/derivations/neighbouring.md#symmetrised-pair)"
                         if samp == "without_replacement" else ""), sampled,
                      call("pabi.dpsgd_epsilon", delta, **dp.bound_arguments()) if ok and dp is not None else None,
                      relation=rel))
    poisson = [Assumption("Gaussian noise", True),
               Assumption("Poisson sampling (DP-SGD)", dp is not None and samp == "poisson",
                          f"sampling = {samp}" if dp is not None else f"setup = {type(s).__name__}"),
               Assumption("add-or-remove neighbours", dp is not None and dp.neighboring == "add_remove",
                          f"neighboring = {s.neighboring}")]
    ok = all(a.satisfied for a in poisson)
    expr = None
    if ok and dp is not None:
        curve = call("pabi.sampled_gaussian_rdp", _orders(), sample_rate=dp.sample_rate,
                     noise_multiplier=dp.noise_multiplier)
        expr = _rdp_eps(delta, call("pabi.rdp_compose", curve, count=dp.steps))
    out.append(_Entry("dpsgd_rdp", f"DP-SGD{desc}, data-independent RDP", "dpsgd",
                      "Mironov et al. sampled Gaussian RDP + Balle et al. conversion", poisson, expr,
                      relation="add_remove"))

    # every record in at most one step per epoch, no amplification: E-fold mechanism, replace-one
    epochs_run = s if isinstance(s, (PNSGD, CyclicDPSGD)) else None
    once = [_kind(s, (PNSGD, CyclicDPSGD), "every record in at most one step per epoch (shuffled, cyclic or random stop)"),
            Assumption("replace-one neighbours (sensitivity 2L or 2C)",
                       epochs_run is not None and s.neighboring == "replace_one", f"neighboring = {s.neighboring}")]
    gauss = isinstance(s, CyclicDPSGD) or (isinstance(s, PNSGD) and s.noise == "gaussian")
    g = [Assumption("Gaussian noise", gauss, "" if gauss else "Laplace noise or no noise model")] + once
    E = epochs_run.epochs if epochs_run is not None else 1
    z1: Optional[float] = None
    if isinstance(s, PNSGD):
        z1 = math.inf if s.max_grad_norm == 0 else _noise_std_down(1.0, s.noise_scale, 1.0, 2.0 * s.max_grad_norm)
        zdesc = "noise_scale / (2 L)"
    else:
        zdesc = "z / 2"
        if isinstance(s, CyclicDPSGD):
            z1 = s.noise_multiplier / 2.0
    ok = all(a.satisfied for a in g)
    pld = rdp = None
    if ok and z1 is not None and not math.isinf(z1):
        pld = call("pabi.dpsgd_epsilon", delta, sample_rate=1.0, noise_multiplier=z1, steps=E)
        curve = call("pabi.sampled_gaussian_rdp", _orders(), sample_rate=1.0, noise_multiplier=z1)
        rdp = _rdp_eps(delta, call("pabi.rdp_compose", curve, count=E))
    elif ok:  # L = 0: the output does not depend on the data
        pld = rdp = _Expr("0.0", lambda: 0.0)
    out.append(_Entry("epochs_gaussian_pld", f"{E} x Gaussian mechanism, no amplification (q = 1, noise multiplier {zdesc})",
                      "baseline", "composition of the per-epoch Gaussian mechanism (PLD accountant)", g, pld))
    out.append(_Entry("epochs_gaussian_rdp", f"{E} x Gaussian mechanism, data-independent RDP", "baseline",
                      "Gaussian RDP alpha/(2 z^2), composed and converted", g, rdp))
    lap_ok = isinstance(s, PNSGD) and s.noise == "laplace" and s.dimension == 1
    detail = (f"noise = {s.noise}, dimension = {s.dimension}" if isinstance(s, PNSGD) else f"setup = {type(s).__name__}")
    lap = [Assumption("Laplace noise in dimension 1", lap_ok, detail)] + once
    expr = None
    if all(a.satisfied for a in lap) and isinstance(s, PNSGD):
        if s.max_grad_norm == 0:
            expr = _Expr("0.0", lambda: 0.0)
        else:
            pld_l = call("pabi.PrivacyLossDistribution.laplace", s.noise_scale, sensitivity=2.0 * s.max_grad_norm)
            expr = _method(_method(pld_l, "compose", E), "epsilon", delta).attr("upper")
    out.append(_Entry("epochs_laplace_pld", f"{E} x Laplace mechanism, no amplification (PLD)", "baseline",
                      "composition of the per-epoch Laplace mechanism (PLD accountant)", lap, expr))
    return out


def _schedule_entries(s: Setup, delta: float) -> list[_Entry]:
    sc = s if isinstance(s, ScheduledPNSGD) else None
    a = [_kind(s, ScheduledPNSGD, "PNSGD with a fixed-horizon noise schedule (one epoch, shuffled records)"),
         Assumption("replace-one neighbours", sc is not None and s.neighboring == "replace_one",
                    f"neighboring = {s.neighboring}")]
    expr = None
    if sc is not None and all(x.satisfied for x in a):
        family = "gaussian" if sc.noise == "gaussian" else "laplace"
        expr = call(f"pabi.{family}_schedule_epsilon", delta, **sc.bound_arguments())
    noise = sc.noise if sc is not None else "gaussian"
    src = "Sordello-Bu-Dong Thm 4 (Gaussian schedule)" if noise == "gaussian" else "Sordello-Bu-Dong Thm 3 (Laplace schedule)"
    return [_Entry("schedule", f"PNSGD shuffled, {noise} noise schedule, amplification by iteration", "schedule",
                   src, a, expr)]


def _more_entries(s: Setup, delta: float) -> list[_Entry]:
    """The bounds of the setups of issue 16 (StepwisePNSGD, OnlinePNSGD, LastIterateSGD,
    ERMGradientDescent): each setup's primary bound through the flat functions it calls, and
    the other bounds that hold for the same run (the printed Thm 4.3 for any last-iterate run
    with a step count; the worst fixed batch for ERM with a random partition)."""
    out: list[_Entry] = []
    # per-step PNSGD
    a = [_kind(s, StepwisePNSGD, "PNSGD with per-step parameters, convex loss, last iterate released"),
         _replace_one(s)]
    expr = None
    if isinstance(s, StepwisePNSGD) and all(x.satisfied for x in a):
        expr = call("pabi.pnsgd_stepwise_epsilon", delta, **s.bound_arguments())
    src = "Sordello-Bu-Dong Thms 1-2, per-step form (docs/derivations/pnsgd.md#per-step)"
    out.append(_Entry("pnsgd_stepwise", "PNSGD per-step parameters, amplification by iteration", "pnsgd", src, a,
                      expr))
    # online PNSGD with decaying noise
    a = [_kind(s, OnlinePNSGD, "online PNSGD with a decaying noise schedule, convex loss"), _replace_one(s)]
    expr = None
    limit = isinstance(s, OnlinePNSGD) and s.steps is None
    if isinstance(s, OnlinePNSGD) and all(x.satisfied for x in a):
        if limit:  # no flat inverse of the limit bound: the setup's own exact search over it
            expr = _method(_setup_expr(s), "epsilon", delta)
        else:
            expr = call(f"pabi.{s._bound_name('epsilon')}", delta, **s.bound_arguments())
    noise = s.noise if isinstance(s, OnlinePNSGD) else "gaussian"
    src = ("Sordello-Bu-Dong Thm 7 (Gaussian, eq. (14))" if noise == "gaussian"
           else "Sordello-Bu-Dong Thm 6 (Laplace, eq. (12))")
    out.append(_Entry("online_pnsgd", f"online PNSGD, {noise} decaying noise"
                      + (", limit n -> inf (certified upper bound)" if limit else ", at the horizon"),
                      "schedule", src, a, expr))
    # the last-iterate theorems, one chosen
    a = [_kind(s, LastIterateSGD, "noisy clipped SGD, last iterate released (Kong-Ribero Alg. 1)"),
         _replace_one(s)]
    theorem = s.theorem if isinstance(s, LastIterateSGD) else "general"
    expr = None
    if isinstance(s, LastIterateSGD) and all(x.satisfied for x in a):
        name, kw = s.curve_arguments()
        expr = _rdp_eps(delta, call(f"pabi.{name}", _orders(), **kw))
    src = {"general": "Kong-Ribero Thm 4.3", "bounded": "Kong-Ribero Thm 4.4",
           "cyclic": "Kong-Ribero Thm 4.5 / Prop. A.4, corrected indexing (docs/errata.md#r-k3)"}[theorem]
    out.append(_Entry("last_iterate_sgd", f"last iterate, the chosen theorem ({theorem})", "last_iterate", src,
                      a, expr))
    # Thm 4.3 as printed holds for any loss and any batch order: for every run with a step count
    steps = s.steps if isinstance(s, LastIterateSGD) else None
    printed = not (theorem == "general" and getattr(s, "batch_size", None) is None)
    b = a + [Assumption("a step count T (steps given)", steps is not None, f"steps = {steps}"),
             Assumption("another theorem chosen (else it is the primary bound)", printed, f"theorem = {theorem}")]
    expr = None
    if isinstance(s, LastIterateSGD) and all(x.satisfied for x in b):
        expr = _rdp_eps(delta, call("pabi.last_iterate_rdp_general", _orders(), lr=s.lr,
                                    max_grad_norm=s.max_grad_norm, noise_scale=s.noise_scale, steps=steps))
    out.append(_Entry("last_iterate_sgd_general_printed", "last iterate, no curvature assumption (printed bound)",
                      "last_iterate", "Kong-Ribero Thm 4.3", b, expr))
    # ERM with output perturbation
    a = [_kind(s, ERMGradientDescent, "noiseless mini-batch GD on a strongly convex smooth loss, Gaussian output "
               "perturbation"), _replace_one(s)]
    erm = s if isinstance(s, ERMGradientDescent) and all(x.satisfied for x in a) else None
    order = s.batch_order if isinstance(s, ERMGradientDescent) else "random"
    for oid, which, name, src in [
        ("erm_random_batch", "random", "ERM output perturbation, random partition (averaged RDP)",
         "Chen-Lee-Kifer Prop. 3"),
        ("erm_fixed_batch", "fixed", "ERM output perturbation, the record's batch fixed (worst unless given)",
         "Chen-Lee-Kifer Prop. 2"),
    ]:
        # a random partition puts the record in some batch: the worst fixed batch bounds it too
        ok = order == which or which == "fixed"
        e = a + [Assumption(f"{which} batch order" if which == "random" else "any batch order (fixed, or random:"
                            " the worst fixed batch)", ok, f"batch_order = {order}")]
        expr = None
        if erm is not None and ok:
            m = erm.batches_per_epoch
            js = _Expr(f"np.arange(1.0, {float(m + 1)!r})", lambda: np.arange(1.0, float(m + 1)))
            every = call("pabi.sensitivity_multi_epoch", **erm.sensitivity_arguments(js))
            if which == "random":
                fn, kw = erm.curve_arguments(every, "random")
            else:
                if order == "fixed":  # the setup's own batch (default m)
                    d: _Expr = call("pabi.sensitivity_multi_epoch", **erm.sensitivity_arguments(erm.record_batch))
                else:  # a random partition: every batch's Gaussian mechanism, the largest Δ_j (the
                    # Rényi divergence of a mixture is at most its components' largest)
                    d = _Expr(f"float(np.max({every.text}))", lambda: float(np.max(every.value())))
                fn, kw = erm.curve_arguments(d, "fixed")
            curve = call(f"pabi.{fn}", _orders(), **kw)
            expr = _rdp_eps(delta, curve)
        out.append(_Entry(oid, name, "erm", src, e, expr))
    return out


def bounds(setup: Setup, delta: float) -> list[Bound]:
    """Every bound pabi has for ``setup``, as ε at ``delta``: the valid ones ranked, tightest
    (smallest ε) first, then those that do not apply (with the assumptions they miss), are not
    certificates or are vacuous (ε > ln(1/δ), see the module doc).

    >>> import pabi
    >>> run = pabi.PNSGD(records=1000, lr=0.05, noise_scale=4.0, max_grad_norm=1.0, diameter=1.0,
    ...                  smoothness=10.0, convex=True, epochs=3)
    >>> best = pabi.bounds(run, 1e-5)[0]
    >>> best.id, round(best.epsilon, 4)
    ('pnsgd_shuffled_epochs_pld', 2.0587)
    >>> eval(best.repro, {"pabi": pabi}) == best.epsilon
    True
    """
    if not isinstance(setup, (PNSGD, DPSGD, CyclicDPSGD, ScheduledPNSGD, StepwisePNSGD, OnlinePNSGD, LastIterateSGD,
                              ERMGradientDescent)):
        raise TypeError("setup must be a pabi setup (PNSGD, DPSGD, CyclicDPSGD, ScheduledPNSGD, StepwisePNSGD, "
                        f"OnlinePNSGD, LastIterateSGD or ERMGradientDescent), got {type(setup).__name__}")
    d = real_scalar("delta", delta)
    if not 0 < d < 1:
        raise domain_error("delta", "in (0, 1)", d)
    entries = (_pnsgd_entries(setup, d) + _schedule_entries(setup, d) + _last_iterate_entries(setup, d)
               + _more_entries(setup, d) + _baseline_entries(setup, d))
    limit = -math.log(d)  # ln(1/δ) with one rounding
    records: list[Bound] = []
    for e in entries:
        applicable = all(a.satisfied for a in e.assumptions) and e.expr is not None
        eps: Optional[float] = None
        note, seconds = e.note, None
        if applicable and e.expr is not None:
            t0 = time.perf_counter()
            try:
                eps = float(e.expr.value())
            except (ValueError, OverflowError, NotImplementedError) as exc:
                note = (note + "; " if note else "") + f"not computable: {exc}"
            seconds = round(time.perf_counter() - t0, 4)
        vacuous = eps is not None and not eps <= limit
        if vacuous:
            note = (note + "; " if note else "") + (f"vacuous: eps > ln(1/delta) = {limit:.4g}, the guarantee "
                                                    "protects nothing beyond delta")
        # only bounds for the setup's own relation are compared (their assumptions say so too)
        same = e.relation == setup.neighboring
        valid = applicable and same and e.certified and eps is not None and not math.isnan(eps) and not vacuous
        records.append(Bound(e.id, e.name, e.family, e.source, tuple(e.assumptions), d, eps, applicable,
                             e.certified, vacuous, valid, None, "" if e.expr is None else e.expr.text, note, seconds,
                             e.relation))
    ranked = sorted((r for r in records if r.valid), key=lambda r: r.epsilon)  # type: ignore[arg-type,return-value]
    ranked = [r._replace(rank=i) for i, r in enumerate(ranked, 1)]
    return ranked + [r for r in records if not r.valid]
