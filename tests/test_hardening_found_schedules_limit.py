"""Hunt findings in the schedule limits: the online Gaussian lower bound for decay near 1 and
the calibrated schedule constant C1 (schedule_calibrate_c1)."""

import pabi
from pabi.reference import _schedules as R


# exact values: pabi.reference.online_schedule_delta_star_lower (mpmath, dps 50), confirmed by
# an independent split quadrature of ∫_i^∞ ln B_x dx
LOWER_CASES = [
    (0.20292370769857848, dict(max_grad_norm=62.93280106085552, lr=0.021580041516185207,
                               diameter=0.840247578697346, index=2120, c1=608064.7429726993,
                               c2=0.0, decay=1.0011374962358066), -1168521763.9667253624),
    (29.56029110847777, dict(max_grad_norm=0.03200363290262234, lr=0.15558150217530023,
                             diameter=0.06713704266713237, index=43, c1=1.0, c2=1.0,
                             decay=1.0073329040432601), -349650952.42084554),
]


def test_online_gaussian_lower_below_exact_near_decay_one():
    # was -1168521763.9584653 and -349650952.42072153 (above: ln(1 - θ) of the engine is
    # rounded down by 2^-46·|ln|, i.e. g rounded UP, integrated over s ≈ 1/(α − 1))
    for eps, kw, exact in LOWER_CASES:
        v = pabi.online_gaussian_delta_limit_lower(eps, log=True, **kw)
        assert v <= exact, (v, exact)
        assert v >= exact * (1 + 1e-10), (v, exact)


def test_calibrate_c1_meets_its_target():
    # exact C1: mpmath bisection of (1 − e^{−x})/x = δ* (dps 60), C1 = x·e^{−ε/2} (/2 Gaussian)
    cases = [
        (1400.0, 1.4567372066922333e-08, "laplace", 6.7683289054913506894e-297),
        (4.206887412462354e-119, 2.161880405815361e-16, "gaussian", 2312801386492159.7173),
    ]
    for eps, d, noise, exact in cases:
        c1 = pabi.schedule_calibrate_c1(eps, d, noise=noise)
        # δ* is non-increasing in C1: C1 ≥ exact, and pabi's own δ* at it meets the target
        assert c1 >= exact, (c1, exact)
        assert c1 <= exact * (1 + 1e-12), (c1, exact)
        f = pabi.laplace_schedule_delta_limit if noise == "laplace" else pabi.gaussian_schedule_delta_limit
        assert f(eps, c1=c1) <= d


def test_reference_calibrate_c1_tiny_delta():
    # the reference's root search had stopped at its bracket edge ≈ 2/δ* (twice the root)
    v = R.schedule_calibrate_c1(4.206887412462354e-119, 2.161880405815361e-16, noise="gaussian")
    assert abs(float(v) / 2312801386492159.7173 - 1) < 1e-14
