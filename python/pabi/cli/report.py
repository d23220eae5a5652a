"""``pabi report CONFIG.toml``: every bound pabi has for one training setup, ranked.

The configuration is a TOML file with three tables. Every key is checked: an unknown key, a
missing required key or a value of the wrong type or range is a one-line error naming it.

``[training]``

* ``algorithm`` (required): ``"pnsgd"`` — projected noisy SGD, one record per step, the loss
  gradient itself noised (Asoodeh–Diaz–Calmon, Sordello–Bu–Dong) — or ``"dpsgd"`` — clipped
  mini-batch SGD with Gaussian noise on the gradient sum (noise std = sigma × clip).
* ``n`` (required): number of records, integer ≥ 1.
* ``epochs`` (default 1): passes over the data, integer ≥ 1.
* ``batch_size`` (default 1): records per step (expected size for Poisson sampling); ``pnsgd``
  needs 1. The steps are epochs × n / batch_size (rounded up).
* ``sampling`` (default ``"shuffled"``): ``"shuffled"`` (a fresh random permutation per epoch,
  fixed-size batches), ``"cyclic"`` (the same fixed order every epoch), ``"random_stop"``
  (``pnsgd``, one epoch, output w_T for T uniform on 1..n) or ``"poisson"`` (every record joins
  each step independently with probability batch_size / n).
* ``lr`` (required): learning rate η > 0.
* ``clip`` (``dpsgd``: required): clip norm C > 0 of the per-record gradients.
* ``delta`` (required): target δ in (0, 1); every bound is reported as ε at this δ.
* ``neighbours`` (default ``"add_remove"`` for Poisson sampling, else ``"replace_one"``): the
  neighbouring relation. The PNSGD, last-iterate and per-epoch composition bounds are for
  replace-one, pabi's Poisson accountant for add-or-remove; the others are marked not applicable.

``[noise]``

* ``kind`` (default ``"gaussian"``): ``"gaussian"`` or ``"laplace"`` (``pnsgd`` in dimension 1).
* ``sigma`` (required): ``pnsgd``: std of the Gaussian noise added to the gradient (Laplace: the
  scale v, density e^{−|z|/v}/(2v)); ``dpsgd``: the noise multiplier z (std z·C on the sum).

``[loss]``

* ``lipschitz``: bound L on every per-record gradient norm (``pnsgd``: required; ``dpsgd``:
  optional, L ≤ clip means clipping never acts).
* ``convex`` (default false): the loss is convex in the parameters.
* ``smoothness``: β > 0, the gradient is β-Lipschitz (not given: no smoothness assumed).
* ``strong_convexity`` (default 0): ρ ∈ [0, β].
* ``weak_convexity`` (default 0): m ≥ 0 with ℓ + m‖w‖²/2 convex (non-convex losses; 0 if convex).
* ``diameter``: diameter D of the convex constraint set the iterates are projected onto (not
  given: unconstrained).
* ``dimension``: number of parameters (Laplace noise needs 1).

Bounds (each needs the assumptions listed in the report; ε at ``delta``):

* PNSGD amplification by iteration (Gaussian or Laplace noise; convex, L-Lipschitz, β-smooth loss
  with η ≤ 2/(β + ρ), bounded domain, replace-one, one record per step):
  shuffled one epoch (003 Thm 2, ``pabi.pnsgd_epsilon(order="shuffled")``), random stop (003 §1),
  fixed order worst record i = n (003 Thm 1), and for several shuffled epochs the per-epoch
  profile composed by ``pabi.multi_epoch_epsilon`` (PLD, profile → RDP, exact composition of one
  (ε, δ) point; its GDP route is listed but not certified, docs/errata.md#p-c23);
* RDP comparison bound of 000 Prop. 1 (Gaussian, fixed order, worst record; RDP adds over epochs:
  ``pabi.pnsgd_rdp_epsilon`` with σ/√E rounded down), no bounded domain needed;
* last iterate of cyclic DP-SGD (Kong–Ribero Thm 4.3, 4.4, 4.5 corrected, Cor. C.3), Gaussian;
* baselines needing only the sampling: the DP-SGD PLD accountant (``pabi.dpsgd_epsilon``) and
  the data-independent RDP route (``pabi.sampled_gaussian_rdp``): Poisson sampling with q =
  batch_size / n, or, for shuffled/cyclic/random-stop runs, every record used at most once per
  epoch (q = 1, E steps, noise multiplier = noise std / replace-one sensitivity 2L or 2C; with
  Laplace noise in d = 1, the E-fold Laplace mechanism composed by ``pabi.PrivacyLossDistribution``).

Valid bounds are ranked by ε, smallest (tightest) first; the smallest is the certificate.
"""

