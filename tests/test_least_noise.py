"""``setup.least_noise`` by the lock-step exact search (``_core.first_ok_many``, issue 16): every
element bit-identical to the scalar ``calibrate`` on random targets for each setup whose flat
functions broadcast over the calibrated field, the same errors at the same index, the
lock-step search primitive itself, and the online Gaussian limit's calibration of C1 against
the mpmath reference."""

from __future__ import annotations

import math
import zlib

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import _core
from pabi.reference import _schedules as rs


def _bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def _setups():
    """(setup, range of its calibrated field, range of the target's other coordinate (δ for a
    setup that tests ε(δ), ε for one that tests δ(ε)))."""
    return {
        "CyclicDPSGD": (pabi.CyclicDPSGD(records=100, batch_size=10, epochs=2, lr=0.1, max_grad_norm=1.0,
                                         noise_multiplier=4.0), (0.5, 20.0), (1e-9, 1e-3)),
        "ScheduledPNSGD": (pabi.ScheduledPNSGD(steps=10**4, lr=0.1, max_grad_norm=10.0, diameter=1.0, c1=1e3,
                                               c2=100.0), (10.0, 1e6), (1e-6, 1e-3)),
        "OnlinePNSGD": (pabi.OnlinePNSGD(index=10, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=1.0,
                                         decay=1.5, steps=20), (1.0, 1e4), (0.5, 5.0)),
        "OnlinePNSGD_laplace": (pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=1.0,
                                                 c2=0.5, decay=1.5, steps=1000, noise="laplace"),
                                (0.1, 20.0), (0.2, 1.0)),  # (C1 ends above, at index^α/(e^{ε/2} − C2))
        "LastIterateSGD": (pabi.LastIterateSGD(theorem="general", lr=0.1, max_grad_norm=1.0, noise_scale=3.0,
                                               steps=100), (0.5, 50.0), (1e-9, 1e-3)),
        "ERMGradientDescent": (pabi.ERMGradientDescent(lr=0.5, strong_convexity=1.0, smoothness=2.0,
                                                       max_grad_norm=1.0, batch_size=10, batches_per_epoch=2,
                                                       noise_scale=1.0), (0.05, 20.0), (1e-9, 1e-3)),
        "StepwisePNSGD": (pabi.StepwisePNSGD(noise_scale=[1.0, 2.0, 0.5], max_grad_norm=1.0, lr=[0.5, 0.1, 0.2],
                                             diameter=1.0, run_lengths=[30, 20, 10]), (0.3, 10.0), (0.2, 5.0)),
    }


