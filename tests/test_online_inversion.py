"""ε(δ) of online PNSGD (issue 16): online_epsilon (any per-step noise), online_laplace_epsilon
and online_gaussian_epsilon (the online schedules) return the smallest double ε whose certified
δ_n(i) is ≤ δ. Checked against the exact δ of pabi.reference (mpmath): the exact δ at the
returned ε is ≤ δ (never on the wrong side) and the exact δ at ε·(1 − 1e-9) is > δ (within 1e-9
relative of the exact inverse), on 200+ points; the Laplace schedule's ε-dependent domain."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pabi
import pabi.reference as ref

from _helpers import assert_rejects_bad_delta

DPS = 30
REL = 1e-9


def _sched_kw(rng: np.random.Generator, laplace: bool) -> dict:
    index = int(rng.integers(1, 40))
    kw = dict(max_grad_norm=float(rng.uniform(0.5, 20.0)), lr=float(rng.uniform(0.005, 0.05)), diameter=1.0,
              steps=float(index + int(rng.integers(0, 25))), index=float(index),
              c1=float(10 ** rng.uniform(0.5, 2.5)), c2=float(10 ** rng.uniform(0.3, 2.0)),
              decay=float(rng.uniform(1.1, 2.5)))
    if rng.random() < 0.3:
        kw.update(smoothness=2.0, strong_convexity=float(rng.uniform(0.0, 1.0)))
    return kw


def _cases():
    """(name, pabi inverse, exact δ(ε), kw, targets): ~70 targets per family, each the certified
    δ at a random ε0 ∈ [0.05, 8] (so the exact inverse is a moderate ε)."""
    rng = np.random.default_rng(20261126)
    out = []
    for kind in ("laplace", "gaussian"):
        inv = getattr(pabi, f"online_{kind}_epsilon")
        fwd = getattr(pabi, f"online_{kind}_delta")
        exact = getattr(ref, f"online_{kind}_delta")
        for _ in range(24):
            kw = _sched_kw(rng, kind == "laplace")
            e0 = rng.uniform(0.05, 8.0, 5)
            if kind == "laplace":  # inside the domain ε < 2 ln((i^α + C1·C2)/C1)
                end = 2 * math.log((kw["index"] ** kw["decay"] + kw["c1"] * kw["c2"]) / kw["c1"])
                e0 = e0 * min(1.0, 0.95 * end / 8.0)
            d = np.asarray(fwd(e0, **kw))
            keep = (d > 1e-300) & (d < 1)
            out.append((kind, inv, lambda e, kw=kw, exact=exact: exact(e, **kw, dps=DPS), kw, d[keep]))
    for kind in ("gaussian", "laplace"):
        for _ in range(12):
            n = int(rng.integers(1, 30))
            ns = list(10 ** rng.uniform(-0.3, 1.0, n))
            kw = dict(max_grad_norm=float(rng.uniform(0.5, 3.0)), lr=float(rng.uniform(0.05, 0.3)), diameter=1.0,
                      noise_scale=ns, index=int(rng.integers(1, n + 1)), noise=kind)
            e0 = rng.uniform(0.05, 8.0, 5)
            d = np.array([pabi.online_delta(float(e), **kw) for e in e0])
            keep = (d > 1e-300) & (d < 1)
            ex = lambda e, kw=kw: ref.online_delta(e, kw["max_grad_norm"], kw["lr"], kw["diameter"], kw["noise_scale"],
                                                   kw["index"], kw["noise"], dps=DPS)
            out.append(("array-" + kind, pabi.online_epsilon, ex, kw, d[keep]))
    return out


CASES = _cases()


def test_reference_check_on_200_points():
    points = 0
    for name, inv, exact, kw, targets in CASES:
        eps = np.asarray(inv(targets, **kw))
        assert eps.shape == targets.shape
        for d, e in zip(targets, eps):
            e = float(e)
            assert 0.0 <= e < math.inf, (name, kw, d)
            # never on the wrong side: the exact δ at the returned ε meets the target
            assert exact(e) <= d, (name, kw, d, e)
            # within 1e-9 relative of the exact inverse: a slightly smaller ε fails the target
            if e > 0:
                assert exact(mp.mpf(e) * (1 - REL)) > d, (name, kw, d, e)
            points += 1
    assert points >= 200


def test_matches_the_reference_bisection():
    """A few points against the reference's own mpmath bisection (the exact inverse)."""
    kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=130, index=100, c1=100.0, c2=100.0, decay=1.5)
    for kind in ("laplace", "gaussian"):
        for d in (1e-5, 1e-2):
            e = getattr(pabi, f"online_{kind}_epsilon")(d, **kw)
            r = getattr(ref, f"online_{kind}_epsilon")(d, **kw, dps=25)
            assert r <= e <= r * (1 + REL)
    ns = [2.0] * 30
    e = pabi.online_epsilon(1e-5, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=ns, index=10)
    r = ref.online_epsilon(1e-5, 1.0, 0.1, 1.0, ns, 10, dps=25)
    assert r <= e <= r * (1 + REL)
    assert e <= r * (1 + 1e-12)  # pabi 4.017301239908116, against the reference's bisection r


