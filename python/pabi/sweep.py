"""Sweeps over massive parameter grids: the Cartesian product, evaluated chunk by chunk.

>>> import pabi
>>> df = pabi.sweep(pabi.theta, eps=[0.5, 1.0, 2.0], r=[0.1, 1.0])  # doctest: +SKIP
>>> df.shape                                                          # doctest: +SKIP
(6, 3)

Each chunk is one call of the vectorized pabi function on flat float64 arrays (the Rust kernel
runs with the GIL released and splits large chunks across cores), so memory is bounded by the
chunk size whatever the grid size when the result is written to Parquet. ``backend="dask"``
sends the chunks to a ``dask.distributed`` cluster instead.

Long sweeps show a tqdm progress bar on stderr (``progress=None``: only when stderr is a
terminal and the sweep has more than :data:`AUTO_PROGRESS_POINTS` points or more than one
chunk; ``True``/``False`` force it on/off; without tqdm installed there is silently no bar).

Optional dependencies: pandas (DataFrame result), pyarrow (Parquet output), tqdm (progress
bar), dask[distributed] (cluster backend): ``pip install pabi[sweep]`` / ``pabi[dask]``.
"""

from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

import numpy as np

from ._bridge import DomainError, as_real, int_scalar

__all__ = ["sweep", "grid_size"]

DEFAULT_CHUNK = 1 << 20
#: ``progress=None`` shows a bar (on a terminal) for sweeps with more points than this.
AUTO_PROGRESS_POINTS = 1_000_000


def _grids(grids: Mapping[str, Any]) -> tuple[list[str], list[np.ndarray]]:
    if not grids:
        raise ValueError("sweep needs at least one grid, e.g. sweep(pabi.theta, eps=[...], r=[...])")
    names, axes = [], []
    for name, values in grids.items():
        arr = np.atleast_1d(np.asarray(values))
        if arr.dtype == object:  # e.g. Python ints beyond int64: real numbers become float64
            try:
                arr = np.atleast_1d(as_real(name, values)).astype(np.float64)
            except TypeError:
                pass  # a grid of other objects, for a callable that takes them
        if arr.ndim != 1:
            raise ValueError(f"grid {name!r} must be a scalar or a 1-D sequence, got shape {arr.shape}")
        if arr.size == 0:
            raise ValueError(f"grid {name!r} is empty")
        names.append(name)
        axes.append(arr)
    return names, axes


def grid_size(**grids: Any) -> int:
    """Number of points of the Cartesian product of the grids.

    >>> grid_size(eps=[0.5, 1.0, 2.0], r=[0.1, 1.0])
    6
    """
    _, axes = _grids(grids)
    return math.prod(a.size for a in axes)