from __future__ import annotations

import argparse
import json
import math
import textwrap
import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from .common import add_json, emit
from .config import CliError, load_toml
from .formatting import fmt, table

# (section, key) -> (kind, required, default, help)
SCHEMA: dict[tuple[str, str], tuple[str, bool, Any, str]] = {
    ("training", "algorithm"): ("choice:pnsgd,dpsgd", True, None,
                                "pnsgd = projected noisy SGD, one record per step; dpsgd = clipped mini-batch SGD"),
    ("training", "n"): ("int>=1", True, None, "number of records"),
    ("training", "epochs"): ("int>=1", False, 1, "passes over the data"),
    ("training", "batch_size"): ("int>=1", False, 1, "records per step (Poisson: expected; pnsgd: 1)"),
    ("training", "sampling"): ("choice:shuffled,cyclic,random_stop,poisson", False, "shuffled",
                               "fresh permutation per epoch / fixed order / random stop (pnsgd) / Poisson"),
    ("training", "lr"): ("float>0", True, None, "learning rate eta"),
    ("training", "clip"): ("float>0", False, None, "clip norm C of per-record gradients (dpsgd: required)"),
    ("training", "delta"): ("prob", True, None, "target delta; every bound is reported as eps at it"),
    ("training", "neighbours"): ("choice:replace_one,add_remove", False, None,
                                 "default add_remove for Poisson sampling, else replace_one"),
    ("noise", "kind"): ("choice:gaussian,laplace", False, "gaussian", "noise distribution (laplace: pnsgd, d = 1)"),
    ("noise", "sigma"): ("float>0", True, None,
                         "pnsgd: std (Laplace: scale) of the noise on each gradient; dpsgd: noise multiplier"),
    ("loss", "lipschitz"): ("float>=0", False, None, "bound L on every per-record gradient norm (pnsgd: required)"),
    ("loss", "convex"): ("bool", False, False, "the loss is convex"),
    ("loss", "smoothness"): ("float>0", False, None, "beta: the gradient is beta-Lipschitz"),
    ("loss", "strong_convexity"): ("float>=0", False, 0.0, "rho in [0, beta]"),
    ("loss", "weak_convexity"): ("float>=0", False, 0.0, "m: loss + m |w|^2 / 2 is convex (0 if convex)"),
    ("loss", "diameter"): ("float>=0", False, None, "diameter D of the convex set the iterates are projected on"),
    ("loss", "dimension"): ("int>=1", False, None, "number of parameters (Laplace noise needs 1)"),
}

_KIND_TEXT = {"int>=1": "integer >= 1", "float>0": "number > 0", "float>=0": "number >= 0",
              "prob": "number in (0, 1)", "bool": "true/false"}

RDP_ORDERS = np.array([1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0, 14.0,
                       16.0, 20.0, 24.0, 28.0, 32.0, 40.0, 48.0, 56.0, 64.0])


