"""Command-line entry point: ``pabi`` (or ``python -m pabi``).

Sub-commands so far:

* ``pabi demo``: θ, log θ and 1 − θ for a few illustrative settings (the README's main job).
* ``pabi theta EPS R [--json]``: the θ family at one point (EPS and R may be comma lists).

Later families (PNSGD amplification, DP-SGD accounting, reports) add sub-commands here.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from . import _api


def _floats(text: str) -> list[float]:
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or a comma-separated list of numbers, got {text!r}") from None


def _rows(eps: Sequence[float], r: Sequence[float]) -> list[dict[str, float]]:
    rows = []
    for e in eps:
        for x in r:
            rows.append(
                {
                    "eps": e,
                    "r": x,
                    "theta": _api.theta(e, x),
                    "log_theta": _api.log_theta(e, x),
                    "theta_complement": _api.theta_complement(e, x),
                }
            )
    return rows


def _print_table(rows: list[dict[str, float]]) -> None:
    head = f"{'eps':>8} {'r':>10} {'theta':>24} {'log theta':>24} {'1 - theta':>24}"
    print(head)
    print("-" * len(head))
    for row in rows:
        print(
            f"{row['eps']:>8g} {row['r']:>10g} {row['theta']:>24.17g} {row['log_theta']:>24.17g} "
            f"{row['theta_complement']:>24.17g}"
        )


DEMO_POINTS = [(1.0, 1.0), (1.0, 1e-3), (8.0, 0.5), (700.0, 3.0), (0.5, 40.0), (2.0, 1e3)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pabi",
        description="Tight differential-privacy bounds for iterative training (privacy amplification by iteration, "
        "Renyi-DP). theta(eps, r) is the Gaussian hockey-stick divergence E_{e^eps}(N(r,1) || N(0,1)).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_demo = sub.add_parser("demo", help="print theta, log theta and 1 - theta for a few settings")
    p_demo.add_argument("--json", action="store_true", help="machine-readable output")
    p_theta = sub.add_parser("theta", help="theta, log theta and 1 - theta at given eps and r")
    p_theta.add_argument("eps", type=_floats, help="privacy level eps >= 0 (comma list allowed)")
    p_theta.add_argument("r", type=_floats, help="shift / noise ratio r >= 0 (comma list allowed)")
    p_theta.add_argument("--json", action="store_true", help="machine-readable output")
    args = parser.parse_args(argv)

    if args.command is None:
        parser.print_help()
        return 0
    try:
        if args.command == "demo":
            rows = [row for e, x in DEMO_POINTS for row in _rows([e], [x])]
            if not args.json:
                print("pabi demo: the Gaussian hockey-stick divergence theta_{e^eps}(r) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2)")
                print(f"(kernels: {_api.simd_level()}, threads: {_api.get_num_threads()})\n")
        else:
            rows = _rows(args.eps, args.r)
    except ValueError as exc:  # domain errors: one line, non-zero status
        print(f"pabi: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rows if args.command != "demo" else {"theta": rows, "bounds": _demo_bounds()}, indent=2))
    else:
        _print_table(rows)
        if args.command == "demo":
            print("\nBounds built on it (see README):")
            for name, value in _demo_bounds().items():
                print(f"  {name:<72} {value:.6g}")
    return 0


def _demo_bounds() -> dict[str, float]:
    """A few headline numbers of the bound families (one training setup each)."""
    import pabi

    setup = dict(sigma=4.0, lipschitz=1.0, lr=0.05, diameter=1.0, n=1000)
    return {
        "shuffled PNSGD, Gaussian noise sigma=4, n=1000: delta at eps=1": float(
            pabi.pnsgd_delta(1.0, order="shuffled", **setup)),
        "shuffled PNSGD, same setup: eps at delta=1e-5": float(
            pabi.pnsgd_epsilon(1e-5, order="shuffled", **setup)),
        "Gaussian noise schedule (Lambert W), C1=1e5: limit delta* at eps=1": float(
            pabi.gauss_schedule_delta_star(1.0, 1e5)),
        "DP-SGD q=0.01 sigma=1 T=1000: eps at delta=1e-5 (PLD upper bound)": float(
            pabi.dpsgd_epsilon(0.01, 1.0, 1000, 1e-5)),
    }


if __name__ == "__main__":
    sys.exit(main())
