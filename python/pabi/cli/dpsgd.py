"""``pabi dpsgd``: the DP-SGD accountant (subsampled Gaussian mechanism; add-or-remove or
replace-one neighbours, Poisson sampling or fixed-size batches without replacement)."""

from __future__ import annotations

import argparse
from typing import Any


from .common import add_json, emit, integer, number, numbers
from .config import CliError
from .formatting import table

DESCRIPTION = """\
(eps, delta) of DP-SGD: `steps` compositions of the Poisson-subsampled Gaussian mechanism with
sample rate q and noise multiplier z (noise std = z x max_grad_norm). --neighboring add_remove
(default) or replace_one; --sampling poisson (default) or without_replacement (a fixed batch of
b out of n records, q = b/n; replace-one only). Two accountants side by side:
  PLD  - privacy-loss distribution composed by FFT (pabi.dpsgd_epsilon / dpsgd_delta): the
         certified upper bound, with a lower bound and the estimate (the bracket is the
         discretisation error);
  RDP  - Renyi DP of the sampled Gaussian (pabi.sampled_gaussian_rdp) x steps, converted at the
         best order of pabi.DEFAULT_ORDERS (pabi.rdp_to_dp_epsilon, tight conversion): looser;
         add-or-remove neighbours with Poisson sampling only (not shown otherwise).
Needs only the sampling: no convexity, smoothness or bounded domain."""

EPILOG = """\
Examples:
  pabi dpsgd --sample-rate 0.01 --noise-multiplier 1 --steps 1000 --delta 1e-5
  pabi dpsgd --sample-rate 0.01 --noise-multiplier 1 --steps 1000,10000 --eps 1,2 --json
  pabi dpsgd --sample-rate 0.01 --steps 1000 --eps 1.828 --delta 1e-5 --calibrate-noise-multiplier
  pabi dpsgd --sample-rate 0.01 --noise-multiplier 1 --steps 1000 --delta 1e-5 --neighboring replace_one \
      --sampling without_replacement"""