def _check_value(section: str, key: str, kind: str, value: Any, path: str) -> Any:
    where = f"{path}: [{section}] {key}"
    if kind == "bool":
        if not isinstance(value, bool):
            raise CliError(f"{where} must be true or false, got {value!r}")
        return value
    if kind.startswith("choice:"):
        allowed = kind[7:].split(",")
        if value not in allowed:
            raise CliError(f"{where} must be one of {', '.join(allowed)}, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CliError(f"{where} must be a number, got {value!r}")
    if kind == "int>=1":
        if isinstance(value, float) and not value.is_integer():
            raise CliError(f"{where} must be an integer >= 1, got {value!r}")
        if not (value >= 1) or not math.isfinite(value):
            raise CliError(f"{where} must be an integer >= 1, got {value!r}")
        return int(value)
    v = float(value)
    ok = {"float>0": v > 0, "float>=0": v >= 0, "prob": 0 < v < 1}[kind]
    if not ok or not math.isfinite(v):
        rng = {"float>0": "> 0 and finite", "float>=0": ">= 0 and finite", "prob": "in (0, 1)"}[kind]
        raise CliError(f"{where} must be {rng}, got {value!r}")
    return v


def load_config(path: str | Path) -> dict[str, Any]:
    """Read and validate a report configuration: a flat dict of every key (defaults filled in)."""
    data = load_toml(path)
    p = str(path)
    sections = {s for s, _ in SCHEMA}
    for s, v in data.items():
        if s not in sections:
            raise CliError(f"{p}: unknown table or key {s!r} (allowed tables: {', '.join(sorted(sections))})")
        if not isinstance(v, dict):
            raise CliError(f"{p}: {s!r} must be a table ([{s}])")
    cfg: dict[str, Any] = {}
    for s in sections:
        for k, v in data.get(s, {}).items():
            if (s, k) not in SCHEMA:
                allowed = ", ".join(kk for ss, kk in SCHEMA if ss == s)
                raise CliError(f"{p}: unknown key {k!r} in [{s}] (allowed: {allowed})")
    for (s, k), (kind, required, default, _) in SCHEMA.items():
        if k in data.get(s, {}):
            cfg[k] = _check_value(s, k, kind, data[s][k], p)
        elif required:
            raise CliError(f"{p}: missing required key {k!r} in [{s}]")
        else:
            cfg[k] = default
    if cfg["algorithm"] == "dpsgd" and cfg["clip"] is None:
        raise CliError(f"{p}: [training] clip is required for algorithm = 'dpsgd'")
    if cfg["algorithm"] == "pnsgd" and cfg["lipschitz"] is None:
        raise CliError(f"{p}: [loss] lipschitz is required for algorithm = 'pnsgd'")
    if cfg["neighbours"] is None:
        cfg["neighbours"] = "add_remove" if cfg["sampling"] == "poisson" else "replace_one"
    if cfg["smoothness"] is not None and cfg["strong_convexity"] > cfg["smoothness"]:
        raise CliError(f"{p}: [loss] strong_convexity must be <= smoothness, got {cfg['strong_convexity']!r}")
    if cfg["strong_convexity"] > 0 and cfg["smoothness"] is None:
        raise CliError(f"{p}: [loss] strong_convexity > 0 needs smoothness")
    return cfg


# ------------------------------------------------------------------------------------ bounds


def _a(text: str, ok: bool, detail: str = "") -> dict[str, Any]:
    return {"text": text, "satisfied": bool(ok), "detail": detail}


class _Bound:
    def __init__(self, id: str, name: str, source: str, assumptions: list[dict[str, Any]],
                 compute: Callable[[], Any], api: str, certified: bool = True, note: str = "") -> None:
        self.id, self.name, self.source, self.assumptions = id, name, source, assumptions
        self.compute, self.api, self.certified, self.note = compute, api, certified, note


PNSGD_TEXT = "PNSGD"


def _pnsgd_common(c: dict[str, Any]) -> list[dict[str, Any]]:
    beta, rho, lr = c["smoothness"], c["strong_convexity"], c["lr"]
    lr_max = None if beta is None else 2.0 / (beta + rho)
    noise_ok = c["kind"] == "gaussian" or c["dimension"] == 1
    return [
        _a(PNSGD_TEXT + ": one record per step, noised gradient, last iterate released",
           c["algorithm"] == "pnsgd" and c["batch_size"] == 1,
           f"algorithm = {c['algorithm']}, batch_size = {c['batch_size']}"),
        _a("convex loss", c["convex"], "" if c["convex"] else "convex = false"),
        _a("gradient norm bound L", c["lipschitz"] is not None, "" if c["lipschitz"] is not None else "lipschitz not given"),
        _a("bounded convex constraint set (diameter D)", c["diameter"] is not None,
           "" if c["diameter"] is not None else "diameter not given"),
        _a("beta-smooth loss with lr <= 2/(beta + rho) (gradient step M-Lipschitz)",
           lr_max is not None and lr <= lr_max,
           "smoothness not given" if lr_max is None else f"lr = {lr:g}, 2/(beta+rho) = {lr_max:.6g}"),
        _a("Gaussian noise, or Laplace noise in dimension 1", noise_ok,
           "" if noise_ok else f"Laplace noise needs dimension = 1 (config: {c['dimension']})"),
        _a("replace-one neighbours", c["neighbours"] == "replace_one", f"neighbours = {c['neighbours']}"),
    ]


def _pnsgd_kw(c: dict[str, Any]) -> dict[str, Any]:
    return dict(noise=c["kind"], noise_scale=c["sigma"], max_grad_norm=c["lipschitz"], lr=c["lr"],
                diameter=c["diameter"], steps=c["n"], smoothness=c["smoothness"],
                strong_convexity=c["strong_convexity"])


def _kw_text(kw: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in kw.items())


def pnsgd_bounds(c: dict[str, Any]) -> list[_Bound]:
    import pabi

    out: list[_Bound] = []
    common = _pnsgd_common(c)
    kw = _pnsgd_kw(c)
    E, delta, s = c["epochs"], c["delta"], c["sampling"]
    one = _a("one epoch", E == 1, f"epochs = {E}")

    def single(order: str, **extra: Any) -> Callable[[], Any]:
        return lambda: pabi.pnsgd_epsilon(delta, ordering=order, **kw, **extra)

    out.append(_Bound("pnsgd_shuffled", "PNSGD shuffled, amplification by iteration",
                      "Sordello-Bu-Dong Thm 2",
                      common + [_a("shuffled order", s == "shuffled", f"sampling = {s}"), one],
                      single("shuffled"), f"pabi.pnsgd_epsilon({delta!r}, ordering='shuffled', {_kw_text(kw)})"))
    out.append(_Bound("pnsgd_random_stop", "PNSGD random stop (worst record)",
                      "Asoodeh-Diaz-Calmon Thm 5, refined (Sordello-Bu-Dong Sec. 1)",
                      common + [_a("random-stop output", s == "random_stop", f"sampling = {s}"), one],
                      single("random_stop"), f"pabi.pnsgd_epsilon({delta!r}, ordering='random_stop', {_kw_text(kw)})"))
    out.append(_Bound("pnsgd_fixed", "PNSGD fixed order, worst record (i = n)",
                      "Sordello-Bu-Dong Thm 1 / Asoodeh-Diaz-Calmon Thms 3-4",
                      common + [_a("fixed (cyclic) order", s == "cyclic", f"sampling = {s}"), one],
                      single("fixed", index=c["n"]),
                      f"pabi.pnsgd_epsilon({delta!r}, ordering='fixed', index={c['n']}, {_kw_text(kw)})"))

    # several shuffled epochs: compose the per-epoch profile (one multi_epoch_epsilon call)
    cache: dict[str, Any] = {}

    def multi(route: str) -> Callable[[], float]:
        def f() -> float:
            if "r" not in cache:
                from ..composition import _decayed_eps_max

                kws = dict(kw, ordering="shuffled")
                prof: Any = lambda e: pabi.pnsgd_delta(e, **kws)  # noqa: E731
                logp: Any = lambda e: pabi.pnsgd_delta(e, **kws, log=True)  # noqa: E731
                try:
                    cache["r"] = pabi.multi_epoch_epsilon(delta, profile=prof, epochs=E, eps_max=_decayed_eps_max(prof),
                                                          orders=RDP_ORDERS, log_profile=logp)
                except ValueError as exc:
                    cache["r"] = exc
            if isinstance(cache["r"], Exception):
                raise cache["r"]
            return float(getattr(cache["r"], route))
        return f

    several = _a("shuffled order, several epochs (each a fresh permutation)", s == "shuffled" and E >= 2,
                 f"sampling = {s}, epochs = {E}")
    api = (f"pabi.multi_epoch_epsilon({delta!r}, profile=lambda e: pabi.pnsgd_delta(e, ordering='shuffled', "
           f"{_kw_text(kw)}), epochs={E}, eps_max=..., orders=RDP_ORDERS)")
    for route, name, src, cert in [
        ("pld", "whole per-epoch profile composed (PLD)", "Sordello-Bu-Dong Thm 2 + PLD composition", True),
        ("rdp", "per-epoch profile -> RDP, composed", "Sordello-Bu-Dong Thm 2 + profile->RDP bound", True),
        ("single_point", "one (eps, delta) point composed exactly", "Sordello-Bu-Dong Sec. 5 (KOV)", True),
        ("gdp", "dominating GDP mu composed", "Sordello-Bu-Dong Sec. 5 (GDP route)", False),
    ]:
        out.append(_Bound(f"pnsgd_shuffled_epochs_{route}", f"PNSGD shuffled, {E} epochs: {name}", src,
                          common + [several], multi(route),
                          api + f".{route}", certified=cert,
                          note="" if cert else "GDP route: sup of mu over a finite eps range, optimistic "
                          "for the shuffled profile (docs/errata.md#p-c23): not a certificate"))

    # RDP comparison bound (000 Prop. 1): fixed order, worst record, epochs composed
    rkw = dict(noise_scale=c["sigma"], max_grad_norm=c["lipschitz"], lr=c["lr"], steps=c["n"], index=c["n"],
               smoothness=c["smoothness"], strong_convexity=c["strong_convexity"])
    sig_e = c["sigma"] if E == 1 else float(np.nextafter(np.nextafter(c["sigma"] / math.sqrt(E), 0.0), 0.0))
    rdp_common = [a for a in common if not a["text"].startswith(("bounded", "Gaussian noise,"))]
    out.append(_Bound("pnsgd_rdp", f"PNSGD fixed order, worst record, RDP (Feldman/Balle){'' if E == 1 else f', {E} epochs added'}",
                      "Asoodeh-Diaz-Calmon Prop. 1",
                      rdp_common + [_a("Gaussian noise", c["kind"] == "gaussian", f"kind = {c['kind']}"),
                                    _a("fixed (cyclic) order", s == "cyclic", f"sampling = {s}")],
                      lambda: pabi.pnsgd_rdp_epsilon(delta, **dict(rkw, noise_scale=sig_e)),  # type: ignore[arg-type]
                      f"pabi.pnsgd_rdp_epsilon({delta!r}, {_kw_text(dict(rkw, noise_scale=sig_e))})"
                      + ("" if E == 1 else f"  # sigma/sqrt({E}) rounded down: RDP adds over epochs")))
    return out


def _last_iterate(c: dict[str, Any]) -> list[_Bound]:
    from .last_iterate import epsilon_from_rdp, last_iterate_bounds

    pn = c["algorithm"] == "pnsgd"
    b = c["batch_size"]
    n, E, s = c["n"], c["epochs"], c["sampling"]
    divides = n % b == 0
    ell = max(n // b, 1)
    T = E * ell
    clip = c["lipschitz"] if pn else c["clip"]
    # the iterate noise std lr·σ (PNSGD) or lr·z·C/b (DP-SGD), rounded down (a larger std gives a
    # smaller bound)
    sigma_it = _noise_std_down(c["lr"], c["sigma"], 1.0 if pn else c["clip"], 1.0 if pn else b)
    m = 0.0 if c["convex"] else c["weak_convexity"]
    unclipped = pn or (c["lipschitz"] is not None and c["lipschitz"] <= c["clip"])
    model = "as_published" if unclipped else "triangle"
    note = ("; clipping never acts (||grad|| <= L = C), so eq. (12) holds (docs/errata.md#r-k1)" if unclipped else "")
    base = [
        _a("Gaussian noise", c["kind"] == "gaussian", f"kind = {c['kind']}"),
        _a("fixed-size batches in cyclic or shuffled order, b divides n",
           s in ("cyclic", "shuffled") and divides, f"sampling = {s}, n = {n}, batch_size = {b}"),
        _a("replace-one neighbours", c["neighbours"] == "replace_one", f"neighbours = {c['neighbours']}"),
    ]
    if clip is None or clip <= 0:
        return []
    out = []
    for bd in last_iterate_bounds(lam=c["lr"], clip=clip, b=b, sigma=sigma_it, T=T, ell=ell, m=m,
                                  M=c["smoothness"], diameter=c["diameter"], cyclic=s == "cyclic",
                                  model=model, model_note=note):
        rdp = bd["rdp"]
        ok = all(a["satisfied"] for a in base + bd["assumptions"])

        def compute(rdp: Any = rdp) -> float:
            if rdp is None:
                raise ValueError("assumptions not met")
            return float(epsilon_from_rdp(rdp, c["delta"])[0])

        fn = {"last_iterate_general": "last_iterate_rdp_general", "last_iterate_bounded": "last_iterate_rdp_bounded",
              "last_iterate_cyclic": "last_iterate_rdp_cyclic", "last_iterate_small_step": "last_iterate_rdp_small_step"}[bd["id"]]
        api = (f"pabi.rdp_to_dp_epsilon({c['delta']!r}, orders=pabi.DEFAULT_ORDERS, "
               f"rdp=[pabi.{fn}(a, ...) for a in pabi.DEFAULT_ORDERS]) with lr={c['lr']!r}, clip={clip!r}, b={b}, sigma={sigma_it!r} (iterate noise), "
               f"T={T}, ell={ell}, m={m!r}, M={c['smoothness']!r}, model={model!r}")
        out.append(_Bound(bd["id"], bd["name"], bd["source"], base + bd["assumptions"],
                          compute if ok else (lambda: math.nan), api))
    return out


def baseline_bounds(c: dict[str, Any]) -> list[_Bound]:
    import pabi

    out: list[_Bound] = []
    pn = c["algorithm"] == "pnsgd"
    n, b, E, s, delta = c["n"], c["batch_size"], c["epochs"], c["sampling"], c["delta"]
    gauss = _a("Gaussian noise", c["kind"] == "gaussian", f"kind = {c['kind']}")
    # Poisson accountant (add-or-remove)
    q = min(1.0, b / n)
    steps = int(math.ceil(E * n / b))
    z = c["sigma"]
    poisson = [gauss, _a("Poisson sampling", s == "poisson", f"sampling = {s}"),
               _a("noise multiplier = noise std / clip norm (DP-SGD)", not pn, f"algorithm = {c['algorithm']}"),
               _a("add-or-remove neighbours", c["neighbours"] == "add_remove", f"neighbours = {c['neighbours']}")]
    out.append(_Bound("dpsgd_pld", f"DP-SGD accountant, Poisson q = {q:.6g}, {steps} steps (PLD)",
                      "PLD/FFT accountant (Koskela et al.; DRS composition)", poisson,
                      lambda: pabi.dpsgd_epsilon(delta, sample_rate=q, noise_multiplier=z, steps=steps),
                      f"pabi.dpsgd_epsilon({delta!r}, sample_rate={q!r}, noise_multiplier={z!r}, steps={steps})"))
    out.append(_Bound("dpsgd_rdp", f"DP-SGD, Poisson q = {q:.6g}, {steps} steps, data-independent RDP",
                      "Mironov et al. sampled Gaussian RDP + Balle et al. conversion", poisson,
                      lambda: _rdp_eps(q, z, steps, delta),
                      f"pabi.rdp_to_dp_epsilon({delta!r}, orders=pabi.DEFAULT_ORDERS, rdp={steps} * "
                      f"pabi.sampled_gaussian_rdp(pabi.DEFAULT_ORDERS, sample_rate={q!r}, noise_multiplier={z!r}))"))
    # every record once per epoch, no amplification: E-fold Gaussian mechanism (replace-one)
    if pn:
        sens = None if c["lipschitz"] is None else 2.0 * c["lipschitz"]
        z1 = math.inf if not sens else _noise_std_down(1.0, c["sigma"], 1.0, sens)
        zdesc = "sigma / (2 L)"
    else:
        z1, zdesc = c["sigma"] / 2.0, "z / 2"
    once_only = [_a("every record in at most one step per epoch (shuffled, cyclic or random stop)",
                    s in ("shuffled", "cyclic", "random_stop"), f"sampling = {s}"),
                 _a("replace-one neighbours (sensitivity 2L or 2C)", c["neighbours"] == "replace_one",
                    f"neighbours = {c['neighbours']}")]
    once = [gauss] + once_only
    out.append(_Bound("epochs_gaussian_pld", f"{E} x Gaussian mechanism, no amplification (q = 1, noise multiplier {zdesc})",
                      "composition of the per-epoch Gaussian mechanism (PLD accountant)", once,
                      lambda: 0.0 if math.isinf(z1) else pabi.dpsgd_epsilon(delta, sample_rate=1.0, noise_multiplier=z1, steps=E),
                      f"pabi.dpsgd_epsilon({delta!r}, sample_rate=1.0, noise_multiplier={z1!r}, steps={E})"))
    out.append(_Bound("epochs_gaussian_rdp", f"{E} x Gaussian mechanism, data-independent RDP",
                      "Gaussian RDP alpha/(2 z^2), composed and converted", once,
                      lambda: 0.0 if math.isinf(z1) else _rdp_eps(1.0, z1, E, delta),
                      f"pabi.rdp_to_dp_epsilon({delta!r}, orders=pabi.DEFAULT_ORDERS, rdp={E} * "
                      f"pabi.sampled_gaussian_rdp(pabi.DEFAULT_ORDERS, sample_rate=1.0, noise_multiplier={z1!r}))"))
    # Laplace noise (d = 1): E-fold Laplace mechanism, sensitivity 2L (2C), scale sigma (z C)
    lap_sens = (None if c["lipschitz"] is None else 2.0 * c["lipschitz"]) if pn else 2.0 * c["clip"]
    lap_scale = c["sigma"] if pn else _noise_std_down(1.0, c["sigma"], c["clip"], 1.0)
    lap = [_a("Laplace noise in dimension 1", c["kind"] == "laplace" and c["dimension"] == 1,
              f"kind = {c['kind']}, dimension = {c['dimension']}")] + once_only

    def lap_eps() -> float:
        if not lap_sens:
            return 0.0
        pld = pabi.PrivacyLossDistribution.laplace(lap_scale, sensitivity=lap_sens)
        return float(pld.compose(E).epsilon(delta)[2])

    out.append(_Bound("epochs_laplace_pld", f"{E} x Laplace mechanism, no amplification (PLD)",
                      "composition of the per-epoch Laplace mechanism (PLD accountant)", lap, lap_eps,
                      f"pabi.PrivacyLossDistribution.laplace({lap_scale!r}, sensitivity={lap_sens!r})"
                      f".compose({E}).epsilon({delta!r})[2]"))
    return out


def _noise_std_down(lr: float, multiplier: float, clip: float, batch: float) -> float:
    """lr·multiplier·clip/batch rounded down, by the core (the noise parameters of the bounds:
    a larger noise gives a smaller bound, so none may exceed its exact value)."""
    from .. import _core

    return _core.noise_std_down(float(lr), float(multiplier), float(clip), float(batch))


def _rdp_eps(q: float, z: float, steps: int, delta: float) -> float:
    from .dpsgd import rdp_epsilon

    return float(rdp_epsilon(q, z, steps, delta)[0])


def compute_report(cfg: dict[str, Any]) -> dict[str, Any]:
    """Evaluate every bound for the validated configuration; JSON-ready dict."""
    bounds: list[_Bound] = []
    bounds += pnsgd_bounds(cfg) + _last_iterate(cfg) + baseline_bounds(cfg)
    results = []
    for b in bounds:
        applicable = all(a["satisfied"] for a in b.assumptions)
        r: dict[str, Any] = {"id": b.id, "name": b.name, "source": b.source, "applicable": applicable,
                             "certified": b.certified, "valid": False, "epsilon": None, "rank": None,
                             "assumptions": b.assumptions, "api": b.api, "note": b.note, "seconds": None}
        if applicable:
            t0 = time.perf_counter()
            try:
                eps = float(b.compute())
                r["epsilon"] = eps
                r["valid"] = b.certified and not math.isnan(eps)
            except (ValueError, OverflowError) as exc:
                r["note"] = (r["note"] + "; " if r["note"] else "") + f"not computable: {exc}"
            r["seconds"] = round(time.perf_counter() - t0, 4)
        results.append(r)
    valid = sorted((r for r in results if r["valid"]), key=lambda r: r["epsilon"])
    for i, r in enumerate(valid, 1):
        r["rank"] = i
    rest = [r for r in results if not r["valid"]]
    return {"config": cfg, "delta": cfg["delta"], "bounds": valid + rest,
            "best": valid[0]["id"] if valid else None}


def _setup_line(c: dict[str, Any]) -> str:
    alg = "PNSGD" if c["algorithm"] == "pnsgd" else "DP-SGD"
    noise = (f"{c['kind']} noise, sigma = {c['sigma']:g}" if c["algorithm"] == "pnsgd"
             else f"{c['kind']} noise, multiplier {c['sigma']:g}, clip {c['clip']:g}")
    loss = ", ".join(x for x in [
        "convex" if c["convex"] else "non-convex" + (f" (m = {c['weak_convexity']:g})" if c["weak_convexity"] else ""),
        None if c["lipschitz"] is None else f"L = {c['lipschitz']:g}",
        None if c["smoothness"] is None else f"beta = {c['smoothness']:g}",
        f"rho = {c['strong_convexity']:g}" if c["strong_convexity"] else None,
        None if c["diameter"] is None else f"diameter = {c['diameter']:g}"] if x)
    return (f"{alg}: n = {c['n']}, {c['epochs']} epoch(s), {c['sampling']} batches of {c['batch_size']}, "
            f"lr = {c['lr']:g}; {noise}; loss: {loss}; {c['neighbours'].replace('_', '-')} neighbours; "
            f"target delta = {c['delta']:g}")


def render(rep: dict[str, Any], path: str) -> str:
    lines = [f"pabi report {path}", _setup_line(rep["config"]), ""]
    ranked = [r for r in rep["bounds"] if r["valid"]]
    if ranked:
        lines.append(f"Valid bounds, tightest first (epsilon at delta = {rep['delta']:g}):")
        lines.append(table([dict(r, rank=r["rank"]) for r in ranked],
                           [("rank", "#"), ("epsilon", "epsilon"), ("name", "bound"), ("source", "source")], 6))
    else:
        lines.append("No bound applies to this configuration (see the assumptions below).")
    other = [r for r in rep["bounds"] if not r["valid"]]
    if other:
        lines += ["", "Not applicable or not certified:"]
        pn_only = [r for r in other if not r["applicable"] and not r["assumptions"][0]["satisfied"]
                   and r["assumptions"][0]["text"].startswith(PNSGD_TEXT)]
        if pn_only:
            lines.append(f"  - {len(pn_only)} PNSGD amplification-by-iteration bounds: need algorithm = \"pnsgd\" "
                         "with batch_size = 1")
        for r in other:
            if r in pn_only:
                continue
            if not r["applicable"]:
                why = "; ".join(a["text"] + (f" ({a['detail']})" if a["detail"] else "")
                                for a in r["assumptions"] if not a["satisfied"])
                msg = f"- {r['name']}: needs {why}"
            else:
                msg = f"- {r['name']}: epsilon = {fmt(r['epsilon'], 6)}; {r['note']}"
            lines += textwrap.wrap(msg, width=110, initial_indent="  ", subsequent_indent="      ")
    lines += ["", "Assumptions of the valid bounds (all satisfied by the configuration):"]
    for r in ranked:
        needs = "; ".join(a["text"] for a in r["assumptions"])
        lines += textwrap.wrap(f"#{r['rank']} [{r['source']}] needs: {needs}", width=110,
                               initial_indent="  ", subsequent_indent="      ")
    if ranked:
        best = ranked[0]
        lines += ["", f"Best certificate: ({best['epsilon']:.6g}, {rep['delta']:g})-DP from '{best['name']}'."]
    return "\n".join(lines)


def _help_keys() -> str:
    out, cur = [], None
    for (s, k), (kind, req, default, doc) in SCHEMA.items():
        if s != cur:
            out.append(f"  [{s}]")
            cur = s
        typ = kind[7:].replace(",", "|") if kind.startswith("choice:") else _KIND_TEXT[kind]
        extra = "required" if req else ("optional" if default is None else f"default {json.dumps(default)}")
        out.append(f"    {k} = {typ} ({extra})")
        out.append(f"        {doc}")
    return "\n".join(out)


def _fill(text: str) -> str:
    return "\n\n".join(textwrap.fill(p, 100) for p in text.split("\n\n"))


def add_parser(sub: argparse._SubParsersAction, fmt_cls: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "report", formatter_class=fmt_cls, help="every applicable bound for one training setup, ranked",
        description=_fill("For one training setup (a TOML file) compute every bound pabi has, state the assumptions "
        "each needs and whether the configuration satisfies them, and rank the valid ones by epsilon at the "
        "target delta (tightest first).") + "\n\nConfiguration keys (unknown keys, missing required keys and "
        "out-of-range values are errors):\n" + _help_keys() + "\n\n" + _fill("Bound families: PNSGD amplification by iteration (shuffled / random stop / fixed order; several "
        "shuffled epochs composed by PLD, profile->RDP or one (eps, delta) point), the RDP comparison bound "
        "(Asoodeh-Diaz-Calmon Prop. 1), last-iterate RDP (Kong-Ribero), the DP-SGD PLD accountant and the "
        "data-independent RDP route. See 'python -c \"import pabi.cli.report as r; help(r)\"' for the details."),
        epilog="Example (examples/report.toml):\n  [training]\n  algorithm = \"pnsgd\"\n  n = 1000\n  epochs = 3\n"
        "  sampling = \"shuffled\"\n  lr = 0.05\n  delta = 1e-5\n  [noise]\n  sigma = 4.0\n  [loss]\n"
        "  lipschitz = 1.0\n  convex = true\n  smoothness = 10.0\n  diameter = 1.0\n\n"
        "  pabi report examples/report.toml\n  pabi report examples/report.toml --json")
    p.add_argument("config", metavar="CONFIG.toml", help="training setup (see the keys above)")
    add_json(p)
    return p


def run(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    rep = compute_report(cfg)
    return emit(args, rep, render(rep, args.config))
