"""The PNSGD wrappers and their core bindings name the same parameters in the same order
(the wrappers pass them by keyword through ``pabi._bridge.Broadcast``, so a mismatch would be a
TypeError, but one order across both layers keeps the stub readable): the numeric parameters in
the binding's order, followed in the binding by the options (noise, ordering, variant, log)."""

import inspect

import pytest

import pabi
from pabi import _core

OPTIONS = ("noise", "ordering", "variant", "log")

PAIRS = [
    (pabi.pnsgd_delta, _core.pnsgd_delta),
    (pabi.pnsgd_epsilon, _core.pnsgd_epsilon),
    (pabi.pnsgd_calibrate_noise_scale, _core.pnsgd_calibrate_noise_scale),
    (pabi.pnsgd_factors, _core.pnsgd_factors),
    (pabi.pnsgd_rdp_delta, _core.pnsgd_rdp_delta),
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
