"""Benchmark: pabi's DP-SGD PLD accountant against dp-accounting's PLD accountant (default
settings) and prv-accountant (eps_error = 0.01), same cases, same run; exactness of the KOV
composition against mpmath; GDP inversions against a numpy bisection baseline.

Cases: Poisson-subsampled Gaussian, q = 0.01, σ = 1, δ = 1e-5, T = 1e3 / 1e4 / 1e5.
Reports ε (pabi: lower / estimate / certified upper; prv-accountant: its bracket), wall time
(best of ``REPEAT``; prv-accountant and dp-accounting at T = 1e5 once), the speed ratio
dp-accounting / pabi, the peak memory of pabi at T = 1e5 (process high-water mark in a fresh
interpreter), the time of ``dpsgd_calibrate_noise_multiplier``.

    python benches/bench_composition.py            # full table (prv-accountant ~40 s at 1e5)
    python benches/bench_composition.py --no-prv   # skip prv-accountant
"""

from __future__ import annotations

import csv
import pathlib
import subprocess
import sys
import time
from typing import Callable

import numpy as np

import pabi

import _timing  # benches/_timing.py (the script's folder is on sys.path)

Q, SIGMA, DELTA = 0.01, 1.0, 1e-5
STEPS = [1_000, 10_000, 100_000]
TARGET = {1_000: 1.828, 10_000: 6.188, 100_000: 25.573}
PRV_LOW = {1_000: 1.818, 10_000: 6.177, 100_000: 25.562}
REPEAT = 3
ROOT = pathlib.Path(__file__).resolve().parents[1]


def best_of(f, repeat: int = REPEAT):
    return _timing.best_of(f, repeat)


def dp_accounting_eps(steps: int) -> float:
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(dp_event.PoissonSampledDpEvent(Q, dp_event.GaussianDpEvent(SIGMA)), steps)
    return acc.get_epsilon(DELTA)


def prv_eps(steps: int):
    from prv_accountant import PRVAccountant
    from prv_accountant.privacy_random_variables import PoissonSubsampledGaussianMechanism

    prv = PoissonSubsampledGaussianMechanism(noise_multiplier=SIGMA, sampling_probability=Q)
    acc = PRVAccountant(prvs=prv, max_self_compositions=steps, eps_error=0.01, delta_error=1e-10)
    return acc.compute_epsilon(delta=DELTA, num_self_compositions=steps)


MEMORY_SCRIPT = """
import pabi
def hwm():
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM'):
            return int(line.split()[1]) / 1024
pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=10)
base = hwm()
pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=100_000)
print(base, hwm())
"""


def memory() -> None:
    out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT], capture_output=True, text=True,
                         check=True).stdout.split()
    base, peak = float(out[0]), float(out[1])
    print(f"pabi peak memory at T=1e5 (fresh process, VmHWM): {peak:.1f} MB total, "
          f"{peak - base:.1f} MB above the imported interpreter ({base:.1f} MB)\n")


def table(with_prv: bool) -> None:
    print(f"{'T':>7} | {'pabi lower':>10} {'pabi est':>10} {'pabi upper':>10} {'t pabi':>7} | "
          f"{'dp-acc eps':>10} {'t dp-acc':>8} | {'prv lower':>9} {'prv est':>9} {'prv upper':>9}"
          f" {'t prv':>7} | {'dp-acc/pabi':>11} | {'upper-target':>12} | {'t pabi 1T / 2T':>15}")
    for steps in STEPS:
        tp, (lo, est, up) = best_of(
            lambda: pabi.dpsgd_epsilon(DELTA, sample_rate=Q, noise_multiplier=SIGMA, steps=steps, bracket=True))
        td, ed = best_of(lambda: dp_accounting_eps(steps), repeat=1 if steps > 10_000 else REPEAT)
        by_t = _timing.per_threads(lambda: pabi.dpsgd_epsilon(DELTA, sample_rate=Q, noise_multiplier=SIGMA,
                                                              steps=steps), REPEAT)
        if with_prv:
            try:
                tv, ev = best_of(lambda: prv_eps(steps), repeat=1)
                prv = f"{ev[0]:9.4f} {ev[1]:9.4f} {ev[2]:9.4f} {tv:7.2f}"
            except Exception as exc:  # pragma: no cover - optional peer
                prv = f"{'n/a (' + type(exc).__name__ + ')':>37}"
        else:
            prv = f"{'skipped':>37}"
        ok = "ok" if PRV_LOW[steps] <= up <= TARGET[steps] + 0.002 else "MISSED"
        print(f"{steps:>7} | {lo:10.4f} {est:10.5f} {up:10.5f} {tp:7.3f} | {ed:10.5f} {td:8.3f} | "
              f"{prv} | {td / tp:10.1f}x | {up - TARGET[steps]:+.5f} {ok:>6} | {by_t[1]:6.3f} / {by_t[2]:6.3f}")


