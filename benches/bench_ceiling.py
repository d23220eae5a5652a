"""Benchmark: the machine's all-core ceiling for the array kernels, beside their threaded speed-up.

A kernel run on N threads can be at most N times as fast as on one only if N cores each run as
fast as one core alone. Many machines do not: with all cores busy they run at a lower clock
(turbo budgets), share caches and memory bandwidth, and a virtual machine's CPUs may share
physical cores. This benchmark measures that directly, with no threading in it:

* ``solo``: one process, one pabi thread, the workload's best wall time;
* ``together``: N processes started at the same instant, each one pabi thread on its own copy
  of the workload (nothing shared), each process's best time;
* ``threaded``: one process, N pabi threads.

``ceiling = N · solo / together`` is the speed-up that perfectly parallel code could reach on
N cores of this machine; ``threaded speed-up = solo / threaded``; ``efficiency`` is their ratio
(1.0: the kernel's threading loses nothing beyond what the machine imposes).

    python benches/bench_ceiling.py                 # N = all CPUs
    python benches/bench_ceiling.py --procs 16 --only theta,per_instance

Workloads (sizes per process): ``theta`` and ``log_theta`` on 4e6 points, ``pnsgd_delta`` on 1e6
values of ε, ``per_instance`` (``dpsgd_per_instance_rdp``, ceil orders) on 2e4 steps × 100.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from typing import Callable

import numpy as np

from _timing import best_time  # benches/_timing.py (the script's folder is on sys.path)


def workload(name: str) -> Callable[[], object]:
    import pabi

    rng = np.random.default_rng(0)
    if name in ("theta", "log_theta"):
        eps, r = rng.uniform(0, 10, 4_000_000), 10 ** rng.uniform(-2, 1, 4_000_000)
        log = name == "log_theta"
        return lambda: pabi.theta(eps, r, log=log)
    if name == "pnsgd_delta":
        e = rng.uniform(0.1, 5.0, 1_000_000)
        prof = dict(noise_scale=2.0, max_grad_norm=1.0, lr=0.05, diameter=3.0, steps=1000, ordering="shuffled")
        return lambda: pabi.pnsgd_delta(e, **prof)
    if name == "per_instance":
        sens = np.minimum(rng.gamma(2.0, 0.3, size=(20_000, 100)), 1.0)
        return lambda: pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=sens,
                                                   fractional="ceil")
    raise SystemExit(f"unknown workload {name!r}")


WORKLOADS = ("theta", "log_theta", "pnsgd_delta", "per_instance")


def child(name: str, threads: int, start_at: float, repeat: int, q: "mp.Queue[float]") -> None:
    import pabi

    pabi.set_num_threads(threads)
    f = workload(name)
    f()  # warm-up before the common start
    while time.time() < start_at:
        time.sleep(0.001)
    q.put(best_time(f, repeat=repeat, warm=None))


def run(name: str, procs: int, threads: int, repeat: int) -> list[float]:
    """Best times of `procs` processes of `threads` pabi threads each, started together."""
    ctx = mp.get_context("spawn")
    q: "mp.Queue[float]" = ctx.Queue()
    start_at = time.time() + 3.0 + 0.15 * procs  # after every child has imported and warmed up
    ps = [ctx.Process(target=child, args=(name, threads, start_at, repeat, q)) for _ in range(procs)]
    for p in ps:
        p.start()
    out = [q.get() for _ in ps]
    for p in ps:
        p.join()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1, help="N: processes / threads")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated workload names")
    a = ap.parse_args(argv)
    only = [s for s in a.only.split(",") if s] or list(WORKLOADS)
    n = a.procs
    print(f"cpus={os.cpu_count()}, N={n}, load={os.getloadavg()[0]:.2f}")
    for name in only:
        solo = run(name, 1, 1, a.repeat)[0]
        together = run(name, n, 1, a.repeat)
        threaded = run(name, 1, n, a.repeat)[0]
        tog = float(np.median(together))
        ceiling = n * solo / tog
        speedup = solo / threaded
        print(f"{name:13s} solo {solo * 1e3:8.2f} ms | {n} together: median {tog * 1e3:8.2f} ms "
              f"(slowest {max(together) * 1e3:.2f}) -> ceiling x{ceiling:5.2f} | {n} threads {threaded * 1e3:7.2f} ms "
              f"x{speedup:5.2f} | efficiency {speedup / ceiling:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
