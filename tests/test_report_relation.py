"""``pabi report`` under each neighbouring relation and sampling (issue 16): the config keys
``neighboring = "add_remove" | "replace_one"`` and ``sampling = "poisson" | "without_replacement"``
reach the DP-SGD accountant, the report states the relation, ranks only bounds for it and lists
the others apart; invalid combinations are one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

import pabi
from pabi.cli import main
from test_report import BASE, assert_report_error, write
from test_report import by_id as _by_id, report as _json

ROOT = Path(__file__).resolve().parents[1]

DPSGD = """
[training]
algorithm = "dpsgd"
records = 1000
epochs = 2
batch_size = 50
sampling = "{sampling}"
lr = 0.1
max_grad_norm = 1.0
delta = 1e-5
{extra}
[noise]
noise_multiplier = 1.5
"""

STEPS = 40  # epochs * records / batch_size
Q = 0.05


def _write(tmp_path: Path, sampling: str, neighboring: str | None = None) -> Path:
    extra = "" if neighboring is None else f'neighboring = "{neighboring}"'
    p = tmp_path / "c.toml"
    p.write_text(DPSGD.format(sampling=sampling, extra=extra))
    return p


def _text(capsys, path: Path) -> str:
    rc = main(["report", str(path)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    return out


@pytest.mark.parametrize("sampling,neighboring,expected_rel", [
    ("poisson", None, "add_remove"),
    ("poisson", "add_remove", "add_remove"),
    ("poisson", "replace_one", "replace_one"),
    ("without_replacement", None, "replace_one"),
    ("without_replacement", "replace_one", "replace_one"),
])
def test_accountant_value_equals_the_api_under_the_relation(tmp_path, capsys, sampling, neighboring,
                                                             expected_rel) -> None:
    rep = _json(capsys, _write(tmp_path, sampling, neighboring))
    assert rep["neighboring"] == expected_rel == rep["config"]["neighboring"]
    pld = _by_id(rep)["dpsgd_pld"]
    assert pld["neighboring"] == expected_rel and pld["valid"]
    api = pabi.dpsgd_epsilon(1e-5, sample_rate=Q, noise_multiplier=1.5, steps=STEPS,
                             neighboring=expected_rel, sampling=sampling)
    assert pld["epsilon"] == api
    assert pabi.DPSGD(sample_rate=Q, noise_multiplier=1.5, steps=STEPS, neighboring=expected_rel,
                      sampling=sampling).epsilon(1e-5) == api
    # every ranked bound is for the configured relation; no bound for the other one is ranked
    for b in rep["bounds"]:
        if b["valid"]:
            assert b["neighboring"] == expected_rel, b["id"]
        if b["neighboring"] != expected_rel:
            assert not b["valid"] and b["rank"] is None, b["id"]


def test_relations_give_the_known_order(tmp_path, capsys) -> None:
    eps = {}
    for sampling, rel in [("poisson", "add_remove"), ("poisson", "replace_one"),
                          ("without_replacement", "replace_one")]:
        (tmp_path / sampling / rel).mkdir(parents=True)
        eps[sampling, rel] = _by_id(_json(capsys, _write(tmp_path / sampling / rel, sampling, rel)))[
            "dpsgd_pld"]["epsilon"]
    # replace-one costs more than add/remove under Poisson sampling, and fixed-size batches (a
    # replaced record's slot can hold a record on the other side) more again
    assert eps["poisson", "add_remove"] < eps["poisson", "replace_one"] < eps["without_replacement", "replace_one"]


def test_text_states_the_relation_and_lists_the_other_apart(tmp_path, capsys) -> None:
    out = _text(capsys, _write(tmp_path, "poisson", "replace_one"))
    assert "replace-one neighbours" in out
    assert "all for replace-one neighbours" in out
    # the add/remove RDP route is computed elsewhere but not ranked here: here it is not applicable
    rep = _json(capsys, _write(tmp_path, "poisson", "replace_one"))
    rdp = _by_id(rep)["dpsgd_rdp"]
    assert rdp["neighboring"] == "add_remove" and not rdp["valid"]
    out = _text(capsys, _write(tmp_path, "poisson", "add_remove"))
    assert "all for add-or-remove neighbours" in out
    out = _text(capsys, _write(tmp_path, "without_replacement"))
    assert "fixed-size batches without replacement" in out and "all for replace-one neighbours" in out


def test_the_example_config(capsys) -> None:
    rep = _json(capsys, ROOT / "examples" / "report_dpsgd_fixed_batches.toml")
    pld = _by_id(rep)["dpsgd_pld"]
    assert rep["neighboring"] == "replace_one" and pld["valid"] and rep["best"] == "dpsgd_pld"
    assert pld["epsilon"] == pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=2.2, steps=1500,
                                                neighboring="replace_one", sampling="without_replacement")


@pytest.mark.parametrize("text,contains", [
    (DPSGD.format(sampling="without_replacement", extra='neighboring = "add_remove"'), "needs neighboring"),
    (DPSGD.format(sampling="bernoulli", extra=""), "sampling must be one of"),
    (DPSGD.format(sampling="poisson", extra='neighboring = "swap"'), "neighboring must be one of"),
    (DPSGD.format(sampling="without_replacement", extra="").replace("batch_size = 50", "batch_size = 5000"),
     "batch_size must be <= records"),
    (BASE.replace("lr = 0.05", 'sampling = "without_replacement"\nlr = 0.05'),
     "sampling must be shuffled, cyclic or random_stop"),
])
def test_invalid_combinations_are_one_line_errors(tmp_path, capsys, text, contains) -> None:
    assert_report_error(capsys, write(tmp_path, text, "bad.toml"), contains)
