"""Values of the bounds whose rounding moved into ``num::round`` (issue 14: the local helpers
``ln_of_theta``, ``rdp_value``, ``prob_from_log``, the margins of ``rdp/erm.rs`` and
``rdp/holder.rs``, the ``k·eps`` factors of the schedules): every swap kept the bits (probe
compare identical), and these tests pin that the values are still upper bounds of the exact
formula (mpmath), within the stated accuracy. Also the online suffix scan's overflowed log-sum
(``scan_chunk`` read the Neumaier sum as NaN and bounded it by 0: ln delta = ln A)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import reference as ref

MAX = 1.7976931348623157e308


def _online_exact_logs(eps, max_grad_norm, lr, diameter, noise_scale, smoothness, strong_convexity):
    """(ln A, ln B) of one step at noise sigma, exactly (mpmath): r_A = 2L/sigma,
    r_B = M*D/(eta*sigma), M = sqrt(1 - 2*eta*beta*rho/(beta + rho))."""
    with mp.workdps(40):
        b, r, eta = mp.mpf(smoothness), mp.mpf(strong_convexity), mp.mpf(lr)
        m = mp.sqrt(1 - 2 * eta * b * r / (b + r))
        ra = 2 * mp.mpf(max_grad_norm) / noise_scale
        rb = m * mp.mpf(diameter) / (eta * noise_scale)
        # (400 digits: at eps = 1e154 the reference's default guard loses e^eps's absolute
        # precision and returns theta < 0, ln theta = -inf)
        return ref.theta(eps, ra, dps=400, log=True), ref.theta(eps, rb, dps=400, log=True)


@pytest.mark.parametrize("steps", [100, 20000])  # one chunk of the scan; three (SCAN_CHUNK = 8192)
def test_online_delta_overflowed_partial_sum_is_minus_max(steps):
    """The suffix sum of finite ln B overflows below -f64::MAX: ln delta was ln A (the NaN sum
    bounded by 0: -5e307 at index 1, far above the exact value below -f64::MAX), now -f64::MAX,
    its upward rounding; indices whose exact value is finite stay upper bounds within 1e-12."""
    kw = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, smoothness=2.0, strong_convexity=0.5)
    eps = 1e154
    got = pabi.online_delta(eps, noise_scale=np.full(steps, 2.0), log=True, **kw)
    la, lb = _online_exact_logs(eps, noise_scale=2.0, **kw)
    exact = [la + (steps - i) * lb for i in range(1, steps + 1)]
    below = [e < -MAX for e in exact]
    assert below[0] and not below[-1]
    for i in (0, 1, steps - 62, steps - 61, steps - 60, steps - 3, steps - 1):
        if below[i]:
            assert got[i] == -MAX, i  # was -5e307 (ln A) at i = 0
        else:
            assert got[i] >= exact[i] and got[i] <= exact[i] * (1 - 1e-12), i
    assert np.all(got[np.array(below)] == -MAX)
    # the single index takes the same scan
    assert pabi.online_delta(eps, noise_scale=np.full(steps, 2.0), index=1, log=True, **kw) == -MAX
    # delta itself: exp(-f64::MAX) rounded up is positive, never 0
    assert pabi.online_delta(eps, noise_scale=np.full(steps, 2.0), index=1, **kw) == 2e-323


def test_online_delta_from_log_is_upper_bound():
    """prob_up (the former prob_from_log): delta = up(exp(ln delta)) <= 1, >= the exact value."""
    kw = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, smoothness=2.0, strong_convexity=0.5)
    for eps in (0.5, 3.0, 30.0):
        got = pabi.online_delta(eps, noise_scale=[1.5, 2.0, 2.5], **kw)
        for i, s_next in enumerate([(1.5, 2.0, 2.5), (2.0, 2.5), (2.5,)]):
            la, _ = _online_exact_logs(eps, noise_scale=s_next[0], **kw)
            lbs = [_online_exact_logs(eps, noise_scale=s, **kw)[1] for s in s_next[1:]]
            exact = mp.exp(la + mp.fsum(lbs))
            # (relative accuracy of delta from its log: ~1e-14·|ln delta|)
            assert got[i] >= exact and got[i] <= exact * (1 + 1e-13 * (1 - mp.log(exact))) + 1e-320


def test_rdp_comparison_delta_from_log_is_upper_bound():
    """pnsgd_rdp_delta (the former rdp_value = prob_up): >= the exact delta_B, 1 at ln delta = 0."""
    kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=100.0, index=1.0, smoothness=2.0, strong_convexity=0.5)
    for eps in (0.01, 0.5, 2.0, 10.0, 60.0):
        got = float(pabi.pnsgd_rdp_delta(eps, **kw))
        exact = ref.pnsgd_rdp_delta(eps, **kw)
        assert got >= exact and got <= exact * (1 + 1e-12) + 1e-320, eps
    assert float(pabi.pnsgd_rdp_delta(0.0, **kw)) == 1.0


@pytest.mark.parametrize("epochs", [None, 1, 7, 10**6])
def test_erm_multi_epoch_sensitivity_is_upper_bound(epochs):
    """rdp/erm.rs's powers of rho (exp_prod_up, one_minus_exp_prod): >= the exact eq. (7)."""
    for eta, mu, smooth, m, j in ((0.1, 0.5, 2.0, 100, 3), (0.01, 1e-3, 1.0, 378, 1), (0.5, 1.0, 1.0, 5, 5)):
        got = pabi.rdp.sensitivity_multi_epoch(lr=eta, strong_convexity=mu, smoothness=smooth, max_grad_norm=1.0,
                                               batch_size=10.0, batches_per_epoch=m, batch_index=j, epochs=epochs)
        exact = ref.sensitivity_multi_epoch(eta, mu, smooth, 1.0, 10.0, m, j, epochs)
        assert got >= exact and got <= exact * (1 + 1e-12), (eta, mu, smooth, m, j)
