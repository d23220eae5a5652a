"""Benchmark: PNSGD shuffled bound (003 Thm 2, Gaussian noise) — pabi against a numpy/scipy
implementation of the same formula, same points, same run.

Two workloads (1e6 points each):

1. privacy profile: δ(ε) for 1e6 values ε ~ U[0, 10], every other argument a scalar
   (σ = 1, L = 1, η = 0.5, D = 1, n = 1000; the stride-0 fast path). A benign regime
   (B ≈ 0.5) where the textbook formula works;
2. sweep over 1e6 (σ, n) pairs, σ ~ 10^U[-0.5, 1], n ~ 10^U[0, 12] (integers), ε = 1, η = 0.05
   (D/(ησ) from 2 to 63: B close to 1, where the textbook formula breaks down).

The numpy baseline is the textbook evaluation: θ = ndtr(−a) − e^ε·ndtr(−b) with scipy's ndtr,
B rounded to a double, δ = A(1 − B^n)/(n(1 − B)) with np.power. Reported: wall time (best of
3), the ratio, and the accuracy of both against pabi.reference (mpmath, 50 digits) on a random
subsample, plus how many numpy values are non-finite or below the exact bound (optimistic).

Inversions (``--inversions``, or ``python benches/bench_pnsgd.py inversions``): ``pnsgd_epsilon``
and ``pnsgd_calibrate_noise_scale`` on 1e4 random elements each (shuffled, random stop, fixed order
with large condition number |k ln B| (the precise path), Gaussian and Laplace) against a numpy
bisection on the double grid over pabi's own vectorized ``pnsgd_delta`` (same bracketing by ×4,
same bit bisection: it returns the same smallest double, counted as "equal").

    python benches/bench_pnsgd.py             # prints the table
    python benches/bench_pnsgd.py inversions  # the inversion benchmark only
    pytest benches/bench_pnsgd.py --benchmark-enable
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from scipy.special import ndtr

import pabi

import _timing  # benches/_timing.py (the script's folder is on sys.path)

N = 1_000_000
LR, D, L = 0.05, 1.0, 1.0


def naive_theta(eps: np.ndarray, r: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return ndtr(-(eps / r - r / 2)) - np.exp(eps) * ndtr(-(eps / r + r / 2))


def naive_shuffled(eps, sigma, n, lr=LR) -> np.ndarray:
    a = naive_theta(eps, 2 * L / sigma)
    b = naive_theta(eps, D / (lr * sigma))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return a * (1 - np.power(b, n)) / (n * (1 - b))


def profile_points(n: int = N):
    return np.random.default_rng(0).uniform(0, 10, n)


def sweep_points(n: int = N):
    rng = np.random.default_rng(1)
    return 10 ** rng.uniform(-0.5, 1, n), np.floor(10 ** rng.uniform(0, 12, n))


PROFILE = dict(noise_scale=1.0, max_grad_norm=L, lr=0.5, diameter=D, steps=1000, ordering="shuffled")


def pabi_profile(eps):
    return pabi.pnsgd_delta(eps, **PROFILE)


def naive_profile(eps):
    return naive_shuffled(eps, 1.0, 1000.0, lr=0.5)


def pabi_sweep(sigma, n):
    return pabi.pnsgd_delta(1.0, noise_scale=sigma, max_grad_norm=L, lr=LR, diameter=D, steps=n, ordering="shuffled")


def naive_sweep(sigma, n):
    return naive_shuffled(1.0, sigma, n)


def accuracy(fast, slow, exact_fn, idx):
    """Worst relative error of pabi and numpy vs the reference on idx; numpy failures."""
    worst_p = worst_n = 0.0
    below = 0
    for i in idx:
        exact = exact_fn(i)
        if exact < 1e-300:
            continue
        ep = float((fast[i] - exact) / exact)
        assert ep >= 0, (i, ep)
        worst_p = max(worst_p, ep)
        if np.isfinite(slow[i]):
            en = float((slow[i] - exact) / exact)
            worst_n = max(worst_n, abs(en))
            below += en < -1e-15
    return worst_p, worst_n, below


def report(n: int = N) -> list[dict]:
    from pabi import reference as ref

    rows = []
    eps = profile_points(n)
    t_n, t_p = _timing.best_time(naive_profile, eps), _timing.best_time(pabi_profile, eps)
    by_t = _timing.per_threads(lambda: pabi_profile(eps), 3)
    fast, slow = pabi_profile(eps), naive_profile(eps)
    sub = np.random.default_rng(2).choice(n, 200, replace=False)
    wp, wn, below = accuracy(fast, slow, lambda i: ref.pnsgd_delta(float(eps[i]), **PROFILE), sub)
    rows.append(dict(name="profile (1e6 eps)", numpy_s=t_n, pabi_s=t_p, by_t=by_t, wp=wp, wn=wn, below=below,
                     nonfinite=int((~np.isfinite(slow)).sum()), n=n))

    sigma, nn = sweep_points(n)
    t_n, t_p = _timing.best_time(naive_sweep, sigma, nn), _timing.best_time(pabi_sweep, sigma, nn)
    by_t = _timing.per_threads(lambda: pabi_sweep(sigma, nn), 3)
    fast, slow = pabi_sweep(sigma, nn), naive_sweep(sigma, nn)
    kw = dict(max_grad_norm=L, lr=LR, diameter=D, ordering="shuffled")
    wp, wn, below = accuracy(fast, slow, lambda i: ref.pnsgd_delta(1.0, noise_scale=float(sigma[i]),
                                                                   steps=int(nn[i]), **kw), sub)
    rows.append(dict(name="sweep (1e6 sigma, n)", numpy_s=t_n, pabi_s=t_p, by_t=by_t, wp=wp, wn=wn, below=below,
                     nonfinite=int((~np.isfinite(slow)).sum()), n=n))
    return rows


# ---------------------------------------------------------------------------------------------
# Inversions: pabi's lock-step block solvers against a numpy bisection over pabi's delta

# measured on the engine before the block solvers (commit cc19854, per-element scalar
# bisection; loaded 2-core machine), same cases: (pabi s, numpy s)
BEFORE = {
    "epsilon shuffled G": (726.5, 48.0),
    "epsilon random_stop L": (107.0, 68.1),
    "epsilon fixed G precise": (176.3, 74.0),
    "noise_scale shuffled G": (426.5, 40.9),
    "noise_scale fixed L": (112.3, 59.3),
}


def inversion_cases(m: int = 10_000) -> list[tuple[str, str, dict]]:
    rng = np.random.default_rng(5)
    sig = 10 ** rng.uniform(-0.3, 0.7, m)
    nn = np.floor(10 ** rng.uniform(1, 6, m))
    delta = 10 ** rng.uniform(-12, -2, m)
    eps = rng.uniform(0.5, 8.0, m)
    base = dict(max_grad_norm=1.0, lr=0.05, diameter=1.0)
    ix = np.floor(nn * rng.uniform(0, 1, m)) + 1
    return [
        ("epsilon", "shuffled G", dict(delta=delta, noise_scale=sig, steps=nn, ordering="shuffled", **base)),
        ("epsilon", "random_stop L", dict(delta=delta, noise_scale=sig, steps=nn, ordering="random_stop",
                                          noise="laplace", index=ix, **base)),
        # B near 1 and n - i up to 1e6: |k ln B| large, the precise path decides
        ("epsilon", "fixed G precise", dict(delta=delta, noise_scale=4 * sig, steps=nn, ordering="fixed",
                                            index=np.maximum(1.0, np.floor(nn / 3)), **base)),
        ("noise_scale", "shuffled G", dict(eps=eps, delta=delta, steps=nn, ordering="shuffled", **base)),
        ("noise_scale", "fixed L", dict(eps=eps, delta=delta, steps=nn, ordering="fixed", noise="laplace",
                                  index=ix, **base)),
    ]


def numpy_invert(kind: str, kw: dict) -> np.ndarray:
    """Smallest double x with pnsgd_delta(x) <= delta, the path of pabi's solvers: ε from 0, a
    bracket by x4 from 1; σ from the smallest normal, by /4 or x4 from 1; then bisection on the
    bit patterns. Every step is one vectorized pnsgd_delta call over the live elements."""
    kw = dict(kw)
    delta = np.asarray(kw.pop("delta"), dtype=float)
    eps = np.asarray(kw.pop("eps", 0.0), dtype=float)
    m = delta.size

    def ok(x, i):
        k = {a: (v[i] if isinstance(v, np.ndarray) else v) for a, v in kw.items()}
        if kind == "epsilon":
            return pabi.pnsgd_delta(x, **k) <= delta[i]
        return pabi.pnsgd_delta(eps[i] if eps.ndim else eps, noise_scale=x, **k) <= delta[i]

    every = np.arange(m)
    start = 0.0 if kind == "epsilon" else np.finfo(float).tiny
    done = ok(np.full(m, start), every)
    lo, hi = np.zeros(m), np.ones(m)
    live = every[~done]
    down = np.zeros(m, bool)
    if kind == "sigma":
        down[live] = ok(hi[live], live)
        cur = np.full(m, 0.25)
        act = every[down]
        while act.size:  # ok(1): down by /4 until it fails
            g = ok(cur[act], act)
            cur[act[g]] *= 0.25
            act = act[g]
        lo[down], hi[down] = cur[down], 4 * cur[down]
    act = every[~done & ~down]
    while act.size:  # up by x4 until it meets
        g = ok(hi[act], act)
        f = act[~g]
        lo[f] = hi[f]
        hi[f] *= 4.0
        act = f
    a, b = lo.view(np.uint64).copy(), hi.view(np.uint64).copy()
    act = every[~done & (b - a > 1)]
    while act.size:
        mid = a[act] + (b[act] - a[act]) // 2
        g = ok(mid.view(np.float64), act)
        b[act[g]] = mid[g]
        a[act[~g]] = mid[~g]
        act = act[b[act] - a[act] > 1]
    out = b.view(np.float64).copy()
    out[done] = 0.0
    return out


def inversions(m: int = 10_000) -> None:
    print(f"inversions, {m} elements per case (wall-clock, best of 3; loaded 2-core machine)")
    print(f"{'case':24s} {'pabi ms':>9s} {'numpy ms':>9s} {'ratio':>6s}  {'equal':>11s}"
          f"  {'before: pabi ms / ratio':>24s}  {'pabi ms 1T / 2T':>16s}")
    for kind, name, kw in inversion_cases(m):
        f = pabi.pnsgd_epsilon if kind == "epsilon" else pabi.pnsgd_calibrate_noise_scale
        args = (kw["delta"],) if kind == "epsilon" else (kw["eps"], kw["delta"])
        rest = {k: v for k, v in kw.items() if k not in ("delta", "eps")}
        t_p = _timing.best_time(lambda: f(*args, **rest))
        by_t = _timing.per_threads(lambda: f(*args, **rest), 3)
        t_n = _timing.best_time(lambda: numpy_invert(kind, kw), repeat=1)
        same = int(np.sum(f(*args, **rest) == numpy_invert(kind, kw)))
        bp, bn = BEFORE[kind + " " + name]
        print(f"{kind + ' ' + name:24s} {t_p * 1e3:9.1f} {t_n * 1e3:9.1f} {t_n / t_p:6.2f}  "
              f"{same:5d}/{m}  {bp:14.1f} / {bn / bp:5.2f}  {by_t[1] * 1e3:7.1f} / {by_t[2] * 1e3:6.1f}")


def main() -> None:
    if "inversions" in sys.argv[1:]:
        inversions()
        return
    rows = report()
    print(f"pabi {pabi.__version__}, threads={pabi.get_num_threads()}, simd={pabi.simd_level()}")
    print(f"{'workload':22s} {'numpy s':>9s} {'pabi s':>9s} {'ratio':>7s}  {'pabi worst rel':>14s}"
          f"  {'numpy worst rel':>15s}  {'numpy below exact':>17s}  {'numpy non-finite':>16s}"
          f"  {'pabi s 1T / 2T':>15s}")
    for r in rows:
        print(f"{r['name']:22s} {r['numpy_s']:9.3f} {r['pabi_s']:9.3f} {r['numpy_s'] / r['pabi_s']:7.2f}"
              f"  {r['wp']:14.2e}  {r['wn']:15.2e}  {r['below']:11d}/200  {r['nonfinite']:9d}/{r['n']}"
              f"  {r['by_t'][1]:6.3f} / {r['by_t'][2]:6.3f}")


@pytest.mark.parametrize("impl", ["pabi", "numpy"])
def test_profile(benchmark, impl):
    eps = profile_points()
    benchmark.group = "pnsgd profile 1e6"
    benchmark(pabi_profile if impl == "pabi" else naive_profile, eps)


@pytest.mark.parametrize("impl", ["pabi", "numpy"])
def test_sweep(benchmark, impl):
    sigma, n = sweep_points()
    benchmark.group = "pnsgd sweep 1e6"
    benchmark(pabi_sweep if impl == "pabi" else naive_sweep, sigma, n)


if __name__ == "__main__":
    sys.exit(main())
