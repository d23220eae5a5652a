"""Benchmark: thread scaling of the array kernels and the DP-SGD PLD path (issue 17).

For each workload and each thread count (``pabi.set_num_threads``) it prints the best wall time
of several runs, the time per point, the speed-up over one thread and the parallel fraction that
Amdahl's law gives for that speed-up, p = (1 − 1/S) / (1 − 1/N) for S× on N threads. Where a
numpy/scipy formula computes the same quantity (θ, ln θ) its single-threaded time is printed in
the same run with the ratio.

    python benches/bench_scaling.py                    # 1 thread and all CPUs, moderate sizes
    python benches/bench_scaling.py --threads 1,2,4,8,16 --large --json out.json

Workloads (``--large`` in brackets):

* ``theta``, ``log_theta`` (``theta(log=True)``): 4e6 [2e7] random points, ε ~ U[0, 10], r ~ 10^U[-2, 1];
* ``pnsgd_delta``: 1e6 [4e6] values of ε against one shuffled-order PNSGD profile;
* ``per_instance``: ``dpsgd_per_instance_rdp`` on 1e4 [1e5] steps × 100 samples (ceil orders);
* ``online_delta``: the suffix scan over 2e6 [1e7] per-step noise levels;
* ``dpsgd_epsilon``: the certified PLD bracket at T = 1e5 (``--steps``; q = 0.01, σ = 1, δ = 1e-5), warm;
* ``dpsgd_epsilon_cold``: the same, each call with a noise multiplier not seen before in the process
  (its single-step PLDs are discretised anew, as for a user's first call).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Callable

import numpy as np
from scipy.special import ndtr

import pabi


def best_of(f: Callable[[], object], repeat: int) -> float:
    f()  # warm-up (page faults, caches, the PLD single-step cache)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def naive_theta(eps: np.ndarray, r: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return ndtr(-(eps / r - r / 2)) - np.exp(eps) * ndtr(-(eps / r + r / 2))


def naive_log_theta(eps: np.ndarray, r: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(naive_theta(eps, r))


def naive_online(sig: np.ndarray) -> np.ndarray:
    """ln θ of the per-step factors with scipy and a reversed cumsum (benches/bench_schedules.py)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        la = np.log(naive_theta(np.full_like(sig, 1.0), 2.0 / sig))
        lb = np.log(naive_theta(np.full_like(sig, 1.0), 1.0 / (0.1 * sig)))
    suffix = np.concatenate([np.cumsum(lb[::-1])[::-1][1:], [0.0]])
    return np.exp(la + suffix)


Workload = tuple[str, int, Callable[[], object], Callable[[], object] | None]


def workloads(large: bool, dpsgd_steps: int = 100_000) -> list[Workload]:
    rng = np.random.default_rng(0)
    n = 20_000_000 if large else 4_000_000
    eps, r = rng.uniform(0, 10, n), 10 ** rng.uniform(-2, 1, n)
    m = 4_000_000 if large else 1_000_000
    eps_p = rng.uniform(0.1, 5.0, m)
    profile = dict(noise_scale=2.0, max_grad_norm=1.0, lr=0.05, diameter=3.0, steps=1000, ordering="shuffled")
    steps = 100_000 if large else 10_000
    sens = np.minimum(rng.gamma(2.0, 0.3, size=(steps, 100)), 1.0)
    k = 10_000_000 if large else 2_000_000
    sig = np.linspace(1.0, 3.0, k)
    fresh = iter(range(1, 1 << 30))

    def dpsgd_cold() -> float:
        sigma = 1.0 + 1e-9 * next(fresh)  # a noise multiplier not seen before: no cached PLD
        return pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=sigma, steps=dpsgd_steps, bracket=True)

    return [
        ("theta", n, lambda: pabi.theta(eps, r), lambda: naive_theta(eps, r)),
        ("log_theta", n, lambda: pabi.theta(eps, r, log=True), lambda: naive_log_theta(eps, r)),
        ("pnsgd_delta", m, lambda: pabi.pnsgd_delta(eps_p, **profile), None),
        ("per_instance", sens.size,
         lambda: pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=sens,
                                             fractional="ceil"), None),
        ("online_delta", k,
         lambda: pabi.online_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=sig),
         lambda: naive_online(sig)),
        ("dpsgd_epsilon", 1,
         lambda: pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=dpsgd_steps, bracket=True),
         None),
        ("dpsgd_epsilon_cold", 1, dpsgd_cold, None),
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}", help="comma-separated thread counts")
    ap.add_argument("--large", action="store_true", help="the large sizes (for a many-core machine)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated workload names")
    ap.add_argument("--json", default="", help="write the table to this file")
    ap.add_argument("--steps", type=float, default=1e5, help="DP-SGD steps T of the dpsgd_epsilon workloads")
    a = ap.parse_args(argv)
    counts = [int(t) for t in a.threads.split(",")]
    only = {s for s in a.only.split(",") if s}
    load = os.getloadavg()
    print(f"pabi {pabi.__version__}, cpus={os.cpu_count()}, simd={pabi.simd_level()}, threads={counts}, "
          f"load={load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    rows = []
    for name, size, run, base in workloads(a.large, int(a.steps)):
        if only and name not in only:
            continue
        t_base = best_of(base, a.repeat) if base is not None else None
        times = {}
        for t in counts:
            pabi.set_num_threads(t)
            times[t] = best_of(run, a.repeat)
        t1 = times[counts[0]]
        line = [f"{name:14s} n={size:>9,d}"]
        for t in counts:
            s = t1 / times[t]
            frac = (1 - 1 / s) / (1 - 1 / t) if t > 1 else float("nan")
            unit = f"{times[t] / size * 1e9:8.2f} ns/pt" if size > 1 else f"{times[t] * 1e3:8.1f} ms"
            line.append(f"{t:>2d}T {unit} ×{s:5.2f}" + (f" p={frac:.3f}" if t > 1 else ""))
        if t_base is not None:
            line.append(f"numpy(1T) {t_base / size * 1e9:.2f} ns/pt, ratio {t_base / times[counts[-1]]:.1f}× "
                        f"(1T {t_base / t1:.1f}×)")
        print(" | ".join(line), flush=True)
        rows.append(dict(name=name, size=size, times={str(t): times[t] for t in counts}, numpy=t_base))
    pabi.set_num_threads(os.cpu_count() or 1)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(cpus=os.cpu_count(), simd=pabi.simd_level(), rows=rows), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
