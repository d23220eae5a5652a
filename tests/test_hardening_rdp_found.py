"""Regressions of the hardening hunt on the RDP comparison bound of Asoodeh–Diaz–Calmon Prop. 1
(``pnsgd_rdp_delta``: ln δ_B = −(ε − c)²/(4c) for a c below the normal range, or (ε − c)² out of
range) and on the ERM gradient-step contraction (``gd_contraction``: η·L < 2 decided exactly).

Exact values: ``pabi.reference`` (mpmath) at 80 digits, computed in the tests (fast)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import pytest

import pabi
from pabi import reference as ref


def _upper(v: float, exact: mp.mpf, tol: float = 1e-12) -> None:
    """exact <= v, v within tol relative (v, exact <= 0 for ln δ; >= 0 for δ), or within two
    subnormal ulps where the exact value is below the normal range."""
    assert mp.mpf(v) >= exact, (v, mp.nstr(exact, 20))
    err = abs(mp.mpf(v) - exact)
    assert err <= tol * abs(exact) or (abs(exact) < 2.3e-308 and err <= 1e-323), (v, mp.nstr(exact, 20))


def _lin(c: float) -> dict:
    # steps = index = 1, no β: c = 2L²/σ² (k = 0, M = 1)
    return dict(noise_scale=1.0, max_grad_norm=math.sqrt(c / 2), lr=1.0, steps=1, index=1)


def test_rdp_log_delta_subnormal_slope_issue_repro():
    """c = 2e-300: ln δ was −ε²/(4c) = −4.5e-300 (the −c of (ε − c)² lost), below the exact
    −2.0000000000000004315e-300 (mpmath, 80 digits)."""
    kw = dict(noise_scale=1.0, max_grad_norm=1e-150, lr=1.0, steps=1, index=1)
    v = pabi.pnsgd_rdp_delta(6e-300, log=True, **kw)
    exact = ref.pnsgd_rdp_delta(6e-300, log=True, dps=80, **kw)
    assert mp.nstr(exact, 15) == "-2.0e-300"
    _upper(v, exact)
    assert pabi.pnsgd_rdp_delta(6e-300, **kw) == 1.0


@pytest.mark.parametrize("c", [2e-320, 3e-316, 2e-310, 1e-305, 2e-300, 2e-291, 7e-291])
@pytest.mark.parametrize("r", [1.01, 1.5, 3.0, 1e3, 1e10])
def test_rdp_log_delta_tiny_slope_sweep(c, r):
    """Every c from ~2e-320 to 2e-291 and ε in c·[1.01, 1e10] (the hunt's wrong-side range):
    never below the exact value. Accuracy: relative to the condition 1 + 2c/(ε − c) of
    (ε − c)²/(4c) in c; below e^-700 c is known only through ln c, whose upper bound carries
    ~6e-13 absolute (ulps of |ln c| ≈ 700, `rdp_log_slope`), hence the wider factor there."""
    kw = _lin(c)
    ce = ref.pnsgd_rdp_slope(dps=80, **kw)
    eps = float(ce) * r
    v = pabi.pnsgd_rdp_delta(eps, log=True, **kw)
    exact = ref.pnsgd_rdp_delta(eps, log=True, dps=80, **kw)
    cond = 1 + 2 / (r - 1)
    _upper(v, exact, (1e-12 if c > 1e-304 else 5e-12) * cond)


@pytest.mark.parametrize(
    "eps, L, lr, beta",
    [
        (4.6506770454e-314, 5.3552976990164615e-170, 0.16693892184409873, 2.2629846834448104),
        (2.94117561e-315, 3.7108175862434755e-159, 7.162891642326196, 0.13054223284150132),
        (4.4e-323, 3.659622663351086e-168, 3.7107600167042314, 0.24568778095983432),
        (1e-300, 1e-160, 0.3, 1.0),
        (2e-323, 3.0280013278128482e-167, 0.10901261647817177, 8.640171692567236),
    ],
)
def test_rdp_log_delta_strongly_convex_tiny_slope(eps, L, lr, beta):
    """Strongly convex (β = ρ), steps = 99, index = 81: c far below the subnormal range (the
    last: ε at c_val = 2e-323, which is e^{ln c} rounded up, gave the trivial 0)."""
    kw = dict(noise_scale=1.0, max_grad_norm=L, lr=lr, steps=99, index=81, smoothness=beta,
              strong_convexity=beta)
    v = pabi.pnsgd_rdp_delta(eps, log=True, **kw)
    exact = ref.pnsgd_rdp_delta(eps, log=True, dps=80, **kw)
    _upper(v, exact)


@pytest.mark.parametrize(
    "eps, c",
    [
        (2e-160, 1e-160),  # d² = 1e-320 subnormal: was rounded in the subnormal grid
        (2.8e-162, 1e-290),  # d² rounds to nearest subnormal (20 % possible, either side)
        (1.0000001e-200, 1e-200),  # d² = 1e-414 underflows: was −0
        (1e201, 2e200),  # d² overflows: was −inf (δ = 0), below the exact −8e200
        (1e300, 1e-10),  # the quotient overflows: −MAX, an upper bound
    ],
)
def test_rdp_log_delta_square_out_of_range(eps, c):
    kw = _lin(c)
    v = pabi.pnsgd_rdp_delta(eps, log=True, **kw)
    exact = ref.pnsgd_rdp_delta(eps, log=True, dps=80, **kw)
    if exact < -1.7976931348623157e308:
        assert v == -1.7976931348623157e308
    else:
        _upper(v, exact, 1e-12 if c * 1e-6 < eps - c else 1e-6)


def test_rdp_epsilon_tiny_slope_meets_target():
    """ε(δ) for subnormal c: δ_B at the returned ε meets δ, one ulp below it does not."""
    for c in (2e-320, 3e-310, 2e-300):
        kw = _lin(c)
        for d in (1e-5, 1e-300):
            e = pabi.pnsgd_rdp_epsilon(d, **kw)
            exact = ref.pnsgd_rdp_epsilon(d, dps=80, **kw)
            assert mp.mpf(e) >= exact and float((e - exact) / exact) < 1e-12
            assert pabi.pnsgd_rdp_delta(e, log=True, **kw) <= math.log(d) * (1 - 1e-15)


def test_gd_contraction_lr_times_smoothness_rounding_to_two():
    """η·L = 2 − 3.13e-17 exactly (Fraction), which rounds to 2.0: was rejected (the check used
    the rounded product); now ρ rounded up (to 1), 1 − ρ rounded down beside the reference."""
    eta, L = 25.314042171316576, 0.07900753212247574
    assert Fraction(eta) * Fraction(L) < 2 and eta * L == 2.0
    rho, gap = pabi.gd_contraction(eta, strong_convexity=L, smoothness=L)
    er, eg = ref.gd_contraction(eta, L, L)
    assert mp.mpf(rho) >= er and rho <= 1.0
    assert 0 < gap and mp.mpf(gap) <= eg and float((eg - gap) / eg) < 1e-15
    assert float(eg) == pytest.approx(3.1309930192723376e-17, rel=1e-15)
    s = pabi.sensitivity_multi_epoch(lr=eta, strong_convexity=L, smoothness=L, max_grad_norm=1.0, batch_size=1.0,
                                     batches_per_epoch=3, batch_index=2, epochs=5)
    es = ref.sensitivity_multi_epoch(eta, L, L, 1.0, 1.0, 3, 2, 5)
    assert mp.mpf(s) >= es and float((s - es) / es) < 1e-12
    # the next double up: η·L > 2 exactly, still rejected
    with pytest.raises(ValueError, match="lr"):
        pabi.gd_contraction(math.nextafter(eta, math.inf) * 1.0000000000000002, strong_convexity=L, smoothness=L)
    eta2 = math.nextafter(2 / L, math.inf)
    if Fraction(eta2) * Fraction(L) >= 2:
        with pytest.raises(ValueError, match="lr"):
            pabi.gd_contraction(eta2, strong_convexity=L, smoothness=L)
