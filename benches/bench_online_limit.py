"""Benchmark: the online-schedule limit family at huge ε (issue 13): one scalar call each of
``online_{gauss,laplace}_delta_limit``, ``_limit_bound``, ``_star_upper``, ``_star_lower`` (log),
at ε = 1 (the paper's regime), 1e3 (the mass of the sum far out, ln x ≈ 100–400) and 1e30
(saturated: ln δ below −f64::MAX). Prints the value and the wall time (best of ``REPEAT``) with
the default thread count, 1 thread and 2 threads (the Gaussian limit's quadrature sums its pieces
in parallel). There is no peer: no other library computes these bounds; the mpmath reference
(``pabi.reference``) takes minutes per value and is compared in the tests, not here.

    python benches/bench_online_limit.py

Reference timings (this project's 2-core dev machine, shared; fastrel build), before issue 13:
≈ 3.4–4.1 s per Gaussian call at ε = 1e3 and 1e30 (the certified quadrature ran 2^20 pieces at
its smallest step), ≈ 2.1–2.2 s per Laplace call at ε = 1e3; see the report of the change.
"""

from __future__ import annotations

import time

import pabi

import _timing  # benches/_timing.py (the script's folder is on sys.path)

REPEAT = 3
GAUSS = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
LAPLACE = dict(max_grad_norm=10.0, lr=0.1, diameter=1.0, index=3, c1=1.0, c2=1e250, decay=1.5)
KINDS = ("delta_limit", "delta_limit_upper", "delta_limit_closed_upper", "delta_limit_lower")


def best(f):
    t = float("inf")
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        v = f()
        t = min(t, time.perf_counter() - t0)
    return v, t


def main() -> None:
    print(f"{'function':38s} {'eps':>6s} {'ln delta':>24s} {'time [s]':>9s} {'1T [s]':>8s} {'2T [s]':>8s}")
    for mech, kw, epss in (("gaussian", GAUSS, (1.0, 1e3, 1e30)), ("laplace", LAPLACE, (1e3,))):
        for kind in KINDS:
            fn = getattr(pabi, f"online_{mech}_{kind}")
            for eps in epss:
                v, t = best(lambda: fn(eps, **kw, log=True))
                by_t = _timing.per_threads(lambda: fn(eps, **kw, log=True), REPEAT)
                print(f"{fn.__name__:38s} {eps:6.0e} {v:24.16e} {t:9.4f} {by_t[1]:8.4f} {by_t[2]:8.4f}")


if __name__ == "__main__":
    main()
