"""Sweeps over massive parameter grids: the Cartesian product, evaluated chunk by chunk.

>>> import pabi
>>> df = pabi.sweep(pabi.theta, eps=[0.5, 1.0, 2.0], r=[0.1, 1.0])  # doctest: +SKIP
>>> df.shape                                                          # doctest: +SKIP
(6, 3)

Each chunk is one call of the vectorized pabi function on flat float64 arrays (the Rust kernel
runs with the GIL released and splits large chunks across cores), so memory is bounded by the
chunk size whatever the grid size when the result is written to Parquet. ``backend="dask"``
sends the chunks to a ``dask.distributed`` cluster instead.

Optional dependencies: pandas (DataFrame result), pyarrow (Parquet output), tqdm (progress
bar), dask[distributed] (cluster backend): ``pip install pabi[sweep]`` / ``pabi[dask]``.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

__all__ = ["sweep", "grid_size"]

DEFAULT_CHUNK = 1 << 20


def _grids(grids: Mapping[str, Any]) -> tuple[list[str], list[np.ndarray]]:
    if not grids:
        raise ValueError("sweep needs at least one grid, e.g. sweep(pabi.theta, eps=[...], r=[...])")
    names, axes = [], []
    for name, values in grids.items():
        arr = np.atleast_1d(np.asarray(values))
        if arr.ndim != 1:
            raise ValueError(f"grid {name!r} must be a scalar or a 1-D sequence, got shape {arr.shape}")
        if arr.size == 0:
            raise ValueError(f"grid {name!r} is empty")
        names.append(name)
        axes.append(arr)
    return names, axes


def grid_size(**grids: Any) -> int:
    """Number of points of the Cartesian product of the grids."""
    _, axes = _grids(grids)
    return math.prod(a.size for a in axes)


def _chunk_args(names: Sequence[str], axes: Sequence[np.ndarray], lo: int, hi: int) -> dict[str, np.ndarray]:
    """The grid values of flat points lo..hi-1 (C order: the last grid varies fastest)."""
    shape = tuple(a.size for a in axes)
    idx = np.unravel_index(np.arange(lo, hi, dtype=np.int64), shape)
    return {n: a[i] for n, a, i in zip(names, axes, idx)}


def _eval_chunk(function: Callable[..., Any], names: Sequence[str], axes: Sequence[np.ndarray],
                lo: int, hi: int, fixed: Mapping[str, Any]) -> dict[str, np.ndarray]:
    args = _chunk_args(names, axes, lo, hi)
    value = np.asarray(function(**args, **fixed), dtype=np.float64)
    cols = dict(args)
    cols["value"] = np.broadcast_to(value, (hi - lo,)).copy() if value.ndim == 0 else value
    return cols


def _chunks(total: int, chunk: int) -> Iterator[tuple[int, int]]:
    for lo in range(0, total, chunk):
        yield lo, min(total, lo + chunk)


def _progress(total: int, enabled: bool | None, desc: str):
    if enabled is None:
        enabled = sys.stderr.isatty() and total > 10 * DEFAULT_CHUNK
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - optional dependency
        return None
    return tqdm(total=total, unit="pt", unit_scale=True, desc=desc, file=sys.stderr)


def sweep(
    function: Callable[..., Any],
    /,
    *,
    chunk_size: int = DEFAULT_CHUNK,
    output: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    backend: str = "local",
    client: Any = None,
    fixed: Mapping[str, Any] | None = None,
    **grids: Any,
) -> Any:
    """Evaluate ``function`` on the Cartesian product of the keyword grids.

    Parameters
    ----------
    function:
        Any pabi function that broadcasts its array arguments (``pabi.theta``,
        ``pabi.pnsgd_delta``, ...), or any callable taking the grid names as keywords.
    chunk_size:
        Points per call (memory is O(chunk_size) when writing Parquet).
    output:
        A ``.parquet`` path: chunks are appended as row groups and the path is returned.
        ``None``: a pandas DataFrame with one column per grid plus ``value``.
    progress:
        Show a progress bar (tqdm). Default: only for long sweeps on a terminal.
    backend:
        ``"local"`` (this process; the Rust kernels use all cores) or ``"dask"`` (chunks are
        submitted to a dask.distributed ``client``, default ``distributed.get_client()``).
    fixed:
        Non-grid keyword arguments passed unchanged to every call (strings, options).
    **grids:
        name = 1-D sequence (or scalar) of values. The last grid varies fastest.
    """
    if not callable(function):
        raise TypeError(f"function must be callable, got {type(function).__name__}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or chunk_size < 1:
        raise ValueError(f"chunk_size must be an integer >= 1, got {chunk_size!r}")
    if backend not in ("local", "dask"):
        raise ValueError(f"backend must be 'local' or 'dask', got {backend!r}")
    names, axes = _grids(grids)
    fixed = dict(fixed or {})
    total = math.prod(a.size for a in axes)
    bar = _progress(total, progress, getattr(function, "__name__", "sweep"))

    if backend == "local":
        results: Iterator[dict[str, np.ndarray]] = (
            _eval_chunk(function, names, axes, lo, hi, fixed) for lo, hi in _chunks(total, int(chunk_size))
        )
    else:
        results = _dask_results(function, names, axes, fixed, total, int(chunk_size), client)

    try:
        if output is not None:
            return _write_parquet(results, os.fspath(output), bar)
        return _collect(results, bar)
    finally:
        if bar is not None:
            bar.close()


def _dask_results(function, names, axes, fixed, total, chunk, client) -> Iterator[dict[str, np.ndarray]]:
    try:
        from distributed import get_client
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("backend='dask' needs dask.distributed: pip install 'pabi[dask]'") from exc
    client = client if client is not None else get_client()
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    window = 2 * workers  # bounded number of chunks in flight: memory stays O(window * chunk)
    axes_f = client.scatter(list(axes), broadcast=True)
    pending = []
    spans = list(_chunks(total, chunk))
    nxt = 0
    while nxt < len(spans) or pending:
        while nxt < len(spans) and len(pending) < window:
            lo, hi = spans[nxt]
            pending.append(client.submit(_eval_chunk, function, names, axes_f, lo, hi, fixed, pure=False))
            nxt += 1
        fut = pending.pop(0)
        yield fut.result()


def _collect(results: Iterator[dict[str, np.ndarray]], bar) -> Any:
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("a DataFrame result needs pandas (pip install 'pabi[sweep]'), or pass output='x.parquet'") from exc
    parts = []
    for cols in results:
        parts.append(cols)
        if bar is not None:
            bar.update(len(cols["value"]))
    merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return pd.DataFrame(merged)


def _write_parquet(results: Iterator[dict[str, np.ndarray]], path: str, bar) -> str:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("Parquet output needs pyarrow: pip install 'pabi[sweep]'") from exc
    writer = None
    try:
        for cols in results:
            table = pa.table(cols)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
            if bar is not None:
                bar.update(table.num_rows)
    finally:
        if writer is not None:
            writer.close()
    return path
