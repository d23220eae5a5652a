"""Sweeps over massive parameter grids: the Cartesian product, evaluated chunk by chunk.

>>> import pabi
>>> df = pabi.sweep(pabi.theta, eps=[0.5, 1.0, 2.0], shift=[0.1, 1.0])  # doctest: +SKIP
>>> df.shape                                                          # doctest: +SKIP
(6, 3)

Each chunk is one call of the vectorized pabi function on flat float64 arrays (the Rust kernel
runs with the GIL released and splits large chunks across cores), so memory is bounded by the
chunk size whatever the grid size when the result is written to Parquet. ``backend="dask"``
sends the chunks to a ``dask.distributed`` cluster instead.

Long sweeps show a tqdm progress bar on stderr (``progress=None``: only when stderr is a
terminal and the sweep has more than :data:`AUTO_PROGRESS_POINTS` points or more than one
chunk; ``True``/``False`` force it on/off; without tqdm installed there is silently no bar).

No data is lost or silently wrong:

* Parquet output is written to a temporary file next to ``output`` (``.NAME.<random>.partial``)
  and renamed onto ``output`` only when every chunk has been written, so a sweep that fails
  part-way leaves ``output`` as it was (absent, or the previous file) and removes the temporary
  file. The finished file carries the key-value metadata ``pabi.sweep`` (JSON: function, grids
  with names, lengths, dtypes, SHA-256 of their values and the values themselves when short,
  ``fixed``, pabi version, row count and ``"complete": true``).
* Before the first chunk, every grid is checked (real numbers, 1-D, not empty, not named like
  the result column ``value`` or a ``fixed`` argument), the size of the result is checked
  against the machine's memory (overflow-free integer product of the grid lengths), and, when
  the sweep has several grids and several chunks, the function is called once on each short
  grid's values with the other grids at their first value (at most 1/16 of the sweep's points),
  so that a bad value in a grid raises its ``DomainError`` (addressed to its grid point) before
  anything is written. Constraints between grids surface when their chunk is evaluated.

A sweep is not the blocked broadcast of :class:`pabi._bridge.Broadcast`, although both cut a
large product into pieces: the broadcast runs inside one public call (a core binding on flat
arrays, any n-d shapes, one preallocated result, the exact first bad index of the whole
broadcast), while a sweep sits above the public functions (any callable with keyword grids and
``fixed`` options, 1-D grids only, the grid columns written with each chunk, a chunk's error
addressed to its grid point). Each chunk of a sweep goes through that broadcast.

Optional dependencies: pandas (DataFrame result), pyarrow (Parquet output), tqdm (progress
bar), dask[distributed] (cluster backend): ``pip install pabi[sweep]`` / ``pabi[dask]``.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
import sys
import uuid
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

import numpy as np

from ._bridge import DomainError, choice, int_scalar

__all__ = ["sweep", "grid_size"]

DEFAULT_CHUNK = 1 << 20
#: ``progress=None`` shows a bar (on a terminal) for sweeps with more points than this.
AUTO_PROGRESS_POINTS = 1_000_000
#: Name of the result column (a grid may not have this name).
RESULT_COLUMN = "value"
#: Grids up to this length have their values stored in the Parquet metadata (longer: only the hash).
METADATA_VALUES_MAX = 10_000
#: Chunks alive at once in the worst case (the one being consumed, two being evaluated).
_CHUNKS_ALIVE = 3
#: The up-front per-grid validation calls the function on at most total / _PROBE_FRACTION points.
_PROBE_FRACTION = 16


def _as_grid(name: str, values: Any) -> np.ndarray:
    """A grid as a 1-D array of real numbers (bool, integer or float dtype)."""
    try:
        arr = np.atleast_1d(np.asarray(values))
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise ValueError(f"grid {name!r} must be a scalar or a 1-D sequence of real numbers: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"grid {name!r} must be a scalar or a 1-D sequence, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"grid {name!r} is empty")
    kind = arr.dtype.kind
    if kind in "biuf":
        return arr
    if kind == "O":
        for i, v in enumerate(arr):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
                raise _grid_type_error(name, f"must hold real numbers, got {v!r} ({type(v).__name__}) at "
                                       f"index {i}; non-numeric options go in fixed={{...}}", i)
        return arr.astype(np.float64)
    raise _grid_type_error(name, f"must hold real numbers, got dtype {arr.dtype} (first value "
                                 f"{arr[0].item()!r}); non-numeric options go in fixed={{...}}")


def _grid_type_error(name: str, what: str, index: Optional[int] = None) -> TypeError:
    """A TypeError about grid ``name`` carrying ``.param``/``.index`` like every pabi error."""
    err = TypeError(f"grid {name!r} {what}")
    err.param, err.index = name, index  # type: ignore[attr-defined]
    return err


def _grids(grids: Mapping[str, Any]) -> tuple[list[str], list[np.ndarray]]:
    if not grids:
        raise ValueError("sweep needs at least one grid, e.g. sweep(pabi.theta, eps=[...], shift=[...])")
    names, axes = [], []
    for name, values in grids.items():
        if name == RESULT_COLUMN:
            raise ValueError(f"a grid cannot be named {name!r}: that is the result column of the sweep; "
                             "wrap the function, e.g. sweep(lambda v, **kw: f(value=v, **kw), v=[...])")
        names.append(name)
        axes.append(_as_grid(name, values))
    return names, axes


def grid_size(**grids: Any) -> int:
    """Number of points of the Cartesian product of the grids.

    >>> grid_size(eps=[0.5, 1.0, 2.0], r=[0.1, 1.0])
    6
    """
    _, axes = _grids(grids)
    return math.prod(a.size for a in axes)  # Python integers: exact, no overflow


#: Memory assumed when the machine's cannot be read (neither os.sysconf nor psutil).
_FALLBACK_MEMORY = 1 << 40


def _memory_bytes() -> int:
    """Physical memory of this machine in bytes (:data:`_FALLBACK_MEMORY` when unknown)."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        if pages > 0 and size > 0:
            return int(pages) * int(size)
    except (AttributeError, ValueError, OSError):  # Windows: no sysconf
        pass
    try:
        import psutil  # type: ignore[import-untyped]

        return int(psutil.virtual_memory().total)
    except Exception:  # noqa: BLE001 - optional, best effort
        return _FALLBACK_MEMORY