def add_parser(sub: argparse._SubParsersAction, fmt_cls: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("dpsgd", formatter_class=fmt_cls, description=DESCRIPTION, epilog=EPILOG,
                       help="DP-SGD accountant (PLD, with the RDP route for comparison)")
    p.add_argument("--sample-rate", type=number, required=True,
                   help="Poisson sample rate q in [0, 1] (expected batch size / records)")
    p.add_argument("--noise-multiplier", type=number, help="noise multiplier z > 0 (noise std / max_grad_norm)")
    p.add_argument("--steps", type=numbers, required=True, metavar="STEPS",
                   help="number of steps (integer >= 1; comma list allowed)")
    p.add_argument("--delta", type=numbers, help="target delta(s) in (0, 1): print eps")
    p.add_argument("--eps", type=numbers, help="privacy level(s) eps >= 0: print delta")
    p.add_argument("--calibrate-noise-multiplier", action="store_true",
                   help="print the smallest noise multiplier whose certified eps at --delta is <= --eps")
    p.add_argument("--grid-step", type=number, default=1e-4, help="PLD grid step (smaller: tighter, slower)")
    p.add_argument("--no-rdp", action="store_true", help="skip the RDP comparison")
    p.add_argument("--neighboring", choices=("add_remove", "replace_one"), default="add_remove",
                   help="neighbouring relation (default add_remove)")
    p.add_argument("--sampling", choices=("poisson", "without_replacement"), default="poisson",
                   help="batch sampling: poisson (default) or without_replacement (fixed batch size, "
                   "q = batch_size / records; needs --neighboring replace_one)")
    add_json(p)
    return p


def rdp_epsilon(sample_rate: float, noise_multiplier: float, steps: int, delta: float) -> tuple[float, float]:
    """(eps, order) of the RDP route: steps x sampled_gaussian_rdp over DEFAULT_ORDERS (rounded up),
    tight conversion."""
    import pabi

    orders = pabi.DEFAULT_ORDERS
    curve = pabi.rdp_compose(pabi.sampled_gaussian_rdp(orders, sample_rate=sample_rate, noise_multiplier=noise_multiplier), count=steps)
    return pabi.rdp_to_dp_epsilon(delta, orders=orders, rdp=curve)


def rdp_delta(sample_rate: float, noise_multiplier: float, steps: int, eps: float) -> tuple[float, float]:
    import pabi

    orders = pabi.DEFAULT_ORDERS
    curve = pabi.rdp_compose(pabi.sampled_gaussian_rdp(orders, sample_rate=sample_rate, noise_multiplier=noise_multiplier), count=steps)
    return pabi.rdp_to_dp_delta(eps, orders=orders, rdp=curve)


def _steps(values: list[float]) -> list[int]:
    out = []
    for v in values:
        if v != int(v) or v < 1:
            raise CliError(f"steps must be an integer >= 1, got {v!r}")
        out.append(int(v))
    return out


def run(args: argparse.Namespace) -> int:
    import pabi

    steps = _steps(args.steps)
    rel: dict[str, Any] = {}  # neighboring= / sampling= where not the defaults
    if args.neighboring != "add_remove":
        rel["neighboring"] = args.neighboring
    if args.sampling != "poisson":
        rel["sampling"] = args.sampling
    if args.sampling == "without_replacement" and args.neighboring != "replace_one":
        raise CliError("--sampling without_replacement needs --neighboring replace_one (under add or "
                       "remove the dataset size, hence q = batch_size / records, differs between neighbours)")
    no_rdp = args.no_rdp or bool(rel)  # the RDP route is for add/remove with Poisson sampling
    rows: list[dict[str, Any]] = []
    if args.calibrate_noise_multiplier:
        if args.eps is None or args.delta is None:
            raise CliError("--calibrate-noise-multiplier needs both --eps and --delta")
        if args.noise_multiplier is not None:
            raise CliError("--calibrate-noise-multiplier computes it: do not give --noise-multiplier")
        for t in steps:
            for e in args.eps:
                for d in args.delta:
                    rows.append({"steps": t, "eps": e, "delta": d,
                                 "noise_multiplier": pabi.dpsgd_calibrate_noise_multiplier(e, d, sample_rate=args.sample_rate, steps=t, grid_step=args.grid_step, **rel)})
        cols = [("steps", "steps"), ("eps", "eps"), ("delta", "delta"), ("noise_multiplier", "noise multiplier")]
    else:
        if args.noise_multiplier is None:
            raise CliError("--noise-multiplier is required (or use --calibrate-noise-multiplier)")
        if (args.eps is None) == (args.delta is None):
            raise CliError("give exactly one of --eps and --delta (both only with --calibrate-noise-multiplier)")
        # the question: ε at each δ, or δ at each ε (one row shape, named after the answer)
        given, other = ("delta", "eps") if args.delta is not None else ("eps", "delta")
        kw = dict(sample_rate=args.sample_rate, noise_multiplier=args.noise_multiplier, grid_step=args.grid_step, **rel)

        def solve(x: float, t: int) -> Any:
            if given == "delta":
                return pabi.dpsgd_epsilon(x, steps=t, bracket=True, **kw)
            return pabi.dpsgd_delta(x, steps=t, **kw)

        rdp = rdp_epsilon if given == "delta" else rdp_delta
        for t in steps:
            for x in getattr(args, given):
                lo, est, up = solve(x, t)
                row: dict[str, Any] = {"steps": t, given: x, f"{other}_pld": up, f"{other}_pld_lower": lo,
                                       f"{other}_pld_estimate": est}
                if not no_rdp:
                    row[f"{other}_rdp"], row["rdp_order"] = rdp(args.sample_rate, args.noise_multiplier, t, x)
                rows.append(row)
        cols = [("steps", "steps"), (given, given), (f"{other}_pld", f"{other} PLD (upper)"),
                (f"{other}_pld_lower", "PLD lower"), (f"{other}_rdp", f"{other} RDP"), ("rdp_order", "order")]
        if no_rdp:
            cols = [c for c in cols if "rdp" not in c[0]]
    setup = {"sample_rate": args.sample_rate, "noise_multiplier": args.noise_multiplier, "grid_step": args.grid_step,
             **rel}
    samp = "Poisson sampling" if args.sampling == "poisson" else "fixed-size batches without replacement,"
    head = f"DP-SGD, {samp} q = {args.sample_rate:g}" + (
        f", noise multiplier {args.noise_multiplier:g}" if args.noise_multiplier is not None else "") + (
        ", add-or-remove neighbours" if args.neighboring == "add_remove" else ", replace-one neighbours")
    return emit(args, {"setup": setup, "rows": rows}, head + "\n\n" + table(rows, cols, results=("delta_pld", "delta_pld_lower", "delta_rdp")))
