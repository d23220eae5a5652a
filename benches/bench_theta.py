"""Benchmark: pabi.theta against the naive numpy/scipy formula, same points, same run.

Points: 1e7 random (eps ~ U[0, 10], r ~ 10^U[-2, 1]) as in issue #2. Reports wall time,
ns/point (all threads and single-threaded), the speed ratio, and the accuracy of both on the
same points (naive vs pabi on all points, and both vs pabi.reference at 50 digits on a
subsample).

    python benches/bench_theta.py            # prints the table (the figures quoted in issues)
    pytest benches/bench_theta.py --benchmark-enable   # pytest-benchmark, grouped per size
    python benches/bench_theta.py --ziv [n]  # undecided fraction of a directed-grid rounding

``--ziv`` measures the feasibility of an exactly monotone θ (issue 13): returning RU_G(θ), the
exact value rounded up onto a grid G of doubles whose low k mantissa bits are zero, decided
Ziv-style from the fast value v and an error bound e (undecided where a grid point lies in
[v(1 − e), v(1 + e)]). It prints the fraction of undecided lanes on this workload for grid
spacings 2^-44 / 2^-43 / 2^-40 (relative, per binade; 2^-40 is beyond the 1e-13 tightness bar) and e = 2^-47 ... 2^-50; each undecided lane
would need a second, more precise evaluation.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest
from scipy.special import ndtr

import pabi

import _timing  # benches/_timing.py (the script's folder is on sys.path)

N = 10_000_000


def points(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 10, n), 10 ** rng.uniform(-2, 1, n)


def naive_theta(eps: np.ndarray, r: np.ndarray) -> np.ndarray:
    """The textbook formula Q(eps/r - r/2) - e^eps Q(eps/r + r/2) with scipy's ndtr."""
    with np.errstate(over="ignore", invalid="ignore"):
        return ndtr(-(eps / r - r / 2)) - np.exp(eps) * ndtr(-(eps / r + r / 2))


def best_cpu(f, *args, repeat: int = 3) -> float:
    """Process CPU time (all threads): on a shared machine the wall clock measures the load."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        f(*args)
        times.append(time.process_time() - t0)
    return min(times)


def report(n: int = N) -> dict:
    eps, r = points(n)
    t_naive = _timing.best_time(naive_theta, eps, r, repeat=5)
    c_naive = best_cpu(naive_theta, eps, r)
    t_pabi = _timing.best_time(pabi.theta, eps, r, repeat=5)
    threads = pabi.get_num_threads()
    pabi.set_num_threads(1)
    try:
        t_pabi1 = _timing.best_time(pabi.theta, eps, r, repeat=3)
        c_pabi1 = best_cpu(pabi.theta, eps, r)
        # Where the single-thread time goes: the same kernel on cache-resident blocks (no output
        # allocation, no page faults, no memory traffic), and a bare output allocation + write.
        m = 1 << 16
        blocks = [(eps[i : i + m], r[i : i + m]) for i in range(0, min(n, 16 * m), m)]
        t_cached = _timing.best_time(lambda: [pabi.theta(a, b) for a, b in blocks], repeat=3) / (len(blocks) * m)
        t_alloc = _timing.best_time(lambda: np.empty(n).fill(0.5), repeat=3) / n
    finally:
        pabi.set_num_threads(threads)

    fast, slow = pabi.theta(eps, r), naive_theta(eps, r)
    ok = fast > 1e-300
    rel = np.abs(slow[ok] - fast[ok]) / fast[ok]
    bad = ~np.isfinite(slow) | (slow < 0)

    from pabi import reference as ref

    sub = np.random.default_rng(1).choice(n, 2000, replace=False)
    worst_pabi = worst_naive = 0.0
    for i in sub:
        exact = ref.theta(float(eps[i]), float(r[i]), dps=40)
        if exact < 1e-300:
            continue
        worst_pabi = max(worst_pabi, abs(float((fast[i] - exact) / exact)))
        if np.isfinite(slow[i]):
            worst_naive = max(worst_naive, abs(float((slow[i] - exact) / exact)))
    return {
        "n": n,
        "threads": threads,
        "simd": pabi.simd_level(),
        "naive_s": t_naive,
        "pabi_s": t_pabi,
        "ratio": t_naive / t_pabi,
        "naive_ns_per_point": t_naive / n * 1e9,
        "pabi_ns_per_point": t_pabi / n * 1e9,
        "pabi_1thread_ns_per_point": t_pabi1 / n * 1e9,
        "ratio_1thread": t_naive / t_pabi1,
        "naive_cpu_ns_per_point": c_naive / n * 1e9,
        "pabi_1thread_cpu_ns_per_point": c_pabi1 / n * 1e9,
        "ratio_cpu_1thread": c_naive / c_pabi1,
        "pabi_1thread_cache_resident_ns_per_point": t_cached * 1e9,
        "output_alloc_and_fill_ns_per_point": t_alloc * 1e9,
        "naive_relerr_median": float(np.median(rel)),
        "naive_relerr_max": float(np.max(rel[np.isfinite(rel)])),
        "naive_frac_relerr_gt_1e-6": float(np.mean(rel > 1e-6)),
        "naive_nan_inf_or_negative": int(bad.sum()),
        "subsample_vs_mpmath_pabi_max": worst_pabi,
        "subsample_vs_mpmath_naive_max": worst_naive,
    }


def ziv_fractions(n: int = 1_000_000) -> list[tuple[str, int, int, float]]:
    """(function, grid exponent, log2 e, undecided fraction) on the benchmark points; v is the
    library's value with its outward margin (2^-46 relative) taken back out. Lanes whose θ is
    below 2^-1000 (a third here, a > 38.6) are decided anyway and count as decided."""
    eps, r = points(n)
    rows = []
    for name, log in (("theta", False), ("log_theta", True)):
        v = np.abs(pabi.theta(eps, r, log=log)) / (1 + 2.0**-46)
        for k in (8, 9, 12):
            for le in (-47, -48, -49, -50):
                e = 2.0**le

                def grid_up(x, k=k):
                    return (x.view(np.uint64) + np.uint64(2**k - 1)) // np.uint64(2**k)

                und = (grid_up(v * (1 - e)) != grid_up(v * (1 + e))) & (v > 2.0**-1000)
                rows.append((name, 52 - k, le, float(und.mean())))
    return rows


# -- pytest-benchmark -------------------------------------------------------------------------
SIZES = [10_000, 1_000_000]


@pytest.mark.parametrize("n", SIZES)
def test_bench_naive(benchmark, n):
    benchmark.group = f"theta n={n}"
    eps, r = points(n)
    benchmark(naive_theta, eps, r)


@pytest.mark.parametrize("n", SIZES)
def test_bench_pabi(benchmark, n):
    benchmark.group = f"theta n={n}"
    eps, r = points(n)
    benchmark(pabi.theta, eps, r)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--ziv":
        for name, g, le, frac in ziv_fractions(int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000):
            print(f"{name:<10} grid 2^-{g}  e = 2^{le}  undecided {frac:.3f}")
        sys.exit(0)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else N
    res = report(n)
    width = max(map(len, res))
    for k, v in res.items():
        print(f"{k:<{width}}  {v:.4g}" if isinstance(v, float) else f"{k:<{width}}  {v}")
