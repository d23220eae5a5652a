"""Benchmark: PNSGD with per-step parameters (pnsgd_stepwise_delta / pnsgd_stepwise_epsilon).

* n = 1e9 steps as a piecewise-constant schedule (linear warm-up over 1000 pieces, then a
  step decay in 10 pieces, noise and clipping norm changing with it): δ for each ordering, and ε
  for a target δ — the target is n = 1e9 in under 10 s on the 2-core development machine;
* the array form (one entry per step): steps per second at n = 1e5 and 1e6, every parameter
  varying (no merging of runs), on 1 and on 2 threads (beyond 2^16 steps the fold runs in
  blocks of 2^16 on the pool; the bits are the same for any thread count, checked here);
* callables of the step (read in chunks of 2^16): the same n = 1e6 schedule as the array
  (equal bits), and a cosine learning-rate decay with a noise warm-up over n = 1e7 steps;
* a constant schedule of n = 1e9 steps (dispatched to pnsgd_delta) against pnsgd_delta.

Best of ``REPEAT`` runs; not a timed test.

    python benches/bench_pnsgd_steps.py
"""

from __future__ import annotations


import numpy as np

import pabi

import _timing  # benches/_timing.py (the script's folder is on sys.path)

REPEAT = 3
N = 10**9


def best_of(f, repeat: int = REPEAT):
    return _timing.best_of(f, repeat)


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

    print("array form (every parameter varies at every step), 1 thread vs 2 threads:")
    before = pabi.get_num_threads()
    for n in (10**5, 10**6):
        rng = np.random.default_rng(0)
        arr = dict(noise_scale=rng.uniform(1.0, 2.0, n), max_grad_norm=rng.uniform(0.5, 1.0, n),
                   lr=rng.uniform(0.01, 0.5, n), diameter=1.0)
        for ordering in ("shuffled", "random_stop"):
            times, bits = [], []
            for threads in (1, 2):
                pabi.set_num_threads(threads)
                t, v = best_of(lambda: pabi.pnsgd_stepwise_delta(1.0, ordering=ordering, log=True, **arr), 2)
                times.append(t)
                bits.append(v)
            print(f"  n = {n:.0e} {ordering:12} 1 thread {times[0]:7.3f} s ({n / times[0] / 1e6:5.2f} M steps/s)"
                  f"   2 threads {times[1]:7.3f} s   ratio {times[0] / times[1]:4.2f}   same bits: {bits[0] == bits[1]}")
    pabi.set_num_threads(before)

    print("callables of the step (chunks of 2^16 steps, one pass):")
    n = 10**6
    rng = np.random.default_rng(0)
    arr = dict(noise_scale=rng.uniform(1.0, 2.0, n), max_grad_norm=rng.uniform(0.5, 1.0, n),
               lr=rng.uniform(0.01, 0.5, n), diameter=1.0)
    fns = {k: (lambda t, v=v: v[t - 1]) if isinstance(v, np.ndarray) else v for k, v in arr.items()}
    t, v = best_of(lambda: pabi.pnsgd_stepwise_delta(1.0, steps=n, log=True, **fns), 2)
    print(f"  n = 1e6 random schedule (as the array above)   {t:7.3f} s   equal to the array: "
          f"{v == pabi.pnsgd_stepwise_delta(1.0, log=True, **arr)}")
    n = 10**7
    cos = dict(lr=lambda t: 0.05 + 0.45 * 0.5 * (1 + np.cos(np.pi * t / n)),
               noise_scale=lambda t: 1.0 + np.minimum(t, 10**5) / 10**5, max_grad_norm=1.0, diameter=1.0)
    t, v = best_of(lambda: pabi.pnsgd_stepwise_delta(1.0, steps=n, log=True, **cos), 1)
    print(f"  n = 1e7 cosine lr decay, noise warm-up   ln delta = {v:.10g}   {t:7.3f} s")

    c = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0)
    t1, a = best_of(lambda: pabi.pnsgd_stepwise_delta(1.0, run_lengths=[N], **c))
    t2, b = best_of(lambda: pabi.pnsgd_delta(1.0, steps=N, **c))
    print(f"constant schedule, n = 1e9: stepwise {t1 * 1e6:.1f} µs, pnsgd_delta {t2 * 1e6:.1f} µs, "
          f"equal bits: {a == b}")


if __name__ == "__main__":
    main()
