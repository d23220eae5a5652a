"""Regressions of the hunt-24 fixes: last-iterate shift bounds, general update RDP, Hölder orders.

Every expected value is the exact value of the formula for the given doubles, from
``pabi.reference`` (mpmath) at raised precision or mpmath directly at >= 60 digits.
"""

import math

import mpmath as mp
import numpy as np
import pytest

import pabi
import pabi.reference as R

TINY = 2e-323  # the documented smallest positive upper bound


def _up(v, exact, tol):
    """v is an upper bound of exact within tol relative."""
    exact = mp.mpf(exact)
    assert mp.mpf(v) >= exact, (v, exact)
    assert mp.mpf(v) - exact <= tol * abs(exact), (v, exact, (mp.mpf(v) - exact) / abs(exact))


# --------------------------------------------------------------------- general_update_rdp

_U_TINY = [[[[-1.0259710464430579e-137, 1.68054038520539e-137, -1.9426655118031962e-138],
             [-9.741619595487909e-139, -9.880741922890643e-138, -1.7598364239086778e-138]],
            [[-9.877718839468099e-139, -2.532530027656896e-138, 8.252652284941324e-138],
             [-5.580724194707945e-138, 4.1551209185039365e-138, 5.754655699751347e-138]]],
           [[[-1.2334463718314411e-137, 1.0920394192858818e-137, -1.4537928962783234e-137],
             [-8.19595015886406e-138, 1.119896831409055e-137, -1.287822733660509e-137]],
            [[-7.57964548335588e-138, -2.947815281329885e-138, 1.5072749846179875e-137],
             [1.5853614481268993e-137, -9.54352026841531e-138, 4.762641631128669e-138]]],
           [[[1.1145465745911418e-137, 4.735348346044171e-139, -6.270944997534622e-138],
             [-1.1755723714479626e-137, -1.4547180903543293e-137, -1.5398107218249255e-137]],
            [[-1.5286845990188043e-137, 7.578359136990537e-138, 3.0807633321489996e-138],
             [-1.463331557556773e-137, 1.476132351851077e-137, 1.642632702850326e-137]]]]
_V_TINY = [[-1.0366090261626578e-137, -1.2092287639746743e-137, 7.868000887994062e-138],
           [6.368850714437659e-138, 1.1133078279993075e-138, -6.160439310038357e-138],
           [7.739993266801267e-138, -1.7745075669400653e-138, -1.9121171541855754e-139]]


def test_general_update_below_subnormal_is_positive():
    # exact 2.7513769989658057e-574 > 0: the squares underflowed and the bound was 0.0
    ex = R.general_update_rdp(2, 1e150, _V_TINY, _U_TINY, dps=60)
    assert 0 < ex < mp.mpf('1e-500')
    v = pabi.general_update_rdp(2, noise_scale=1e150, updates_first=_U_TINY, updates_second=_V_TINY)
    assert 0 < v <= TINY


def test_general_update_no_overflow_of_squares():
    # |w| ~ 1e155: w² overflowed and the bound was inf; exact 548691249.39563284...
    uf = [[[[-8.751552728415124e+154], [-1.746669415804814e+155]],
           [[1.1386122187520632e+155], [-1.3136559450300368e+155]]]]
    us = [[-8.161868139983754e+154]]
    v = pabi.general_update_rdp(2, noise_scale=1e150, updates_first=uf, updates_second=us)
    _up(v, R.general_update_rdp(2, 1e150, us, uf, dps=60), 1e-12)


