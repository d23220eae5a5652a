"""``pabi report CONFIG.toml``: every bound pabi has for one training setup, ranked.

The configuration is a TOML file with three tables. Every key is checked: an unknown key, a
missing required key or a value of the wrong type or range is a one-line error naming it.

The configuration describes one training run; the report turns it into a training setup
(:class:`pabi.PNSGD` for ``algorithm = "pnsgd"``; :class:`pabi.DPSGD` for ``"dpsgd"`` with
Poisson sampling; :class:`pabi.CyclicDPSGD` for ``"dpsgd"`` with shuffled or cyclic batches)
and prints :func:`pabi.bounds` of it: a thin printer, every number comes from the API, and each
bound carries the expression (``repro``) that reproduces it.

``[training]``

* ``algorithm`` (required): ``"pnsgd"`` — projected noisy SGD, one record per step, the loss
  gradient itself noised (Asoodeh–Diaz–Calmon, Sordello–Bu–Dong) — or ``"dpsgd"`` — clipped
  mini-batch SGD with Gaussian noise on the gradient sum (noise std = noise_multiplier ×
  max_grad_norm).
* ``records`` (required): number of records n in the training set, integer ≥ 1.
* ``epochs`` (default 1): passes over the data, integer ≥ 1.
* ``batch_size`` (default 1): records per step (expected size for Poisson sampling); ``pnsgd``
  needs 1. The steps are epochs × n / batch_size (rounded up).
* ``sampling`` (default ``"shuffled"``): ``"shuffled"`` (a fresh random permutation per epoch,
  fixed-size batches), ``"cyclic"`` (the same fixed order every epoch), ``"random_stop"``
  (``pnsgd``, one epoch, output w_T for T uniform on 1..n), ``"poisson"`` (``dpsgd``: every
  record joins each step independently with probability batch_size / n) or
  ``"without_replacement"`` (``dpsgd``: each step draws a uniformly random batch of exactly
  batch_size records, independently of the other steps; replace-one neighbours only,
  docs/derivations/neighbouring.md#replace-wor).
* ``lr`` (required): learning rate η > 0.
* ``max_grad_norm`` (``dpsgd``: required): clipping norm C > 0 of the per-record gradients.
* ``delta`` (required): target δ in (0, 1); every bound is reported as ε at this δ.
* ``neighboring`` (default ``"add_remove"`` for Poisson sampling, else ``"replace_one"``): the
  neighbouring relation, ``"add_remove"`` (a record added or removed) or ``"replace_one"`` (a
  record replaced). Every bound holds for one relation: the PNSGD, last-iterate and per-epoch
  composition bounds for replace-one, the DP-SGD PLD accountant for the configured relation and
  sampling (docs/derivations/neighbouring.md), the sampled-Gaussian RDP route for add-or-remove.
  Only bounds for the configured relation are ranked; the report states the relation and lists
  the others apart (an ε under add/remove and one under replace-one are different guarantees).

``[noise]``

* ``kind`` (default ``"gaussian"``): ``"gaussian"`` or ``"laplace"`` (``pnsgd`` in dimension 1).
* ``noise_scale`` (``pnsgd``: required): std of the Gaussian noise added to each gradient
  (Laplace: the scale v, density e^{−|z|/v}/(2v)).
* ``noise_multiplier`` (``dpsgd``: required): the noise multiplier z (std z·C on the clipped sum).

``[loss]``

* ``lipschitz``: bound L on every per-record gradient norm (``pnsgd``: required, it is the
  setup's ``max_grad_norm``; ``dpsgd``: optional, L ≤ max_grad_norm means clipping never acts).
* ``convex`` (default false): the loss is convex in the parameters.
* ``smoothness``: β > 0, the gradient is β-Lipschitz (not given: no smoothness assumed).
* ``strong_convexity`` (default 0): ρ ∈ [0, β].
* ``weak_convexity`` (default 0): m ≥ 0 with ℓ + m‖w‖²/2 convex (non-convex losses; 0 if convex).
* ``diameter``: diameter D of the convex constraint set the iterates are projected onto (not
  given: unconstrained).
* ``dimension``: number of parameters (Laplace noise needs 1).

Bounds (each needs the assumptions listed in the report; ε at ``delta``; see :func:`pabi.bounds`):

* PNSGD amplification by iteration (Gaussian or Laplace noise; convex, L-Lipschitz, β-smooth loss
  with η ≤ 2/(β + ρ), bounded domain, replace-one, one record per step): shuffled one epoch
  (Sordello–Bu–Dong Thm 2), random stop (§1), fixed order (Thm 1), and for several shuffled
  epochs the per-epoch profile composed by ``pabi.multi_epoch_epsilon`` (PLD, profile → RDP,
  exact composition of one (ε, δ) point; its GDP route is listed but not certified,
  docs/errata.md#p-c23);
* RDP comparison bound of Asoodeh–Diaz–Calmon Prop. 1 (Gaussian, fixed order, worst record; RDP
  adds over epochs: ``pabi.pnsgd_rdp_epsilon`` with σ/√E rounded down), no bounded domain needed;
* last iterate of cyclic DP-SGD (Kong–Ribero Thm 4.3, 4.4, 4.5 corrected, Cor. C.3), Gaussian;
* baselines needing only the sampling: the DP-SGD PLD accountant (``pabi.dpsgd_epsilon``) and
  the data-independent RDP route (``pabi.sampled_gaussian_rdp``) for Poisson sampling, or, for
  shuffled/cyclic/random-stop runs, every record used at most once per epoch (q = 1, E steps,
  noise multiplier = noise std / replace-one sensitivity 2L or 2C; with Laplace noise in d = 1,
  the E-fold Laplace mechanism composed by ``pabi.PrivacyLossDistribution``).

Valid bounds (applicable, certified, not vacuous: ε ≤ ln(1/δ)) are ranked by ε, smallest
(tightest) first; the smallest is the certificate.
"""

