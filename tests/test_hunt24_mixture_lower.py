"""Hunt 24: the mixture bracket at |x| ~ 412 with wide components, and the KOV ε inversion when
the δ0 atom is within 2^-46 of the target δ."""

import math

import mpmath as mp
import pytest

import pabi
from pabi import reference as ref

# P = (weights, means, stds), Q likewise; the positive set is x < -412.27 and x > 447.86
_P = ([0.32809871070959357, 0.25392071625537904, 0.031489094262538216, 0.3864914787724891],
      [-4.25207093680787, -12.789913454578222, 0.1272655820036963, 0.0],
      [1.0, 0.8281680376497053, 23.091751407414236, 1.0])
_Q = ([0.4076776933735058, 0.5923223066264942], [0.0, 2.5130387738070468],
      [1.0, 21.476033945067808])
_EPS = 24.030180052257737
# mpmath at 90 digits: the two roots of ln p − ln q − ε by findroot, each interval's masses by
# the normal CDF of the side it lies on (w·Φ(−(a−μ)/s) for the right tail: 1 − Φ((a−μ)/s)
# cancels to 0 at x = 447.9 and drops the right-hand part, 3.6e-13 of the value; the earlier
# "exact" 5.41344292191605087e-74 made the certified lower end look 2.9e-13 too high)
_EXACT = mp.mpf("5.41344292191800585468801741199876431042335845114769031121808245987e-74")


def test_mixture_bracket_wide_components_contains_exact():
    lo, up = pabi.mixture_hockey_stick_divergence(*_P, *_Q, _EPS, bracket=True)
    assert mp.mpf(lo) <= _EXACT <= mp.mpf(up)
    assert float((_EXACT - mp.mpf(lo)) / _EXACT) < 2e-13
    assert float((mp.mpf(up) - _EXACT) / _EXACT) < 2e-13


def test_reference_mixture_keeps_the_right_hand_tail():
    # the reference took each cell as Φ(b) − Φ(a), which cancelled to 0 for the right-hand cell
    # x > 447.86 and returned 5.41344292191605087e-74; it now takes the upper tails there
    v = ref.mixture_hockey_stick_divergence(*_P, *_Q, _EPS, dps=60)
    assert abs(v / _EXACT - 1) < mp.mpf("1e-40")


def _exact_atom(delta0, k):
    with mp.workdps(70):
        return 1 - (1 - mp.mpf(delta0)) ** k


@pytest.mark.parametrize("delta0,k,delta_above,delta_below", [
    # delta_above = float(atom·(1 + 1e-14)), delta_below = float(atom·(1 − 3e-15)), mpmath 70 dps
    (1e-3, 10, 0.00995511979025189, 0.00995511979025176),
    (0.1, 7, 0.5217031000000052, 0.5217030999999984),
])
def test_kov_epsilon_atom_just_below_target(delta0, k, delta_above, delta_below):
    atom = _exact_atom(delta0, k)
    assert atom < mp.mpf(delta_above) and atom > mp.mpf(delta_below)
    # ε0 = 0: every privacy loss is 0, δ(ε) = atom for all ε ≥ 0: ε = 0 (was +inf, the
    # 2^-46 inflation of the atom crossed δ)
    assert pabi.approx_dp_composition_epsilon(0.0, delta0, k, delta_above) == 0.0
    assert pabi.approx_dp_composition_epsilon(0.0, delta0, k, delta_below) == math.inf
    # ε0 > 0: δ(kε0) = atom ≤ δ, so kε0 (rounded up) is a sound finite answer (was +inf)
    e = pabi.approx_dp_composition_epsilon(0.5, delta0, k, delta_above)
    assert math.isfinite(e) and k * 0.5 <= e <= k * 0.5 * (1 + 1e-13)
    assert pabi.approx_dp_composition_epsilon(0.5, delta0, k, delta_below) == math.inf
