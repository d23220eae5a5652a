"""The reference's Gaussian tail at huge arguments (|t| ≳ 1e155), where mpmath's ``erfc``
raised ``OverflowError`` ("int too large to convert to float" in its series test), and the fast
path checked against it there.

For t > 1e100 the reference sums the asymptotic series Q(t) = φ(t)/t·Σ (−1)^k (2k − 1)!!/t^{2k}
from t² (exact at working precision), not erfc(t/√2): the rounding of t/√2 alone moved the
exponent t²/2 by t²·2^-prec (1e-80 relative at t = 1.5e100, 280 digits)."""

from __future__ import annotations

import mpmath as mp
import pytest

import pabi
from pabi import reference as ref
from pabi.reference._engine import _q


def _log_q_asymptotic(t: mp.mpf) -> mp.mpf:
    """ln Q(t) = −t²/2 − ln t − ln √(2π) + ln(1 − 1/t² + 3/t⁴ − …), the last log to
    O(t^-6) (< 1e-600 here)."""
    u = 1 / (t * t)
    return -t * t / 2 - mp.log(t) - mp.log(2 * mp.pi) / 2 + mp.log1p(-u + 3 * u * u)


@pytest.mark.parametrize("t", ["1.5e100", "1e155", "1e160", "1e300"])
def test_q_matches_the_log_asymptotic_form(t: str) -> None:
    with mp.workdps(700):
        x = mp.mpf(t)
        got = mp.log(_q(x))
        assert abs(got - _log_q_asymptotic(x)) <= abs(got) * mp.mpf(10) ** -650


def test_q_series_agrees_with_erfc_where_erfc_still_works() -> None:
    with mp.workdps(280):
        t = mp.mpf("1.5e100")
        # erfc's own input t/√2 is rounded: its exponent moves by t²·10^-280 ~ 1e-80
        assert abs(mp.erfc(t / mp.sqrt(2)) / 2 / _q(t) - 1) < mp.mpf("1e-79")
        t = mp.mpf("9e99")  # below the switch: the erfc branch
        assert _q(t) == mp.erfc(t / mp.sqrt(2)) / 2


@pytest.mark.parametrize("eps, shift", [(1e20, 1e160), (1e300, 1e155), (0.0, 1e300), (1e300, 5e150)])
def test_theta_at_huge_shift_is_finite_and_the_fast_path_bounds_it(eps: float, shift: float) -> None:
    # θ = 1 − (tiny complement): the reference now answers (it raised OverflowError) and pabi's
    # upper bounds are >= it
    lt = ref.theta(eps, shift, log=True)
    assert mp.isfinite(lt) and lt < 0 and lt > -mp.mpf("1e-300")
    assert ref.theta(eps, shift) == 1
    assert pabi.theta(eps, shift) == 1.0
    assert pabi.theta(eps, shift, log=True) == 0.0  # the least double >= ln θ (a tiny negative)
    lc = ref.theta_complement(eps, shift, log=True)
    with mp.workdps(60):
        assert lc < -mp.mpf("1e299")


def test_gaussian_tail_at_huge_argument() -> None:
    with mp.workdps(450):
        exact = _log_q_asymptotic(mp.mpf(1e200))  # the double 1e200; −5e399: below every double
    assert mp.almosteq(ref.gaussian_tail(1e200, log=True, dps=450), exact, rel_eps=mp.mpf("1e-40"))
    assert pabi.gaussian_tail(1e200, log=True) >= exact
    assert pabi.gaussian_tail(1e200) == 0.0  # Q(1e200) = e^-5e399: rounds to 0
