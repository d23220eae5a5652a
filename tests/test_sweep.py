"""pabi.sweep: Cartesian-product sweeps, local, Parquet and dask backends give the same numbers."""

import importlib.util

import numpy as np
import pytest

import pabi
from _engine_fns import log_theta

import pandas as pd


def test_local_sweep_matches_direct_broadcast():
    eps = np.linspace(0, 5, 7)
    r = np.geomspace(1e-3, 30, 11)
    df = pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=10)  # several chunks, last one partial
    assert list(df.columns) == ["eps", "shift", "value"] and len(df) == 77
    direct = pabi.theta(eps[:, None], r[None, :]).ravel()  # C order: the last grid varies fastest
    assert np.array_equal(df["value"].to_numpy(), direct)
    assert np.array_equal(df["eps"].to_numpy(), np.repeat(eps, 11))
    assert pabi.grid_size(eps=eps, r=r) == 77


def test_fixed_options_and_scalar_grid():
    df = pabi.sweep(log_theta, eps=1.0, shift=[0.5, 1.0])
    assert df["value"].tolist() == [pabi.theta(1.0, 0.5, log=True), pabi.theta(1.0, 1.0, log=True)]
    calls = []

    def f(x, *, scale):
        calls.append(len(x))
        return x * scale

    out = pabi.sweep(f, x=np.arange(5.0), fixed={"scale": 2.0}, chunk_size=2)
    assert out["value"].tolist() == [0.0, 2.0, 4.0, 6.0, 8.0] and calls == [2, 2, 1]


def test_parquet_output_is_chunked(tmp_path):
    import pyarrow.parquet as pq
    path = pabi.sweep(pabi.theta, eps=np.linspace(0, 3, 50), shift=np.geomspace(0.01, 10, 40),
                      chunk_size=256, output=tmp_path / "s.parquet")
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows == 2000 and meta.num_row_groups == 8  # ceil(2000 / 256) row groups
    table = pq.read_table(path).to_pandas()
    assert np.array_equal(table["value"].to_numpy(), pabi.theta(np.linspace(0, 3, 50)[:, None],
                                                                np.geomspace(0.01, 10, 40)[None, :]).ravel())


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one grid"):
        pabi.sweep(pabi.theta)
    with pytest.raises(ValueError, match="grid 'eps' is empty"):
        pabi.sweep(pabi.theta, eps=[], shift=[1.0])
    with pytest.raises(ValueError, match="chunk_size must be an integer"):
        pabi.sweep(pabi.theta, eps=[1.0], shift=[1.0], chunk_size=0)
    with pytest.raises(ValueError, match="backend must be"):
        pabi.sweep(pabi.theta, eps=[1.0], shift=[1.0], backend="spark")
    with pytest.raises(TypeError):
        pabi.sweep("theta", eps=[1.0])
    with pytest.raises(pabi.DomainError, match="eps must be >= 0") as info:
        pabi.sweep(pabi.theta, eps=[1.0, -1.0, 2.0], shift=[1.0, 3.0], chunk_size=3)
    # the index is the point of the grid, not of the chunk: flat point 2 = (1, 0)
    assert info.value.index == (1, 0) and info.value.param == "eps"
    assert "at grid index (1, 0) (eps=-1.0, shift=1.0)" in str(info.value)


def test_dask_backend_equals_local(capsys, tmp_path):
    import distributed
    import tqdm  # noqa: F401 (a test dependency: the README's test command installs it)
    eps, r = np.linspace(0, 4, 30), np.geomspace(0.01, 10, 20)
    local = pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=64)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        capsys.readouterr()
        remote = pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=64, backend="dask", client=client,
                            progress=True)
        err = capsys.readouterr().err
        if importlib.util.find_spec("pyarrow") is not None:
            import pyarrow.parquet as pq

            path = pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=64, backend="dask", client=client,
                              output=tmp_path / "d.parquet")
            table = pq.read_table(path)
            assert table.num_rows == 600 and pq.ParquetFile(path).metadata.num_row_groups == 10
            assert np.array_equal(table.column("value").to_numpy(), local["value"].to_numpy())
        # a chunk's error surfaces on the client, in grid order, with its type
        with pytest.raises(pabi.DomainError, match=r"eps must be >= 0.* at grid index \(2, 0\) "
                                                   r"\(eps=-1.0, shift=1.0\)"):
            pabi.sweep(pabi.theta, eps=[1.0, 2.0, -1.0], shift=[1.0], chunk_size=1, backend="dask",
                       client=client)
    assert np.array_equal(local.to_numpy(), remote.to_numpy())
    assert "600/600" in err  # the bar counted every point (10 chunks, completed in any order)


