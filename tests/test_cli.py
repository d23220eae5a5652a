"""The ``pabi`` command: values equal to the Python API, JSON output, TOML configs, help texts
and one-line errors (never a traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import pabi
from pabi.cli import main

from _helpers import assert_one_line_error

ROOT = Path(__file__).resolve().parents[1]
SUBCOMMANDS = ["demo", "theta", "pnsgd", "dpsgd", "per-instance", "last-iterate", "report", "figures"]
PN = ["--max-grad-norm", "1", "--lr", "0.05", "--diameter", "1", "--steps", "1000"]
PN_KW = dict(max_grad_norm=1.0, lr=0.05, diameter=1.0, steps=1000)


def run_json(capsys, argv):
    rc = main(argv + ["--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


def run_cli(*argv: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    return subprocess.run([sys.executable, "-m", "pabi", *argv], capture_output=True, text=True, env=env,
                          cwd=kw.get("cwd", ROOT), timeout=60)


# ------------------------------------------------------------------------------------ help


def test_main_is_importable_from_dunder_main():
    from pabi.__main__ import main as m

    assert m is main


@pytest.mark.parametrize("cmd", SUBCOMMANDS)
def test_help_of_every_subcommand(capsys, cmd):
    assert main([cmd, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: pabi {cmd}")
    assert "Example" in out and "--json" in out


def test_top_level_help_lists_every_subcommand(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for cmd in SUBCOMMANDS:
        assert cmd in out
    assert main([]) == 0  # no command: the help, status 0


def test_python_m_pabi_help_and_version():
    r = run_cli("--help")
    assert r.returncode == 0 and "pabi report" in r.stdout
    r = run_cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"pabi {pabi.__version__}"


# ---------------------------------------------------------------------------- theta, demo


def test_theta_and_demo(capsys):
    rows = run_json(capsys, ["theta", "1,2", "0.5"])
    assert [r["eps"] for r in rows] == [1.0, 2.0]
    assert rows[1]["theta"] == pabi.theta(2.0, 0.5)
    assert rows[0]["log_theta"] == pabi.theta(1.0, 0.5, log=True)
    assert rows[0]["theta_complement"] == pabi.theta_complement(1.0, 0.5)
    demo = run_json(capsys, ["demo"])
    assert len(demo["theta"]) == 6 and len(demo["bounds"]) == 4
    assert main(["demo"]) == 0
    assert "Bounds built on it" in capsys.readouterr().out


# ----------------------------------------------------------------------------------- pnsgd


def test_pnsgd_delta_and_epsilon_equal_the_api(capsys):
    d = run_json(capsys, ["pnsgd", "--noise-scale", "4", *PN, "--ordering", "shuffled", "--eps", "0.5,1,2"])
    for row in d["rows"]:
        assert row["delta"] == pabi.pnsgd_delta(row["eps"], noise_scale=4.0, ordering="shuffled", **PN_KW)
        assert row["log_delta"] == pabi.pnsgd_delta(row["eps"], noise_scale=4.0, ordering="shuffled", **PN_KW, log=True)
    e = run_json(capsys, ["pnsgd", "--noise-scale", "4", *PN, "--ordering", "shuffled", "--delta", "1e-5"])
    assert e["rows"][0]["eps"] == pabi.pnsgd_epsilon(1e-5, noise_scale=4.0, ordering="shuffled", **PN_KW)
    f = run_json(capsys, ["pnsgd", "--noise-scale", "1", "--max-grad-norm", "1", "--lr", "0.5", "--diameter", "1",
                          "--steps", "100", "--ordering", "fixed", "--index", "1", "--eps", "1"])
    assert f["rows"][0]["delta"] == pabi.pnsgd_delta(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100,
                                                    ordering="fixed", index=1)
    assert 5.56e-30 < f["rows"][0]["delta"] < 5.57e-30  # the docstring's value


def test_pnsgd_laplace_smooth_and_calibration(capsys):
    kw = dict(noise="laplace", noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=5, ordering="fixed", index=3,
              smoothness=1.0, strong_convexity=0.5)
    d = run_json(capsys, ["pnsgd", "--noise", "laplace", "--noise-scale", "1", "--max-grad-norm", "1", "--lr", "0.5",
                          "--diameter", "1", "--steps", "5", "--ordering", "fixed", "--index", "3", "--smoothness", "1",
                          "--strong-convexity", "0.5", "--eps", "0.1"])
    assert d["rows"][0]["delta"] == pabi.pnsgd_delta(0.1, **kw)
    c = run_json(capsys, ["pnsgd", "--max-grad-norm", "1", "--lr", "0.5", "--diameter", "1", "--steps", "100",
                          "--ordering", "shuffled", "--eps", "1", "--delta", "1e-5", "--calibrate-noise-scale"])
    s = pabi.pnsgd_calibrate_noise_scale(1.0, 1e-5, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
    assert c["rows"][0]["noise_scale"] == s
    assert main(["pnsgd", "--noise-scale", "4", *PN, "--eps", "1"]) == 0
    out = capsys.readouterr().out
    assert "delta (upper bound)" in out and "shuffled" in out


# ----------------------------------------------------------------------------------- dpsgd


def test_dpsgd_equals_the_api(capsys):
    d = run_json(capsys, ["dpsgd", "--sample-rate", "0.01", "--noise-multiplier", "1", "--steps", "1000", "--delta", "1e-5"])
    row = d["rows"][0]
    lo, est, up = pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000, bracket=True)
    assert (row["eps_pld_lower"], row["eps_pld_estimate"], row["eps_pld"]) == (lo, est, up)
    assert round(up, 3) == 1.828  # dp-accounting / prv-accountant value
    orders = pabi.DEFAULT_ORDERS
    eps_rdp, order = pabi.rdp_to_dp_epsilon(1e-5, orders=orders, rdp=pabi.rdp_compose(pabi.sampled_gaussian_rdp(orders, sample_rate=0.01, noise_multiplier=1.0), count=1000))
    assert (row["eps_rdp"], row["rdp_order"]) == (eps_rdp, order)
    assert row["eps_rdp"] > row["eps_pld"]  # the RDP route is looser
    e = run_json(capsys, ["dpsgd", "--sample-rate", "0.01", "--noise-multiplier", "1", "--steps", "100", "--eps", "1"])
    assert e["rows"][0]["delta_pld"] == pabi.dpsgd_delta(1.0, sample_rate=0.01, noise_multiplier=1.0, steps=100)[2]
    c = run_json(capsys, ["dpsgd", "--sample-rate", "0.01", "--steps", "100", "--eps", "2", "--delta", "1e-5",
                          "--calibrate-noise-multiplier"])
    assert c["rows"][0]["noise_multiplier"] == pabi.dpsgd_calibrate_noise_multiplier(2.0, 1e-5, sample_rate=0.01, steps=100)


# ---------------------------------------------------------------------------- last-iterate


LI = ["--lr", "0.1", "--max-grad-norm", "1", "--batch-size", "10", "--noise-multiplier", "1", "--steps", "1000",
      "--n", "1000", "--smoothness", "1", "--diameter", "2"]


def test_last_iterate_equals_the_api(capsys):
    d = run_json(capsys, ["last-iterate", "--order", "8", "--delta", "1e-5", *LI])
    sigma = 0.1 * 1.0 * 1.0 / 10
    assert d["setup"]["noise_scale"] == sigma
    rows = {r["bound"]: r for r in d["rows"]}
    rdp = {k: r["rdp"][0]["rdp"] for k, r in rows.items()}
    assert rows["last_iterate_general"]["rdp"][0]["order"] == 8.0
    setup = dict(lr=0.1, max_grad_norm=1.0, noise_scale=sigma)
    cyc = dict(setup, batch_size=10, steps=1000, batches_per_epoch=100, weak_convexity=0.0, smoothness=1.0)
    assert rdp["last_iterate_general"] == pabi.last_iterate_rdp_general(8.0, **setup, steps=1000)
    assert rdp["last_iterate_bounded"] == pabi.last_iterate_rdp_bounded(
        8.0, **setup, batch_size=10, diameter=2.0, weak_convexity=0.0, smoothness=1.0)
    assert rdp["last_iterate_cyclic"] == pabi.last_iterate_rdp_cyclic(8.0, **cyc)
    assert rdp["last_iterate_small_step"] == pabi.last_iterate_rdp_small_step(
        8.0, **{k: v for k, v in cyc.items() if k != "steps"})
    orders = pabi.DEFAULT_ORDERS
    curve = [pabi.last_iterate_rdp_cyclic(float(a), **cyc) for a in orders]
    e = rows["last_iterate_cyclic"]["eps"][0]
    assert (e["delta"], e["eps"], e["order"]) == (1e-5, *pabi.rdp_to_dp_epsilon(1e-5, orders=orders, rdp=curve))
    assert all(r["valid"] for r in d["rows"])
    assert main(["last-iterate", "--order", "8", "--delta", "1e-5", *LI]) == 0
    assert "RDP (order=8)" in capsys.readouterr().out


def test_last_iterate_unmet_step_size_condition(capsys):
    args = [a if a != "0.1" else "0.6" for a in LI]  # lr = 0.6 > 1/(2(m + M)) = 0.5
    d = run_json(capsys, ["last-iterate", "--order", "4", *args])
    by = {r["bound"]: r for r in d["rows"]}
    assert by["last_iterate_general"]["valid"] and by["last_iterate_general"]["rdp"][0]["rdp"] > 0
    for k in ("last_iterate_bounded", "last_iterate_cyclic", "last_iterate_small_step"):
        assert not by[k]["valid"] and by[k]["rdp"][0]["rdp"] is None
        assert "1/(2(m + M))" in by[k]["unmet"]


# ---------------------------------------------------------------------------- per-instance


@pytest.fixture(scope="module")
def sens() -> np.ndarray:
    return np.random.default_rng(1).uniform(0.0, 1.0, size=(40, 3))


def test_per_instance_wide_csv_equals_the_api(tmp_path, capsys, sens):
    f = tmp_path / "s.csv"
    np.savetxt(f, sens, delimiter=",", header="run0,run1,run2", comments="")
    d = run_json(capsys, ["per-instance", str(f), "--sample-rate", "0.01", "--noise-scale", "1", "--order", "8",
                          "--delta", "1e-5", "--max-grad-norm", "1"])
    rec = d["records"][0]
    assert (rec["steps"], rec["samples"]) == (40, 3)
    assert rec["rdp@8"] == pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=sens)
    orders = np.array([1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64], dtype=float)
    curve = [pabi.dpsgd_per_instance_rdp(float(o), sample_rate=0.01, noise_scale=1.0, sensitivities=sens) for o in orders]
    assert (rec["eps"], rec["order"]) == pabi.rdp_to_dp_epsilon(1e-5, orders=orders, rdp=curve)
    # 40 steps of the per-step value, the product rounded up (exactly: Fraction), not to nearest
    one = pabi.sampled_gaussian_rdp_per_instance(8.0, sample_rate=0.01, sensitivity=1.0, noise_scale=1.0)
    got = d["data_independent"]["rdp@8"]
    assert Fraction(got) >= 40 * Fraction(one) and np.nextafter(got, 0.0) < 40 * Fraction(one)
    # transposed file (one row per run), explicit p
    g = tmp_path / "t.csv"
    np.savetxt(g, sens.T, delimiter=",")
    d2 = run_json(capsys, ["per-instance", str(g), "--transpose", "--sample-rate", "0.01", "--noise-scale", "1", "--order", "8",
                           "--holder-exponent", "50"])
    assert d2["records"][0]["rdp@8"] == pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=sens, holder_exponent=50.0)


def test_per_instance_parquet_and_long_format(tmp_path, capsys, sens):
    import pandas as pd
    import pyarrow  # noqa: F401 (a test dependency: the README's test command installs it)
    f = tmp_path / "s.parquet"
    pd.DataFrame(sens, columns=["a", "b", "c"]).to_parquet(f)
    d = run_json(capsys, ["per-instance", str(f), "--sample-rate", "0.02", "--noise-scale", "2", "--order", "4"])
    assert d["records"][0]["rdp@4"] == pabi.dpsgd_per_instance_rdp(4.0, sample_rate=0.02, noise_scale=2.0, sensitivities=sens)
    # long format: record, step, run, sensitivity (rows shuffled) -> per-record values + summary
    rows = [(r, t, k, float(sens[t, k] * (r + 1) / 3)) for r in range(3) for t in range(40) for k in range(3)]
    rows = [rows[i] for i in np.random.default_rng(2).permutation(len(rows))]
    g = tmp_path / "long.csv"
    g.write_text("record,step,run,sensitivity\n" + "\n".join(",".join(map(repr, x)) for x in rows) + "\n")
    d = run_json(capsys, ["per-instance", str(g), "--sample-rate", "0.02", "--noise-scale", "2", "--order", "4"])
    vals = [pabi.dpsgd_per_instance_rdp(4.0, sample_rate=0.02, noise_scale=2.0, sensitivities=sens * (r + 1) / 3) for r in range(3)]
    assert [rec["rdp@4"] for rec in d["records"]] == vals
    assert d["summary"]["rdp@4"]["max"] == max(vals) and d["summary"]["rdp@4"]["min"] == min(vals)
    assert main(["per-instance", str(g), "--sample-rate", "0.02", "--noise-scale", "2", "--order", "4"]) == 0
    assert "median" in capsys.readouterr().out


# ---------------------------------------------------------------------------------- config


def test_config_file_and_flag_override(tmp_path, capsys):
    cfg = tmp_path / "c.toml"
    cfg.write_text('[pnsgd]\nnoise_scale = 4.0\nmax_grad_norm = 1.0\nlr = 0.05\ndiameter = 1.0\nsteps = 1000\n'
                   'ordering = "shuffled"\ndelta = [1e-5, 1e-6]\n')
    d = run_json(capsys, ["pnsgd", "--config", str(cfg)])
    assert [r["eps"] for r in d["rows"]] == [pabi.pnsgd_epsilon(x, noise_scale=4.0, ordering="shuffled", **PN_KW)
                                             for x in (1e-5, 1e-6)]
    d = run_json(capsys, ["pnsgd", "--config", str(cfg), "--noise-scale", "2", "--delta", "1e-5"])
    assert d["rows"][0]["eps"] == pabi.pnsgd_epsilon(1e-5, noise_scale=2.0, ordering="shuffled", **PN_KW)
    flat = tmp_path / "flat.toml"
    flat.write_text("sample_rate = 0.01\nnoise_multiplier = 1.0\nsteps = 100\ndelta = 1e-5\nno_rdp = true\njson = true\n")
    assert main(["dpsgd", f"--config={flat}"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["eps_pld"] == pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=100) and "eps_rdp" not in row


def test_config_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[pnsgd]\nnoise_scalee = 4.0\n")
    assert_one_line_error(main(["pnsgd", "--config", str(bad)]), capsys.readouterr().err, 2, "'noise_scalee'")
    bad.write_text("[pnsgd\nnoise_scale = 4\n")
    assert_one_line_error(main(["pnsgd", "--config", str(bad)]), capsys.readouterr().err, 2, "invalid TOML")
    assert_one_line_error(main(["pnsgd", "--config", str(tmp_path / "none.toml")]), capsys.readouterr().err, 2,
                          "not found")
    bad.write_text("[pnsgd]\nnoise_scale = [1, 'a']\n")
    assert_one_line_error(main(["pnsgd", "--config", str(bad)]), capsys.readouterr().err, 2, "noise_scale")


# ---------------------------------------------------------------------------------- errors


@pytest.mark.parametrize("argv, contains", [
    (["pnsgd", "--noise-scale", "-1", *PN, "--eps", "1"], "noise_scale"),
    (["pnsgd", "--noise-scale", "x", *PN, "--eps", "1"], "--noise-scale"),
    (["pnsgd", *PN, "--eps", "1"], "--noise-scale is required"),
    (["pnsgd", "--noise-scale", "4", *PN, "--eps", "1", "--delta", "1e-5"], "exactly one"),
    (["pnsgd", "--noise-scale", "4", *PN, "--ordering", "fixed", "--eps", "1"], "index"),
    (["pnsgd", "--noise-scale", "4", *PN, "--smoothness", "100", "--eps", "1"], "lr"),
    (["dpsgd", "--sample-rate", "1.5", "--noise-multiplier", "1", "--steps", "10", "--delta", "1e-5"], "sample_rate"),
    (["dpsgd", "--sample-rate", "0.1", "--noise-multiplier", "1", "--steps", "2.5", "--delta", "1e-5"], "steps"),
    (["last-iterate", "--order", "8", "--lr", "0.1", "--max-grad-norm", "1", "--noise-scale", "1", "--steps", "10",
      "--n", "7",
      "--batch-size", "2"], "divide"),
    (["per-instance", "/nonexistent/s.csv", "--sample-rate", "0.1", "--noise-scale", "1"], "not found"),
    (["report", "/nonexistent/r.toml"], "not found"),
    (["nosuchcommand"], "invalid choice"),
    (["theta", "1"], "required"),
])
def test_errors_are_one_line_with_nonzero_status(capsys, argv, contains):
    assert_one_line_error(main(argv), capsys.readouterr().err, 2, contains)


def test_errors_in_a_subprocess_have_no_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("this is = = not toml\n")
    csv = tmp_path / "bad.csv"
    csv.write_text("1,2\n3,abc\n")
    for argv, contains in [(["pnsgd", "--noise-scale", "-1", *PN, "--eps", "1"], "noise_scale"),
                           (["report", str(bad)], "invalid TOML"),
                           (["report", str(tmp_path / "missing.toml")], "not found"),
                           (["per-instance", str(csv), "--sample-rate", "0.1", "--noise-scale", "1"], "not a number"),
                           (["pnsgd", "--frobnicate"], "")]:
        r = run_cli(*argv)
        assert_one_line_error(r.returncode, r.stderr, 2, contains)
        assert r.stdout == ""


# --------------------------------------------------------------------------------- figures


def test_figures_delegates_to_make_all(tmp_path, capsys, monkeypatch):
    calls = []

    def make_all(outdir, only=None):
        calls.append((Path(outdir), only))
        return [Path(outdir) / "a.png", Path(outdir) / "b.png"]

    monkeypatch.setitem(sys.modules, "pabi.figures", types.SimpleNamespace(make_all=make_all))
    monkeypatch.setattr(pabi, "figures", sys.modules["pabi.figures"], raising=False)
    d = run_json(capsys, ["figures", str(tmp_path / "out"), "--only", "fig2, fig3"])
    assert calls == [(tmp_path / "out", ["fig2", "fig3"])]
    assert d["files"] == [str(tmp_path / "out" / "a.png"), str(tmp_path / "out" / "b.png")]


def test_figures_missing_module_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pabi.figures", None)  # import raises ImportError
    monkeypatch.delattr(pabi, "figures", raising=False)
    assert_one_line_error(main(["figures", str(tmp_path)]), capsys.readouterr().err, 1, "figures")


def test_figures_without_matplotlib_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    def make_all(outdir, only=None):
        raise ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib")

    monkeypatch.setitem(sys.modules, "pabi.figures", types.SimpleNamespace(make_all=make_all))
    monkeypatch.setattr(pabi, "figures", sys.modules["pabi.figures"], raising=False)
    assert_one_line_error(main(["figures", str(tmp_path)]), capsys.readouterr().err, 1, "pabi[plot]")


def test_per_instance_hoeffding_confidence_equals_the_api(tmp_path, capsys, sens):
    f = tmp_path / "s.csv"
    np.savetxt(f, sens, delimiter=",")
    d = run_json(capsys, ["per-instance", str(f), "--sample-rate", "0.01", "--noise-scale", "1", "--order", "4",
                          "--failure-prob", "0.05", "--max-sensitivity", "1", "--variant", "as_published"])
    want = pabi.dpsgd_per_instance_rdp(4.0, sample_rate=0.01, noise_scale=1.0, sensitivities=sens, variant="as_published", failure_prob=0.05,
                                       max_sensitivity=1.0)
    assert d["records"][0]["rdp@4"] == want
    plug_in = pabi.dpsgd_per_instance_rdp(4.0, sample_rate=0.01, noise_scale=1.0, sensitivities=sens, variant="as_published")
    assert want >= plug_in  # the upper-confidence version is never below the plug-in mean
    bad = tmp_path / "neg.csv"
    bad.write_text("0.1,0.2\n-0.5,0.3\n")
    assert_one_line_error(main(["per-instance", str(bad), "--sample-rate", "0.01", "--noise-scale", "1"]),
                          capsys.readouterr().err, 2, "sensitivit")


def test_figures_help_names_every_figure(capsys):
    """The figure names in `pabi figures --help` are the keys of pabi.figures.FIGURES."""
    from pabi.figures import FIGURES

    assert main(["figures", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for name in FIGURES:
        assert name in text, name


# ------------------------------------------- per-instance: no data dropped or silently wrong

PI = ["--sample-rate", "0.01", "--noise-scale", "1", "--order", "8"]


def test_per_instance_first_row_with_a_missing_cell_is_an_error_not_a_header(tmp_path, capsys):
    """The issue's example: ',0.5' on line 1 used to be skipped as a header ('1 steps')."""
    f = tmp_path / "a.csv"
    f.write_text(",0.5\n0.5,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          f"{f}: line 1, column 1: not a number: ''; if this line is a header, pass --header")
    for first in ["NA,0.5", "NA,NA", "run0,", "nan,0.5", "null,x", "-,-"]:
        f.write_text(first + "\n0.5,0.5\n")
        rc = main(["per-instance", str(f), *PI])
        assert_one_line_error(rc, capsys.readouterr().err, 2, f"{f}: line 1, column ")
    # the same cell on line 2 (after a real header) is rejected too, naming line and column
    f.write_text("a,b\n0.5,0.5\n,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "line 3, column 1 ('a'): not a number: ''")
    # a real header is detected, and --header / --no-header force the choice
    f.write_text("run_0,Run 1\n0.5,0.25\n0.5,0.5\n")
    d = run_json(capsys, ["per-instance", str(f), *PI])
    want = pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=np.array([[0.5, 0.25], [0.5, 0.5]]))
    assert d["records"][0]["steps"] == 2 and d["records"][0]["rdp@8"] == want
    f.write_text("NA,NA\n0.5,0.25\n0.5,0.5\n")
    assert run_json(capsys, ["per-instance", str(f), *PI, "--header"])["records"][0]["rdp@8"] == want
    f.write_text("0.5,0.25\n0.5,0.5\n")
    assert run_json(capsys, ["per-instance", str(f), *PI, "--no-header"])["records"][0]["rdp@8"] == want
    f.write_text("a,b\n0.5,0.25\n0.5,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI, "--no-header"]), capsys.readouterr().err, 2,
                          "line 1, column 1: not a number: 'a'")
    cfg = tmp_path / "c.toml"
    cfg.write_text("sample_rate = 0.01\nnoise_scale = 1.0\norder = 8\nheader = false\n")
    assert_one_line_error(main(["per-instance", str(f), "--config", str(cfg)]), capsys.readouterr().err, 2,
                          "line 1, column 1")
    cfg.write_text("sample_rate = 0.01\nnoise_scale = 1.0\norder = 8\nheader = true\n")
    f.write_text("NA,NA\n0.5,0.25\n0.5,0.5\n")
    assert run_json(capsys, ["per-instance", str(f), "--config", str(cfg)])["records"][0]["rdp@8"] == want


def test_per_instance_rows_of_empty_cells_and_ragged_rows_are_errors(tmp_path, capsys):
    f = tmp_path / "a.csv"
    f.write_text("0.5,0.5\n,\n0.5,0.5\n")  # a step whose cells are all missing used to be dropped
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "line 2, column 1: not a number: ''")
    f.write_text("0.5,0.5\n0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "line 2 has 1 columns but line 1 has 2")
    f.write_text("record,step,sensitivity\n1,0,0.5,7\n")  # header narrower than the data
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "line 2 has 4 columns but the header has 3")
    f.write_text("# comment\n\n0.5,0.25\n   \n0.5,0.5\n")  # comments and blank lines are not data
    d = run_json(capsys, ["per-instance", str(f), *PI])
    assert d["records"][0]["rdp@8"] == pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=[[0.5, 0.25], [0.5, 0.5]])
    f.write_text("0.5,0.5\n0.5,inf\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "line 2, column 2: 'inf' is not a finite number")


def test_per_instance_long_format_nan_record_names_file_row_and_column(tmp_path, capsys):
    """Used to fail with 'zero-size array to reduction operation minimum'."""
    f = tmp_path / "long.csv"
    f.write_text("record,step,sensitivity\n1,0,0.5\n1,1,0.5\nnan,0,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          f"{f}: line 4, column 1 ('record'): 'nan' is not a finite number")
    f.write_text("record,step,sensitivity\n1,0,0.5\n1,NA,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "line 3, column 2 ('step'): not a number: 'NA'")


def test_per_instance_parquet_nulls_and_text_columns(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq
    f = tmp_path / "n.parquet"
    pq.write_table(pa.table({"record": [1, 1, None], "step": [0, 1, 0], "sensitivity": [0.5, 0.5, 0.5]}), f)
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          f"{f}: row 3, column 1 ('record'): null/NaN is not a finite number")
    pq.write_table(pa.table({"a": [0.5, float("nan")], "b": [0.5, 0.5]}), f)
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "row 2, column 1 ('a'): null/NaN")
    pq.write_table(pa.table({"a": [0.5, 0.5], "b": ["x", "y"]}), f)
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "column 'b' is not numeric")


def _old_group_long(names, data):
    """The record-by-record loop of the first version (O(rows x records)): the reference."""
    from pabi.cli.formatting import fmt

    lower = [n.lower() for n in names]
    ri, si, vi = lower.index("record"), lower.index("step"), lower.index("sensitivity")
    out = {}
    for rec in np.unique(data[:, ri]):
        sub = data[data[:, ri] == rec]
        steps = np.unique(sub[:, si])
        counts = np.array([np.sum(sub[:, si] == s) for s in steps])
        assert counts.min() == counts.max()
        sub = sub[np.lexsort((sub[:, lower.index("run")] if "run" in lower else np.arange(len(sub)),
                              sub[:, si]))]
        out[fmt(rec)] = sub[:, vi].reshape(len(steps), counts[0])
    return out


@pytest.mark.parametrize("with_run", [True, False])
def test_per_instance_long_grouping_equals_the_old_loop(tmp_path, with_run):
    from pabi.cli.per_instance import load_sensitivities

    rng = np.random.default_rng(11)
    rows = []
    recs = [3.0, -1.0, 0.0, 2.5, 17.0, 1e6]
    for rec in recs:
        runs = int(rng.integers(1, 5))
        for step in [5.0, 1.0, 2.0, 0.0, 9.0]:
            for run in rng.permutation(runs):
                rows.append((rec, step, float(run) if with_run else 0.0, float(rng.uniform(0, 2))))
    rows = [rows[i] for i in rng.permutation(len(rows))]
    names = ["record", "step", "run", "sensitivity"] if with_run else ["step", "sensitivity", "record"]
    data = np.array([r if with_run else (r[1], r[3], r[0]) for r in rows])
    f = tmp_path / "long.csv"
    f.write_text(",".join(names) + "\n" + "\n".join(",".join(repr(float(x)) for x in r) for r in data) + "\n")
    new = load_sensitivities(f)
    old = _old_group_long(names, data)
    assert list(new) == list(old) == ["-1", "0", "2.5", "3", "17", "1000000"]
    for k in old:
        assert np.array_equal(new[k], old[k]), k


def test_per_instance_long_format_inconsistencies_are_errors(tmp_path, capsys):
    f = tmp_path / "long.csv"
    # record 2 lacks step 1: it used to be accounted over fewer steps
    f.write_text("record,step,sensitivity\n1,0,0.5\n1,1,0.5\n2,0,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "record 2 has 1 steps but record 1 has 2")
    f.write_text("record,step,sensitivity\n1,0,0.5\n1,1,0.5\n2,0,0.5\n2,2,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "record 2 has step 2 where record 1 has step 1")
    f.write_text("record,step,run,sensitivity\n1,0,0,0.5\n1,1,0,0.5\n1,0,0,0.7\n1,1,1,0.5\n1,0,1,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          f"{f}: line 4: duplicate row for record 1, step 0, run 0 (also at line 2)")
    f.write_text("record,step,sensitivity\n1,0,0.5\n1,0,0.5\n1,1,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI]), capsys.readouterr().err, 2,
                          "record 1 has different numbers of samples per step (1..2)")
    f.write_text("record,step,sensitivity\n1,0,0.5\n")
    assert_one_line_error(main(["per-instance", str(f), *PI, "--transpose"]), capsys.readouterr().err, 2,
                          "--transpose applies to wide files only")
    # distinct record ids keep distinct labels (they used to be rounded to 10 digits and merged)
    f.write_text("record,step,sensitivity\n12345678901,0,0.5\n12345678902,0,0.25\n")
    d = run_json(capsys, ["per-instance", str(f), *PI])
    assert [r["record"] for r in d["records"]] == ["12345678901", "12345678902"]
    assert d["records"][1]["rdp@8"] == pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=[[0.25]])


def test_unwritable_output_path_is_a_one_line_error_with_status_2(tmp_path, capsys, monkeypatch):
    """An OSError on a user-given path used to exit 1 as 'NotADirectoryError: ...'."""
    def make_all(outdir, only=None):
        Path(outdir).mkdir(parents=True, exist_ok=True)
        return []

    monkeypatch.setitem(sys.modules, "pabi.figures", types.SimpleNamespace(make_all=make_all))
    monkeypatch.setattr(pabi, "figures", sys.modules["pabi.figures"], raising=False)
    f = tmp_path / "file.txt"
    f.write_text("x")
    assert_one_line_error(main(["figures", str(f / "sub")]), capsys.readouterr().err, 2,
                          f"Not a directory: {f / 'sub'}")


def test_core_panic_is_a_one_line_error(capsys, monkeypatch):
    """pyo3's PanicException derives from BaseException and escaped main() as a traceback
    (`pabi dpsgd --sample-rate 1 --noise-multiplier 1e-10 ...` hit an integer overflow in the PLD grid size)."""
    class PanicException(BaseException):
        pass

    def boom(*args, **kwargs):
        raise PanicException("index out of bounds: the len is 0 but the index is 62457343")

    monkeypatch.setattr(pabi, "dpsgd_epsilon", boom)
    assert_one_line_error(main(["dpsgd", "--sample-rate", "1", "--noise-multiplier", "1e-10", "--steps", "3", "--delta", "1e-5",
                                "--no-rdp"]), capsys.readouterr().err, 2, "internal error in pabi")
    monkeypatch.undo()
    # the real command: a one-line error with status 2 whether the core panics or rejects sigma
    assert_one_line_error(main(["dpsgd", "--sample-rate", "1", "--noise-multiplier", "1e-10", "--steps", "3", "--delta", "1e-5",
                                "--no-rdp"]), capsys.readouterr().err, 2)


def test_comma_lists_with_empty_items_are_errors(capsys):
    """'1,,2' used to be read as [1, 2] (an item silently dropped)."""
    for text in ["1,,2", "1,", ",1"]:
        assert_one_line_error(main(["theta", text, "1"]), capsys.readouterr().err, 2,
                              f"empty item in the comma-separated list {text!r}")
    assert_one_line_error(main(["theta", ",", "1"]), capsys.readouterr().err, 2, "expected at least one number")
    d = run_json(capsys, ["theta", "1, 2", "1"])
    assert [r["eps"] for r in d] == [1.0, 2.0]