def _targets(name: str, n: int):
    """n random reachable targets: the setup's own ε(δ) (or δ(ε)) at a random value of its
    field (log-uniform), loosened by a random factor up to 1 + 1e-4 (not on a computed value)."""
    s, (x0, x1), (t0, t1) = _setups()[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x = np.exp(rng.uniform(math.log(x0), math.log(x1), n))
    other = np.exp(rng.uniform(math.log(t0), math.log(t1), n))
    loosen = 1 + 1e-4 * rng.uniform(0, 1, n)
    field = type(s).calibrated_field
    if isinstance(s, (pabi.OnlinePNSGD, pabi.StepwisePNSGD)):  # δ(ε) is their question
        delta = np.array([s.replace(**{field: float(v)}).delta(float(e)) for v, e in zip(x, other)]) * loosen
        return s, other, delta
    eps = np.array([s.replace(**{field: float(v)}).epsilon(float(d)) for v, d in zip(x, other)]) * loosen
    return s, eps, other


@pytest.mark.parametrize("name", list(_setups()))
def test_lock_step_is_the_scalar_calibration(name):
    """50 random targets (two of them repeated, in a 2-D shape; 16 for the online Laplace
    schedule, each with its own ε, so its own end of C1's domain): each element of least_noise
    is the scalar calibrate's field to the bit."""
    n = 16 if name == "OnlinePNSGD_laplace" else 50  # (its scalar search costs ~0.1 s a target)
    s, eps, delta = _targets(name, n)
    eps[7], delta[7] = eps[3], delta[3]
    got = s.least_noise(eps.reshape(2, -1), delta.reshape(2, -1))
    assert got.shape == (2, n // 2)
    field = type(s).calibrated_field
    want = [getattr(s.calibrate(float(e), float(d)), field) for e, d in zip(eps, delta)]
    assert np.array_equal(_bits(got.reshape(-1)), _bits(want)), [
        (i, got.flat[i], want[i]) for i in range(n) if _bits(got.flat[i]) != _bits(want[i])]


def test_online_laplace_limit_lock_step_is_the_scalar_calibration():
    """The online Laplace schedule in the limit (steps=None: the certified δ_∞, whose domain in
    C1 ends above at each ε), two targets of two ε (in a 2-D shape; the scalar search costs
    ~260 certified limits a target): each element is the scalar calibrate's C1 to the bit."""
    s = pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=1.0, c2=0.5, decay=1.5,
                         noise="laplace")
    rng = np.random.default_rng(11)
    eps = rng.uniform(0.2, 1.0, 2)
    x = np.exp(rng.uniform(math.log(0.1), math.log(20.0), 2))
    loosen = 1 + 1e-4 * rng.uniform(0, 1, 2)
    delta = np.array([s.replace(c1=float(v)).delta(float(e)) for v, e in zip(x, eps)]) * loosen
    got = s.least_noise(eps.reshape(2, 1), delta.reshape(2, 1))
    want = [s.calibrate(float(e), float(d)).c1 for e, d in zip(eps, delta)]
    assert np.array_equal(_bits(got.reshape(-1)), _bits(want)), (got, want)


@pytest.mark.parametrize("steps", [1000.0, None])
def test_online_bound_defined_is_the_flat_function(steps):
    """The online bound with its "defined" mask (``pabi.schedules._online_defined``, one core
    call): where the flat function (``online_laplace_delta`` at a horizon,
    ``online_laplace_delta_limit_upper`` in the limit) returns, the same value to the bit and
    True; where it raises its DomainError on the Laplace domain (naming ``index``), NaN and
    False; the mask alone is the same; the Gaussian schedule is defined everywhere; any other
    error is the flat function's, at its index, even beside undefined elements."""
    from pabi.schedules import _online_defined

    rng = np.random.default_rng(3)
    kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100.0, c2=0.5, decay=1.5)
    if steps is not None:
        kw["steps"] = steps
    n = 40 if steps is not None else 12  # (a certified limit costs ~0.1 s)
    eps = rng.uniform(0.0, 3.0, n)
    c1 = np.exp(rng.uniform(math.log(100.0), math.log(3000.0), n))  # around the end of the domain
    flat = pabi.online_laplace_delta if steps is not None else pabi.online_laplace_delta_limit_upper
    vals, defined = _online_defined(eps, True, True, **kw, c1=c1)
    assert 0 < defined.sum() < n
    for j in range(n):
        try:
            want = flat(float(eps[j]), **kw, c1=float(c1[j]))
        except pabi.DomainError as e:
            assert e.param == "index" and not defined[j] and math.isnan(vals[j])
        else:
            assert defined[j] and _bits(vals[j]) == _bits(want)
    assert np.array_equal(_online_defined(eps, True, False, **kw, c1=c1)[1], defined)
    g = _online_defined(eps[:6], False, True, **kw, c1=c1[:6])
    assert g[1].all() and _bits(g[0][5]) == _bits((pabi.online_gaussian_delta if steps is not None else
                                                    pabi.online_gaussian_delta_limit_upper)(eps[5], **kw, c1=c1[5]))
    bad = c1.copy()
    bad[[7, 9]] = -1.0
    assert not defined[:7].all()  # an undefined element before the bad one: still the bad one's error
    for values in (True, False):
        with pytest.raises(pabi.DomainError) as err:
            _online_defined(eps, True, values, **kw, c1=bad)
        assert (err.value.param, err.value.index) == ("c1", 7)
    if steps is not None:
        with pytest.raises(pabi.DomainError) as want_err:
            flat(eps, **dict(kw, steps=np.where(np.arange(n) == 30, 50.0, steps)), c1=1.0)
        with pytest.raises(pabi.DomainError) as err:
            _online_defined(eps, True, False, **dict(kw, steps=np.where(np.arange(n) == 30, 50.0, steps)), c1=1.0)
        assert str(err.value) == str(want_err.value) and err.value.index == 30
    one = np.ones(1)  # the mask is for the forward bound only
    with pytest.raises(pabi.DomainError, match="defined"):
        _core.online_schedule_bound("delta", one * 1e-5, one, one * 1e3, one * 1e2, one, one, one * 1.5,
                                    (one * 0.01, one, None, one * 0.0), True, False, False, inverse=True, defined=True)


