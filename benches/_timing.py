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
