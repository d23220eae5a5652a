"""``pabi pnsgd``: privacy amplification by iteration for projected noisy SGD."""

from __future__ import annotations

import argparse
from typing import Any

from .common import add_json, emit, integer, number, numbers
from .config import CliError
from .formatting import fmt, table

DESCRIPTION = """\
Privacy of projected noisy SGD (PNSGD) that releases only its last iterate:
w_t = Proj_K(w_{t-1} - lr (grad l(w_{t-1}, x_t) + Z_t)), one record per step, n = --steps steps.

Bounds (see pabi.pnsgd_delta): with A = h(eps, 2L/sigma), B = h(eps, M D/(lr sigma)) (sigma =
--noise-scale, L = --max-grad-norm), h = theta
(Gaussian) or the Laplace divergence,
  fixed ordering, record i:   delta_i = A B^(n-i)                     (Asoodeh-Diaz-Calmon Thms 3-4)
  shuffled:                delta = A (1 - B^n) / (n (1 - B))         (Sordello-Bu-Dong Thm 2)
  random_stop:             delta_i = A (1 - B^(n-i+1)) / (n (1 - B)) (003 Sec. 1; i = 1 worst)
M = sqrt(1 - 2 lr beta rho/(beta + rho)) (1 without strong convexity); lr <= 2/(beta + rho) is
enforced when --smoothness is given. Assumes a convex loss with ||grad|| <= L, a convex
constraint set K of diameter D, replace-one neighbours. Give --eps (prints delta) or --delta
(prints eps), or both with --calibrate-noise-scale (prints the smallest noise that reaches them)."""

EPILOG = """\
Examples:
  pabi pnsgd --noise-scale 4 --max-grad-norm 1 --lr 0.05 --diameter 1 --steps 1000 --delta 1e-5
  pabi pnsgd --noise-scale 1 --max-grad-norm 1 --lr 0.5 --diameter 1 --steps 100 --ordering fixed --index 1 --eps 0.5,1,2
  pabi pnsgd --max-grad-norm 1 --lr 0.5 --diameter 1 --steps 100 --eps 1 --delta 1e-5 --calibrate-noise-scale
  pabi pnsgd --config setup.toml --json      # keys: noise_scale, max_grad_norm, lr, ... (a [pnsgd] table)"""


def add_parser(sub: argparse._SubParsersAction, fmt_cls: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("pnsgd", formatter_class=fmt_cls, description=DESCRIPTION, epilog=EPILOG,
                       help="privacy amplification by iteration (projected noisy SGD)")
    g = p.add_argument_group("target (give --eps, --delta, or both with --calibrate-noise-scale)")
    g.add_argument("--eps", type=numbers, metavar="EPS", help="privacy level(s) eps >= 0 in nats: print delta(eps)")
    g.add_argument("--delta", type=numbers, metavar="DELTA", help="target delta(s) in (0, 1): print eps(delta)")
    g.add_argument("--calibrate-noise-scale", action="store_true",
                   help="print the smallest noise (sigma, or the Laplace scale) for which the bound "
                   "reaches (--eps, --delta)")
    m = p.add_argument_group("mechanism")
    m.add_argument("--noise", choices=("gaussian", "laplace"), default="gaussian",
                   help="noise added to the gradient: N(0, sigma^2 I), or Lap(0, sigma) in d = 1")
    m.add_argument("--noise-scale", type=number,
                   help="noise scale sigma on the gradient: Gaussian std / Laplace scale (> 0)")
    m.add_argument("--max-grad-norm", type=number, required=True,
                   help="gradient norm bound L >= 0 of the loss (its Lipschitz constant)")
    m.add_argument("--lr", type=number, required=True, help="learning rate eta > 0")
    m.add_argument("--diameter", type=number, required=True,
                   help="diameter D >= 0 of the constraint set K (Laplace: b - a for K = [a, b])")
    m.add_argument("--steps", type=integer, required=True, help="number of records = steps (1 <= n < 2^53)")
    m.add_argument("--ordering", choices=("fixed", "shuffled", "random_stop"), default="shuffled",
                   help="record ordering: fixed (needs --index), shuffled (one random permutation) or "
                   "random_stop (output w_T, T uniform on 1..n)")
    m.add_argument("--index", type=integer,
                   help="1-based position i of the differing record (fixed: required; random_stop: "
                   "optional, default the worst case i = 1)")
    m.add_argument("--smoothness", type=number, help="smoothness beta > 0 of the loss (default: not used, M = 1)")
    m.add_argument("--strong-convexity", type=number, default=0.0,
                   help="strong convexity rho in [0, beta] (needs --smoothness)")
    m.add_argument("--variant", choices=("corrected", "as_published"), default="corrected",
                   help="random_stop only: as_published = 000 eq. (16), looser")
    add_json(p)
    return p


def api_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments of pabi.pnsgd_* from the parsed flags (without noise_scale)."""
    kw: dict[str, Any] = dict(noise=args.noise, max_grad_norm=args.max_grad_norm, lr=args.lr,
                              diameter=args.diameter, steps=args.steps, ordering=args.ordering,
                              index=args.index, smoothness=args.smoothness,
                              strong_convexity=args.strong_convexity, variant=args.variant)
    return kw


def run(args: argparse.Namespace) -> int:
    import pabi

    kw = api_kwargs(args)
    if args.calibrate_noise_scale:
        if args.eps is None or args.delta is None:
            raise CliError("--calibrate-noise-scale needs both --eps and --delta")
        if args.noise_scale is not None:
            raise CliError("--calibrate-noise-scale computes the noise scale: do not give --noise-scale")
        rows = [{"eps": e, "delta": d, "noise_scale": pabi.pnsgd_calibrate_noise_scale(e, d, **kw)}
                for e in args.eps for d in args.delta]
        cols = [("eps", "eps"), ("delta", "delta"), ("noise_scale", "noise scale (sigma / Laplace scale)")]
    else:
        if args.noise_scale is None:
            raise CliError("--noise-scale is required (or use --calibrate-noise-scale)")
        if (args.eps is None) == (args.delta is None):
            raise CliError("give exactly one of --eps and --delta (both only with --calibrate-noise-scale)")
        if args.eps is not None:
            rows = [{"eps": e, "delta": pabi.pnsgd_delta(e, noise_scale=args.noise_scale, **kw),
                     "log_delta": pabi.pnsgd_delta(e, noise_scale=args.noise_scale, **kw, log=True)} for e in args.eps]
            cols = [("eps", "eps"), ("delta", "delta (upper bound)"), ("log_delta", "ln delta")]
        else:
            rows = [{"delta": d, "eps": pabi.pnsgd_epsilon(d, noise_scale=args.noise_scale, **kw)} for d in args.delta]
            cols = [("delta", "delta"), ("eps", "eps (upper bound)")]
    setup = {k: v for k, v in dict(kw, noise_scale=args.noise_scale).items() if v is not None}
    head = "PNSGD (%s noise, %s ordering): %s" % (args.noise, args.ordering, ", ".join(
        f"{k} = {fmt(v)}" for k, v in setup.items() if k not in ("noise", "ordering", "variant")))
    results = ("eps",) if args.delta is not None and args.eps is None else ("delta",)
    return emit(args, {"setup": setup, "rows": rows}, head + "\n\n" + table(rows, cols, results=results))
