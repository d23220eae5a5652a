"""Issue 17 (PLD part): the certified PLD brackets after the parallel / sparse composition.

Value tests only (no timing): the randomized-response case that came back +inf, the Gaussian
composed 1e6 times against its exact value, and the DP-SGD brackets pinned and independent of the
thread count (the powering loop and the direct DFT bins now run on the pool), then checked against
an independent peer (dp-accounting's PLD accountant), so that a drift of both pinned ends shows.
"""

from __future__ import annotations

import pytest

import pabi
from pabi import reference as ref
from pabi.composition import PrivacyLossDistribution
from dp_accounting.pld import privacy_loss_distribution as peer_pld


def test_randomized_response_400_fold_is_finite_and_certified() -> None:
    # issue 17: eps0 = 0.125 composed 400 times, delta = 1e-9 came back +inf (the FFT error bound
    # 6.9e-9 exceeded delta: the direct DFT bins were skipped for the sparse two-atom PLD)
    comp = PrivacyLossDistribution.from_eps_delta(0.125, 0.0).compose(400)
    b = comp.epsilon(1e-9)
    exact = float(ref.approx_dp_composition_epsilon(0.125, 0.0, 400, 1e-9))  # 17.398352...
    assert b.upper < float("inf")
    assert b.lower <= exact <= b.upper
    assert b.upper - exact < 0.1
    assert comp.error_budget.fft_error < 1e-9
    # and the delta bracket at that epsilon contains the exact KOV value
    d = comp.delta(17.45)
    exact_d = float(ref.approx_dp_composition_delta(0.125, 0.0, 400, 17.45))
    assert d.lower <= exact_d <= d.upper


def test_gaussian_million_fold_upper_within_twice_the_estimate_error() -> None:
    # sigma = 1000 composed 1e6 times is the Gaussian mechanism with mu = 1 (exact)
    comp = PrivacyLossDistribution.gaussian(1000.0, grid_step=1e-4).compose(10**6)
    b = comp.epsilon(1e-5)
    exact = float(ref.gdp_epsilon(1e-5, 1.0))  # 4.377178...
    assert b.lower <= exact <= b.upper
    est_err = b.estimate - exact  # the discretisation's own error, 4.2e-3
    assert 0 < est_err
    assert b.upper - exact <= 2 * est_err
    # a finer grid (the window fits the cap) tightens both
    fine = PrivacyLossDistribution.gaussian(1000.0, grid_step=2e-5).compose(10**6).epsilon(1e-5)
    assert fine.lower <= exact <= fine.upper
    assert fine.upper - exact < 4e-4


# q = 0.01, sigma = 1, delta = 1e-5: the peers' tight values to 3 decimals for 1e3..1e5 steps
# (dp-accounting's PLD and prv-accountant, as docs and dpsgd_epsilon's docstring quote them); at
# 1e6 steps pabi's own upper end to 3 decimals (no quoted peer value: dp-accounting checks it in
# _check_against_peer, as it does every row). pabi's upper ends are (1.8282437930076123,
# 6.187747945924451, 25.5733596296015, 139.03401217240233). At 1e6 steps the FFT length (over
# 2^20) takes the split transform that runs on the pool (composition.md, "The long transforms and
# the suffix sums, on every core").
DPSGD = {1_000: 1.828, 10_000: 6.188, 100_000: 25.573, 1_000_000: 139.034}


@pytest.mark.parametrize("steps", sorted(DPSGD))
def test_dpsgd_bracket_against_peers_and_thread_independent(steps: int) -> None:
    before = pabi.get_num_threads()
    try:
        got = {}
        for threads in (1, 2):
            pabi.set_num_threads(threads)
            got[threads] = tuple(pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0,
                                                    steps=steps, bracket=True))
    finally:
        pabi.set_num_threads(before)
    assert got[1] == got[2]
    lo, est, up = got[1]
    assert lo <= est <= up
    assert round(up, 3) == DPSGD[steps]
    _check_against_peer(steps, lo, up)


def _peer_epsilon(steps: int, grid: float) -> float:
    """dp-accounting's ε(δ = 1e-5) for the same DP-SGD case (Poisson rate 0.01, σ = 1, its default
    add-or-remove relation), on a privacy-loss grid of ``grid``: connect-the-dots with the pessimistic rounding,
    an upper estimate of the exact ε that decreases to it as the grid is refined (its excess
    shrinks roughly like grid², about 7e-4 at grid 1e-3 for 1000 steps)."""
    pld = peer_pld.from_gaussian_mechanism(1.0, sampling_prob=0.01, value_discretization_interval=grid,
                                           pessimistic_estimate=True, use_connect_dots=True)
    return float(pld.self_compose(steps).get_epsilon_for_delta(1e-5))


def _check_against_peer(steps: int, lo: float, up: float) -> None:
    """pabi's DP-SGD bracket (lo, up) against dp-accounting (coarse grids, so the test stays fast),
    which brackets the exact ε from its side:

    * its pessimistic values p(h) >= exact >= pabi's certified lower end;
    * pabi's certified upper end is tighter than the peer's coarse upper estimate p(h/2);
    * the peer's Richardson extrapolation (4 p(h/2) - p(h)) / 3 of the exact value lies within the
      peer's own error estimate |p(h) - p(h/2)| / 3 of pabi's upper end (observed: 20-40x closer),
      so a drift of both ends (down or up) by more than that fails.
    """
    p1, p2 = _peer_epsilon(steps, 2e-3), _peer_epsilon(steps, 1e-3)
    assert p2 <= p1
    assert lo <= p2
    assert up <= p2
    err = (p1 - p2) / 3.0
    assert abs((4.0 * p2 - p1) / 3.0 - up) <= err, (p1, p2, up)
