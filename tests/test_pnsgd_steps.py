"""PNSGD with per-step parameters (pabi.pnsgd_stepwise_delta / pnsgd_stepwise_epsilon;
docs/derivations/pnsgd.md#per-step): a piecewise-constant schedule against the 50-digit
composition of its constant pieces in pabi.reference (≤ 1e-12 relative, never below), the
reference composition against the per-step defining sums, a constant schedule = pnsgd_delta to
the bit, the general path (no dispatch) within 1e-13 of the exact value and above it, the laws
(monotone in ε and in each σ_t), the inverse, and bad input."""

from __future__ import annotations

import random

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import _core
from pabi import reference as ref

KW = dict(noise_scale=1.0, max_grad_norm=1.0, diameter=1.0)
ORDERS = [("shuffled", None), ("fixed", 1), ("fixed", 37), ("random_stop", None), ("random_stop", 37)]


def _core_delta(eps: float, *, dispatch: bool, noise: str = "gaussian", ordering: str = "shuffled",
                index=None, noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, smoothness=None,
                strong_convexity=0.0, run_lengths=None, log: bool = False) -> float:
    """The binding directly, with or without the constant dispatch."""
    def arr(x):
        return np.ascontiguousarray(np.atleast_1d(np.asarray(x, dtype=np.float64)))

    sm = None if smoothness is None else arr(smoothness)
    rl = None if run_lengths is None else arr(run_lengths)
    ix = None if index is None else float(index)
    args = (arr(noise_scale), arr(max_grad_norm), arr(lr), arr(diameter), sm, arr(strong_convexity), rl, ix,
            noise, ordering, None, None)
    return float(_core.pnsgd_stepwise_delta(arr(eps), args, log, dispatch)[0])


def _brute(eps: float, ordering: str, index, pieces: list[tuple[dict, int]], noise: str = "gaussian"):
    """The defining per-step sums (docs/derivations/pnsgd.md#per-step) at 50 digits: A_t, B_t per
    step, δ_n(i) = A_i ∏_{t>i} B_t, then the fixed / shuffled / random-stop forms."""
    a, b = [], []
    for kw, m in pieces:
        ai, bi, _ = ref.pnsgd_factors(eps, noise=noise, **kw)
        a += [ai] * m
        b += [bi] * m
    n = len(a)
    with mp.workdps(60):
        def d(i, T):  # A_i ∏_{t=i+1}^T B_t (1-based)
            v = a[i - 1]
            for t in range(i + 1, T + 1):
                v *= b[t - 1]
            return v
        if ordering == "fixed":
            return d(index, n)
        if ordering == "shuffled":
            return mp.fsum(d(i, n) for i in range(1, n + 1)) / n
        rs = [mp.fsum(d(i, T) for T in range(i, n + 1)) / n for i in range(1, n + 1)]
        return rs[index - 1] if index is not None else max(rs)


# ---------------------------------------------------------------------------------------------
# the acceptance check: a piecewise-constant learning-rate schedule = the composed constant pieces


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@pytest.mark.parametrize("ordering,index", ORDERS)
def test_piecewise_lr_schedule_matches_reference(noise, ordering, index):
    rnd = random.Random(hash((noise, ordering, index)) & 0xFFFF)
    worst = 0.0
    for _ in range(6):
        runs = [rnd.randint(1, 40) for _ in range(rnd.randint(2, 5))]
        if ordering == "fixed" or index is not None:
            runs[0] = max(runs[0], 37)
        lr = [10 ** rnd.uniform(-1.5, -0.3) for _ in runs]
        sigma = rnd.uniform(0.5, 3.0)
        eps = rnd.uniform(0.05, 3.0)
        kw = dict(noise=noise, noise_scale=sigma, max_grad_norm=1.0, lr=lr, diameter=1.0,
                  smoothness=1.0, strong_convexity=0.2, ordering=ordering, index=index, run_lengths=runs)
        r = ref.pnsgd_stepwise_delta(eps, **kw)
        v = pabi.pnsgd_stepwise_delta(eps, **kw)
        assert v >= r, (kw, eps, v, r)
        if r > 0:
            worst = max(worst, float(v / r - 1))
            lv = pabi.pnsgd_stepwise_delta(eps, log=True, **kw)
            assert lv >= mp.log(r) and abs(lv - float(mp.log(r))) <= 1e-12 * max(1.0, abs(lv))
    assert worst <= 1e-12