def test_general_update_negative_exponents_sound():
    # z = (−15.27, −18.06) in one batch: log1p(mean expm1 z) lost 3e-11 relative and the bound came
    # out 3e-12 below the exact value 59.807516031022267...
    uf = [[[[-0.007359417754288909, 0.015097251122812823], [0.003979492122178662, -0.013221885818376713]],
           [[-0.030668917436004677, -0.005277129251851218], [-0.018411455329521157, 0.03504273510172819]]],
          [[[-0.04037113356397279, 0.03710288796739478], [0.015360893775585905, 0.009105002860497566]],
           [[0.028228780718589218, 0.03978801167028731], [-0.031142634775054256, 0.005674923900377924]]],
          [[[-0.007189796438475159, 0.013036391708236289], [-0.0008670579326849392, 0.047901261827469635]],
           [[0.02422283641960523, 0.002203814721727238], [-0.010423430760129178, -0.05005499611869899]]]]
    us = [[-0.043695682823799896, -0.029617186325765644], [-0.010514187636076667, 0.042704891169393924],
          [0.035891661723688455, 0.04822589423478661]]
    sg = 0.0061866533468373135
    v = pabi.general_update_rdp(2, noise_scale=sg, updates_first=uf, updates_second=us)
    _up(v, R.general_update_rdp(2, sg, us, uf, dps=60), 1e-12)
    v1 = pabi.general_update_rdp(2, noise_scale=sg, updates_first=[uf[1]], updates_second=[us[1]])
    _up(v1, R.general_update_rdp(2, sg, [us[1]], [uf[1]], dps=60), 1e-12)


def test_general_update_single_nonzero_difference_is_exact_zero():
    # one difference of one ulp in the tuple: every cross product is 0, the bound is exactly 0
    # (it was 8.5e-147 from the error bound of the cancelling squares)
    x = [4.950654864739367e-50, 9.90468947243075e-50, 4.455422651178883e-50]
    uf = [[[list(x) for _ in range(4)]]]
    uf[0][0][0][0] = math.nextafter(x[0], 1.0)
    v = pabi.general_update_rdp(4, noise_scale=3.436683928506528, updates_first=uf, updates_second=[x])
    assert R.general_update_rdp(4, 3.436683928506528, [x], uf, dps=60) == 0
    assert v == 0.0


# --------------------------------------------------------------------- shifted bounds


def _cycle(a, sg, T, ell, sb, tau, L):
    v = pabi.shifted_cycle_bound(a, noise_scale=sg, steps=T, batches_per_epoch=ell, map_difference=sb,
                                 initial_distance=tau, step_lipschitz=L)
    ex = R.shifted_cycle_bound(a, sg, T, ell, sb, tau, L, dps=60)
    return v, ex


def test_shifted_cycle_tiny_theta_not_inflated():
    # θ_L(1266) ~ 1e-2150 was TINY, times (Lτ + s̄)² ~ 1e616: 2.6e304 for an exact 2.0032e-274
    v, ex = _cycle(1.0000000000000002, 4.906642005686917e-07, 226786, 1266, 393.3856719104986,
                   1.7976931348623157e+308, 0.14078225231750185)
    _up(v, ex, 1e-12)


def test_shifted_cycle_no_overflow_of_l_tau():
    # Lτ overflowed (τ = 1.8e308, L = 1.81): inf for an exact 3.3178227563018573e299
    v, ex = _cycle(901.8734810563235, 1e+160, 11, 11, 7.613410001732571e-07, 1.7976931348623157e+308,
                   1.8101653095409769)
    assert math.isfinite(v)
    _up(v, ex, 1e-12)


def test_shifted_cycle_l_min_subnormal():
    # L = 5e-324, s̄ = 1.8e308: 2.7e280 for an exact 3.2823114760252323e-44
    v, ex = _cycle(1.0000000000000002, 93532170.57868655, 1456, 2, 1.7976931348623157e+308, 0.0, 5e-324)
    _up(v, ex, 1e-11)  # u = ln L² ≈ −1489 carried as a double (2 ulp = 4.5e-13 absolute)
    # L = 5e-324 underflowed to 0 and gave an exact 0 for an exact 7.855e-30407 > 0
    v, ex = _cycle(1.0000000000000002, 295.4091697409984, 33118, 47, 0.0, 9.133525405510659e-06, 5e-324)
    assert ex > 0
    assert 0 < v <= TINY


