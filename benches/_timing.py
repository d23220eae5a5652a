"""The benchmarks' shared timer: the best wall time of several runs and the last result."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")


def best_of(f: Callable[[], T], repeat: int) -> tuple[float, T]:
    """(best wall time in seconds over ``repeat`` calls of ``f``, the last call's result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out  # type: ignore[return-value]


def best_time(f: Callable[..., object], *args: object, repeat: int = 3, warm: int | None = 1000) -> float:
    """Best wall time in seconds of ``f(*args)`` over ``repeat`` calls, after one warm-up call
    (page faults, caches) on the first ``warm`` elements of each argument, or on the whole
    arguments when ``warm`` is None (``f()`` when there are none)."""
    import numpy as np

    if warm is None:
        f(*args)
    else:
        f(*(np.asarray(a)[:warm] if np.ndim(a) > 0 else a for a in args))
    return best_of(lambda: f(*args), repeat)[0]


def best_pair(f: Callable[..., object], g: Callable[..., object], *args: object, repeat: int = 9) -> tuple[float, float]:
    """Best-of-``repeat`` wall times of ``f(*args)`` and ``g(*args)``, measured alternately
    (one of each per round, after one warm-up call of each), so that a change of the machine's
    load between the two measurements does not skew their ratio."""
    f(*args), g(*args)
    tf, tg = [], []
    for _ in range(repeat):
        for fn, ts in ((f, tf), (g, tg)):
            t0 = time.perf_counter()
            fn(*args)
            ts.append(time.perf_counter() - t0)
    return min(tf), min(tg)


def per_threads(f: Callable[[], T], repeat: int, threads: tuple[int, ...] = (1, 2)) -> dict[int, float]:
    """Best wall time of ``f`` (over ``repeat`` calls) with pabi's pool at each thread count in
    ``threads`` (``pabi.set_num_threads``); the caller's thread count is restored afterwards."""
    import pabi

    before = pabi.get_num_threads()
    out: dict[int, float] = {}
    try:
        for n in threads:
            pabi.set_num_threads(n)
            out[n] = best_of(f, repeat)[0]
    finally:
        pabi.set_num_threads(before)
    return out
