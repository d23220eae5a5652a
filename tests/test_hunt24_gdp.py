"""Regressions of the GDP inversions near θ = 1 and at ill-conditioned small ε (hunt 24).

Exact values: pabi.reference at raised precision (dps 60), an independent mpmath evaluation of
θ_{e^ε}(μ) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS Cor. 2.13) and its inversions.
"""

import math

import mpmath as mp
import numpy as np
import pytest

import pabi
import pabi.reference as R

DPS = 60


def _rel(v, ex):
    return (mp.mpf(v) - ex) / ex


@pytest.mark.parametrize("d0", [1 - 1e-14, 1 - 2**-53, 1 - 1e-15, 1 - 1e-12])
def test_mu_dominating_finite_near_one(d0):
    # was +inf for δ ≥ 1 − 4e-14 (the lower bound of ln θ was 3·INFLATE absolute below it)
    e, d = [0.0, 1.0], [d0, 0.5]
    ex = R.gdp_mu_dominating(e, d, dps=DPS)
    for v in (pabi.gdp_mu_dominating(e, d), pabi.gdp_mu_dominating(e, log_delta=[math.log(d0), math.log(0.5)])):
        assert math.isfinite(v)
        assert 0 <= _rel(v, ex) <= 1e-13  # rounded up, tight


@pytest.mark.parametrize("d0", [1 - 1e-14, 1 - 2**-53])
def test_dominating_pair_finite_near_one(d0):
    e, d = [0.0, 1.0], [d0, 1e-300]
    mu, dj = pabi.gdp_dominating_pair(e, d)
    mex, djx = R.gdp_dominating_pair(e, d, dps=DPS)
    assert math.isfinite(mu) and 0 <= _rel(mu, mex) <= 1e-13
    assert dj >= djx


def test_dominating_pair_last_sample_near_one():
    # δ_J = 1 − 1e-15 (its upward rounding by INFLATE reached 1 and gave (inf, 1))
    ld = [-80.0, -90.0, math.log1p(-1e-15)]
    e = [0.0, 0.5, 1.0]
    mu, dj = pabi.gdp_dominating_pair(e, log_delta=ld)
    mex, djx = R.gdp_dominating_pair(e, log_delta=ld, dps=DPS)
    assert math.isfinite(mu) and 0 <= _rel(mu, mex) <= 1e-12
    assert djx <= dj <= 1.0


_LOOSE = pytest.mark.xfail(
    strict=True,
    # tight inversions here need an upper bound of theta tight near 1 (1 - the complement rounded
    # down), which breaks the round trip gdp_delta(gdp_mu(e, d)) <= d while gdp_delta is the
    # engine's theta (2^-46 loose near 1): composition/gdp_edges.rs's module doc
    reason="loose on the documented side (gdp_edges.rs module doc)",
)


@_LOOSE
@pytest.mark.parametrize("eps", [0.0, 1.0])
@pytest.mark.parametrize("d", [1 - 2**-53, 1 - 2**-52, 1 - 1e-15, 1 - 1e-13, 0.999999])
def test_gdp_mu_tight_near_one(eps, d):
    # gdp_mu(0, 1 − 2^-53) was 5.8e-3 relative below the exact value (2.2e-12 at δ = 0.999999)
    v = pabi.gdp_mu(eps, d)
    ex = R.gdp_mu(eps, d, dps=DPS)
    assert -1e-12 <= _rel(v, ex) <= 0  # rounded down, tight
    arr = pabi.gdp_mu(np.full(40, eps), np.full(40, d))
    assert np.all(arr == v)  # the block path equals the scalar one


@_LOOSE
@pytest.mark.parametrize("mu", [0.01, 0.5219545609626237, 1.0, 3.0])
@pytest.mark.parametrize("k", [1e-3, 1e-6, 1e-8])
def test_gdp_epsilon_small_eps(mu, k):
    # δ = θ(0, μ)(1 − k): ε → 0, condition 1/(ε|∂_ε ln θ|) ≈ 1/k; was 1.4e-14/k relative above
    t0 = R.theta(0.0, mu, dps=DPS)
    d = float(t0 * (1 - k))
    v = pabi.gdp_epsilon(d, mu)
    ex = R.gdp_epsilon(d, mu, dps=DPS)
    assert 0 <= _rel(v, ex) <= 1e-12  # rounded up, tight
    arr = pabi.gdp_epsilon(np.full(40, d), np.full(40, mu))
    assert np.all(arr == v)


@_LOOSE
@pytest.mark.parametrize("mu,d", [(20.0, 1 - 1e-15), (20.0, 1 - 1e-10), (10.0, 1 - 1e-6)])
def test_gdp_epsilon_near_one(mu, d):
    v = pabi.gdp_epsilon(d, mu)
    ex = R.gdp_epsilon(d, mu, dps=DPS)
    assert 0 <= _rel(v, ex) <= 1e-12
