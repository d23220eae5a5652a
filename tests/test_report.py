"""``pabi report``: every applicable bound for one setup, values equal to the API, ranking,
assumption checks that exclude bounds, config validation with one-line errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import pabi
from pabi.cli import main
from pabi.cli import report as rp

from _helpers import assert_one_line_error

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "report.toml"

PNSGD_ONE = """
[training]
algorithm = "pnsgd"
records = 1000
epochs = 1
sampling = "{sampling}"
lr = 0.05
delta = 1e-5
[noise]
kind = "{kind}"
noise_scale = 4.0
[loss]
lipschitz = 1.0
convex = {convex}
smoothness = {beta}
diameter = 1.0
{extra}
"""


def write(tmp_path: Path, text: str, name: str = "c.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def report(capsys, path: Path) -> dict:
    rc = main(["report", str(path), "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


def assert_report_error(capsys, path: Path, contains: str) -> None:
    """``pabi report path`` fails with exit status 2 and one line naming the problem."""
    assert_one_line_error(main(["report", str(path)]), capsys.readouterr().err, 2, contains)


def by_id(rep: dict) -> dict[str, dict]:
    return {b["id"]: b for b in rep["bounds"]}


def check_ranking(rep: dict) -> list[dict]:
    valid = [b for b in rep["bounds"] if b["valid"]]
    assert [b["rank"] for b in valid] == list(range(1, len(valid) + 1))
    eps = [b["epsilon"] for b in valid]
    assert eps == sorted(eps)
    assert rep["bounds"][: len(valid)] == valid  # ranked bounds first
    assert all(b["rank"] is None for b in rep["bounds"][len(valid):])
    for b in valid:
        assert b["applicable"] and all(a["satisfied"] for a in b["assumptions"])
    for b in rep["bounds"]:
        if not b["applicable"]:
            assert b["epsilon"] is None and any(not a["satisfied"] for a in b["assumptions"])
        if b["vacuous"]:  # eps > ln(1/delta): labelled, never ranked
            assert b["epsilon"] > math.log(1 / rep["delta"]) and not b["valid"] and "vacuous" in b["note"]
    if valid:
        assert rep["best"] == valid[0]["id"]
    return valid


def test_example_report_runs_and_ranks(capsys):
    rep = report(capsys, EXAMPLE)
    valid = check_ranking(rep)
    ids = [b["id"] for b in valid]
    cfg = rep["config"]
    assert cfg["algorithm"] == "pnsgd" and cfg["epochs"] == 3
    # several bound families apply to the example
    assert ids == ["pnsgd_shuffled_epochs_pld", "pnsgd_shuffled_epochs_rdp", "epochs_gaussian_pld",
                   "epochs_gaussian_rdp", "pnsgd_shuffled_epochs_single_point"]
    # amplification by iteration beats the no-amplification baseline here
    assert ids[0] == "pnsgd_shuffled_epochs_pld"
    b = by_id(rep)
    assert not b["pnsgd_shuffled_epochs_gdp"]["valid"] and not b["pnsgd_shuffled_epochs_gdp"]["certified"]
    assert not b["pnsgd_shuffled"]["applicable"]  # one-epoch bound, 3 epochs configured
    # the last-iterate bounds apply but are vacuous at delta = 1e-5 (eps 40.2 and 1918.6 > ln 1e5)
    for k in ("last_iterate_general", "last_iterate_bounded"):
        assert b[k]["applicable"] and b[k]["vacuous"] and b[k]["rank"] is None
    assert main(["report", str(EXAMPLE)]) == 0
    text = capsys.readouterr().out
    assert "Valid bounds, tightest first" in text and "Best certificate" in text


def test_example_values_equal_the_api(capsys):
    rep = report(capsys, EXAMPLE)
    b = by_id(rep)
    kw = dict(noise="gaussian", noise_scale=4.0, max_grad_norm=1.0, lr=0.05, diameter=1.0, steps=1000,
              smoothness=10.0, strong_convexity=0.0, ordering="shuffled")
    prof = lambda e: pabi.pnsgd_delta(e, **kw)  # noqa: E731
    multi = pabi.multi_epoch_epsilon(1e-5, profile=prof, epochs=3, orders=list(pabi._bounds.PROFILE_ORDERS),
                                     log_profile=lambda e: pabi.pnsgd_delta(e, **kw, log=True))
    for route in ("pld", "rdp", "single_point", "gdp"):
        assert b[f"pnsgd_shuffled_epochs_{route}"]["epsilon"] == getattr(multi, route)
    assert b["epochs_gaussian_pld"]["epsilon"] == pabi.dpsgd_epsilon(1e-5, sample_rate=1.0, noise_multiplier=4.0 / 2.0, steps=3)
    orders = pabi.DEFAULT_ORDERS
    curve = pabi.sampled_gaussian_rdp(orders, sample_rate=1.0, noise_multiplier=2.0)
    assert b["epochs_gaussian_rdp"]["epsilon"] == pabi.rdp_to_dp_epsilon(
        1e-5, orders=orders, rdp=pabi.rdp_compose(curve, count=3))[0]
    # last iterate, PNSGD mapping: clip = L, b = 1, iterate noise lr*noise_scale, T = 3n, ell = n
    general = pabi.last_iterate_rdp_general(orders, lr=0.05, max_grad_norm=1.0, noise_scale=0.05 * 4.0, steps=3000)
    assert b["last_iterate_general"]["epsilon"] == pabi.rdp_to_dp_epsilon(1e-5, orders=orders, rdp=general)[0]
    bounded = pabi.last_iterate_rdp_bounded(orders, lr=0.05, max_grad_norm=1.0, batch_size=1, noise_scale=0.2,
                                            diameter=1.0, weak_convexity=0.0, smoothness=10.0,
                                            contraction="as_published")
    assert b["last_iterate_bounded"]["epsilon"] == pabi.rdp_to_dp_epsilon(1e-5, orders=orders, rdp=bounded)[0]


@pytest.mark.parametrize("sampling, expected", [("shuffled", "pnsgd_shuffled"),
                                                ("random_stop", "pnsgd_random_stop"),
                                                ("cyclic", "pnsgd_fixed")])
def test_one_epoch_orders_equal_the_api(tmp_path, capsys, sampling, expected):
    rep = report(capsys, write(tmp_path, PNSGD_ONE.format(sampling=sampling, kind="gaussian", convex="true",
                                                          beta=10.0, extra="")))
    check_ranking(rep)
    b = by_id(rep)
    kw = dict(noise="gaussian", noise_scale=4.0, max_grad_norm=1.0, lr=0.05, diameter=1.0, steps=1000,
              smoothness=10.0, strong_convexity=0.0)
    order = {"pnsgd_shuffled": "shuffled", "pnsgd_random_stop": "random_stop", "pnsgd_fixed": "fixed"}[expected]
    extra = {"index": 1000} if order == "fixed" else {}
    assert b[expected]["valid"]
    assert b[expected]["epsilon"] == pabi.pnsgd_epsilon(1e-5, ordering=order, **kw, **extra)
    others = {"pnsgd_shuffled", "pnsgd_random_stop", "pnsgd_fixed"} - {expected}
    assert all(not b[o]["applicable"] for o in others)
    if sampling == "cyclic":  # the RDP comparison bound (000 Prop. 1) and the cyclic last-iterate bound apply
        assert b["pnsgd_rdp"]["epsilon"] == pabi.pnsgd_rdp_epsilon(
            1e-5, noise_scale=4.0, max_grad_norm=1.0, lr=0.05, steps=1000, index=1000, smoothness=10.0,
            strong_convexity=0.0)
        assert b["last_iterate_cyclic"]["valid"]
    if sampling == "shuffled":  # the random-stop worst case equals the shuffled bound (docs/errata.md#p-t12) but needs random stop
        assert b["pnsgd_shuffled"]["epsilon"] == pabi.pnsgd_epsilon(1e-5, ordering="random_stop", **kw)


def test_rdp_comparison_composes_epochs_conservatively(tmp_path, capsys):
    text = PNSGD_ONE.format(sampling="cyclic", kind="gaussian", convex="true", beta=10.0, extra="")
    rep = report(capsys, write(tmp_path, text.replace("epochs = 1", "epochs = 4")))
    eps = by_id(rep)["pnsgd_rdp"]["epsilon"]
    # RDP adds over epochs: c -> 4c, i.e. sigma -> sigma / 2 (rounded down, so never below)
    exact = pabi.pnsgd_rdp_epsilon(1e-5, noise_scale=2.0, max_grad_norm=1.0, lr=0.05, steps=1000, index=1000,
                                   smoothness=10.0)
    assert exact <= eps <= exact * (1 + 1e-14)


@pytest.mark.parametrize("change, excluded, reason", [
    (dict(convex="false"), ["pnsgd_shuffled"], "convex loss"),
    (dict(beta=100.0), ["pnsgd_shuffled", "last_iterate_bounded"], "2/(beta + rho)"),
    (dict(kind="laplace", extra="dimension = 2"), ["pnsgd_shuffled", "epochs_gaussian_pld", "last_iterate_general"],
     "dimension"),
])
def test_invalid_assumptions_exclude_bounds(tmp_path, capsys, change, excluded, reason):
    params = dict(sampling="shuffled", kind="gaussian", convex="true", beta=10.0, extra="")
    params.update(change)
    rep = report(capsys, write(tmp_path, PNSGD_ONE.format(**params)))
    check_ranking(rep)
    b = by_id(rep)
    for k in excluded:
        assert not b[k]["applicable"] and not b[k]["valid"] and b[k]["rank"] is None
    assert any(reason in a["text"] + a["detail"] for a in b[excluded[0]]["assumptions"] if not a["satisfied"])


def test_laplace_dimension_one_is_valid(tmp_path, capsys):
    rep = report(capsys, write(tmp_path, PNSGD_ONE.format(sampling="shuffled", kind="laplace", convex="true",
                                                          beta=10.0, extra="dimension = 1")))
    b = by_id(rep)
    assert b["pnsgd_shuffled"]["valid"]
    assert b["pnsgd_shuffled"]["epsilon"] == pabi.pnsgd_epsilon(
        1e-5, noise="laplace", noise_scale=4.0, max_grad_norm=1.0, lr=0.05, diameter=1.0, steps=1000,
        ordering="shuffled", smoothness=10.0)
    assert not b["epochs_gaussian_pld"]["applicable"]  # needs Gaussian noise


def test_dpsgd_poisson_example(capsys):
    rep = report(capsys, ROOT / "examples" / "report_dpsgd_poisson.toml")
    valid = check_ranking(rep)
    assert [b["id"] for b in valid] == ["dpsgd_pld", "dpsgd_rdp"]
    b = by_id(rep)
    assert b["dpsgd_pld"]["epsilon"] == pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.1, steps=1500)
    orders = pabi.DEFAULT_ORDERS
    curve = pabi.rdp_compose(pabi.sampled_gaussian_rdp(orders, sample_rate=0.01, noise_multiplier=1.1), count=1500)
    assert b["dpsgd_rdp"]["epsilon"] == pabi.rdp_to_dp_epsilon(1e-5, orders=orders, rdp=curve)[0]
    assert not b["last_iterate_general"]["applicable"]  # Poisson batches: not a fixed-size batch order


def test_dpsgd_cyclic_example_last_iterate(capsys):
    rep = report(capsys, ROOT / "examples" / "report_cyclic.toml")
    check_ranking(rep)
    b = by_id(rep)
    sigma_it = 0.05 * 2.0 * 1.0 / 100
    assert b["last_iterate_cyclic"]["valid"]
    curve = pabi.last_iterate_rdp_cyclic(pabi.DEFAULT_ORDERS, lr=0.05, max_grad_norm=1.0, batch_size=100,
                                         noise_scale=sigma_it, steps=2000, batches_per_epoch=100, weak_convexity=0.1,
                                         smoothness=1.0, contraction="triangle")
    assert b["last_iterate_cyclic"]["epsilon"] == pabi.rdp_to_dp_epsilon(1e-5, orders=pabi.DEFAULT_ORDERS, rdp=curve)[0]
    assert b["epochs_gaussian_pld"]["epsilon"] == pabi.dpsgd_epsilon(1e-5, sample_rate=1.0, noise_multiplier=1.0, steps=20)
    assert not b["dpsgd_pld"]["applicable"]


BASE = """[training]
algorithm = "pnsgd"
records = 100
lr = 0.05
delta = 1e-5
[noise]
noise_scale = 4.0
[loss]
lipschitz = 1.0
"""


@pytest.mark.parametrize("text, contains", [
    (BASE + "colour = 'red'\n", "'colour'"),
    (BASE + "[optimizer]\nmomentum = 0.9\n", "'optimizer'"),
    (BASE.replace("records = 100\n", ""), "missing required key 'records'"),
    (BASE.replace("noise_scale = 4.0", "noise_scale = -4.0"), "noise_scale must be > 0"),
    (BASE.replace("noise_scale = 4.0", "noise_scale = 'big'"), "noise_scale must be a number"),
    (BASE.replace("records = 100", "records = 10.5"), "records must be an integer"),
    (BASE.replace("noise_scale = 4.0", "noise_multiplier = 4.0"), "noise_scale is required"),
    (BASE.replace("[noise]", "[noise]\nnoise_multiplier = 1.0"), "noise_multiplier is not used"),
    (BASE + "[training]\n", "invalid TOML"),
    (BASE.replace("lr = 0.05", "lr = 0.05\nbatch_size = 10"), "batch_size must be 1"),
    (BASE.replace("delta = 1e-5", "delta = 2.0"), "delta must be in (0, 1)"),
    (BASE.replace('algorithm = "pnsgd"', 'algorithm = "adam"'), "algorithm must be one of"),
    (BASE + "convex = 'yes'\n", "convex must be true or false"),
    (BASE.replace("lipschitz = 1.0", ""), "lipschitz is required"),
    (BASE.replace('algorithm = "pnsgd"', 'algorithm = "dpsgd"'), "max_grad_norm is required"),
    ("[training\nn = 1", "invalid TOML"),
])
def test_config_validation_errors_are_one_line(tmp_path, capsys, text, contains):
    assert_report_error(capsys, write(tmp_path, text), contains)


def test_every_key_is_documented():
    import subprocess
    import sys

    doc = rp.__doc__ or ""
    out = subprocess.run([sys.executable, "-m", "pabi", "report", "--help"], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT / "python"), "PATH": ""}, timeout=60).stdout
    for section, key in rp.SCHEMA:
        assert f"``{key}``" in doc, key
        assert key in out, key
        assert f"[{section}]" in out and f"``[{section}]``" in doc
    # the example config uses only documented keys and every table it has is known
    rp.load_config(EXAMPLE)


def test_minimal_config_defaults(tmp_path, capsys):
    rep = report(capsys, write(tmp_path, BASE))
    cfg = rep["config"]
    assert (cfg["epochs"], cfg["batch_size"], cfg["sampling"], cfg["kind"], cfg["neighboring"]) == (
        1, 1, "shuffled", "gaussian", "replace_one")
    b = by_id(rep)
    # no convexity, smoothness or domain stated: only the sampling baselines and Thm 4.3 remain
    # (the latter vacuous here: 8 alpha T (lr C / sigma)^2 with T = 100)
    assert not b["pnsgd_shuffled"]["applicable"]
    assert {x["id"] for x in check_ranking(rep)} == {"epochs_gaussian_pld", "epochs_gaussian_rdp"}
    assert b["last_iterate_general"]["applicable"] and b["last_iterate_general"]["vacuous"]
    assert math.isfinite(b["epochs_gaussian_pld"]["epsilon"])
    assert np.isclose(b["epochs_gaussian_pld"]["epsilon"], pabi.gdp_epsilon(1e-5, 0.5), rtol=1e-3)


def test_laplace_baseline_and_random_stop_baselines(tmp_path, capsys):
    text = PNSGD_ONE.format(sampling="shuffled", kind="laplace", convex="true", beta=10.0, extra="dimension = 1")
    rep = report(capsys, write(tmp_path, text.replace("epochs = 1", "epochs = 2")))
    b = by_id(rep)
    lap = pabi.PrivacyLossDistribution.laplace(4.0, sensitivity=2.0).compose(2).epsilon(1e-5).upper
    assert b["epochs_laplace_pld"]["valid"] and b["epochs_laplace_pld"]["epsilon"] == lap
    assert lap <= 2 * 2.0 / 4.0  # never above the pure-DP composition E * 2L / v
    assert b["pnsgd_shuffled_epochs_pld"]["valid"]  # Laplace profile composed over epochs
    check_ranking(rep)
    rep = report(capsys, write(tmp_path, PNSGD_ONE.format(sampling="random_stop", kind="gaussian", convex="true",
                                                          beta=10.0, extra="")))
    b = by_id(rep)
    assert b["epochs_gaussian_pld"]["valid"] and not b["epochs_laplace_pld"]["applicable"]


def test_no_bound_applies(tmp_path, capsys):
    path = write(tmp_path, BASE.replace('delta = 1e-5', 'delta = 1e-5\nneighboring = "add_remove"'))
    rep = report(capsys, path)
    assert rep["best"] is None and not any(b["valid"] for b in rep["bounds"])
    assert main(["report", str(path)]) == 0
    assert "No bound applies" in capsys.readouterr().out
