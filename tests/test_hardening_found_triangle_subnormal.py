"""Regression tests of the bug hunt's weak-triangle and subnormal findings.

Exact values: ``pabi.reference`` at dps 50 (confirmed at dps 80), hard-coded below. Contract:
exact <= pabi <= exact·(1 + 1e-12) where the exact value is normal; for subnormal exact values
pabi >= exact and within a few subnormal steps (the library's ``TINY`` = 4·2^-1074 per rounded
term).
"""

import pytest
from mpmath import mp, mpf

import pabi

STEP = mpf(5e-324)  # 2^-1074


@pytest.fixture(autouse=True)
def _dps50():
    with mp.workdps(50):
        yield


def _normal_ok(v, exact):
    assert mpf(v) >= exact, (v, exact)
    assert mpf(v) <= exact * (1 + mpf("1e-12")), (v, exact)


def _subnormal_ok(v, exact, steps):
    assert mpf(v) >= exact, (v, exact)
    assert mpf(v) - exact <= steps * STEP, (v, exact, (mpf(v) - exact) / STEP)


@pytest.mark.parametrize(
    "args, exact",
    [
        # before: 9.169933718566499e-157 (−7.7e-10 relative, below exact)
        ((1.000000000007204, 1.0000000645689344, 1.0229838367541996e-160, 4.3213767601365576e-194),
         "9.169933725623930110877e-157"),
        # before: 1000.9111900533002 (+1e-9 relative, above tolerance)
        ((1.000000000001, 1.000000001, 1.0, 0.0), "1000.911189053374696242"),
    ],
)
def test_weak_triangle_alpha_and_p_near_one(args, exact):
    a, p, d1, d2 = args
    v = pabi.weak_triangle_bound(a, holder_exponent=p, divergence_pq=d1, divergence_qr=d2)
    _normal_ok(v, mpf(exact))


def test_weak_triangle_subnormal():
    # exact: (1.5 − 1/2)/(1.5 − 1) = 2, so 2·1001 + 77 = 2079 subnormal steps
    v = pabi.weak_triangle_bound(1.5, holder_exponent=2.0, divergence_pq=1001 * 5e-324, divergence_qr=77 * 5e-324)
    _subnormal_ok(v, 2079 * STEP, 8)


@pytest.mark.parametrize(
    "alpha, p, divs, weights, variant, exact",
    [
        # before: 8.555226e-318 (−5.9e-5 relative)
        (1.0017186429244647, 2.4152692528018544, [[1.9975e-320], [8.53576e-318]], None, "corrected",
         "8.555734789032866405506e-318"),
        (1.001, 2.0, [[1e-320, 3e-321], [8e-318, 2e-319]], [[0.25, 0.75], [0.25, 0.75]], "corrected",
         "2.159998186068658147787378e-318"),
        (1.3, 1.7, [[1e-320], [1e-319], [4e-318]], None, "corrected", "4.109998710028952864437948e-318"),
        (1.3, 1.7, [[1e-320], [1e-319], [4e-318]], None, "as_published", "4.241620828377172203746646e-318"),
    ],
)
def test_holder_composition_subnormal(alpha, p, divs, weights, variant, exact):
    v = pabi.holder_composition_bound(alpha, holder_exponent=p, divergences=divs, weights=weights, variant=variant)
    # TINY per term and once more for the sum
    _subnormal_ok(v, mpf(exact), 4 * (len(divs) + 1) + 4)


# The fix: rust/pabi-core/src/rdp/epochs.rs::contraction_sensitivity_up, called by erm.rs's
# sensitivity_multi_epoch (scaled mantissas where a partial product leaves the normal range).


def test_sensitivity_multi_epoch_subnormal():
    v = pabi.sensitivity_multi_epoch(lr=148.41262720636485, strong_convexity=0.005414211143443689,
                                     smoothness=0.005729923351350138, max_grad_norm=53.81551833720245,
                                     batch_size=2.6313687289030776, batches_per_epoch=2182, batch_index=1732)
    # before: 5.7448057e-315 (−1.1e-8 relative)
    _subnormal_ok(v, mpf("5.744805762259706477037783e-315"), 12)


def test_sensitivity_multi_epoch_underflow_to_zero():
    v = pabi.sensitivity_multi_epoch(lr=0.5, strong_convexity=1.0, smoothness=1.0, max_grad_norm=1.0,
                                     batch_size=1.0, batches_per_epoch=1100, batch_index=1)
    # before: 0.0; exact 2^-1099/(1 − 2^-1100) < 2^-1074: the TINY floor
    assert 0.0 < v <= 4 * 5e-324
    assert mpf(v) >= mpf("1.472430365804572535087373e-331")