def test_billion_steps_against_reference():
    """n = 1e9 steps in three pieces (O(#pieces)): fixed (ln δ ≈ −3e8), shuffled, random stop."""
    kw = dict(noise_scale=2.0, max_grad_norm=1.0, lr=[0.5, 0.2, 0.05], diameter=1.0,
              run_lengths=[10**8, 4 * 10**8, 5 * 10**8])
    for ordering, index in [("fixed", 10**8), ("shuffled", None), ("random_stop", None),
                            ("random_stop", 10**9 - 5)]:
        r = ref.pnsgd_stepwise_delta(1.0, ordering=ordering, index=index, log=True, **kw)
        v = pabi.pnsgd_stepwise_delta(1.0, ordering=ordering, index=index, log=True, **kw)
        assert v >= r and abs(v - float(r)) <= 1e-12 * abs(v), (ordering, v, r)


# ---------------------------------------------------------------------------------------------
# the per-step defining sums


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
@pytest.mark.parametrize("ordering,index", [("shuffled", None), ("fixed", 3), ("random_stop", None),
                                            ("random_stop", 4)])
def test_reference_and_arrays_match_the_per_step_sums(noise, ordering, index):
    rnd = random.Random(7)
    for _ in range(3):
        sig = [rnd.uniform(0.5, 2.0) for _ in range(9)]
        lr = [rnd.uniform(0.05, 0.9) for _ in range(9)]
        L = [rnd.uniform(0.2, 1.5) for _ in range(9)]
        eps = rnd.uniform(0.1, 2.0)
        pieces = [(dict(noise_scale=s, max_grad_norm=g, lr=e, diameter=1.0), 1) for s, g, e in zip(sig, L, lr)]
        exact = _brute(eps, ordering, index, pieces, noise)
        kw = dict(noise=noise, noise_scale=sig, max_grad_norm=L, lr=lr, diameter=1.0, ordering=ordering,
                  index=index)
        r = ref.pnsgd_stepwise_delta(eps, **kw)
        v = pabi.pnsgd_stepwise_delta(eps, **kw)
        if exact == 0:  # Laplace pure DP: A = 0
            assert r == 0 and v == 0
            continue
        with mp.workdps(50):
            assert abs(r / exact - 1) < 1e-40
        assert v >= exact and v <= exact * (1 + 1e-12)


def test_random_stop_worst_case_inside_a_piece():
    """The maximum over i of the random-stop bound is at an end of a piece: the reference's
    endpoint rule against the maximum over every i of the per-step sums."""
    pieces = [(dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.9, diameter=1.0), 5),
              (dict(noise_scale=1.0, max_grad_norm=2.0, lr=0.05, diameter=1.0), 4),
              (dict(noise_scale=1.0, max_grad_norm=0.3, lr=0.5, diameter=1.0), 6)]
    exact = _brute(0.5, "random_stop", None, pieces)
    kw = dict(noise_scale=1.0, max_grad_norm=[1.0, 2.0, 0.3], lr=[0.9, 0.05, 0.5], diameter=1.0,
              run_lengths=[5, 4, 6], ordering="random_stop")
    with mp.workdps(50):
        assert abs(ref.pnsgd_stepwise_delta(0.5, **kw) / exact - 1) < 1e-40
    v = pabi.pnsgd_stepwise_delta(0.5, **kw)
    assert exact <= v <= exact * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------
# a constant schedule


def _constant_points(count: int):
    rnd = random.Random(16)
    for k in range(count):
        noise = ("gaussian", "laplace")[k % 2]
        ordering, index = [("shuffled", None), ("fixed", None), ("random_stop", None),
                           ("random_stop", 0)][k % 4]
        n = int(10 ** rnd.uniform(0, 12))
        if ordering == "fixed" or index == 0:
            index = rnd.randint(1, n)
        strong = k % 3 == 0
        kw = dict(noise=noise, noise_scale=10 ** rnd.uniform(-1, 1), max_grad_norm=10 ** rnd.uniform(-1, 0.5),
                  lr=10 ** rnd.uniform(-2, -0.4), diameter=10 ** rnd.uniform(-1, 1), ordering=ordering,
                  index=index, smoothness=1.0 if strong else None, strong_convexity=0.3 if strong else 0.0)
        yield rnd.uniform(0, 4), n, kw


