"""pabi's DP-SGD accountant inside Opacus (issue 15: adapters that plug in for real).

Opacus's own accountant code (registry, ``IAccountant``, the optimiser hook, ``state_dict``,
``get_noise_multiplier``, the RDP and PRV accountants) drives ``PabiAccountant`` here; torch is
not needed (tests/_opacus_support.py). The ε it reports is pabi's ``dpsgd_epsilon`` exactly for
one run, agrees with dp-accounting's PLD accountant on mixed histories, and is below Opacus's
RDP accountant (which over-reports).
"""

from __future__ import annotations

import math

import pytest

import pabi
from _opacus_support import load_opacus_accountants

accountants = load_opacus_accountants()
from opacus.accountants.utils import get_noise_multiplier  # noqa: E402  (after the loader)

from pabi.adapters.opacus import PabiAccountant  # noqa: E402


class _Optimizer:
    """What Opacus's optimiser hook reads from a DPOptimizer."""

    def __init__(self, noise_multiplier: float, accumulated_iterations: int = 1) -> None:
        self.noise_multiplier = noise_multiplier
        self.accumulated_iterations = accumulated_iterations


def test_registered_in_opacus_registry() -> None:
    acc = accountants.create_accountant(mechanism="pabi")
    assert type(acc) is PabiAccountant
    assert isinstance(acc, accountants.IAccountant)
    assert acc.mechanism() == "pabi" and len(acc) == 0 and acc.get_epsilon(delta=1e-5) == 0.0


@pytest.mark.parametrize("q, z, steps", [(0.01, 1.0, 1000), (0.004, 0.8, 2500), (0.1, 2.0, 300)])
def test_training_loop_through_the_optimizer_hook_equals_dpsgd_epsilon(q, z, steps) -> None:
    acc = accountants.create_accountant(mechanism="pabi")
    hook = acc.get_optimizer_hook_fn(sample_rate=q)  # what PrivacyEngine attaches
    opt = _Optimizer(z)
    for _ in range(steps):
        hook(opt)
    assert len(acc) == steps and acc.history == [(z, q, steps)]
    for delta in (1e-5, 1e-7):
        assert acc.get_epsilon(delta=delta) == pabi.dpsgd_epsilon(delta, sample_rate=q, noise_multiplier=z, steps=steps)
    # Opacus's RDP accountant over-reports; its PRV accountant agrees within its eps_error
    rdp = accountants.RDPAccountant()
    rdp.history = [(z, q, steps)]
    prv = accountants.PRVAccountant()
    prv.history = [(z, q, steps)]
    ours = acc.get_epsilon(delta=1e-5)
    assert ours < rdp.get_epsilon(delta=1e-5)
    assert abs(ours - prv.get_epsilon(delta=1e-5, eps_error=0.01)) < 0.02


def test_1_6_paper_values() -> None:
    # dp-accounting / prv-accountant tight values for q = 0.01, z = 1, delta = 1e-5
    acc = PabiAccountant()
    for _ in range(1000):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    assert acc.get_epsilon(1e-5) == pytest.approx(1.828, abs=1e-3)
    assert acc.get_privacy_spent(delta=1e-5) == (acc.get_epsilon(1e-5), None)


def test_accumulated_iterations_scale_the_sample_rate() -> None:
    acc = PabiAccountant()
    hook = acc.get_optimizer_hook_fn(sample_rate=0.01)
    hook(_Optimizer(1.0, accumulated_iterations=2))
    assert acc.history == [(1.0, 0.02, 1)]


def test_mixed_history_matches_dp_accounting_pld() -> None:
    import dp_accounting  # a test dependency
    from dp_accounting.pld import pld_privacy_accountant

    runs = [(1.0, 0.01, 400), (2.0, 0.02, 300), (0.9, 0.005, 500)]
    acc = PabiAccountant()
    for z, q, n in runs:
        for _ in range(n):
            acc.step(noise_multiplier=z, sample_rate=q)
    assert acc.history == runs and len(acc) == 1200
    peer = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    for z, q, n in runs:
        peer.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), n)
    ours, theirs = acc.get_epsilon(delta=1e-6), peer.get_epsilon(1e-6)
    assert abs(ours - theirs) <= 2e-3 * theirs, (ours, theirs)
    # one more step can only add privacy loss
    same = PabiAccountant()
    same.history = [(1.0, 0.01, 600), (1.0, 0.02, 1)]
    assert same.get_epsilon(1e-5) >= pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=600)


def test_get_noise_multiplier_with_pabi() -> None:
    z = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01, steps=1000,
                             accountant="pabi")
    assert pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=z, steps=1000) <= 2.0
    z_rdp = get_noise_multiplier(target_epsilon=2.0, target_delta=1e-5, sample_rate=0.01,
                                 steps=1000, accountant="rdp")
    assert z < z_rdp  # the tighter accountant needs less noise for the same target


def test_state_dict_is_opacus_format_and_round_trips() -> None:
    acc = PabiAccountant()
    for _ in range(10):
        acc.step(noise_multiplier=1.5, sample_rate=0.02)
    state = acc.state_dict()
    assert dict(state) == {"history": [(1.5, 0.02, 10)], "mechanism": "pabi"}
    back = PabiAccountant()
    back.load_state_dict(state)
    assert back.history == acc.history and back.get_epsilon(1e-5) == acc.get_epsilon(1e-5)
    with pytest.raises(ValueError, match="cannot be loaded"):
        accountants.RDPAccountant().load_state_dict(state)
    rdp_state = accountants.RDPAccountant().state_dict()
    rdp_state["history"] = [(1.0, 0.01, 5)]
    with pytest.raises(ValueError, match="cannot be loaded"):
        back.load_state_dict(rdp_state)


def test_bad_input_names_the_parameter() -> None:
    acc = PabiAccountant()
    for kw, param in ((dict(noise_multiplier=0.0, sample_rate=0.1), "noise_multiplier"),
                      (dict(noise_multiplier=math.inf, sample_rate=0.1), "noise_multiplier"),
                      (dict(noise_multiplier=1.0, sample_rate=1.5), "sample_rate"),
                      (dict(noise_multiplier=1.0, sample_rate=math.nan), "sample_rate")):
        with pytest.raises(pabi.DomainError) as e:
            acc.step(**kw)
        assert e.value.param == param
    assert acc.history == []
    acc.step(noise_multiplier=1.0, sample_rate=0.1)
    for bad in (0.0, 1.0, -1e-5, math.nan):
        with pytest.raises(pabi.DomainError) as e:
            acc.get_epsilon(delta=bad)
        assert e.value.param == "delta"
    with pytest.raises(pabi.DomainError) as e:
        PabiAccountant(grid_step=0.0)
    assert e.value.param == "grid_step"


def test_noise_too_small_to_certify_is_infinite_epsilon() -> None:
    acc = PabiAccountant()
    acc.history = [(1e-3, 1.0, 10**6)]
    assert acc.get_epsilon(1e-5) == math.inf


def test_docstring_examples() -> None:
    import doctest

    import pabi.adapters.opacus as mod

    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0