def _human(n: int) -> str:
    x = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if x < 1024 or unit == "EiB":
            return f"{x:.1f} {unit}" if unit != "B" else f"{n} B"
        x /= 1024
    return f"{n} B"  # pragma: no cover


def _check_size(names: Sequence[str], axes: Sequence[np.ndarray], total: int, chunk: int,
                to_dataframe: bool) -> None:
    """Refuse, before allocating anything, a result that cannot fit in this machine's memory
    (or whose size does not fit in a numpy index)."""
    shape = " x ".join(str(a.size) for a in axes)
    if total > np.iinfo(np.int64).max:
        raise ValueError(f"sweep: the grid has {total} points ({shape}), more than a 64-bit index can address")
    row = sum(a.dtype.itemsize for a in axes) + 8  # grid columns + the float64 result
    live = min(chunk, total) * row * _CHUNKS_ALIVE
    frame = total * row if to_dataframe else 0
    mem = _memory_bytes()
    if frame + live <= mem:
        return
    if to_dataframe and frame + min(total, DEFAULT_CHUNK) * row * _CHUNKS_ALIVE > mem:
        raise ValueError(
            f"sweep: the grid has {total:,} points ({shape}); a DataFrame of them needs "
            f"{_human(total * row)} but this machine has {_human(mem)} of memory. Write the sweep to "
            "Parquet instead (output='sweep.parquet': it holds only a few chunks in memory) or use "
            "smaller grids")
    raise ValueError(
        f"sweep: chunk_size={chunk:,} needs {_human(live)} for the {_CHUNKS_ALIVE} chunks alive at once "
        f"but this machine has {_human(mem)} of memory; pass a smaller chunk_size (default {DEFAULT_CHUNK:,})")


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


def _flat_index(index: Any) -> Optional[int]:
    """The flat position a DomainError's index names in a 1-D call, or None."""
    if isinstance(index, tuple) and len(index) == 1:
        index = index[0]
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        return None
    return int(index)


def _at_point(exc: BaseException, names: Sequence[str], axes: Sequence[np.ndarray],
              where: tuple[int, ...]) -> BaseException:
    """A pabi DomainError re-addressed to the grid point ``where`` (a tuple of axis indices)."""
    param = getattr(exc, "param", None)
    if param is None:
        return exc
    allowed, value = getattr(exc, "allowed", "valid"), getattr(exc, "value", None)
    point = ", ".join(f"{n}={a[i].item()!r}" for n, a, i in zip(names, axes, where))
    new = DomainError(f"{param} must be {allowed}, got {value!r} at grid index {where} ({point})")
    new.param, new.allowed, new.value = param, allowed, value  # type: ignore[attr-defined,assignment]
    new.index = where  # type: ignore[attr-defined]
    return new