def test_lock_step_errors_are_the_scalar_errors():
    """An unreachable target raises the scalar calibrate's DomainError (same message) at its
    index; an error of the setup itself is raised before any search, at the first target."""
    s, _, _ = _setups()["ScheduledPNSGD"]
    with pytest.raises(pabi.DomainError) as scalar:
        s.calibrate(30.0, 1e-6)  # below the floor of ε as C1 → ∞ (≈ 43.34)
    with pytest.raises(pabi.DomainError) as err:
        s.least_noise([[44.0, 30.0], [30.0, 44.0]], 1e-6)
    assert (err.value.param, err.value.index, err.value.value) == ("c1", (0, 1), math.inf)
    assert str(err.value) == str(scalar.value) + " at index (0, 1)"
    lap = pabi.OnlinePNSGD(index=100, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=100.0, decay=1.5,
                           steps=1000, noise="laplace")  # δ has a floor > 1e-10 as C1 grows
    with pytest.raises(pabi.DomainError) as scalar:
        lap.calibrate(1.0, 1e-10)
    with pytest.raises(pabi.DomainError) as err:
        lap.least_noise(1.0, [1e-3, 1e-10, 1e-10])
    assert (err.value.param, err.value.index) == ("c1", 1) and str(err.value) == str(scalar.value) + " at index 1"
    ar = pabi.LastIterateSGD(theorem="general", lr=0.1, max_grad_norm=1.0, noise_scale=3.0, steps=100,
                             neighboring="add_remove")
    with pytest.raises(pabi.DomainError) as err:
        ar.least_noise([1.0, 2.0], 1e-5)
    assert "replace-one" in str(err.value) and getattr(err.value, "index", None) is None  # the setup's own
    no_bound = pabi.CyclicDPSGD(records=100, batch_size=10, epochs=2, lr=0.1, max_grad_norm=1.0,
                                noise_multiplier=4.0, neighboring="add_remove")
    with pytest.raises(pabi.DomainError, match="no last-iterate bound"):
        no_bound.least_noise([1.0, 2.0], 1e-5)


def test_pnsgd_unreachable_is_the_scalar_error():
    """One-epoch PNSGD (one core call for every target): a calibrated value that replace
    rejects (no gradient, no noise needed: 0) is the scalar calibrate's error at its index,
    without rerunning every target."""
    s = pabi.PNSGD(records=1000, lr=0.05, noise_scale=4.0, max_grad_norm=0.0, diameter=1.0, smoothness=10.0,
                   convex=True)
    with pytest.raises(pabi.DomainError) as scalar:
        s.calibrate(1.0, 1e-5)
    with pytest.raises(pabi.DomainError) as err:
        s.least_noise([[1.0, 2.0]], 1e-5)
    assert (err.value.param, err.value.index) == ("noise_scale", (0, 0))
    assert str(err.value) == str(scalar.value) + " at index (0, 0)"


def test_first_ok_many():
    """The lock-step primitive: each element is the scalar first_ok of its own predicate (here
    thresholds t_k, a non-monotone one, and one never met); one call per round; a bad return
    length and an exception of the predicate are raised."""
    t = np.array([0.3, 1e-300, 7.0, 0.0, 5e-324, 2.0])
    rounds = []

    def ok_many(x, k):
        assert x.dtype == np.float64 and k.dtype == np.int64 and x.size == k.size
        scrambled = (x.view(np.uint64) ^ np.uint64(3)).view(np.float64)
        return np.where(k == 5, scrambled >= t[k], np.where(k == 2, False, x >= t[k]))

    got = _core.first_ok_many(lambda x, k: rounds.append(x.size) or ok_many(x, k), np.full(t.size, 1.0))
    for k in range(t.size):
        want = _core.first_ok(lambda x, k=k: bool(ok_many(np.array([x]), np.array([k]))[0]), 1.0)
        assert _bits(got[k]) == _bits(want)
    assert got[0] == 0.3 and got[2] == math.inf and got[3] == 0.0 and len(rounds) <= 130
    with pytest.raises(ValueError, match="returned 1 values for 2 probes"):
        _core.first_ok_many(lambda x, k: np.ones(1, dtype=bool), np.ones(2))

    def boom(x, k):
        raise KeyError("stop")

    with pytest.raises(KeyError):
        _core.first_ok_many(boom, np.ones(3))
    assert _core.first_ok_many(boom, np.zeros(0)).shape == (0,)