def test_constant_schedule_is_pnsgd_delta_to_the_bit():
    for eps, n, kw in _constant_points(400):
        for log in (False, True):
            want = pabi.pnsgd_delta(eps, steps=n, log=log, **kw)
            got = pabi.pnsgd_stepwise_delta(eps, run_lengths=[n], log=log, **kw)
            assert got == want, (eps, n, kw, log)
    # a constant array (one entry per step) and repeated pieces are constant too
    for eps, _, kw in list(_constant_points(60)):
        n = 7
        if kw["index"] is not None:
            kw["index"] = min(kw["index"], n)
        want = pabi.pnsgd_delta(eps, steps=n, **kw)
        arr = dict(kw, lr=[kw["lr"]] * n)
        assert pabi.pnsgd_stepwise_delta(eps, **arr) == want
        assert pabi.pnsgd_stepwise_delta(eps, run_lengths=[3, 4], **kw) == want


def test_constant_schedule_epsilon_is_pnsgd_epsilon_to_the_bit():
    for eps, n, kw in _constant_points(40):
        d = pabi.pnsgd_delta(eps, steps=n, **kw)
        if not 0 < d < 1:
            continue
        assert pabi.pnsgd_stepwise_epsilon(d, run_lengths=[n], **kw) == pabi.pnsgd_epsilon(d, steps=n, **kw)


def test_general_path_agrees_with_the_constant_bound_and_is_sound():
    """Without the dispatch, a constant schedule by the per-run formulas: within 1e-13 of the
    exact value and never below it (|(n − i)·ln B| ≤ 20, below the precise path's threshold, and
    well above it, where both use the double-double ln B)."""
    rnd = random.Random(3)
    worst = 0.0
    for _ in range(60):
        noise = rnd.choice(["gaussian", "laplace"])
        ordering = rnd.choice(["shuffled", "fixed", "random_stop"])
        n = rnd.randint(1, 10**6)
        index = rnd.randint(1, n) if ordering == "fixed" else None
        kw = dict(noise=noise, noise_scale=10 ** rnd.uniform(-0.5, 0.5), max_grad_norm=1.0,
                  lr=10 ** rnd.uniform(-2, -0.3), diameter=1.0, ordering=ordering, index=index)
        eps = rnd.uniform(0.1, 3.0)
        exact = ref.pnsgd_delta(eps, steps=n, **kw)
        got = _core_delta(eps, dispatch=False, run_lengths=[n], **kw)
        if exact == 0:
            assert got >= 0
            continue
        assert got >= exact, (kw, n, eps, got, exact)
        if exact > 1e-300:
            worst = max(worst, float(got / exact - 1))
    assert worst <= 1e-13


# ---------------------------------------------------------------------------------------------
# laws


def test_monotone_in_eps_and_in_each_sigma():
    rnd = random.Random(11)
    for ordering, index in ORDERS:
        for _ in range(5):
            k = 6
            sig = np.array([rnd.uniform(0.5, 3.0) for _ in range(k)])
            kw = dict(max_grad_norm=[rnd.uniform(0.3, 1.5) for _ in range(k)], diameter=1.0,
                      lr=[rnd.uniform(0.05, 0.9) for _ in range(k)], run_lengths=[rnd.randint(7, 30) for _ in range(k)],
                      ordering=ordering, index=index)
            eps = np.sort(np.array([rnd.uniform(0, 4) for _ in range(20)]))
            d = pabi.pnsgd_stepwise_delta(eps, noise_scale=sig, **kw)
            assert np.all(np.diff(d) <= 1e-13 * d[1:])
            base = pabi.pnsgd_stepwise_delta(1.0, noise_scale=sig, **kw)
            for t in range(k):
                s2 = sig.copy()
                s2[t] *= 1.3
                assert pabi.pnsgd_stepwise_delta(1.0, noise_scale=s2, **kw) <= base * (1 + 1e-13)