from __future__ import annotations

import argparse
import json
import math
import textwrap
from pathlib import Path
from typing import Any

from .._bounds import PNSGD_TEXT
from .common import add_json, emit
from .config import CliError, load_toml
from .formatting import fmt, table

# (section, key) -> (kind, required, default, help)
SCHEMA: dict[tuple[str, str], tuple[str, bool, Any, str]] = {
    ("training", "algorithm"): ("choice:pnsgd,dpsgd", True, None,
                                "pnsgd = projected noisy SGD, one record per step; dpsgd = clipped mini-batch SGD"),
    ("training", "records"): ("int>=1", True, None, "number of records n in the training set"),
    ("training", "epochs"): ("int>=1", False, 1, "passes over the data"),
    ("training", "batch_size"): ("int>=1", False, 1, "records per step (Poisson: expected; pnsgd: 1)"),
    ("training", "sampling"): ("choice:shuffled,cyclic,random_stop,poisson,without_replacement", False, "shuffled",
                               "fresh permutation per epoch / fixed order / random stop (pnsgd) / Poisson / "
                               "fixed-size random batches drawn without replacement each step (dpsgd)"),
    ("training", "lr"): ("float>0", True, None, "learning rate eta"),
    ("training", "max_grad_norm"): ("float>0", False, None,
                                    "clipping norm C of the per-record gradients (dpsgd: required)"),
    ("training", "delta"): ("prob", True, None, "target delta; every bound is reported as eps at it"),
    ("training", "neighboring"): ("choice:replace_one,add_remove", False, None,
                                  "default add_remove for Poisson sampling, else replace_one"),
    ("noise", "kind"): ("choice:gaussian,laplace", False, "gaussian", "noise distribution (laplace: pnsgd, d = 1)"),
    ("noise", "noise_scale"): ("float>0", False, None,
                               "pnsgd (required): std (Laplace: scale) of the noise on each gradient"),
    ("noise", "noise_multiplier"): ("float>0", False, None,
                                    "dpsgd (required): noise std / max_grad_norm on the clipped gradient sum"),
    ("loss", "lipschitz"): ("float>=0", False, None, "bound L on every per-record gradient norm (pnsgd: required)"),
    ("loss", "convex"): ("bool", False, False, "the loss is convex"),
    ("loss", "smoothness"): ("float>0", False, None, "beta: the gradient is beta-Lipschitz"),
    ("loss", "strong_convexity"): ("float>=0", False, 0.0, "rho in [0, beta]"),
    ("loss", "weak_convexity"): ("float>=0", False, 0.0, "m: loss + m |w|^2 / 2 is convex (0 if convex)"),
    ("loss", "diameter"): ("float>=0", False, None, "diameter D of the convex set the iterates are projected on"),
    ("loss", "dimension"): ("int>=1", False, None, "number of parameters (Laplace noise needs 1)"),
}

_REL_TEXT = {"add_remove": "add-or-remove", "replace_one": "replace-one"}

