"""Benchmark: ``pabi.sweep`` throughput and memory on massive grids of ``pabi.theta``.

Cases (each in its own subprocess, so that the peak RSS of one does not hide another's):

* ``parquet_1e8``: 1e8 points (ε grid 1e4 × r grid 1e4) written to Parquet, progress bar on;
  memory must stay bounded by the chunk (peak RSS independent of the grid size);
* ``parquet_1e7``: the same at 1e7 points, and ``scipy_parquet_1e7``: the baseline, the same
  chunked loop and Parquet writer with θ from the numpy/scipy formula
  ``ndtr(r/2 − ε/r) − e^ε ndtr(−ε/r − r/2)`` (the ratio is printed);
* ``dataframe_1e7``: 1e7 points into a pandas DataFrame;
* ``dask_2workers_1e7``: 1e7 points on a 2-worker ``dask.distributed.LocalCluster``
  (processes, 1 thread each), checked bitwise equal to the local DataFrame.

Prints a table: points, wall time, points/s, peak RSS (``resource.getrusage`` ru_maxrss).

    python benches/bench_sweep.py            # all cases (~1-3 min on 2 cores)
    python benches/bench_sweep.py --quick    # 10x smaller grids
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

CASES = ["parquet_1e8", "parquet_1e7", "scipy_parquet_1e7", "dataframe_1e7", "dask_2workers_1e7"]


def grids(points: float) -> tuple[np.ndarray, np.ndarray]:
    n_eps = 10_000
    n_r = int(round(points / n_eps))
    return np.linspace(0.0, 10.0, n_eps), np.geomspace(1e-3, 30.0, n_r)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def scipy_theta(eps: np.ndarray, shift: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr

    r = shift
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a = eps / r
        out = ndtr(r / 2 - a) - np.exp(eps) * ndtr(-a - r / 2)
    return np.where(r == 0, 0.0, out)


def run_case(case: str, scale: float) -> dict[str, object]:
    import pandas  # noqa: F401  (imports are not timed)
    import pyarrow.parquet  # noqa: F401
    import tqdm.auto  # noqa: F401

    import pabi

    size = float(case.rsplit("_", 1)[1]) * scale
    eps, r = grids(size)
    points = eps.size * r.size
    extra: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sweep.parquet")
        t0 = time.perf_counter()
        if case.startswith("parquet"):
            pabi.sweep(pabi.theta, eps=eps, shift=r, output=path, progress=True)
        elif case.startswith("scipy_parquet"):
            pabi.sweep(scipy_theta, eps=eps, shift=r, output=path, progress=True)
        elif case.startswith("dataframe"):
            df = pabi.sweep(pabi.theta, eps=eps, shift=r, progress=True)
            extra["rows"] = len(df)
        elif case.startswith("dask"):
            import distributed

            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                          dashboard_address=None) as cluster, \
                    distributed.Client(cluster) as client:
                t0 = time.perf_counter()  # the cluster start-up is not counted
                remote = pabi.sweep(pabi.theta, eps=eps, shift=r, backend="dask", client=client,
                                    progress=True)
                elapsed = time.perf_counter() - t0
            local = pabi.sweep(pabi.theta, eps=eps, shift=r, progress=False)
            extra["equal_to_local"] = bool(local.equals(remote))
            return {"case": case, "points": points, "seconds": elapsed,
                    "rss_mb": peak_rss_mb(), **extra}
        else:
            raise ValueError(f"unknown case {case!r}")
        elapsed = time.perf_counter() - t0
        if os.path.exists(path):
            extra["parquet_mb"] = os.path.getsize(path) / 2**20
    return {"case": case, "points": points, "seconds": elapsed, "rss_mb": peak_rss_mb(), **extra}


def main() -> None:
    args = sys.argv[1:]
    scale = 0.1 if "--quick" in args else 1.0
    if "--case" in args:
        case = args[args.index("--case") + 1]
        print(json.dumps(run_case(case, scale)))
        return
    import pabi

    print(f"pabi {pabi.__version__}, {os.cpu_count()} cores, {pabi.get_num_threads()} threads, "
          f"chunk = 2^20 points (timings on a shared, loaded machine)")
    rows, failed = [], []
    for case in CASES:
        cmd = [sys.executable, __file__, "--case", case] + (["--quick"] if scale != 1.0 else [])
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)  # stderr: the progress bars
        if proc.returncode != 0:
            print(f"{case}: failed (exit {proc.returncode})")
            failed.append(case)
            continue
        rows.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print()
    print(f"{'case':<20} {'points':>12} {'seconds':>9} {'points/s':>12} {'peak RSS MB':>12}  notes")
    by = {}
    for row in rows:
        rate = row["points"] / row["seconds"]
        by[row["case"]] = rate
        notes = []
        if "parquet_mb" in row:
            notes.append(f"file {row['parquet_mb']:.0f} MB")
        if "equal_to_local" in row:
            notes.append("equal to local: " + ("yes" if row["equal_to_local"] else "NO"))
        print(f"{row['case']:<20} {row['points']:>12.3g} {row['seconds']:>9.2f} {rate:>12.3g} "
              f"{row['rss_mb']:>12.0f}  {', '.join(notes)}")
    if "parquet_1e7" in by and "scipy_parquet_1e7" in by:
        print(f"\nParquet sweep, pabi.theta vs numpy/scipy formula: "
              f"{by['parquet_1e7'] / by['scipy_parquet_1e7']:.2f}x the points/s")
    if failed:  # a bench with a failed case must not look like a complete run
        sys.exit(f"failed cases: {', '.join(failed)}")


if __name__ == "__main__":
    main()