def _axis_values(a: np.ndarray, stride: int, lo: int, hi: int) -> np.ndarray:
    """Values of one grid axis at flat points lo..hi-1, where the axis index is
    (k // stride) % a.size: runs of ``stride`` equal values, cycling through the axis.
    Built from slices and np.repeat in O(hi − lo) (no per-point integer division)."""
    n, k = a.size, hi - lo
    if stride == 1:
        start = lo % n
        if start + k <= n:
            return a[start:start + k].copy()
        if n <= k:
            return np.tile(a, -(-(start + k) // n))[start:start + k]
        return np.concatenate([a[start:], a[:start + k - n]])
    blocks = np.arange(lo // stride, (hi - 1) // stride + 1, dtype=np.int64)
    counts = np.minimum(hi, (blocks + 1) * stride) - np.maximum(lo, blocks * stride)
    return np.repeat(a[blocks % n], counts)


def _chunk_args(names: Sequence[str], axes: Sequence[np.ndarray], lo: int, hi: int) -> dict[str, np.ndarray]:
    """The grid values of flat points lo..hi-1 (C order: the last grid varies fastest)."""
    out, stride = {}, 1
    for name, a in reversed(list(zip(names, axes))):
        out[name] = _axis_values(a, stride, lo, hi)
        stride *= a.size
    return {n: out[n] for n in names}


def _item(x: Any) -> Any:
    """A grid value as a Python object for a message (object grids hold plain objects)."""
    return x.item() if isinstance(x, np.generic) else x


def _on_grid(exc: BaseException, names: Sequence[str], axes: Sequence[np.ndarray], lo: int) -> BaseException:
    """A pabi DomainError raised for a chunk, re-addressed to the grid point it came from."""
    param, index = getattr(exc, "param", None), getattr(exc, "index", None)
    if param is None or isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        return exc
    where = tuple(int(i) for i in np.unravel_index(lo + int(index), tuple(a.size for a in axes)))
    point = ", ".join(f"{n}={_item(a[i])!r}" for n, a, i in zip(names, axes, where))
    new = DomainError(f"{param} must be {exc.allowed}, got {exc.value!r} at grid index {where} "  # type: ignore[attr-defined]
                      f"({point})")
    new.param, new.allowed, new.value = param, exc.allowed, exc.value  # type: ignore[attr-defined]
    new.index = where  # type: ignore[attr-defined]
    return new


def _eval_chunk(function: Callable[..., Any], names: Sequence[str], axes: Sequence[np.ndarray],
                lo: int, hi: int, fixed: Mapping[str, Any]) -> dict[str, np.ndarray]:
    args = _chunk_args(names, axes, lo, hi)
    try:
        value = np.asarray(function(**args, **fixed), dtype=np.float64)
    except DomainError as exc:
        raise _on_grid(exc, names, axes, lo) from None
    cols = dict(args)
    if value.ndim == 0:
        value = np.full(hi - lo, float(value))
    elif value.shape != (hi - lo,):
        name = getattr(function, "__name__", repr(function))
        raise ValueError(f"sweep: {name} returned shape {value.shape} for {hi - lo} points; it must "
                         "broadcast its grid arguments elementwise (one value per point)")
    cols["value"] = value
    return cols


def _chunks(total: int, chunk: int) -> Iterator[tuple[int, int]]:
    for lo in range(0, total, chunk):
        yield lo, min(total, lo + chunk)


def _progress_wanted(total: int, chunk: int, enabled: Optional[bool]) -> bool:
    if enabled is not None:
        return enabled
    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # closed or replaced stderr
        tty = False
    return tty and (total > AUTO_PROGRESS_POINTS or total > chunk)


def _progress(total: int, chunk: int, enabled: Optional[bool], desc: str) -> Any:
    """A tqdm bar, or None (not wanted, or tqdm not installed: silently no bar)."""
    if not _progress_wanted(total, chunk, enabled):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # optional dependency: no bar
        return None
    return tqdm(total=total, unit="pt", unit_scale=total >= 10_000, desc=desc, file=sys.stderr,
                dynamic_ncols=True, smoothing=0.1)


def sweep(
    function: Callable[..., Any],
    /,
    *,
    chunk_size: int = DEFAULT_CHUNK,
    output: str | os.PathLike[str] | None = None,
    progress: Optional[bool] = None,
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
        ``pabi.pnsgd_delta``, ...), or any callable taking the grid names as keywords and
        returning one value per point (or a scalar).
    chunk_size:
        Points per call (memory is O(chunk_size) when writing Parquet: at most three chunks
        are alive, the one being written and the next two being evaluated).
    output:
        A ``.parquet`` path: chunks are appended as row groups and the path is returned.
        ``None``: a pandas DataFrame with one column per grid plus ``value`` (filled in place:
        peak memory is the DataFrame plus two chunks).
    progress:
        ``None`` (default): a tqdm progress bar on stderr only if stderr is a terminal and the
        sweep has more than ``AUTO_PROGRESS_POINTS`` (1e6) points or more than one chunk.
        ``True``/``False``: force it on/off. Without tqdm there is silently no bar. With
        ``backend="dask"`` the bar advances as chunks complete on the cluster.
    backend:
        ``"local"`` (this process; the Rust kernels use all cores; with several chunks,
        ``function`` is called from one helper thread, one call at a time, so that the next
        chunk is computed while the current one is written) or ``"dask"`` (chunks are
        submitted to a dask.distributed ``client``, default ``distributed.get_client()``; at most
        2 chunks per worker are in flight, and results are consumed in grid order, so the output
        is identical to the local one).
    fixed:
        Non-grid keyword arguments passed unchanged to every call (strings, options).
    **grids:
        name = 1-D sequence (or scalar) of values. The last grid varies fastest.
    """
    if not callable(function):
        raise TypeError(f"function must be callable, got {type(function).__name__}")
    chunk_size = int_scalar("chunk_size", chunk_size)
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress must be None, True or False, got {progress!r}")
    if backend not in ("local", "dask"):
        raise ValueError(f"backend must be 'local' or 'dask', got {backend!r}")
    names, axes = _grids(grids)
    fixed = dict(fixed or {})
    total = math.prod(a.size for a in axes)
    chunk = int(chunk_size)
    bar = _progress(total, chunk, None if progress is None else bool(progress),
                    getattr(function, "__name__", "sweep"))
    try:
        if backend == "local":
            results = _local_results(function, names, axes, fixed, total, chunk, bar)
        else:
            results = _dask_results(function, names, axes, fixed, total, chunk, client, bar)
        if output is not None:
            return _write_parquet(results, os.fspath(output))
        return _collect(results, total)
    finally:
        if bar is not None:
            bar.close()


def _local_results(function, names, axes, fixed, total, chunk, bar) -> Iterator[dict[str, np.ndarray]]:
    """Chunks in grid order. With more than one chunk, the next chunk is evaluated on a helper
    thread while the caller consumes (writes) the current one: the Rust kernels and the Parquet
    writer both release the GIL, so they overlap. At most 2 chunks are held besides the one
    being consumed."""
    spans = _chunks(total, chunk)
    if total <= chunk:
        for lo, hi in spans:
            cols = _eval_chunk(function, names, axes, lo, hi, fixed)
            if bar is not None:
                bar.update(hi - lo)
            yield cols
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="pabi-sweep") as pool:
        lo, hi = next(spans)
        ahead = pool.submit(_eval_chunk, function, names, axes, lo, hi, fixed)
        size = hi - lo
        for lo, hi in spans:
            current, ahead = ahead, pool.submit(_eval_chunk, function, names, axes, lo, hi, fixed)
            cols = current.result()
            if bar is not None:
                bar.update(size)
            size = hi - lo
            yield cols
        cols = ahead.result()
        if bar is not None:
            bar.update(size)
        yield cols


def _dask_results(function, names, axes, fixed, total, chunk, client, bar) -> Iterator[dict[str, np.ndarray]]:
    """Chunks evaluated on a dask.distributed cluster, yielded in grid order.

    At most ``2 × workers`` chunks are submitted and not yet consumed (memory O(window·chunk)
    on the client); the progress bar advances as each chunk completes, in any order."""
    try:
        from distributed import as_completed, get_client
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("backend='dask' needs dask.distributed: pip install 'pabi[dask]'") from exc
    client = client if client is not None else get_client()
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    window = 2 * workers
    n_chunks = -(-total // chunk)
    # The grid axes travel inline with each task (they are 1-d, O(sum of axis lengths)): a
    # broadcast scatter made worker-to-worker gathers livelock under load (distributed 2026.8).
    axes_f = list(axes)
    futures: dict[int, Any] = {}
    index_of: dict[Any, int] = {}
    completed: set[int] = set()
    pending = as_completed()
    nxt = head = 0

    def submit() -> None:
        nonlocal nxt
        lo = nxt * chunk
        fut = client.submit(_eval_chunk, function, names, axes_f, lo, min(total, lo + chunk), fixed,
                            pure=False)
        futures[nxt] = fut
        index_of[fut.key] = nxt
        pending.add(fut)
        nxt += 1

    try:
        while nxt < n_chunks and nxt < window:
            submit()
        for fut in pending:
            i = index_of.pop(fut.key)
            completed.add(i)
            if bar is not None:
                bar.update(min(total, (i + 1) * chunk) - i * chunk)
            while head in completed:
                completed.discard(head)
                result = futures.pop(head).result()  # re-raises the chunk's error (DomainError pickles), in grid order
                head += 1
                if nxt < n_chunks:
                    submit()
                yield result
    finally:
        for fut in futures.values():
            fut.cancel()


def _collect(results: Iterator[dict[str, np.ndarray]], total: int) -> Any:
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("a DataFrame result needs pandas (pip install 'pabi[sweep]'), or pass output='x.parquet'") from exc
    merged: dict[str, np.ndarray] = {}
    pos = 0
    for cols in results:
        n = len(cols["value"])
        if not merged:
            merged = {k: np.empty(total, dtype=v.dtype) for k, v in cols.items()}
        for k, v in cols.items():
            merged[k][pos:pos + n] = v
        pos += n
    return pd.DataFrame(merged, copy=False)


def _write_parquet(results: Iterator[dict[str, np.ndarray]], path: str) -> str:
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
                # dictionary (RLE) encoding for the grid columns, whose values repeat; plain
                # encoding for the values (a dictionary of distinct floats only costs time)
                grid_cols = [c for c in table.column_names if c != "value"]
                writer = pq.ParquetWriter(path, table.schema, use_dictionary=grid_cols)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    return path