def _on_grid(exc: BaseException, names: Sequence[str], axes: Sequence[np.ndarray], lo: int) -> BaseException:
    """A pabi DomainError raised for a chunk, re-addressed to the grid point it came from."""
    index = _flat_index(getattr(exc, "index", None))
    if getattr(exc, "param", None) is None or index is None:
        return exc
    where = tuple(int(i) for i in np.unravel_index(lo + index, tuple(a.size for a in axes)))
    return _at_point(exc, names, axes, where)


def _probe(function: Callable[..., Any], names: Sequence[str], axes: Sequence[np.ndarray],
           fixed: Mapping[str, Any], total: int, chunk: int) -> None:
    """Check each grid's values before the sweep: one call (per chunk) on the points where one
    grid runs through its values and the others sit at their first value. Only grids whose
    probe is cheap are checked (together at most total / _PROBE_FRACTION points); a domain
    error is raised for its grid point, before anything is computed or written."""
    if len(axes) < 2 or total <= chunk:
        return  # one grid: the probe would be the sweep; one chunk: it is evaluated before any output
    budget, chosen = total // _PROBE_FRACTION, []
    for i in sorted(range(len(axes)), key=lambda j: axes[j].size):
        if axes[i].size - 1 > budget:
            break
        budget -= axes[i].size - 1
        chosen.append(i)
    if not chosen:
        return
    # point p of the probe: axis chosen[k] at index pos[p], the others at 0
    seg_axis = np.concatenate([np.full(axes[i].size - 1, i, dtype=np.int64) for i in chosen])
    seg_pos = np.concatenate([np.arange(1, axes[i].size, dtype=np.int64) for i in chosen])
    seg_axis, seg_pos = np.r_[-1, seg_axis], np.r_[0, seg_pos]  # plus the corner point (0, ..., 0)
    for lo in range(0, seg_pos.size, chunk):
        hi = min(seg_pos.size, lo + chunk)
        ax, pos = seg_axis[lo:hi], seg_pos[lo:hi]
        args = {}
        for j, (n, a) in enumerate(zip(names, axes)):
            col = np.full(hi - lo, a[0], dtype=a.dtype)
            mine = ax == j
            col[mine] = a[pos[mine]]
            args[n] = col
        try:
            function(**args, **fixed)
        except DomainError as exc:
            k = _flat_index(getattr(exc, "index", None))
            if getattr(exc, "param", None) is None or k is None or not 0 <= k < hi - lo:
                raise
            where = tuple(int(pos[k]) if ax[k] == j else 0 for j in range(len(axes)))
            raise _at_point(exc, names, axes, where) from None


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
    cols[RESULT_COLUMN] = value
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
    validate: bool = True,
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
        A ``.parquet`` path: chunks are appended as row groups to a temporary file in the same
        directory, which is renamed onto ``output`` when the sweep is complete (on any error
        ``output`` is left untouched and the temporary file removed); the path is returned. The
        file's key-value metadata ``pabi.sweep`` (JSON) records the function, the grids, ``fixed``,
        the pabi version, the row count and ``"complete": true``.
        ``None``: a pandas DataFrame with one column per grid plus ``value`` (filled in place:
        peak memory is the DataFrame plus two chunks). A DataFrame that cannot fit in this
        machine's memory is refused up front (ValueError suggesting Parquet output).
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
    validate:
        ``True`` (default): with several grids and several chunks, call ``function`` first on
        each short grid's values with the other grids at their first value (at most 1/16 of
        the sweep's points), so that a value outside the function's domain raises before the
        sweep starts. ``False``: skip this.
    **grids:
        name = 1-D sequence (or scalar) of real numbers. The last grid varies fastest. A grid
        may not be named ``value`` (the result column: ValueError) nor also appear in
        ``fixed``; a non-numeric value (``None``, a string) is a TypeError naming the grid.

    Raises
    ------
    ValueError / TypeError
        Bad grids or options, a result too large for memory (before anything is allocated).
    DomainError
        A grid value outside the function's domain, with ``index`` = the grid point (a tuple).
    """
    if not callable(function):
        raise TypeError(f"function must be callable, got {type(function).__name__}")
    chunk_size = int_scalar("chunk_size", chunk_size)
    if progress is not None and not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress must be None, True or False, got {progress!r}")
    choice("backend", backend, ("local", "dask"))
    if not isinstance(validate, (bool, np.bool_)):
        raise TypeError(f"validate must be True or False, got {validate!r}")
    names, axes = _grids(grids)
    if fixed is not None and not isinstance(fixed, Mapping):
        raise TypeError(f"fixed must be a mapping of keyword arguments, got {type(fixed).__name__}")
    fixed = dict(fixed or {})
    both = [n for n in names if n in fixed]
    if both:
        raise ValueError(f"{both[0]!r} is both a grid and a fixed argument; give it once")
    path = None if output is None else os.fspath(output)
    if path is not None:
        if not isinstance(path, str):
            raise TypeError(f"output must be a str or os.PathLike path, got {type(output).__name__}")
        if os.path.isdir(path):
            raise IsADirectoryError(f"sweep output {path!r} is a directory")
        if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise FileNotFoundError(f"sweep output {path!r}: no such directory")
    total = math.prod(a.size for a in axes)  # Python integers: exact, no overflow
    chunk = int(chunk_size)
    _check_size(names, axes, total, chunk, to_dataframe=path is None)
    if validate:
        _probe(function, names, axes, fixed, total, chunk)
    bar = _progress(total, chunk, None if progress is None else bool(progress),
                    getattr(function, "__name__", "sweep"))
    try:
        if backend == "local":
            results = _local_results(function, names, axes, fixed, total, chunk, bar)
        else:
            results = _dask_results(function, names, axes, fixed, total, chunk, client, bar)
        if path is not None:
            return _write_parquet(results, path, _metadata(function, names, axes, fixed, total), total)
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


def _grid_metadata(name: str, a: np.ndarray) -> dict[str, Any]:
    little = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
    meta: dict[str, Any] = {"name": name, "length": int(a.size), "dtype": a.dtype.name,
                            "sha256": hashlib.sha256(little.tobytes()).hexdigest()}
    if a.size <= METADATA_VALUES_MAX:
        meta["values"] = a.tolist()
    return meta


def _metadata(function: Callable[..., Any], names: Sequence[str], axes: Sequence[np.ndarray],
              fixed: Mapping[str, Any], total: int) -> dict[str, Any]:
    """What the Parquet file records about the sweep that made it (see :func:`sweep`)."""
    from . import __version__

    qual = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    module = getattr(function, "__module__", None)
    if not isinstance(qual, str):
        fname = repr(function)
    elif isinstance(module, str) and module.startswith("pabi"):
        import pabi

        fname = f"pabi.{qual}" if getattr(pabi, qual, None) is function else f"{module}.{qual}"
    else:
        fname = f"{module}.{qual}" if isinstance(module, str) else qual
    return {"function": fname, "grids": [_grid_metadata(n, a) for n, a in zip(names, axes)],
            "fixed": {k: (v if isinstance(v, (str, int, float, bool, type(None))) else repr(v))
                      for k, v in fixed.items()},
            "pabi_version": __version__, "rows": int(total), "result_column": RESULT_COLUMN}


def _write_parquet(results: Iterator[dict[str, np.ndarray]], path: str, meta: dict[str, Any],
                   total: int) -> str:
    """Write the chunks to a temporary file next to ``path`` and rename it onto ``path`` once all
    ``total`` rows are written (atomic on POSIX and Windows); on any error ``path`` is left
    untouched and the temporary file removed."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - optional dependency
        raise ImportError("Parquet output needs pyarrow: pip install 'pabi[sweep]'") from exc
    directory, base = os.path.split(os.path.abspath(path))
    tmp = os.path.join(directory, f".{base}.{uuid.uuid4().hex[:12]}.partial")
    with open(tmp, "xb"):  # exclusive creation, with the permissions of a new file
        pass
    writer = None
    done = False
    try:
        rows = 0
        for cols in results:
            table = pa.table(cols)
            if writer is None:
                # dictionary (RLE) encoding for the grid columns, whose values repeat; plain
                # encoding for the values (a dictionary of distinct floats only costs time)
                grid_cols = [c for c in table.column_names if c != RESULT_COLUMN]
                writer = pq.ParquetWriter(tmp, table.schema, use_dictionary=grid_cols)
            writer.write_table(table)
            rows += table.num_rows
        if writer is None or rows != total:  # pragma: no cover - an internal invariant
            raise RuntimeError(f"sweep wrote {rows} rows of {total}; the output was not kept")
        writer.add_key_value_metadata({"pabi.sweep": json.dumps(dict(meta, rows=rows, complete=True))})
        w, writer = writer, None
        w.close()
        os.replace(tmp, path)
        done = True
    finally:
        if writer is not None:
            try:
                writer.close()
            except Exception:  # noqa: BLE001 - the original error matters, not this one
                pass
        if not done:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return path