def calibration() -> None:
    for steps in STEPS:
        t, s = best_of(lambda: pabi.dpsgd_calibrate_noise_multiplier(2.0, DELTA, sample_rate=Q, steps=steps), repeat=1)
        print(f"dpsgd_calibrate_noise_multiplier(2, 1e-5, sample_rate=0.01, steps={steps}): z={s:.5f} "
              f"in {t:.3f} s (upper eps at sigma: {pabi.dpsgd_epsilon(DELTA, sample_rate=Q, noise_multiplier=s, steps=steps):.5f})")


def kov_exactness() -> None:
    from pabi import reference as ref

    worst, below = 0.0, 0
    rows = list(csv.DictReader(open(ROOT / "rust/pabi-core/tests/golden/composition_kov.csv")))
    cases = [(float(r["eps0"]), float(r["delta0"]), int(r["k"]), float(r["eps"]), float(r["delta"]))
             for r in rows]
    t = time.perf_counter()
    fresh = [(0.001, 1e-9, 1_000_000, 3.0), (0.0005, 0.0, 1_000_000, 1.0)]
    for e0, d0, k, e in fresh:
        cases.append((e0, d0, k, e, float(ref.approx_dp_composition_delta(e0, d0, k, e))))
    t_ref = time.perf_counter() - t
    kmax = 0
    for e0, d0, k, e, want in cases:
        got = pabi.approx_dp_composition_delta(e0, d0, k, e)
        if want > 0:
            worst = max(worst, abs(got / want - 1))
        below += got < want
        kmax = max(kmax, k)
    print(f"approx_dp_composition_delta vs mpmath (50 digits): {len(cases)} cases, k up to {kmax}: "
          f"worst relative error {worst:.2e}, {below} below the exact value "
          f"(fresh mpmath at k=1e6: {t_ref:.1f} s)")


def _numpy_bisect(lo: np.ndarray, hi: np.ndarray, above: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Vectorized bisection (the pre-Rust implementation of the GDP inversions): ``above(x)``
    true where x is beyond the root; returns the final (lo, hi)."""
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        over = above(mid)
        hi, lo = np.where(over, mid, hi), np.where(over, lo, mid)
        if np.all(hi - lo <= 4e-16 * np.maximum(1.0, hi)):
            break
    return lo, hi


def _inversion_line(name: str, n: int, ours: Callable[[], np.ndarray], numpy: Callable[[], np.ndarray]) -> None:
    tr, er = best_of(ours)
    by_t = _timing.per_threads(ours, REPEAT)
    tn, en = best_of(numpy, repeat=1)
    print(f"{name} on {n} points: pabi {tr * 1e3:.1f} ms (1 thread {by_t[1] * 1e3:.1f} ms, 2 threads "
          f"{by_t[2] * 1e3:.1f} ms), numpy bisection {tn * 1e3:.1f} ms "
          f"({tn / tr:.1f}x), max difference {np.max(np.abs(er - en) / np.maximum(en, 1.0)):.1e} "
          "(relative, absolute below 1)")


def gdp_inversions() -> None:
    rng = np.random.default_rng(0)
    n = 20_000
    d = 10 ** rng.uniform(-12, -1, n)
    mu = rng.uniform(0.1, 5.0, n)
    eps = rng.uniform(0.0, 10.0, n)
    ld = np.log(d)
    # ε: the smallest with θ(ε, μ) ≤ δ (θ decreases in ε); μ: the largest with θ(ε, μ) ≤ δ
    _inversion_line("gdp_epsilon", n, lambda: pabi.gdp_epsilon(d, mu), lambda: _numpy_bisect(
        np.zeros(n), np.maximum(1.0, mu * mu / 2 + mu * np.sqrt(-2 * ld) + 1.0),
        lambda x: pabi.theta(x, mu, log=True) - ld <= 0)[1])
    _inversion_line("gdp_mu", n, lambda: pabi.gdp_mu(eps, d), lambda: _numpy_bisect(
        np.zeros(n), np.sqrt(2 * eps) + 2 * np.sqrt(-2 * ld) + 2.0,
        lambda x: pabi.theta(eps, x, log=True) - ld > 0)[0])


def main() -> None:
    with_prv = "--no-prv" not in sys.argv
    print("(wall-clock times on a shared, loaded 2-core machine)\n")
    memory()
    table(with_prv)
    print()
    calibration()
    print()
    kov_exactness()
    gdp_inversions()


if __name__ == "__main__":
    main()