_KIND_TEXT = {"int>=1": "integer >= 1", "float>0": "number > 0", "float>=0": "number >= 0",
              "prob": "number in (0, 1)", "bool": "true/false"}


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
    need = {"dpsgd": [("training", "max_grad_norm"), ("noise", "noise_multiplier")],
            "pnsgd": [("loss", "lipschitz"), ("noise", "noise_scale")]}[cfg["algorithm"]]
    for s, k in need:
        if cfg[k] is None:
            raise CliError(f"{p}: [{s}] {k} is required for algorithm = {cfg['algorithm']!r}")
    other = {"dpsgd": "noise_scale", "pnsgd": "noise_multiplier"}[cfg["algorithm"]]
    if cfg[other] is not None:
        raise CliError(f"{p}: [noise] {other} is not used by algorithm = {cfg['algorithm']!r} "
                       f"(give {need[1][1]})")
    if cfg["neighboring"] is None:
        cfg["neighboring"] = "add_remove" if cfg["sampling"] == "poisson" else "replace_one"
    if cfg["smoothness"] is not None and cfg["strong_convexity"] > cfg["smoothness"]:
        raise CliError(f"{p}: [loss] strong_convexity must be <= smoothness, got {cfg['strong_convexity']!r}")
    if cfg["strong_convexity"] > 0 and cfg["smoothness"] is None:
        raise CliError(f"{p}: [loss] strong_convexity > 0 needs smoothness")
    return cfg


# ------------------------------------------------------------------------------------ setup


def setup_from_config(c: dict[str, Any], path: str = "config") -> Any:
    """The training setup (:class:`pabi.PNSGD`, :class:`pabi.DPSGD` or
    :class:`pabi.CyclicDPSGD`) a validated configuration describes."""
    import pabi

    n, b, E, s = c["records"], c["batch_size"], c["epochs"], c["sampling"]
    m = 0.0 if c["convex"] else c["weak_convexity"]
    try:
        if c["algorithm"] == "pnsgd":
            if b != 1:
                raise CliError(f"{path}: [training] batch_size must be 1 for algorithm = 'pnsgd' (one record per step)")
            if s in ("poisson", "without_replacement"):
                raise CliError(f"{path}: [training] sampling must be shuffled, cyclic or random_stop for algorithm = 'pnsgd'")
            return pabi.PNSGD(records=n, lr=c["lr"], noise_scale=c["noise_scale"], max_grad_norm=c["lipschitz"],
                              diameter=c["diameter"], smoothness=c["smoothness"],
                              strong_convexity=c["strong_convexity"], convex=c["convex"], weak_convexity=m,
                              noise=c["kind"], ordering={"cyclic": "fixed"}.get(s, s), epochs=E,
                              dimension=c["dimension"], neighboring=c["neighboring"])
        if c["kind"] != "gaussian":
            raise CliError(f"{path}: [noise] kind must be 'gaussian' for algorithm = 'dpsgd'")
        if s in ("poisson", "without_replacement"):
            if s == "without_replacement" and c["neighboring"] != "replace_one":
                raise CliError(f"{path}: [training] sampling = 'without_replacement' needs neighboring = "
                               "'replace_one' (with a fixed batch size, adding a record changes the sampling "
                               "rate; docs/derivations/neighbouring.md#add-remove-wor)")
            if s == "without_replacement" and b > n:
                raise CliError(f"{path}: [training] batch_size must be <= records, got {b!r}")
            return pabi.DPSGD(sample_rate=min(1.0, b / n), noise_multiplier=c["noise_multiplier"],
                              steps=int(math.ceil(E * n / b)), neighboring=c["neighboring"], sampling=s)
        if s == "random_stop":
            raise CliError(f"{path}: [training] sampling = 'random_stop' needs algorithm = 'pnsgd'")
        if b > n:
            raise CliError(f"{path}: [training] batch_size must be <= records, got {b!r}")
        return pabi.CyclicDPSGD(records=n, batch_size=b, epochs=E, lr=c["lr"], max_grad_norm=c["max_grad_norm"],
                                noise_multiplier=c["noise_multiplier"], ordering=s, weak_convexity=m,
                                smoothness=c["smoothness"], diameter=c["diameter"],
                                clipping_inactive=c["lipschitz"] is not None and c["lipschitz"] <= c["max_grad_norm"],
                                neighboring=c["neighboring"])
    except ValueError as exc:
        raise CliError(f"{path}: {exc}") from None


def compute_report(cfg: dict[str, Any], path: str = "config") -> dict[str, Any]:
    """Evaluate every bound for the validated configuration (``pabi.bounds`` of its setup);
    a JSON-ready dict."""
    import pabi

    setup = setup_from_config(cfg, path)
    recs = [r.as_dict() for r in pabi.bounds(setup, cfg["delta"])]
    best = next((r["id"] for r in recs if r["valid"]), None)
    return {"config": cfg, "setup": repr(setup), "delta": cfg["delta"], "neighboring": cfg["neighboring"],
            "bounds": recs, "best": best}


