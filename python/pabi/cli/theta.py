"""``pabi theta`` and ``pabi demo``: the engine θ_{e^ε}(r) and headline numbers."""

from __future__ import annotations

import argparse
import types
from typing import Any, Sequence

from .common import add_json, emit, numbers
from .formatting import table

DEMO_POINTS = [(1.0, 1.0), (1.0, 1e-3), (8.0, 0.5), (700.0, 3.0), (0.5, 40.0), (2.0, 1e3)]
_COLUMNS = [("eps", "eps"), ("r", "r"), ("theta", "theta"), ("log_theta", "log theta"),
            ("theta_complement", "1 - theta")]
_RESULTS = ("theta", "theta_complement")


def theta_rows(eps: Sequence[float], r: Sequence[float]) -> list[dict[str, float]]:
    import pabi

    return [{"eps": e, "r": x, "theta": pabi.theta(e, x), "log_theta": pabi.theta(e, x, log=True),
             "theta_complement": pabi.theta_complement(e, x)} for e in eps for x in r]


def demo_bounds() -> dict[str, float]:
    """A few headline numbers of the bound families (one training setup each)."""
    import pabi

    setup: dict[str, Any] = dict(noise_scale=4.0, max_grad_norm=1.0, lr=0.05, diameter=1.0, steps=1000)
    return {
        "shuffled PNSGD, Gaussian noise sigma=4, n=1000: delta at eps=1": float(
            pabi.pnsgd_delta(1.0, ordering="shuffled", **setup)),
        "shuffled PNSGD, same setup: eps at delta=1e-5": float(
            pabi.pnsgd_epsilon(1e-5, ordering="shuffled", **setup)),
        "Gaussian noise schedule (Lambert W), C1=1e5: limit delta* at eps=1": float(
            pabi.gaussian_schedule_delta_limit(1.0, c1=1e5)),
        "DP-SGD q=0.01 sigma=1 T=1000: eps at delta=1e-5 (PLD upper bound)": float(
            pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000)),
    }


# ------------------------------------------------------------------------------------- theta


def _theta_parser(sub: argparse._SubParsersAction, fmt: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "theta", formatter_class=fmt, help="theta, log theta and 1 - theta at given eps and r",
        description="theta_{e^eps}(r) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2): the hockey-stick divergence "
        "E_{e^eps}(N(r,1) || N(0,1)), i.e. the delta(eps) of a Gaussian mechanism with sensitivity/noise "
        "ratio r. theta and log theta are rounded up, 1 - theta down (upper bounds of delta).",
        epilog="Example:\n  pabi theta 1 0.5,1,2\n  pabi theta 1 1 --json")
    p.add_argument("eps", type=numbers, help="privacy level eps >= 0, in nats (comma list allowed)")
    p.add_argument("r", type=numbers, help="shift / noise ratio r >= 0 (comma list allowed)")
    add_json(p)
    return p


def _theta_run(args: argparse.Namespace) -> int:
    rows = theta_rows(args.eps, args.r)
    return emit(args, rows, table(rows, _COLUMNS, results=_RESULTS))


theta_command = types.SimpleNamespace(__name__="pabi.cli.theta", add_parser=_theta_parser, run=_theta_run)


# -------------------------------------------------------------------------------------- demo


def _demo_parser(sub: argparse._SubParsersAction, fmt: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "demo", formatter_class=fmt, help="theta for a few settings and one number per bound family",
        description="Prints theta, log theta and 1 - theta at a few illustrative (eps, r), including extreme "
        "ones, and one headline number of each bound family (PNSGD, noise schedules, DP-SGD).",
        epilog="Example:\n  pabi demo\n  pabi demo --json")
    add_json(p)
    return p


def _demo_run(args: argparse.Namespace) -> int:
    import pabi

    rows = [row for e, x in DEMO_POINTS for row in theta_rows([e], [x])]
    bounds = demo_bounds()
    if args.json:
        return emit(args, {"theta": rows, "bounds": bounds}, "")
    lines = ["pabi demo: the Gaussian hockey-stick divergence theta_{e^eps}(r) = Q(eps/r - r/2) - e^eps Q(eps/r + r/2)",
             f"(kernels: {pabi.simd_level()}, threads: {pabi.get_num_threads()})", "",
             table(rows, _COLUMNS, results=_RESULTS), "", "Bounds built on it (see README):"]
    lines += [f"  {name:<72} {value:.6g}" for name, value in bounds.items()]
    print("\n".join(lines))
    return 0


demo_command = types.SimpleNamespace(__name__="pabi.cli.demo", add_parser=_demo_parser, run=_demo_run)