def test_rdp_to_dp_epsilon_rows():
    """Row j converted at delta[j]: the single-curve conversion to the bit; mismatched sizes and
    bad values raise."""
    o = np.asarray(pabi.DEFAULT_ORDERS, dtype=np.float64)
    rows = np.outer([0.01, 0.5, 3.0], o)
    d = np.array([1e-5, 1e-3, 0.2])
    got = _core.rdp_to_dp_epsilon_rows(o, rows.reshape(-1), d)
    for j in range(3):
        assert _bits(got[j]) == _bits(pabi.rdp_to_dp_epsilon(float(d[j]), orders=o, rdp=rows[j]).eps)
    with pytest.raises(ValueError):
        _core.rdp_to_dp_epsilon_rows(o, rows.reshape(-1)[:-1], d)
    with pytest.raises(pabi.DomainError):
        _core.rdp_to_dp_epsilon_rows(o, rows.reshape(-1), np.array([1e-5, 1.5, 0.2]))



def test_rdp_to_dp_epsilon_rows_in_parallel():
    """Enough rows for the core's parallel path (chunks of rows on the pool): every row still
    the single-curve conversion to the bit, and the first failing row's error."""
    o = np.asarray(pabi.DEFAULT_ORDERS, dtype=np.float64)
    rng = np.random.default_rng(7)
    scale = 10 ** rng.uniform(-3, 1, 600)
    rows = np.outer(scale, o)
    d = 10 ** rng.uniform(-10, -1, 600)
    got = _core.rdp_to_dp_epsilon_rows(o, rows.reshape(-1), d)
    for j in range(0, 600, 7):
        assert _bits(got[j]) == _bits(pabi.rdp_to_dp_epsilon(float(d[j]), orders=o, rdp=rows[j]).eps)
    bad = rows.copy()
    bad[400, 3] = -1.0
    bad[500, 2] = np.nan
    with pytest.raises(pabi.DomainError) as e:
        _core.rdp_to_dp_epsilon_rows(o, bad.reshape(-1), d)
    assert e.value.index == 3

def test_online_gaussian_limit_calibration_against_the_reference():
    """C1 for a target of the limit δ_∞ (steps=None, Gaussian schedule): the smallest double
    whose certified δ_∞ meets δ = 1e-20 at ε = 1, on the safe side of the exact (mpmath) inverse
    and within 1e-9 of it. Each certified δ_∞ costs ~0.1 s and a search from afar ~130 of them,
    so the search starts at its own answer (found once from C1 = 100, 85.57977217456917): it
    then confirms it with two evaluations (met there, missed one ulp below); the answer itself is
    judged by the reference alone. The reference's exact δ_∞ (direct sum, Euler–Maclaurin tail)
    at 12 digits is within ~1e-13 of its 30-digit value here, far inside both margins (5e-13
    above, 3.6e-8 below)."""
    kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c2=100.0, decay=1.5)
    s = pabi.OnlinePNSGD(**kw, c1=85.57977217456917)
    c = s.calibrate(1.0, 1e-20).c1
    assert s.replace(c1=c).delta(1.0) <= 1e-20 < s.replace(c1=math.nextafter(c, 0.0)).delta(1.0)
    assert _bits(s.least_noise(1.0, 1e-20)) == _bits(c)  # the lock-step search on the limit: the same
    exact = lambda x, dps: rs.online_schedule_delta_limit("gaussian", 1.0, c1=x, dps=dps, T=40, **kw)  # noqa: E731
    assert exact(c, 12) <= mp.mpf(1e-20)  # the safe side: C1 at least the exact inverse
    assert exact(c * (1 - 1e-9), 8) > mp.mpf(1e-20)  # and less than 1e-9 above it