def test_smallest_double():
    """The returned ε is the smallest double whose certified δ meets the target."""
    kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=130, index=100, c1=100.0, c2=100.0, decay=1.5)
    for kind in ("laplace", "gaussian"):
        inv, fwd = getattr(pabi, f"online_{kind}_epsilon"), getattr(pabi, f"online_{kind}_delta")
        e = inv(1e-5, **kw)
        assert e > 0
        assert fwd(e, **kw) <= 1e-5 < fwd(math.nextafter(e, 0.0), **kw)
    kw2 = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0] * 50, index=10)
    e = pabi.online_epsilon(1e-5, **kw2)
    assert pabi.online_delta(e, **kw2) <= 1e-5 < pabi.online_delta(math.nextafter(e, 0.0), **kw2)


def test_laplace_domain():
    """The Laplace online bound is defined for ε < 2 ln((i^α + C1·C2)/C1) only: the search stays
    inside, and a target that no ε of the domain meets gives +inf (κ_L > 1 keeps A_i > 0)."""
    kw = dict(max_grad_norm=1000.0, lr=0.01, diameter=1.0, steps=100, index=100, c1=100.0, c2=100.0, decay=1.5)
    end = 2 * math.log((100**1.5 + 1e4) / 100)
    eps = pabi.online_laplace_epsilon([1e-5, 0.5, 0.9999], **kw)
    assert np.all(np.isinf(eps))
    r = ref.online_laplace_epsilon(0.5, **kw, dps=20)
    assert r == mp.inf
    # the certified δ just inside the domain is above the target (so +inf is the answer)
    assert pabi.online_laplace_delta(end * (1 - 1e-12), **kw) > 0.9999
    # beyond the domain the forward bound is an error naming the index
    with pytest.raises(pabi.DomainError) as err:
        pabi.online_laplace_delta(end * (1 + 1e-9), **kw)
    assert err.value.param == "index"
    # a smaller κ_L: every target is met inside the domain
    kw_small = dict(kw, max_grad_norm=10.0)
    e = pabi.online_laplace_epsilon(1e-5, **kw_small)
    assert 0 < e < end
    # an index outside the domain at every ε is the forward bound's error
    with pytest.raises(pabi.DomainError) as err:
        pabi.online_laplace_epsilon(1e-5, **dict(kw, c2=0.5, index=2, steps=10))
    assert err.value.param == "index"


def test_zero_when_target_met_at_zero():
    kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=50, index=10, c1=100.0, c2=100.0, decay=1.5)
    for kind in ("laplace", "gaussian"):
        d0 = getattr(pabi, f"online_{kind}_delta")(0.0, **kw)
        assert getattr(pabi, f"online_{kind}_epsilon")(min(0.999, d0 * 1.01), **kw) == 0.0
    kw2 = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0] * 5, index=3)
    d0 = pabi.online_delta(0.0, **kw2)
    assert pabi.online_epsilon(min(0.999, d0 * 1.01), **kw2) == 0.0