def test_shifted_drift_no_overflow():
    for sb, T, ell in ((5e-324, 19, 1), (None, 5429436195, 15)):
        v = pabi.shifted_drift_bound(1.0007365407367543, noise_scale=1.7976931348623157e+308,
                                     drift=1.7976931348623157e+308, steps=T, batches_per_epoch=ell,
                                     map_difference=sb)
        ex = R.shifted_drift_bound(1.0007365407367543, 1.7976931348623157e+308, 1.7976931348623157e+308, T,
                                   ell, sb, dps=60)
        assert math.isfinite(v)
        _up(v, ex, 1e-12)


# --------------------------------------------------------------------- holder_orders


def test_holder_orders_no_spurious_inf():
    b = pabi.holder_orders(1 + 1e-10, holder_exponent=2.0, steps=1040)
    with mp.workdps(60):
        ex = 1 + (mp.mpf(1 + 1e-10) - 1) * mp.mpf(2) ** 1039  # 5.8907e302
        assert math.isfinite(b[-1])
        assert abs(mp.mpf(b[-1]) - ex) <= 1e-12 * ex
    ref = R.holder_orders(1 + 1e-10, 2.0, 1040, dps=60)
    assert abs(mp.mpf(b[1000]) - ref[1000]) <= 1e-12 * ref[1000]


# --------------------------------------------------------------------- cyclic_calibrate


def _lam_exact(m, M):
    with mp.workprec(3000):
        return 1 / (2 * (mp.mpf(M) + mp.mpf(m)))


def test_cyclic_calibrate_lr_is_greatest_admissible():
    rng = np.random.default_rng(24)
    for _ in range(300):
        m = 10 ** rng.uniform(-30, 30)
        M = float(rng.choice([0.0, 10 ** rng.uniform(-30, 30)]))
        cal = pabi.cyclic_calibrate(2.0, 1.0, weak_convexity=m, smoothness=M, max_grad_norm=1.0, batch_size=3,
                                    epochs=2)
        lam = _lam_exact(m, M)
        assert mp.mpf(cal.lr) <= lam, (m, M)
        assert mp.mpf(math.nextafter(cal.lr, math.inf)) > lam, (m, M)
        # the returned lr is accepted by the bounds that assume lr <= 1/(2(m + M))
        pabi.clipped_step_kappa(cal.lr, weak_convexity=m, smoothness=M)
    # the hunt's repro (0.5/fl(M + m) was one ulp above)
    cal = pabi.cyclic_calibrate(1782.3281757361888, 8.522700970938406e-156, weak_convexity=6.457608653602121e+111,
                                smoothness=1.4152322235968887e+120, max_grad_norm=4.5277722472922445e+55,
                                batch_size=117739, epochs=63068888)
    assert mp.mpf(cal.lr) <= _lam_exact(6.457608653602121e+111, 1.4152322235968887e+120)


def test_cyclic_calibrate_noise_scale_subnormal_product():
    # C·λ̄ = 1e-300·5e-21 is subnormal: σ̄ lost 4.7e-2 relative
    a, eps, m, M, C, b, E = 3.0, 1e-300, 1e20, 0.0, 1e-300, 7, 5
    cal = pabi.cyclic_calibrate(a, eps, weak_convexity=m, smoothness=M, max_grad_norm=C, batch_size=b, epochs=E)
    _, _, sig = R.cyclic_calibrate(a, eps, m, M, C, b, E, dps=60)
    _up(cal.noise_scale, sig, 1e-13)


# --------------------------------------------------------------------- shift_weight


def test_shift_weight_tighter():
    # exact 5.9525723173914589e-307; it was 6.9e-13 above (the rounded (s − 1)u and u moved 2–4 ulp)
    s, L = 1201.1531754329767, 0.7457089406872137
    v = pabi.shift_weight(s, step_lipschitz=L)
    with mp.workdps(80):  # θ = κ e^{(s−1)u}/expm1(su), u = ln L², κ = L² − 1 (eq. (6) for real s)
        L2 = mp.mpf(L) ** 2
        u = mp.log(L2)
        ex = (L2 - 1) * mp.exp((mp.mpf(s) - 1) * u) / mp.expm1(mp.mpf(s) * u)
    _up(v, ex, 3.5e-13)
