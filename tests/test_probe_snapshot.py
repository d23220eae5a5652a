"""Behaviour snapshot (issue 14): the current build returns, bit for bit, what the recorded
baseline ``tools/probe_baseline.json.gz`` holds, on tens of thousands of probes over every public
callable (see ``tools/probe_snapshot.py`` for the probe set and the encoding).

A failure prints the comparison report: which probes changed, how many values, the largest
relative change and the direction of each moved float, changed error classes/messages, missing
and new probes.

Regenerating the baseline is for a deliberate, reviewed change only (every moved value checked
against ``pabi.reference``: closer to it and still on the safe side), from the repository root::

    PYTHONPATH=$PWD/python python tools/probe_snapshot.py compare tools/probe_baseline.json.gz
    PYTHONPATH=$PWD/python python tools/probe_snapshot.py record tools/probe_baseline.json.gz

and the commit says what moved and why. A new public callable needs its probes in the tool's
table (``test_every_public_callable_is_probed`` names it) and a re-recorded baseline.
"""

from __future__ import annotations

import gzip
import json
import os
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "probe_snapshot.py"
BASELINE = ROOT / "tools" / "probe_baseline.json.gz"


def _baseline() -> dict:
    return json.loads(gzip.decompress(BASELINE.read_bytes()))


#: the probe set is compared in this many parts (``--shard k/n``: every n-th unit of work), each its
#: own test and process, so that pytest-xdist spreads them over its processes
PARTS = 4


@pytest.mark.parametrize("part", range(1, PARTS + 1))
def test_current_build_matches_the_baseline_bit_for_bit(part: int) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, str(TOOL), "compare", str(BASELINE), "--threads", "1",
                        "--shard", f"{part}/{PARTS}"],
                       capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=600)
    report = r.stdout + r.stderr
    assert r.returncode == 0, "the build differs from tools/probe_baseline.json.gz:\n" + report
    assert "RESULT: IDENTICAL" in r.stdout, report
    m = re.search(r"probes compared: (\d+); values: (\d+); identical: (\d+); changed: (\d+)", r.stdout)
    assert m is not None, report
    compared, values, same, changed = map(int, m.groups())
    assert compared > 5000 and values > 20000 and same == values and changed == 0, report


def test_the_parts_cover_the_whole_probe_set() -> None:
    """Every probe of the baseline is owned by one unit of work, and every unit by one part."""
    spec = importlib.util.spec_from_file_location("probe_snapshot", TOOL)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    parts = [tool.shard_units(f"{k}/{PARTS}") for k in range(1, PARTS + 1)]
    units = [name for name, _ in tool.units()]
    assert sorted(u for p in parts for u in p) == sorted(units) and len(set(units)) == len(units)
    owners = {rec["unit"] for rec in _baseline()["probes"].values()}
    assert owners <= set(units) and len(owners) > 100


def _is_named_result(obj: object) -> bool:
    """A named-tuple result type (pabi.Bracket, ...): probed through the calls that return it."""
    return isinstance(obj, type) and issubclass(obj, tuple) and hasattr(obj, "_fields")


def test_every_public_callable_is_probed() -> None:
    import pabi
    from pabi import adapters

    keys = list(_baseline()["probes"])
    heads = {re.split(r"[(\[#]", k, maxsplit=1)[0] for k in keys}
    names = [n for n in pabi.__all__ if n not in ("DomainError", "InternalError", "__version__", "DEFAULT_ORDERS",
                                                   "ComposedPLD", "simd_level", "get_num_threads")
             and not _is_named_result(getattr(pabi, n))]
    names += list(adapters.__all__)
    names += [f"PrivacyLossDistribution.{m}" for m in ("gaussian", "subsampled_gaussian", "laplace", "from_eps_delta",
                                                         "from_profile", "compose")]
    names += [f"ComposedPLD.{m}" for m in ("delta", "epsilon")]
    names += [f"PNSGDAccountant.{m}" for m in ("step", "epoch_done", "get_epsilon", "get_delta", "get_privacy_spent",
                                               "epoch_profile", "load_state_dict", "mechanism")]
    # the probe set is frozen in the vocabulary it was recorded in: a renamed callable is probed
    # under its recorded name (tools/vocabulary_plan.py maps it; the probe tool translates)
    spec = importlib.util.spec_from_file_location("vocabulary_plan", ROOT / "tools" / "vocabulary_plan.py")
    assert spec is not None and spec.loader is not None
    plan = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plan)
    renamed = {new.split("(")[0]: old for old, new in plan.FUNCTIONS.items()}
    heads |= {new for new, old in renamed.items() if old in heads}
    missing = [n for n in names if n not in heads and not any(n in k for k in keys)]
    assert not missing, f"public callables without probes in tools/probe_snapshot.py: {missing}"
    # the rest of the surface: constants, classes, properties and the machine-dependent helpers
    for needle in ("DEFAULT_ORDERS", "__version__", "DomainError.__mro__", "InternalError.__mro__",
                   "simd_level()", "get_num_threads()", ".error_budget", "(h, pmf, losses, inf)",
                   ".state_dict()", "(history, sigma, n, steps, epochs_completed, epochs, len, mechanism())",
                   "cli: pabi report", "cli(subprocess): python -m pabi"):
        assert any(needle in k for k in keys), needle
