"""Benchmark: online suffix product and the Gaussian-schedule δ(n) against numpy/scipy, same run.

1. ``pabi.online_delta`` over a 1e6-step noise array (δ_n(i) for every i) against the numpy
   baseline ``np.log`` of the scipy-based θ + reversed ``cumsum``.
2. ``pabi.gaussian_schedule_delta`` over 1e6 values of n (n ∈ [1, 1e15]) against the numpy
   baseline (scipy ``lambertw``, θ from ``ndtr``, (1 − B^n)/(n(1 − B))).

Prints wall time (best of 9, the two sides timed alternately after a warm-up call of each),
the ratio, the worst relative error of both against pabi.reference (mpmath, 50 digits) on a
small subsample, and the machine's load average (timings on a loaded machine are not
comparable between runs; the ratio of one run is).

    python benches/bench_schedules.py                       # prints the table
    pytest benches/bench_schedules.py --benchmark-enable    # pytest-benchmark, grouped per task
"""

from __future__ import annotations


import numpy as np
import pytest
from scipy.special import lambertw, ndtr

import pabi
from pabi import reference as ref

import _timing  # benches/_timing.py (the script's folder is on sys.path)

N = 1_000_000
EPS, L, LR, D = 1.0, 1.0, 0.1, 1.0


def theta_np(eps, r):
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return ndtr(-(eps / r - r / 2)) - np.exp(eps) * ndtr(-(eps / r + r / 2))


def online_np(noise):
    la = np.log(theta_np(EPS, 2 * L / noise))
    with np.errstate(divide="ignore"):
        lb = np.log(theta_np(EPS, D / (LR * noise)))
    suffix = np.concatenate([np.cumsum(lb[::-1])[::-1][1:], [0.0]])
    return np.exp(la + suffix)


def gauss_sched_np(n, c1=1e5, c2=100.0):
    w = lambertw(n * n / (2 * np.pi * c1 * c1) + c2).real
    rb = 2 * np.sqrt(w)
    a = theta_np(EPS, 2 * LR * L / D * rb)
    b = theta_np(EPS, rb)
    with np.errstate(divide="ignore", invalid="ignore"):
        return a * (1 - b ** n) / (n * (1 - b))


def worst_rel(vals, exact):
    out = 0.0
    for v, e in zip(vals, exact):
        if not np.isfinite(v):
            return float("inf")
        if e != 0:
            out = max(out, abs(float((v - e) / e)))
    return out


def report() -> list[tuple]:
    rows = []
    rng = np.random.default_rng(0)
    # 1. online suffix product, sigma decaying like t^-0.3 plus noise
    t = np.arange(1, N + 1)
    noise = 40.0 * t ** -0.3 * rng.uniform(0.8, 1.2, N)
    online = lambda x: pabi.online_delta(EPS, max_grad_norm=L, lr=LR, diameter=D, noise_scale=x)  # noqa: E731
    t_np, t_pabi = _timing.best_pair(online_np, online, noise)
    fast, slow = pabi.online_delta(EPS, max_grad_norm=L, lr=LR, diameter=D, noise_scale=noise), online_np(noise)
    idx = [N - 1, N - 2, N - 10, N - 30]  # the last indices (short products, exact is cheap)
    exact = [ref.online_delta(EPS, L, LR, D, list(noise[i:]), 1) for i in idx]
    rows.append(("online_delta (1e6 steps, all i)", t_np, t_pabi, worst_rel(fast[idx], exact),
                 worst_rel(slow[idx], exact)))
    threads = pabi.get_num_threads()  # the same on one thread (issue 17: 1- and n-thread times)
    pabi.set_num_threads(1)
    try:
        t_np1, t_pabi1 = _timing.best_pair(online_np, online, noise)
    finally:
        pabi.set_num_threads(threads)
    rows.append(("  the same, pabi on 1 thread", t_np1, t_pabi1, float("nan"), float("nan")))
    # 2. Gaussian schedule delta(n) for 1e6 values of n
    n = np.floor(10 ** rng.uniform(0, 15, N))
    f = lambda x: pabi.gaussian_schedule_delta(EPS, max_grad_norm=10.0, lr=LR, diameter=D, steps=x, c1=1e5, c2=100.0)  # noqa: E731
    g = lambda x: gauss_sched_np(x)  # noqa: E731
    t_np, t_pabi = _timing.best_pair(g, f, n)
    fast, slow = f(n), g(n)
    sub = rng.choice(N, 12, replace=False)
    exact = [ref.gaussian_schedule_delta(EPS, 10.0, LR, D, float(n[i]), 1e5, 100.0) for i in sub]
    rows.append(("gaussian_schedule_delta (1e6 n)", t_np, t_pabi, worst_rel(fast[sub], exact),
                 worst_rel(slow[sub], exact)))
    # the engine floor: both functions cost two θ-type engine evaluations per element
    r1, r2 = 2 * L / noise, D / (LR * noise)
    t_np2, t_eng = _timing.best_pair(lambda: (theta_np(EPS, r1), theta_np(EPS, r2)),
                             lambda: (pabi.theta(EPS, r1), pabi.theta_complement(EPS, r2)))
    rows.append(("[floor] pabi.theta + theta_complement", t_np2, t_eng, float("nan"), float("nan")))
    return rows


def _noise(n=N):
    t = np.arange(1, n + 1)
    return 40.0 * t ** -0.3 * np.random.default_rng(0).uniform(0.8, 1.2, n)


@pytest.mark.benchmark(group="online_delta_1e6")
@pytest.mark.parametrize("impl", ["pabi", "numpy"])
def test_bench_online(benchmark, impl):
    noise = _noise()
    f = (lambda x: pabi.online_delta(EPS, max_grad_norm=L, lr=LR, diameter=D, noise_scale=x)) if impl == "pabi" else online_np
    benchmark(f, noise)


@pytest.mark.benchmark(group="gauss_schedule_delta_1e6")
@pytest.mark.parametrize("impl", ["pabi", "numpy"])
def test_bench_gauss_schedule(benchmark, impl):
    n = np.floor(10 ** np.random.default_rng(0).uniform(0, 15, N))
    f = (lambda x: pabi.gaussian_schedule_delta(EPS, max_grad_norm=10.0, lr=LR, diameter=D, steps=x, c1=1e5, c2=100.0)) if impl == "pabi" else gauss_sched_np
    benchmark(f, n)


if __name__ == "__main__":
    import os

    load = os.getloadavg()
    print(f"threads={pabi.get_num_threads()} simd={pabi.simd_level()} "
          f"load={load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min) cores={os.cpu_count()}")
    print(f"{'function':36s} {'numpy s':>9s} {'pabi s':>9s} {'ratio':>7s} {'pabi relerr':>12s} {'numpy relerr':>13s}")
    for name, tn, tp, ep, en in report():
        print(f"{name:36s} {tn:9.4f} {tp:9.4f} {tn / tp:7.2f} {ep:12.1e} {en:13.1e}")