def test_vectorised_and_broadcast():
    kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=60, index=20, c1=100.0, c2=100.0, decay=1.5)
    deltas = np.array([0.3, 1e-2, 1e-4, 1e-6, 1e-8])
    for kind in ("laplace", "gaussian"):
        inv = getattr(pabi, f"online_{kind}_epsilon")
        e = inv(deltas, **kw)
        assert isinstance(e, np.ndarray) and e.shape == (5,)
        assert [inv(float(d), **kw) for d in deltas] == list(e)
        grid = inv(deltas, **dict(kw, steps=np.array([[30.0], [60.0]])))
        assert grid.shape == (2, 5) and np.array_equal(grid[1], e)
        assert isinstance(inv(1e-3, **kw), float)
    kw2 = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0] * 20, index=5)
    e = pabi.online_epsilon(deltas, **kw2)
    assert e.shape == (5,) and [pabi.online_epsilon(float(d), **kw2) for d in deltas] == list(e)
    assert isinstance(pabi.online_epsilon(1e-3, **kw2), float)
    assert pabi.online_epsilon(deltas.reshape(5, 1), **kw2).shape == (5, 1)


def test_errors_name_the_parameter():
    kw = dict(max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=60, index=20, c1=100.0, c2=100.0, decay=1.5)
    kw2 = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0] * 20, index=5)
    for fn, k in ((pabi.online_laplace_epsilon, kw), (pabi.online_gaussian_epsilon, kw), (pabi.online_epsilon, kw2)):
        assert_rejects_bad_delta(fn, k)
    for bad in (dict(decay=1.0), dict(c1=-1.0), dict(steps=10.0), dict(index=0.5)):
        with pytest.raises(pabi.DomainError) as e:
            pabi.online_gaussian_epsilon(1e-3, **dict(kw, **bad))
        assert e.value.param == next(iter(bad))
    for bad, param in ((dict(index=21), "index"), (dict(index=0), "index"), (dict(index=2.5), "index"),
                       (dict(lr=-1.0), "lr"), (dict(noise_scale=[2.0, -1.0], index=1), "noise_scale")):
        with pytest.raises(pabi.DomainError) as e:
            pabi.online_epsilon(1e-3, **dict(kw2, **bad))
        assert e.value.param == param
    with pytest.raises(ValueError, match="noise_scale"):
        pabi.online_epsilon(1e-3, **dict(kw2, noise_scale=[]))
    with pytest.raises(TypeError):
        pabi.online_epsilon(1e-3, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0])  # index required


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["laplace", "gaussian"]), st.floats(1e-12, 0.9), st.floats(0.5, 50.0),
       st.integers(1, 60), st.integers(0, 200), st.floats(10.0, 1e4))
def test_inversion_law(kind, delta, lipschitz, index, extra, c1):
    """δ(ε(δ)) ≤ δ for every target, and a smaller δ never gives a smaller ε."""
    kw = dict(max_grad_norm=lipschitz, lr=0.01, diameter=1.0, steps=float(index + extra), index=float(index),
              c1=c1, c2=100.0, decay=1.5)
    inv, fwd = getattr(pabi, f"online_{kind}_epsilon"), getattr(pabi, f"online_{kind}_delta")
    e = inv(delta, **kw)
    if math.isfinite(e):
        assert fwd(e, **kw) <= delta
    assert inv(delta / 2, **kw) >= e


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["laplace", "gaussian"]), st.floats(1e-12, 0.9),
       st.lists(st.floats(0.3, 20.0), min_size=1, max_size=40), st.data())
def test_inversion_law_any_noise(kind, delta, noise, data):
    index = data.draw(st.integers(1, len(noise)))
    kw = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=noise, index=index, noise=kind)
    e = pabi.online_epsilon(delta, **kw)
    assert math.isfinite(e) and pabi.online_delta(e, **kw) <= delta
    assert pabi.online_epsilon(delta / 2, **kw) >= e