# ---------------------------------------------------------------------------------------------
# the inverse


@pytest.mark.parametrize("ordering,index", ORDERS)
def test_epsilon_against_reference(ordering, index):
    kw = dict(noise_scale=[1.0, 1.5, 2.0], max_grad_norm=1.0, lr=[0.5, 0.2, 0.1], diameter=1.0,
              run_lengths=[40, 30, 30], ordering=ordering, index=index)
    for target in (1e-2, 1e-5, 1e-9):
        e = pabi.pnsgd_stepwise_epsilon(target, **kw)
        d = pabi.pnsgd_stepwise_delta(e, **kw)
        if e == 0:
            assert d <= target
            continue
        exact = ref.pnsgd_stepwise_epsilon(target, **kw)
        assert e >= exact and float(e / exact - 1) <= 1e-9, (target, e, exact)
        assert d <= target < pabi.pnsgd_stepwise_delta(np.nextafter(e, 0), **kw)


# ---------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("change,param,index", [
    (dict(noise_scale=[1.0, 0.0, 1.0]), "noise_scale", 1),
    (dict(lr=[0.5, 0.5, -1.0]), "lr", 2),
    (dict(max_grad_norm=[1.0, np.nan, 1.0]), "max_grad_norm", 1),
    (dict(diameter=[1.0, 1.0, -2.0]), "diameter", 2),
    (dict(run_lengths=[3, 2.5, 1]), "run_lengths", 1),
    (dict(run_lengths=[3, 0, 1]), "run_lengths", 1),
    (dict(run_lengths=[2.0**52, 2.0**52, 1]), "run_lengths", 1),
    (dict(smoothness=1.0, strong_convexity=0.5, lr=[0.5, 1.5, 0.5]), "lr", 1),
])
def test_bad_input_names_parameter_and_index(change, param, index):
    kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=[0.5, 0.4, 0.3], diameter=1.0)
    kw.update(change)
    with pytest.raises(pabi.DomainError) as ei:
        pabi.pnsgd_stepwise_delta(1.0, **kw)
    msg = str(ei.value)
    assert param in msg and f"index {index}" in msg, msg