def _setup_line(c: dict[str, Any]) -> str:
    alg = "PNSGD" if c["algorithm"] == "pnsgd" else "DP-SGD"
    noise = (f"{c['kind']} noise, noise_scale = {fmt(c['noise_scale'])}" if c["algorithm"] == "pnsgd"
             else f"{c['kind']} noise, noise_multiplier = {fmt(c['noise_multiplier'])}, "
             f"max_grad_norm = {fmt(c['max_grad_norm'])}")
    loss = ", ".join(x for x in [
        "convex" if c["convex"] else "non-convex" + (f" (m = {fmt(c['weak_convexity'])})" if c["weak_convexity"] else ""),
        None if c["lipschitz"] is None else f"L = {fmt(c['lipschitz'])}",
        None if c["smoothness"] is None else f"beta = {fmt(c['smoothness'])}",
        f"rho = {fmt(c['strong_convexity'])}" if c["strong_convexity"] else None,
        None if c["diameter"] is None else f"diameter = {fmt(c['diameter'])}"] if x)
    return (f"{alg}: {c['records']} records, {c['epochs']} epoch(s), {c['sampling']} batches of {c['batch_size']}, "
            f"lr = {fmt(c['lr'])}; {noise}; loss: {loss}; {c['neighboring'].replace('_', '-')} neighbours; "
            f"target delta = {fmt(c['delta'])}")


def render(rep: dict[str, Any], path: str) -> str:
    rel = rep["config"]["neighboring"]
    lines = [f"pabi report {path}", _setup_line(rep["config"]), f"setup: pabi.{rep['setup']}", ""]
    ranked = [r for r in rep["bounds"] if r["valid"]]
    if ranked:
        lines.append(f"Valid bounds, tightest first (epsilon at delta = {fmt(rep['delta'])}, all for "
                     f"{_REL_TEXT[rel]} neighbours):")
        lines.append(table(ranked, [("rank", "#"), ("epsilon", "epsilon"), ("name", "bound"), ("source", "source")]))
    else:
        lines.append("No bound applies to this configuration (see the assumptions below).")
    other = [r for r in rep["bounds"] if not r["valid"]]
    if other:
        lines += ["", "Not applicable, not certified or vacuous:"]
        pn_only = [r for r in other if not r["applicable"] and not r["assumptions"][0]["satisfied"]
                   and r["assumptions"][0]["text"].startswith(PNSGD_TEXT)]
        if pn_only:
            lines.append(f"  - {len(pn_only)} PNSGD amplification-by-iteration bounds: need algorithm = \"pnsgd\" "
                         "(one record per step)")
        for r in other:
            if r in pn_only:
                continue
            if r["neighboring"] != rel and r["applicable"] and r["epsilon"] is not None:
                msg = (f"- {r['name']}: epsilon = {fmt(r['epsilon'])} for {_REL_TEXT[r['neighboring']]} neighbours, "
                       f"not compared with the {_REL_TEXT[rel]} bounds")
            elif not r["applicable"]:
                why = "; ".join(a["text"] + (f" ({a['detail']})" if a["detail"] else "")
                                for a in r["assumptions"] if not a["satisfied"])
                msg = f"- {r['name']}: needs {why or r['note']}"
            else:
                msg = f"- {r['name']}: epsilon = {fmt(r['epsilon'])}; {r['note']}"
            lines += textwrap.wrap(msg, width=110, initial_indent="  ", subsequent_indent="      ")
    lines += ["", "Assumptions of the valid bounds (all satisfied by the configuration):"]
    for r in ranked:
        needs = "; ".join(a["text"] for a in r["assumptions"])
        lines += textwrap.wrap(f"#{r['rank']} [{r['source']}] needs: {needs}", width=110,
                               initial_indent="  ", subsequent_indent="      ")
    if ranked:
        best = ranked[0]
        lines += ["", f"Best certificate: ({fmt(best['epsilon'])}, {fmt(rep['delta'])})-DP from '{best['name']}'.",
                  f"Reproduce it: {best['repro']}"]
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
        epilog="Example (examples/report.toml):\n  [training]\n  algorithm = \"pnsgd\"\n  records = 1000\n  epochs = 3\n"
        "  sampling = \"shuffled\"\n  lr = 0.05\n  delta = 1e-5\n  [noise]\n  noise_scale = 4.0\n  [loss]\n"
        "  lipschitz = 1.0\n  convex = true\n  smoothness = 10.0\n  diameter = 1.0\n\n"
        "  pabi report examples/report.toml\n  pabi report examples/report.toml --json")
    p.add_argument("config", metavar="CONFIG.toml", help="training setup (see the keys above)")
    add_json(p)
    return p


def run(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    rep = compute_report(cfg, str(args.config))
    return emit(args, rep, render(rep, args.config))