def test_progress_bar_forced_on_and_off(capsys, tmp_path):
    import tqdm  # noqa: F401 (a test dependency: the README's test command installs it)
    eps, r = np.linspace(0, 4, 7), np.geomspace(0.01, 10, 11)
    df = pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=10, progress=True)
    err = capsys.readouterr().err
    assert "77/77" in err and "theta" in err  # desc = function name, counted in points
    assert np.array_equal(df["value"].to_numpy(), pabi.theta(eps[:, None], r[None, :]).ravel())
    import pyarrow  # noqa: F401 (a test dependency: the README's test command installs it)
    pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=10, progress=True, output=tmp_path / "p.parquet")
    assert "77/77" in capsys.readouterr().err
    pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=10, progress=False)
    assert capsys.readouterr().err == ""
    pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=10)  # auto: stderr is not a terminal here
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress must be None, True or False"):
        pabi.sweep(pabi.theta, eps=eps, shift=r, progress="yes")


def test_progress_auto_rule(monkeypatch):
    import importlib

    sweep_mod = importlib.import_module("pabi.sweep")

    class Tty:
        def isatty(self):
            return True

        def write(self, s):
            return len(s)

        def flush(self):
            pass

    monkeypatch.setattr(sweep_mod.sys, "stderr", Tty())
    assert sweep_mod._progress_wanted(2_000_000, 1 << 22, None)  # > 1e6 points, one chunk
    assert sweep_mod._progress_wanted(100, 10, None)  # several chunks
    assert not sweep_mod._progress_wanted(1000, 1 << 20, None)  # short, one chunk
    assert not sweep_mod._progress_wanted(10**8, 10, False)
    monkeypatch.setattr(sweep_mod.sys, "stderr", None)  # pythonw: no stderr at all
    assert not sweep_mod._progress_wanted(10**8, 10, None)


def test_progress_without_tqdm_is_silent(monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # import tqdm.auto -> ImportError
    df = pabi.sweep(pabi.theta, eps=[0.5, 1.0], shift=[1.0, 2.0], chunk_size=1, progress=True)
    assert capsys.readouterr().err == ""
    assert df["value"].tolist() == [pabi.theta(e, r) for e in (0.5, 1.0) for r in (1.0, 2.0)]


def test_function_must_return_one_value_per_point():
    with pytest.raises(ValueError, match="returned shape \\(3,\\) for 2 points"):
        pabi.sweep(lambda x: np.zeros(3), x=[1.0, 2.0])
    df = pabi.sweep(lambda x: 7.0, x=[1.0, 2.0])  # a scalar is broadcast
    assert df["value"].tolist() == [7.0, 7.0]


def test_chunk_points_match_unravel_index():
    """The chunk builder (slices and repeats) gives the C-order grid points for any span."""
    import importlib

    sweep_mod = importlib.import_module("pabi.sweep")
    rng = np.random.default_rng(5)
    for shape in [(7,), (3, 5), (4, 1, 6), (2, 3, 4, 5), (1000,), (3, 1000)]:
        axes = [rng.standard_normal(n) for n in shape]
        names = [f"g{i}" for i in range(len(shape))]
        total = int(np.prod(shape))
        spans = [(0, total), (0, 1), (total - 1, total)]
        spans += [tuple(sorted(rng.choice(total + 1, 2, replace=False))) for _ in range(20)]
        for lo, hi in spans:
            got = sweep_mod._chunk_args(names, axes, int(lo), int(hi))
            idx = np.unravel_index(np.arange(lo, hi), shape)
            for n, a, i in zip(names, axes, idx):
                assert np.array_equal(got[n], a[i]), (shape, lo, hi, n)


# ------------------------------------------------------- no data lost or silently wrong


def _sweep_mod():
    import importlib

    return importlib.import_module("pabi.sweep")


def test_bad_grid_value_is_caught_before_anything_is_written(tmp_path):
    """The issue's example: eps = -1 is the last grid value; it used to leave 900,000 of
    1,000,000 rows in a file indistinguishable from a complete one."""
    out = tmp_path / "p.parquet"
    eps, r = np.r_[np.linspace(0, 1, 999), -1.0], np.linspace(.1, 1, 1000)
    calls = []

    def theta(eps, shift):
        calls.append(len(eps))
        return pabi.theta(eps, shift)

    with pytest.raises(pabi.DomainError, match=r"eps must be >= 0.*at grid index \(999, 0\) "
                                               r"\(eps=-1.0, shift=0.1\)") as info:
        pabi.sweep(theta, eps=eps, shift=r, chunk_size=100_000, output=out)
    assert info.value.index == (999, 0) and info.value.param == "eps"
    assert calls == [1999]  # only the up-front probe ran: (eps_i, r_0) and (eps_0, r_j)
    assert list(tmp_path.iterdir()) == []
    # without the probe the error comes from the last chunk: still no file, no temporary file
    with pytest.raises(pabi.DomainError, match=r"grid index \(999, 0\)"):
        pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=100_000, output=out, validate=False)
    assert list(tmp_path.iterdir()) == []