def test_dpsgd_many_targets_are_the_scalar_calibration():
    """DP-SGD: the core calibrates every distinct target in one call, in parallel; each element
    is the scalar calibrate's noise multiplier to the bit (a repeated target once), and an
    unreachable target (ε above the calibration's 100) is the scalar error at its first index."""
    s = pabi.DPSGD(sample_rate=0.5, noise_multiplier=1.0, steps=2, grid_step=1e-3, neighboring="replace_one")
    eps = np.array([[1.5, 3.0, 1.5], [0.9, 3.0, 2.2]])
    delta = np.array([[1e-3, 1e-5, 1e-3], [1e-4, 1e-5, 1e-3]])
    got = s.least_noise(eps, delta)
    want = {(e, d): s.calibrate(e, d).noise_multiplier for e, d in set(zip(eps.flat, delta.flat))}
    assert np.array_equal(_bits(got.reshape(-1)), _bits([want[(e, d)] for e, d in zip(eps.flat, delta.flat)]))
    e, d = np.array([1.5, 150.0, 150.0, 1.5]), np.array([1e-3, 1e-5, 1e-6, 1e-3])
    with pytest.raises(pabi.DomainError) as loop:  # the per-target loop's error (the scalar calibrate's)
        pabi.setups._Questions._least_noise_all(s, e, d, (2, 2))
    orig = pabi.dpsgd_calibrate_noise_multiplier
    try:  # the failed target's error is the core call's, not found by calibrating it again
        pabi.dpsgd_calibrate_noise_multiplier = None
        with pytest.raises(pabi.DomainError) as err:
            s.least_noise(e.reshape(2, 2), d.reshape(2, 2))
    finally:
        pabi.dpsgd_calibrate_noise_multiplier = orig
    assert (err.value.param, err.value.index) == ("eps", (0, 1)) and str(err.value) == str(loop.value)
    assert isinstance(err.value.__cause__, pabi.DomainError) and err.value.__cause__.index is None


def test_failed_elements_of_a_many_target_call():
    """A many-target core call's failed elements: a DomainError misses the target (the scalar
    rule's verdict, not run again), any other error is undefined (judged one by one, which
    raises it)."""
    from pabi._lockstep import failed_elements

    missed, undefined = failed_elements(4, [(1, pabi.DomainError("x")), (3, ValueError("y"))])
    assert missed.tolist() == [False, True, False, False] and undefined.tolist() == [False, False, False, True]


def test_setup_leftovers():
    """Issue 14: ERM's sensitivities are computed once per setup (not once per lock-step round
    of least_noise), and the online setup's arguments are built once, in the flat functions'
    order, with ``steps`` only at a horizon."""
    from pabi import _setups_more

    erm = pabi.ERMGradientDescent(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0, batch_size=10,
                                  batches_per_epoch=3, noise_scale=1.0)
    calls = []
    orig = pabi.sensitivity_multi_epoch
    try:
        pabi.sensitivity_multi_epoch = lambda **kw: calls.append(kw) or orig(**kw)
        x = np.array([0.5, 1.0, 2.0])
        rounds = [erm._met_many(x, np.full(3, 1.0), np.full(3, 1e-5)) for _ in range(3)]  # three rounds
    finally:
        pabi.sensitivity_multi_epoch = orig
    eps = [erm.replace(noise_scale=v).epsilon(1e-5) for v in x]  # (verdicts, undefined, ε): the scalar ones
    assert calls == [] and all(np.array_equal(r[0], [e <= 1.0 for e in eps]) and not r[1].any()
                               and np.array_equal(r[2], eps) for r in rounds)
    s = erm.sensitivities()
    s[0] = -1.0  # a copy: the setup's own values are untouched
    assert erm.sensitivities()[0] > 0 and np.array_equal(erm.sensitivities(), orig(**erm.sensitivity_arguments(
        np.arange(1, 4, dtype=np.float64))))
    kw = dict(index=10, lr=0.01, max_grad_norm=10.0, diameter=1.0, c1=100.0, c2=1.0, decay=1.5)
    order = ["max_grad_norm", "lr", "diameter", "steps", "index", "c1", "c2", "decay", "smoothness",
             "strong_convexity"]
    assert list(_setups_more.OnlinePNSGD(**kw, steps=20).bound_arguments()) == order
    assert list(_setups_more.OnlinePNSGD(**kw).bound_arguments()) == [k for k in order if k != "steps"]


def test_multi_epoch_pnsgd_lock_step_is_the_scalar_calibration():
    """Multi-epoch PNSGD: each round's PLDs (one per target) built and composed by the core in
    parallel; every element is the scalar calibrate's noise scale to the bit."""
    s = pabi.PNSGD(records=100, lr=0.05, noise_scale=4.0, max_grad_norm=1.0, diameter=1.0, smoothness=10.0,
                   convex=True, epochs=2)
    eps, delta = np.array([1.0, 3.0, 1.0]), np.array([1e-5, 1e-6, 1e-5])
    got = s.least_noise(eps, delta)
    want = [s.calibrate(float(e), float(d)).noise_scale for e, d in zip(eps[:2], delta[:2])]
    assert np.array_equal(_bits(got), _bits(want + want[:1])), (got, want)


