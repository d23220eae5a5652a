"""Benchmark: PNSGD with per-step parameters (pnsgd_stepwise_delta / pnsgd_stepwise_epsilon).

* n = 1e9 steps as a piecewise-constant schedule (linear warm-up over 1000 pieces, then a
  step decay in 10 pieces, noise and clipping norm changing with it): δ for each ordering, and ε
  for a target δ — the target is n = 1e9 in under 10 s on the 2-core development machine;
* the array form (one entry per step): steps per second at n = 1e5 and 1e6, every parameter
  varying (no merging of runs);
* a constant schedule of n = 1e9 steps (dispatched to pnsgd_delta) against pnsgd_delta.

Best of ``REPEAT`` runs; not a timed test.

    python benches/bench_pnsgd_steps.py
"""

from __future__ import annotations

import time

import numpy as np

import pabi

REPEAT = 3
N = 10**9


def best_of(f, repeat: int = REPEAT):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def billion_step_schedule() -> dict:
    """1e9 steps: 1000 warm-up pieces of 1e4 steps (lr 1e-3 → 0.1), then 10 decay pieces."""
    warm = np.linspace(1e-3, 0.1, 1000)
    decay = 0.1 * 0.5 ** np.arange(1, 11)
    lr = np.concatenate([warm, decay])
    runs = np.concatenate([np.full(1000, 1e4), np.full(10, (N - 1e7) / 10)])
    sigma = np.where(lr > 0.05, 2.0, 1.5)
    clip = np.where(np.arange(lr.size) < 1000, 1.0, 0.5)
    assert runs.sum() == N
    return dict(noise_scale=sigma, max_grad_norm=clip, lr=lr, diameter=1.0, run_lengths=runs)


def main() -> None:
    kw = billion_step_schedule()
    print(f"piecewise-constant schedule: n = {N:.0e} steps in {kw['lr'].size} pieces")
    for ordering, index in (("shuffled", None), ("fixed", 1), ("fixed", N), ("random_stop", None),
                            ("random_stop", N // 2)):
        t, v = best_of(lambda: pabi.pnsgd_stepwise_delta(1.0, ordering=ordering, index=index, log=True, **kw))
        print(f"  delta  {ordering:12} index={index!s:11} ln delta = {v:.10g}   {t * 1e3:8.3f} ms")
    t, e = best_of(lambda: pabi.pnsgd_stepwise_epsilon(1e-6, **kw))
    print(f"  epsilon(delta=1e-6, shuffled) = {e:.10g}   {t * 1e3:8.3f} ms")

    print("array form (every parameter varies at every step):")
    for n in (10**5, 10**6):
        rng = np.random.default_rng(0)
        arr = dict(noise_scale=rng.uniform(1.0, 2.0, n), max_grad_norm=rng.uniform(0.5, 1.0, n),
                   lr=rng.uniform(0.01, 0.5, n), diameter=1.0)
        for ordering in ("shuffled", "random_stop"):
            t, _ = best_of(lambda: pabi.pnsgd_stepwise_delta(1.0, ordering=ordering, **arr), 2)
            print(f"  n = {n:.0e} {ordering:12} {t:7.3f} s   {n / t / 1e6:6.2f} M steps/s")

    c = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0)
    t1, a = best_of(lambda: pabi.pnsgd_stepwise_delta(1.0, run_lengths=[N], **c))
    t2, b = best_of(lambda: pabi.pnsgd_delta(1.0, steps=N, **c))
    print(f"constant schedule, n = 1e9: stepwise {t1 * 1e6:.1f} µs, pnsgd_delta {t2 * 1e6:.1f} µs, "
          f"equal bits: {a == b}")


if __name__ == "__main__":
    main()