def test_failed_sweep_leaves_the_previous_file_untouched(tmp_path):
    import pyarrow.parquet as pq
    out = tmp_path / "p.parquet"
    pabi.sweep(pabi.theta, eps=[1.0, 2.0], shift=[0.5], output=out)
    before = out.read_bytes()

    def boom(x):
        if x[-1] >= 25:
            raise RuntimeError("chunk failed")
        return x * 2

    with pytest.raises(RuntimeError, match="chunk failed"):
        pabi.sweep(boom, x=np.arange(30.0), chunk_size=10, output=out)  # fails at the third chunk
    assert out.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["p.parquet"]
    assert pq.read_table(out).num_rows == 2
    # a constraint between grids (not caught by the per-grid probe) also leaves nothing behind
    fixed = dict(noise_scale=1.0, max_grad_norm=1.0, diameter=1.0, steps=10, ordering="shuffled", smoothness=1.0)
    with pytest.raises(pabi.DomainError):
        pabi.sweep(pabi.pnsgd_delta, eps=[0.5, 1.0, 2.0], lr=[0.5, 1.0, 1.5, 3.0], fixed=fixed,
                   chunk_size=2, output=out)
    assert out.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["p.parquet"]


def test_parquet_metadata_records_the_sweep(tmp_path):
    import hashlib
    import json

    import pyarrow.parquet as pq
    eps, r = np.linspace(0, 3, 5), np.geomspace(0.01, 10, 20_001)  # r: too long to store its values
    path = pabi.sweep(pabi.theta, eps=eps, shift=r, chunk_size=30_000, output=tmp_path / "m.parquet")
    meta = json.loads(pq.ParquetFile(path).metadata.metadata[b"pabi.sweep"])
    assert meta["function"] == "pabi.theta" and meta["complete"] is True
    assert meta["rows"] == 100_005 == pq.ParquetFile(path).metadata.num_rows
    assert meta["pabi_version"] == pabi.__version__ and meta["fixed"] == {}
    g_eps, g_r = meta["grids"]
    assert (g_eps["name"], g_eps["length"], g_eps["values"]) == ("eps", 5, eps.tolist())
    assert (g_r["name"], g_r["length"], g_r["dtype"]) == ("shift", 20_001, "float64") and "values" not in g_r
    assert g_r["sha256"] == hashlib.sha256(r.astype("<f8").tobytes()).hexdigest()
    assert g_eps["sha256"] == hashlib.sha256(eps.astype("<f8").tobytes()).hexdigest()
    fixed = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, ordering="shuffled")
    path = pabi.sweep(pabi.pnsgd_delta, eps=[0.5], steps=[10, 100], fixed=fixed, output=tmp_path / "f.parquet")
    meta = json.loads(pq.ParquetFile(path).metadata.metadata[b"pabi.sweep"])
    assert meta["function"] == "pabi.pnsgd_delta" and meta["fixed"] == fixed
    assert meta["grids"][1] == {"name": "steps", "length": 2, "dtype": "int64", "values": [10, 100],
                                "sha256": hashlib.sha256(np.array([10, 100], "<i8").tobytes()).hexdigest()}


def test_grid_named_value_is_rejected():
    with pytest.raises(ValueError, match="grid cannot be named 'value'"):
        pabi.sweep(lambda eps, value: eps + value, eps=[1.0, 2.0], value=[3.0])
    with pytest.raises(ValueError, match="'shift' is both a grid and a fixed argument"):
        pabi.sweep(pabi.theta, eps=[1.0], shift=[1.0], fixed={"shift": 2.0})


def test_non_numeric_grid_values_are_a_type_error_naming_the_grid():
    with pytest.raises(TypeError, match=r"grid 'eps' must hold real numbers, got None .* at index 1"):
        pabi.sweep(pabi.theta, eps=[0.5, None], shift=[1.0])
    with pytest.raises(TypeError, match=r"grid 'order' must hold real numbers, got dtype <U8"):
        pabi.sweep(pabi.theta, eps=[0.5], order=["shuffled"])
    with pytest.raises(TypeError, match="grid 'shift'"):
        pabi.sweep(pabi.theta, eps=[0.5], shift=[1.0, "2"])
    with pytest.raises(ValueError, match="grid 'shift' must be a scalar or a 1-D sequence"):
        pabi.sweep(pabi.theta, eps=[0.5], shift=[[1.0, 2.0], [3.0]])
    from fractions import Fraction

    df = pabi.sweep(pabi.theta, eps=[Fraction(1, 2)], shift=[1.0])  # any real numbers are fine
    assert df["value"].tolist() == [pabi.theta(0.5, 1.0)]


