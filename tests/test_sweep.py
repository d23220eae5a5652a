"""pabi.sweep: Cartesian-product sweeps, local, Parquet and dask backends give the same numbers."""

import importlib.util

import numpy as np
import pytest

import pabi

pd = pytest.importorskip("pandas")


def test_local_sweep_matches_direct_broadcast():
    eps = np.linspace(0, 5, 7)
    r = np.geomspace(1e-3, 30, 11)
    df = pabi.sweep(pabi.theta, eps=eps, r=r, chunk_size=10)  # several chunks, last one partial
    assert list(df.columns) == ["eps", "r", "value"] and len(df) == 77
    direct = pabi.theta(eps[:, None], r[None, :]).ravel()  # C order: the last grid varies fastest
    assert np.array_equal(df["value"].to_numpy(), direct)
    assert np.array_equal(df["eps"].to_numpy(), np.repeat(eps, 11))
    assert pabi.grid_size(eps=eps, r=r) == 77


def test_fixed_options_and_scalar_grid():
    df = pabi.sweep(pabi.log_theta, eps=1.0, r=[0.5, 1.0])
    assert df["value"].tolist() == [pabi.log_theta(1.0, 0.5), pabi.log_theta(1.0, 1.0)]
    calls = []

    def f(x, *, scale):
        calls.append(len(x))
        return x * scale

    out = pabi.sweep(f, x=np.arange(5.0), fixed={"scale": 2.0}, chunk_size=2)
    assert out["value"].tolist() == [0.0, 2.0, 4.0, 6.0, 8.0] and calls == [2, 2, 1]


def test_parquet_output_is_chunked(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    path = pabi.sweep(pabi.theta, eps=np.linspace(0, 3, 50), r=np.geomspace(0.01, 10, 40),
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
        pabi.sweep(pabi.theta, eps=[], r=[1.0])
    with pytest.raises(ValueError, match="chunk_size must be an integer"):
        pabi.sweep(pabi.theta, eps=[1.0], r=[1.0], chunk_size=0)
    with pytest.raises(ValueError, match="backend must be"):
        pabi.sweep(pabi.theta, eps=[1.0], r=[1.0], backend="spark")
    with pytest.raises(TypeError):
        pabi.sweep("theta", eps=[1.0])
    with pytest.raises(pabi.DomainError, match="eps must be >= 0") as info:
        pabi.sweep(pabi.theta, eps=[1.0, -1.0, 2.0], r=[1.0, 3.0], chunk_size=3)
    # the index is the point of the grid, not of the chunk: flat point 2 = (1, 0)
    assert info.value.index == (1, 0) and info.value.param == "eps"
    assert "at grid index (1, 0) (eps=-1.0, r=1.0)" in str(info.value)


def test_dask_backend_equals_local(capsys, tmp_path):
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("tqdm")
    eps, r = np.linspace(0, 4, 30), np.geomspace(0.01, 10, 20)
    local = pabi.sweep(pabi.theta, eps=eps, r=r, chunk_size=64)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        capsys.readouterr()
        remote = pabi.sweep(pabi.theta, eps=eps, r=r, chunk_size=64, backend="dask", client=client,
                            progress=True)
        err = capsys.readouterr().err
        if importlib.util.find_spec("pyarrow") is not None:
            import pyarrow.parquet as pq

            path = pabi.sweep(pabi.theta, eps=eps, r=r, chunk_size=64, backend="dask", client=client,
                              output=tmp_path / "d.parquet")
            table = pq.read_table(path)
            assert table.num_rows == 600 and pq.ParquetFile(path).metadata.num_row_groups == 10
            assert np.array_equal(table.column("value").to_numpy(), local["value"].to_numpy())
        # a chunk's error surfaces on the client, in grid order, with its type
        with pytest.raises(pabi.DomainError, match=r"eps must be >= 0.* at grid index \(2, 0\) "
                                                   r"\(eps=-1.0, r=1.0\)"):
            pabi.sweep(pabi.theta, eps=[1.0, 2.0, -1.0], r=[1.0], chunk_size=1, backend="dask",
                       client=client)
    assert np.array_equal(local.to_numpy(), remote.to_numpy())
    assert "600/600" in err  # the bar counted every point (10 chunks, completed in any order)


def test_progress_bar_forced_on_and_off(capsys, tmp_path):
    pytest.importorskip("tqdm")
    eps, r = np.linspace(0, 4, 7), np.geomspace(0.01, 10, 11)
    df = pabi.sweep(pabi.theta, eps=eps, r=r, chunk_size=10, progress=True)
    err = capsys.readouterr().err
    assert "77/77" in err and "theta" in err  # desc = function name, counted in points
    assert np.array_equal(df["value"].to_numpy(), pabi.theta(eps[:, None], r[None, :]).ravel())
    pytest.importorskip("pyarrow")
    pabi.sweep(pabi.theta, eps=eps, r=r, chunk_size=10, progress=True, output=tmp_path / "p.parquet")
    assert "77/77" in capsys.readouterr().err
    pabi.sweep(pabi.theta, eps=eps, r=r, chunk_size=10, progress=False)
    assert capsys.readouterr().err == ""
    pabi.sweep(pabi.theta, eps=eps, r=r, chunk_size=10)  # auto: stderr is not a terminal here
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress must be None, True or False"):
        pabi.sweep(pabi.theta, eps=eps, r=r, progress="yes")


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
    df = pabi.sweep(pabi.theta, eps=[0.5, 1.0], r=[1.0, 2.0], chunk_size=1, progress=True)
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