def test_bad_options_and_shapes():
    kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=[0.5, 0.4], diameter=1.0)
    with pytest.raises(ValueError, match="index"):
        pabi.pnsgd_stepwise_delta(1.0, ordering="fixed", **kw)
    with pytest.raises(ValueError, match="index"):
        pabi.pnsgd_stepwise_delta(1.0, ordering="shuffled", index=1, **kw)
    with pytest.raises(pabi.DomainError, match="index"):
        pabi.pnsgd_stepwise_delta(1.0, ordering="fixed", index=3, **kw)
    with pytest.raises(ValueError, match="lr has length 2, expected 1 or 3"):
        pabi.pnsgd_stepwise_delta(1.0, **dict(kw, noise_scale=[1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="lr"):
        pabi.pnsgd_stepwise_delta(1.0, run_lengths=[1, 2, 3], **kw)
    with pytest.raises(ValueError):
        pabi.pnsgd_stepwise_delta(1.0, **dict(kw, lr=[]))
    with pytest.raises(pabi.DomainError, match="eps"):
        pabi.pnsgd_stepwise_delta(-1.0, **kw)
    with pytest.raises(pabi.DomainError, match="delta"):
        pabi.pnsgd_stepwise_epsilon(1.5, **kw)
    with pytest.raises(ValueError, match="ordering"):
        pabi.pnsgd_stepwise_delta(1.0, ordering="cyclic", **kw)


def test_epsilon_200_points_safe_side_and_within_1e9():
    """200 random piecewise schedules (both noises, every ordering): the exact δ (reference, 50
    digits) at the returned ε is ≤ the target (never on the wrong side) and above it at
    ε·(1 − 1e-9) (within 1e-9 relative of the exact inverse)."""
    rnd = random.Random(2016)
    for _ in range(200):
        k = rnd.randint(1, 4)
        runs = [rnd.randint(1, 10**rnd.randint(0, 6)) for _ in range(k)]
        n = sum(runs)
        ordering = rnd.choice(["shuffled", "fixed", "random_stop"])
        index = rnd.randint(1, n) if ordering == "fixed" or (ordering == "random_stop" and rnd.random() < 0.5) else None
        kw = dict(noise=rnd.choice(["gaussian", "laplace"]), noise_scale=[10 ** rnd.uniform(-0.3, 0.7) for _ in runs],
                  max_grad_norm=[rnd.uniform(0.2, 1.5) for _ in runs], lr=[10 ** rnd.uniform(-2, -0.3) for _ in runs],
                  diameter=1.0, run_lengths=runs, ordering=ordering, index=index)
        target = 10 ** rnd.uniform(-12, -1)
        e = pabi.pnsgd_stepwise_epsilon(target, **kw)
        assert ref.pnsgd_stepwise_delta(e, dps=30, **kw) <= target, (kw, target, e)
        if e > 0:
            assert ref.pnsgd_stepwise_delta(e * (1 - 1e-9), dps=30, **kw) > target, (kw, target, e)


def test_many_distinct_steps_accuracy():
    """1000 steps, every parameter different at every step (no runs merge): the sums of logs are
    compensated, so ln δ stays within 1e-13 of the 50-digit reference (shuffled, random stop)
    and within 1e-14·|ln δ| + 1e-13 for the fixed order (the per-step factors' own rounding), and
    never below it. (Directed additions alone had drifted by ~1 ulp per step: 3.6e-13 shuffled
    and 2.2e-11 fixed at 3000 steps.)"""
    rng = np.random.default_rng(1)
    n = 1000
    kw = dict(noise_scale=rng.uniform(1.0, 2.0, n), max_grad_norm=rng.uniform(0.5, 1.0, n),
              lr=rng.uniform(0.05, 0.5, n), diameter=1.0)
    for ordering, index in [("shuffled", None), ("random_stop", None), ("random_stop", 300), ("fixed", 100)]:
        r = ref.pnsgd_stepwise_delta(1.0, ordering=ordering, index=index, dps=30, log=True, **kw)
        v = pabi.pnsgd_stepwise_delta(1.0, ordering=ordering, index=index, log=True, **kw)
        tol = 1e-13 + (1e-14 * abs(v) if ordering == "fixed" else 0.0)
        assert r <= v <= r + tol, (ordering, v, r)


# ---------------------------------------------------------------------------------------------
# callables of the step, the block path (more than 2^16 pieces), thread-count invariance

BLOCK = 2**16


def _random_schedule(n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return dict(noise_scale=rng.uniform(1.0, 2.0, n), max_grad_norm=rng.uniform(0.5, 1.0, n),
                lr=rng.uniform(0.01, 0.5, n), diameter=1.0)


def _as_callables(kw: dict) -> dict:
    """The per-step arrays of ``kw`` as vectorised callables of the 1-based step."""
    return {k: (lambda t, v=v: v[t - 1]) if isinstance(v, np.ndarray) else v for k, v in kw.items()}


@pytest.mark.parametrize("ordering,index", [("shuffled", None), ("fixed", 3), ("fixed", 2 * BLOCK + 7),
                                            ("random_stop", None), ("random_stop", BLOCK + 1)])
@pytest.mark.parametrize("n", [1000, 2 * BLOCK + 123])
def test_callable_equals_array_bits(ordering, index, n):
    """A callable of the step gives the bits of the array of its values (one chunk up to 2^16
    steps; beyond, chunk by chunk with the array's blocks), for δ and ln δ, several ε."""
    kw = _random_schedule(n, seed=n)
    if index is not None and index > n:
        index = n
    eps = np.array([0.0, 0.3, 1.0, 2.5])
    for log in (False, True):
        a = pabi.pnsgd_stepwise_delta(eps, ordering=ordering, index=index, log=log, **kw)
        c = pabi.pnsgd_stepwise_delta(eps, ordering=ordering, index=index, log=log, steps=n, **_as_callables(kw))
        assert a.tobytes() == c.tobytes(), (a, c)
        assert np.all(np.isfinite(a)) if log else np.all((a > 0) & (a <= 1))
    # one callable among scalars; smoothness and strong convexity as callables
    kw2 = dict(noise_scale=1.5, max_grad_norm=1.0, diameter=1.0, lr=kw["lr"], smoothness=1.0 + kw["lr"],
               strong_convexity=0.3 * kw["noise_scale"] - 0.29)
    a = pabi.pnsgd_stepwise_delta(eps, ordering=ordering, index=index, **kw2)
    c = pabi.pnsgd_stepwise_delta(eps, ordering=ordering, index=index, steps=n, **_as_callables(kw2))
    assert a.tobytes() == c.tobytes()


def test_callable_epsilon_equals_array_bits():
    """ε(δ) from callables = from the arrays, to the bit (a piecewise schedule across the first
    block boundary: each δ of the search is one pass over the callable)."""
    n = BLOCK + 5000
    t = np.arange(1, n + 1)
    kw = dict(noise_scale=np.where(t <= 40000, 1.5, 2.0), max_grad_norm=1.0, lr=np.where(t <= 60000, 0.5, 0.2),
              diameter=1.0)
    for ordering, index in [("shuffled", None), ("fixed", 30000), ("random_stop", None)]:
        a = pabi.pnsgd_stepwise_epsilon([1e-3, 1e-6], ordering=ordering, index=index, **kw)
        c = pabi.pnsgd_stepwise_epsilon([1e-3, 1e-6], ordering=ordering, index=index, steps=n, **_as_callables(kw))
        assert a.tobytes() == c.tobytes(), (ordering, a, c)
        sched = dict(noise_scale=[1.5, 2.0, 2.0], max_grad_norm=1.0, lr=[0.5, 0.5, 0.2], diameter=1.0,
                     run_lengths=[40000, 20000, n - 60000], ordering=ordering, index=index)
        for e, target in zip(c, [1e-3, 1e-6]):  # the safe side, within 1e-9 of the exact inverse
            assert ref.pnsgd_stepwise_delta(e, dps=30, **sched) <= target
            assert e == 0 or ref.pnsgd_stepwise_delta(e * (1 - 1e-9), dps=30, **sched) > target


def test_constant_callable_is_pnsgd_delta_to_the_bit():
    n = 3 * BLOCK + 17
    kw = dict(noise_scale=1.3, max_grad_norm=1.0, diameter=1.0)
    for ordering, index in [("shuffled", None), ("fixed", 5), ("random_stop", None), ("random_stop", 9)]:
        want = pabi.pnsgd_delta([0.5, 1.0], steps=n, lr=0.25, ordering=ordering, index=index, **kw)
        got = pabi.pnsgd_stepwise_delta([0.5, 1.0], steps=n, lr=lambda t: np.full(t.shape, 0.25),
                                        ordering=ordering, index=index, **kw)
        assert want.tobytes() == got.tobytes()
    d = pabi.pnsgd_delta(1.0, steps=n, lr=0.25, **kw)
    assert pabi.pnsgd_stepwise_epsilon(d, steps=n, lr=lambda t: np.full(t.shape, 0.25), **kw) == \
        pabi.pnsgd_epsilon(d, steps=n, lr=0.25, **kw)


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_piecewise_schedule_per_step_and_callable_against_reference(noise):
    """A 3-piece learning-rate and noise schedule of 150,000 steps given per step (an array:
    the block path, its runs cut at the block boundaries 65,536 and 131,072) and as callables
    (chunk by chunk): the 50-digit composition of the pieces (≤ 1e-12 relative, never below)."""
    runs = [50000, 30000, 70000]
    lr, sig = [0.5, 0.2, 0.05], [1.5, 2.0, 2.5]
    n = sum(runs)
    per = dict(noise_scale=np.repeat(sig, runs), max_grad_norm=1.0, lr=np.repeat(lr, runs), diameter=1.0,
               smoothness=1.0, strong_convexity=0.1)
    for ordering, index in [("shuffled", None), ("fixed", 40000), ("random_stop", None), ("random_stop", 90000)]:
        r = ref.pnsgd_stepwise_delta(0.8, noise=noise, noise_scale=sig, max_grad_norm=1.0, lr=lr, diameter=1.0,
                                     smoothness=1.0, strong_convexity=0.1, run_lengths=runs, ordering=ordering,
                                     index=index, log=True)
        v = pabi.pnsgd_stepwise_delta(0.8, noise=noise, ordering=ordering, index=index, log=True, **per)
        c = pabi.pnsgd_stepwise_delta(0.8, noise=noise, ordering=ordering, index=index, log=True, steps=n,
                                      **_as_callables(per))
        assert v == c
        if r == -mp.inf:  # Laplace, record in the third piece: A = 0 (L/v = ε/2), pure DP
            assert v == -np.inf and (noise, index) == ("laplace", 90000)
            continue
        assert v >= r and abs(v - float(r)) <= 1e-12 * max(1.0, abs(v)), (ordering, v, r)


def test_block_path_agrees_with_one_span():
    """200,000 steps in runs of 10 (20,000 distinct pieces): per step (the block path, runs cut
    at block boundaries) and as run lengths (one span) agree to 1e-13 of ln δ."""
    rng = np.random.default_rng(5)
    k = 20000
    pieces = dict(noise_scale=rng.uniform(1.0, 2.0, k), max_grad_norm=rng.uniform(0.5, 1.0, k),
                  lr=rng.uniform(0.01, 0.5, k), diameter=1.0)
    per = {key: np.repeat(v, 10) if isinstance(v, np.ndarray) else v for key, v in pieces.items()}
    for ordering, index in [("shuffled", None), ("fixed", 77777), ("random_stop", None), ("random_stop", 131070)]:
        a = pabi.pnsgd_stepwise_delta(1.0, ordering=ordering, index=index, log=True, **per)
        b = pabi.pnsgd_stepwise_delta(1.0, ordering=ordering, index=index, log=True, run_lengths=[10] * k, **pieces)
        assert abs(a - b) <= 1e-13 * max(1.0, abs(b)), (ordering, a, b)


def test_thread_count_invariance():
    """More than 2^16 pieces are folded in fixed blocks on the pool: the same bits for 1, 2 and
    3 threads (arrays and run lengths)."""
    kw = _random_schedule(3 * BLOCK + 999, seed=4)
    runs = dict(_random_schedule(BLOCK + 10, seed=6), run_lengths=np.arange(1, BLOCK + 11) % 7 + 1)
    before = pabi.get_num_threads()
    try:
        for args in (kw, runs):
            for ordering, index in [("shuffled", None), ("fixed", 2), ("random_stop", None), ("random_stop", 99999)]:
                got = []
                for th in (1, 2, 3):
                    pabi.set_num_threads(th)
                    got.append(pabi.pnsgd_stepwise_delta([0.2, 1.0], ordering=ordering, index=index, log=True,
                                                         **args).tobytes())
                assert got[0] == got[1] == got[2], ordering
    finally:
        pabi.set_num_threads(before)


def test_bad_callable_output():
    n = 2 * BLOCK + 50
    kw = dict(noise_scale=1.0, max_grad_norm=1.0, diameter=1.0)

    def lr_bad(t):  # out of range at steps 70,001 and 140,001 (0-based 70000, 140000)
        v = np.full(t.shape, 0.3)
        v[(t == 70001) | (t == 140001)] = -1.0
        return v

    for ordering in ("shuffled", "fixed", "random_stop"):  # backward and forward passes
        with pytest.raises(pabi.DomainError) as ei:
            pabi.pnsgd_stepwise_delta(1.0, lr=lr_bad, steps=n, ordering=ordering,
                                      index=1 if ordering == "fixed" else None, **kw)
        assert ei.value.param == "lr" and ei.value.index == 70000, str(ei.value)
    with pytest.raises(pabi.DomainError) as ei:  # not finite, in the one-chunk path
        pabi.pnsgd_stepwise_delta(1.0, lr=lambda t: np.where(t == 7, np.nan, 0.3), steps=100, **kw)
    assert ei.value.param == "lr" and ei.value.index == 6
    with pytest.raises(pabi.DomainError) as ei:
        pabi.pnsgd_stepwise_epsilon(1e-3, lr=0.3, noise_scale=lambda t: 2.0 - t / 6e4, steps=n, max_grad_norm=1.0,
                                    diameter=1.0)
    assert ei.value.param == "noise_scale" and ei.value.index == 119999
    with pytest.raises(ValueError, match="vectorised"):
        pabi.pnsgd_stepwise_delta(1.0, lr=lambda t: 0.3, steps=n, **kw)
    with pytest.raises(ValueError, match="vectorised"):
        pabi.pnsgd_stepwise_delta(1.0, lr=lambda t: np.full(len(t) + 1, 0.3), steps=10, **kw)
    def boom(t):
        if t[0] > BLOCK:
            raise ZeroDivisionError("boom")
        return 0.3 + 0 * t

    with pytest.raises(ZeroDivisionError, match="boom"):  # the callable's own exception
        pabi.pnsgd_stepwise_delta(1.0, lr=boom, steps=n, **kw)
    with pytest.raises(ValueError, match="steps"):
        pabi.pnsgd_stepwise_delta(1.0, lr=lambda t: 0.3 + 0 * t, **kw)
    with pytest.raises(ValueError, match="steps"):
        pabi.pnsgd_stepwise_delta(1.0, lr=[0.3, 0.2], steps=2, **kw)
    with pytest.raises(ValueError, match="run_lengths"):
        pabi.pnsgd_stepwise_delta(1.0, lr=lambda t: 0.3 + 0 * t, steps=4, run_lengths=[4], **kw)
    with pytest.raises(ValueError, match="scalar"):
        pabi.pnsgd_stepwise_delta(1.0, lr=lambda t: 0.3 + 0 * t, steps=2, **dict(kw, noise_scale=[1.0, 2.0]))
    with pytest.raises(pabi.DomainError, match="steps"):
        pabi.pnsgd_stepwise_delta(1.0, lr=lambda t: 0.3 + 0 * t, steps=0, **kw)
    with pytest.raises(pabi.DomainError, match="index"):
        pabi.pnsgd_stepwise_delta(1.0, lr=lambda t: 0.3 + 0 * t, steps=n, ordering="fixed", index=n + 1, **kw)


def test_epsilon_with_callables_bounds_its_work_before_reading():
    """ε(δ) reads the callables once per evaluation of δ (~130 per target): more than 2^40 step
    reads is a DomainError naming steps, raised before the callable is called once."""
    calls = []

    def lr(t):
        calls.append(len(t))
        return np.full(t.shape, 0.1)

    with pytest.raises(pabi.DomainError) as e:
        pabi.pnsgd_stepwise_epsilon(1e-5, noise_scale=1.0, max_grad_norm=1.0, diameter=1.0, lr=lr, steps=2**40)
    assert e.value.param == "steps" and calls == []


def test_failing_chunk_is_not_followed_by_reads():
    """After a bad chunk, a forward pass reads nothing again (the earlier chunks were checked), a
    backward pass reads the earlier chunks once more (to name the first bad step), and a callable
    that raises is not called again."""
    n = 3 * BLOCK + 10
    kw = dict(noise_scale=1.0, max_grad_norm=1.0, diameter=1.0)
    calls: list[int] = []

    def lr_bad(t):  # out of range in the third chunk only
        calls.append(int(t[0]))
        return np.where(t == 2 * BLOCK + 5, -1.0, 0.3)

    with pytest.raises(pabi.DomainError) as ei:  # ordering="fixed" at index 1: a forward pass
        pabi.pnsgd_stepwise_delta(1.0, lr=lr_bad, steps=n, ordering="fixed", index=1, **kw)
    assert ei.value.index == 2 * BLOCK + 4 and calls == [1, BLOCK + 1, 2 * BLOCK + 1]
    calls.clear()
    with pytest.raises(pabi.DomainError) as ei:  # shuffled: a backward pass, then chunks 1-2 again
        pabi.pnsgd_stepwise_delta(1.0, lr=lr_bad, steps=n, **kw)
    assert ei.value.index == 2 * BLOCK + 4 and calls == [3 * BLOCK + 1, 2 * BLOCK + 1, 1, BLOCK + 1]
    calls.clear()

    def boom(t):
        calls.append(int(t[0]))
        if t[0] > BLOCK:
            raise ZeroDivisionError("boom")
        return 0.3 + 0 * t

    with pytest.raises(ZeroDivisionError):
        pabi.pnsgd_stepwise_delta(1.0, lr=boom, steps=n, ordering="fixed", index=1, **kw)
    assert calls == [1, BLOCK + 1]
