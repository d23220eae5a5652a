"""The PNSGD wrappers forward their own parameters to the core bindings by position
(``_Args(locals())`` in pabi/pnsgd.py): their numeric parameters must be in the binding's order,
followed in the binding by the options (noise, order, variant) the wrapper takes."""

import inspect

import pytest

import pabi
from pabi import _core

OPTIONS = ("noise", "order", "variant")

PAIRS = [
    (pabi.pnsgd_delta, _core.pnsgd_delta),
    (pabi.pnsgd_log_delta, _core.pnsgd_delta),
    (pabi.pnsgd_epsilon, _core.pnsgd_epsilon),
    (pabi.pnsgd_calibrate_sigma, _core.pnsgd_calibrate_sigma),
    (pabi.pnsgd_factors, _core.pnsgd_factors),
    (pabi.pnsgd_rdp_delta, _core.pnsgd_rdp_delta),
    (pabi.pnsgd_rdp_log_delta, _core.pnsgd_rdp_delta),
    (pabi.pnsgd_rdp_epsilon, _core.pnsgd_rdp_epsilon),
    (pabi.pnsgd_rdp_slope, _core.pnsgd_rdp_slope),
]


@pytest.mark.parametrize("public, binding", PAIRS, ids=[p.__name__ for p, _ in PAIRS])
def test_numeric_parameters_in_binding_order(public, binding):
    params = list(inspect.signature(public).parameters)
    numeric = [p for p in params if p not in OPTIONS]
    options = [o for o in OPTIONS if o in params]
    core = list(inspect.signature(binding).parameters)
    assert core[: len(numeric) + len(options)] == numeric + options
    assert core[-1] == "len"