def test_huge_dataframe_is_refused_before_allocating(monkeypatch):
    sweep_mod = _sweep_mod()
    monkeypatch.setattr(sweep_mod, "_memory_bytes", lambda: 64 << 30)
    axis = np.zeros(10**6)
    with pytest.raises(ValueError, match=r"1,000,000,000,000 points \(1000000 x 1000000\); a DataFrame of "
                                         r"them needs 21\.8 TiB .* 64\.0 GiB .*output='sweep\.parquet'"):
        pabi.sweep(pabi.theta, eps=axis, shift=axis)
    # exact integer product: no overflow for sizes beyond int64 either
    big = np.zeros(3 * 10**6, dtype=np.int8)
    with pytest.raises(ValueError, match="more than a 64-bit index can address"):
        pabi.sweep(lambda a, b, c: a, a=big, b=big, c=big, output="never.parquet")
    # a huge chunk is refused too (Parquet path), and the default chunk is fine
    with pytest.raises(ValueError, match=r"chunk_size=1,000,000,000,000 needs .* pass a smaller chunk_size"):
        pabi.sweep(pabi.theta, eps=axis, shift=axis, chunk_size=10**12, output="never.parquet")
    sweep_mod._check_size(["eps", "r"], [axis, axis], 10**12, sweep_mod.DEFAULT_CHUNK, to_dataframe=False)
    # a small machine: a DataFrame that fits is fine, one that does not is refused
    monkeypatch.setattr(sweep_mod, "_memory_bytes", lambda: 10_000)
    assert len(pabi.sweep(pabi.theta, eps=[1.0] * 10, shift=[1.0] * 10)) == 100  # 100 x 24 B + chunks
    with pytest.raises(ValueError, match="a DataFrame of them needs"):
        pabi.sweep(pabi.theta, eps=[1.0] * 100, shift=[1.0] * 10)


def test_probe_budget_and_grid_addressing(monkeypatch):
    """The probe runs each short grid's values (others at index 0), within 1/16 of the sweep."""
    seen = []

    def f(a, b, c):
        seen.append((a.copy(), b.copy(), c.copy()))
        return a + b + c

    a, b, c = np.arange(4.0), 10 * np.arange(1.0, 4.0), 100 * np.arange(1.0, 200.0)
    df = pabi.sweep(f, a=a, b=b, c=c, chunk_size=1000)
    probe = seen[0]
    assert len(seen) == 1 + 3 and len(probe[0]) == 1 + 3 + 2  # c (199 values) is over the budget
    assert set(zip(*map(list, probe))) == {(0.0, 10.0, 100.0), (1.0, 10.0, 100.0), (2.0, 10.0, 100.0),
                                           (3.0, 10.0, 100.0), (0.0, 20.0, 100.0), (0.0, 30.0, 100.0)}
    assert np.array_equal(df["value"].to_numpy(), (a[:, None, None] + b[None, :, None] + c).ravel())
    seen.clear()
    pabi.sweep(f, a=a, b=b, c=c, chunk_size=1000, validate=False)
    assert len(seen) == 3
    with pytest.raises(TypeError, match="validate must be True or False"):
        pabi.sweep(f, a=a, validate="yes")
    # a domain error of another grid at its first value is addressed to the right point
    with pytest.raises(pabi.DomainError, match=r"shift must be .* at grid index \(0, 0\)") as info:
        pabi.sweep(pabi.theta, eps=np.linspace(0, 1, 10), shift=np.r_[-1.0, np.linspace(0, 1, 99)], chunk_size=100)
    assert info.value.index == (0, 0)


def test_bad_output_path_fails_before_any_work(tmp_path):
    calls = []

    def f(x, y):
        calls.append(1)
        return x + y

    with pytest.raises(IsADirectoryError, match="is a directory"):
        pabi.sweep(f, x=np.arange(10.0), y=np.arange(100.0), chunk_size=10, output=tmp_path)
    with pytest.raises(FileNotFoundError, match="no such directory"):
        pabi.sweep(f, x=np.arange(10.0), y=np.arange(100.0), chunk_size=10, output=tmp_path / "no" / "p.parquet")
    assert calls == [] and list(tmp_path.iterdir()) == []