def test_profiles_composed_epsilon_is_the_one_by_one_route():
    """The core's parallel PLD step of multi-epoch PNSGD: each profile's composed upper ε is what
    PrivacyLossDistribution.from_profile(...).compose(...).epsilon(...) gives; a profile the PLD
    rejects (increasing δ, too short) is NaN, not an error of the batch, and its error (typed,
    at its index) is the one-by-one route's, so the caller need not run that route again."""
    prof = [pabi.gdp_delta(np.arange(4001) * 1e-3, 0.5), np.array([0.1, 0.2, 0.3]), np.array([0.5]),
            pabi.gdp_delta(np.arange(3001) * 1e-3, 0.3)]
    offsets = np.cumsum([0] + [p.size for p in prof])
    delta = np.array([1e-5, 1e-5, 1e-5, 1e-3])
    got, mass, errors = _core.pld_profiles_composed_epsilon(1e-3, np.concatenate(prof), offsets.tolist(), 3,
                                                            1e-15, delta)
    comp = [pabi.PrivacyLossDistribution.from_profile(prof[k], grid_step=1e-3).compose(3) for k in (0, 3)]
    one = [c.epsilon(d).upper for c, d in zip(comp, delta[[0, 3]])]
    assert np.array_equal(_bits(got[[0, 3]]), _bits(one)) and np.isnan(got[1:3]).all()
    # the mass each finite ε took from δ (what guides the search across the edge where ε jumps to
    # +inf): at least the composition's +inf mass, tail above and FFT error, below δ; NaN where failed
    for m, c, d in zip(mass[[0, 3]], comp, delta[[0, 3]]):
        b = c.error_budget
        assert b.inf_mass + b.tail_above + b.fft_error <= m < d, (m, b)
    assert np.isnan(mass[1:3]).all()
    assert [i for i, _ in errors] == [1, 2]
    for i, err in errors:
        with pytest.raises(pabi.DomainError) as scalar:
            pabi.PrivacyLossDistribution.from_profile(prof[i], grid_step=1e-3).compose(3).epsilon(delta[i])
        assert type(err) is type(scalar.value) and str(err) == str(scalar.value)


def test_lock_step_judges_undefined_elements_one_by_one():
    """A round evaluation that reports some elements undefined (``(verdicts, undefined)``) has
    those judged by the scalar rule: the result is still the scalar calibration, to the bit."""
    from pabi._lockstep import least_noise_many

    s, eps, delta = _targets("ScheduledPNSGD", 6)
    rng = np.random.default_rng(7)

    def met(x, e, d):  # the true verdicts and ε, with wrong verdicts marked undefined at random
        undefined = rng.uniform(size=x.size) < 0.5
        ok, _, eps_x = s._met_many(x, e, d)
        return np.where(undefined, ~ok, ok), undefined, eps_x

    got = least_noise_many(s, "c1", eps, delta, (6,), met, s._require)
    assert np.array_equal(_bits(got), _bits([s.calibrate(float(e), float(d)).c1 for e, d in zip(eps, delta)]))


