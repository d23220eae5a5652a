"""Regressions of the 24th hunt: the mixture hockey-stick divergence where P and γQ nearly cancel,
the Kairouz–Oh–Viswanath δ in deep tails and with the mode near k, and the reference's atom
1 − (1 − δ0)^k.

Every exact value below was computed with mpmath at 60–70 digits (stated per case): the mixture
values from the analytic root of p − q (two centred components) or `pabi.reference` at dps=60,
the single-pair values from `pabi.reference.theta` at dps=60, the KOV values from
`pabi.reference.approx_dp_composition_delta` at dps=60 (after its atom fix).
"""
import mpmath as mp
import pytest

import pabi
import pabi.reference as R


def _check_up(v, exact, tol):
    exact = mp.mpf(exact)
    assert mp.mpf(v) >= exact, (v, exact)
    assert mp.mpf(v) <= exact * (1 + mp.mpf(tol)) + mp.mpf('2e-323'), (v, exact, (mp.mpf(v) - exact) / exact)


# (P, Q, eps, exact E, old upper) — the old cells could not separate p from γq (their ratio is
# within ~1e-13 of 1 everywhere) and ended on the cell budget.
MIXTURES = [
    # weights nearly tied: P − Q = 3.04e-13·N(0, 1.773²) − 3.04e-13·N(0, 1) (exact weight
    # difference); exact from the analytic root x0 = 1.2951832238275407 of p = q at 70 digits
    ((([3.04035258948385e-13, 0.9999999999996961], [0.0, 0.0], [1.772968488763991, 1.0]),
      ([0.5424221604150485, 0.4575778395849514], [0.0, 0.0], [1.0, 1.0]), 0.0),
     '8.20774716364149262990024001391e-14', 7.616687418616965e-05),
    # subsampled Gaussian at sampling rate 1e-10 (reference at dps=60, grid=400)
    ((([1 - 1e-10, 1e-10], [0.0, 1.0], [1.0, 1.0]), ([1.0], [0.0], [1.0]), 0.0),
     '3.829248970195170162466412e-11', 7.499558933499902e-05),
    ((([1 - 1e-10, 1e-10], [0.0, 1.0], [1.0, 1.0]), ([1.0], [0.0], [1.0]), 1e-11),
     '3.537473303472090319775748e-11', 7.499557933559857e-05),
    # a tiny mean shift: theta(0, 1e-38) (reference at dps=60)
    ((([1.0], [1e-38], [1.0]), ([1.0], [0.0], [1.0]), 0.0),
     '3.989422804014326627479854e-39', 7.505671693267894e-05),
    # one Gaussian each, equal deviations, deep tail: theta(eps, r) at dps=60
    ((([1.0], [-1.4031172984108213], [0.8099024026961539]),
      ([1.0], [-1.403280146030792], [0.8099024026961539]), 0.0011738069684279961),
     '8.645601212910407295829061e-14', 1.1982336596257876e-10),
    ((([1.0], [-0.19052741564290276], [51.93555170008169]),
      ([1.0], [-0.19774863591447112], [51.93555170008169]), 0.005733911162234827),
     '1.684518918777949801197143e-377', 2.1297792525393038e-55),
]


@pytest.mark.parametrize("args,exact,old", MIXTURES)
def test_mixture_near_cancellation(args, exact, old):
    (P, Q, eps) = args
    v = pabi.mixture_hockey_stick_divergence(*P, *Q, eps=eps)
    lo, up = pabi.mixture_hockey_stick_divergence(*P, *Q, eps=eps, bracket=True)
    assert up == v
    ex = mp.mpf(exact)
    # documented accuracy: 2^-43 relative (the refinement target) plus the roundings
    _check_up(v, ex, 2.0 ** -42)
    assert mp.mpf(lo) <= ex
    assert v < old  # the old value, for the record


def test_mixture_pair_underflow_returns_tiny():
    """theta(0.0226, 1.38e-4) = 1.14e-5836 (reference.theta at dps=60): below the subnormals, so the
    upper bound is a few subnormal ulps (the cells returned 9.7e-226)."""
    P = ([1.0], [-1.3847602002832224], [0.3766904527286245])
    Q = ([1.0], [-1.3848122823738374], [0.3766904527286245])
    lo, up = pabi.mixture_hockey_stick_divergence(*P, *Q, eps=0.022649515843576953, bracket=True)
    assert 0.0 < up <= 2e-323 and lo == 0.0


def test_mixture_merged_components_symmetric():
    """P and Q sharing components in a different order give the same as a direct merge."""
    P = ([0.3, 0.7], [1.0, 0.0], [1.0, 1.0])
    Q = ([0.7000000000000001, 0.29999999999999993], [0.0, 1.0], [1.0, 1.0])
    v = pabi.mixture_hockey_stick_divergence(*P, *Q, eps=0.0)
    ex = R.mixture_hockey_stick_divergence(*P, *Q, eps=0.0, dps=60, grid=400)
    _check_up(v, ex, 2.0 ** -42)


# KOV: (eps0, delta0, k, eps, exact at dps=60, old)
KOV = [
    # deep tail (ln of the terms ≈ −650): the 48-ulp-of-|ln T| margin gave +7.1e-12
    ((0.010959291637475681, 0.0, 173852, 174.4025538927669), '1.2017822738029238787e-283', 1.201782273811418e-283),
    ((1.7768538122300246e-05, 5e-324, 436742, 0.2842246894085978), '5.1923682666491126446e-133',
     5.192368266666961e-133),
    # the mode near k (eps0 = 14, 16): the double log-pmf was 1.3e-12 / 3.3e-12 BELOW the exact value
    ((16.0, 0.0, 10**6, 15999900.0), '0.999990004368728487091052', 0.9999900043674725),
    ((14.0, 0.0, 10**6, 13999900.0), '0.9896583323743148821668134', 0.9896583323710113),
]


@pytest.mark.parametrize("args,exact,old", KOV)
def test_kov_delta_tight_and_sound(args, exact, old):
    v = pabi.approx_dp_composition_delta(*args)
    _check_up(v, exact, 1e-13)
    assert v != old


def test_kov_delta_against_reference_sample():
    for args in [(0.5, 1e-3, 4, 0.7), (0.1, 0.0, 10, 1.0), (1e-3, 1e-8, 10**6, 0.5), (0.011450045791455912,
                 6.82830645344205e-297, 10**6, 293.66611529905083), (2.0, 1e-6, 50, 30.0)]:
        v = pabi.approx_dp_composition_delta(*args)
        _check_up(v, R.approx_dp_composition_delta(*args, dps=60), 1e-12)


def test_reference_kov_atom_without_cancellation():
    """1 − (1 − δ0)^k lost every digit for δ0 below 10^-(dps+20): now −expm1(k·log1p(−δ0))."""
    v = R.approx_dp_composition_delta(0.0, 1e-100, 10, 0.0, dps=50)
    with mp.workdps(80):
        ex = -mp.expm1(10 * mp.log1p(-mp.mpf(1e-100)))
    assert abs(v - ex) <= mp.mpf(10) ** -45 * ex
    assert v > 0
