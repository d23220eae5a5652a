"""Benchmark: pabi's DP-SGD PLD accountant against dp-accounting's PLD accountant (default
settings) and prv-accountant, same cases, same run.

Cases: Poisson-subsampled Gaussian, q = 0.01, σ = 1, δ = 1e-5, T = 1e3 / 1e4 / 1e5.
Reports ε (pabi: lower / estimate / upper; prv-accountant: its bracket), wall time (best of
``REPEAT``), the speed ratio dp-accounting / pabi, the time of ``dpsgd_calibrate_sigma``, and the
peak memory at T = 1e5 (tracemalloc for Python-side allocations, VmHWM for the process).

    python benches/bench_composition.py
"""

from __future__ import annotations

import resource
import time
import tracemalloc

import pabi

Q, SIGMA, DELTA = 0.01, 1.0, 1e-5
STEPS = [1_000, 10_000, 100_000]
REPEAT = 3


def best_of(f, repeat: int = REPEAT):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


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


def vmhwm_mb() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    # memory first (VmHWM is a process high-water mark: measure before the peers run)
    pabi.dpsgd_epsilon(Q, SIGMA, 1000, DELTA)
    base = vmhwm_mb()
    tracemalloc.start()
    pabi.dpsgd_epsilon(Q, SIGMA, 100_000, DELTA)
    _, peak_py = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    hwm = vmhwm_mb()
    print(f"peak memory at T=1e5: tracemalloc (Python) {peak_py / 2**20:.2f} MB; process VmHWM "
          f"{hwm:.1f} MB (before: {base:.1f} MB, increase {hwm - base:.1f} MB)\n")

    print(f"{'T':>7} | {'pabi lower':>10} {'pabi est':>10} {'pabi upper':>10} {'t pabi':>8} | "
          f"{'dp-acc eps':>10} {'t dp-acc':>8} | {'prv lower':>9} {'prv est':>9} {'prv upper':>9}"
          f" {'t prv':>7} | {'dp-acc/pabi':>11}")
    for steps in STEPS:
        tp, (lo, est, up) = best_of(
            lambda: pabi.dpsgd_epsilon(Q, SIGMA, steps, DELTA, bracket=True))
        td, ed = best_of(lambda: dp_accounting_eps(steps), repeat=1 if steps > 10_000 else REPEAT)
        try:
            tv, ev = best_of(lambda: prv_eps(steps), repeat=1)
            prv = f"{ev[0]:9.4f} {ev[1]:9.4f} {ev[2]:9.4f} {tv:7.3f}"
        except Exception as exc:  # pragma: no cover - optional peer
            prv = f"{'n/a (' + type(exc).__name__ + ')':>37}"
        print(f"{steps:>7} | {lo:10.4f} {est:10.5f} {up:10.5f} {tp:8.4f} | {ed:10.5f} {td:8.3f} | "
              f"{prv} | {td / tp:10.1f}x")

    def _dpsgd_epsilon_rdp(q, sigma, steps, delta):
        orders = pabi.rdp.DEFAULT_ORDERS
        return pabi.rdp.rdp_to_dp_epsilon(orders, steps * pabi.sampled_gaussian_rdp(orders, q, sigma), delta)[0]

    for steps in STEPS:
        t, e = best_of(lambda: _dpsgd_epsilon_rdp(Q, SIGMA, steps, DELTA), repeat=1)
        print(f"RDP route (sampled-Gaussian RDP, pabi.rdp.DEFAULT_ORDERS, tight conversion), "
              f"T={steps}: eps={e:.4f} in {t:.3f} s")

    for steps in STEPS:
        t, s = best_of(lambda: pabi.dpsgd_calibrate_sigma(2.0, DELTA, Q, steps), repeat=1)
        print(f"dpsgd_calibrate_sigma(eps=2, delta=1e-5, q=0.01, T={steps}): sigma={s:.5f} "
              f"in {t:.3f} s (upper eps at sigma: {pabi.dpsgd_epsilon(Q, s, steps, DELTA):.5f})")


if __name__ == "__main__":
    main()