def test_stepwise_factors_core_call_is_the_one_schedule_bound():
    """Issue 16 (b): StepwisePNSGD's round evaluation, one core call over candidate noise
    factors: each δ is the one-schedule bound's at that noise sequence, to the bit; a factor
    whose sequence overflows (+inf) is NaN with the one-schedule bound's DomainError at its
    index (not an error of the batch), so it misses the target without being judged again; an
    error of the setup itself (add/remove neighbours) is the scalar calibrate's, raised first."""
    s = pabi.StepwisePNSGD(noise_scale=[1.0, 1e300], max_grad_norm=1.0, lr=[0.5, 0.1], diameter=1.0,
                           run_lengths=[50, 50], ordering="random_stop")
    x, eps = np.array([0.5, 1.0, 1e10, 3.0]), np.array([1.0, 0.5, 1.0, 2.0])
    ok, undefined, d = s._met_many(x, eps, np.full(4, 0.1))
    assert not undefined.any()
    want = [s.replace(noise_factor=float(v)).delta(float(e)) for v, e in zip(x[[0, 1, 3]], eps[[0, 1, 3]])]
    assert ok.tolist() == [w <= 0.1 for w in want[:2]] + [False, want[2] <= 0.1]
    assert np.array_equal(d[[0, 1, 3]], want) and np.isnan(d[2])  # the δ guiding the search: NaN where it missed
    from pabi.pnsgd import _stepwise
    kw = dict(s.bound_arguments(), noise_scale=s.noise_scale)
    d, errors = _stepwise(lambda lead, a, *_: _core.pnsgd_stepwise_delta_factors(lead, x, a, True), ("eps", eps),
                          noise=kw.pop("noise"), ordering=kw.pop("ordering"), index=kw.pop("index"),
                          run_lengths=kw.pop("run_lengths"), steps=None, values=kw)
    assert np.array_equal(_bits(d[[0, 1, 3]]), _bits(want)) and np.isnan(d[2])
    with pytest.raises(pabi.DomainError) as scalar:
        s.replace(noise_factor=1e10).delta(1.0)
    [(i, err)] = errors
    assert i == 2 and type(err) is type(scalar.value) and str(err) == str(scalar.value)
    ar = s.replace(neighboring="add_remove")
    with pytest.raises(pabi.DomainError) as scalar:
        ar.calibrate(1.0, 1e-5)
    with pytest.raises(pabi.DomainError) as err:
        ar.least_noise([1.0, 2.0], 1e-5)
    assert str(err.value) == str(scalar.value)


def test_search_predicate_answers():
    """The core search's Python predicates answer by a verdict, or by (verdict, float ratio): a
    ratio only moves the probes, never the result; any other tuple answers by its truth value,
    and a round's tuple of bools is that round's verdicts (issue 17's value-guided search)."""
    want = math.nextafter(1.5, 0.0)  # the threshold is any double: here one below 1.5
    assert _core.first_ok(lambda x: x >= want, 1.0) == want
    assert _core.first_ok(lambda x: (x >= want, 2 * want / (x + want)), 1.0) == want
    assert _core.first_ok(lambda x: (False, False), 1.0) == 0.0  # a non-empty tuple: truthy
    got = _core.first_ok_many(lambda x, k: tuple(bool(v >= (want, 3.0)[i]) for v, i in zip(x, k)),
                              np.array([1.0, 1.0]))
    assert got.tolist() == [want, 3.0]


@pytest.mark.parametrize("name,eps,delta", [
    ("OnlinePNSGD", 1.0, 1e-3), ("OnlinePNSGD", 3.0, 1e-6),
    ("OnlinePNSGD_laplace", 0.5, 1e-2), ("OnlinePNSGD_laplace", 0.5, 1e-12),
    ("OnlinePNSGD_laplace_floor", 1.0, 1e-10), ("PNSGD_multi_epoch", 2.0, 1e-3)])
def test_single_target_calibrate_is_the_scalar_route(name, eps, delta):
    """The single-target ``calibrate`` of multi-epoch PNSGD and of the online schedules judges each
    probe through the setup's array test at one element (``_lockstep._meets_one_by``, and the
    online end of the accepted values by the core's mask): the value, or the error, of the search
    that judges every probe by ``replace`` and the scalar bound (``met_many=None``)."""
    from pabi.setups import _least_noise

    setup = _setups()[name][0] if name in _setups() else pabi.PNSGD(
        records=200, lr=0.05, noise_scale=4.0, max_grad_norm=1.0, diameter=1.0, smoothness=10.0, convex=True, epochs=3)
    if name.endswith("_floor"):  # C2 = 100: δ has a floor above the target as C1 grows (met nowhere)
        setup = _setups()["OnlinePNSGD_laplace"][0].replace(c2=100.0)
    field, question = ("c1", "delta") if name.startswith("Online") else ("noise_scale", "epsilon")
    laplace = getattr(setup, "noise", "") == "laplace" and name.startswith("Online")
    defined = (lambda s: setup._defined(s, eps)) if laplace else None

    def run(f):
        try:
            return float(getattr(f(), field)), None
        except pabi.DomainError as e:
            return None, str(e)

    got = run(lambda: setup.calibrate(eps, delta))
    want = run(lambda: _least_noise(setup, field, eps, delta, question, defined))
    assert got == want
    assert (got[0] is None) == name.endswith("_floor")
    if got[0] is not None:
        assert _bits(got[0]) == _bits(want[0])
