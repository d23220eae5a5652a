"""Exact (one-ulp) monotonicity of the bounds that do not depend on θ, checked exhaustively on
neighbours: for many random x, f(x) against f(nextafter(x)) in the certified direction (issue 13).

Each law is exact, non-strict: a bisection built on these bounds needs no one-ulp reversal.
The random points come from a seeded generator (deterministic; no hypothesis shrinking needed:
a failure names the exact pair).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pabi

UP, DOWN = math.inf, -math.inf


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def nxt(x: float, to: float = UP) -> float:
    with np.errstate(over="ignore"):
        return float(np.nextafter(x, to))


def neighbours(f, xs, sign: int, what: str, lo: float = -math.inf, hi: float = math.inf) -> None:
    """f(x) vs f(next up of x) (and a run of a few further steps) for every x in xs: non-decreasing
    (sign +1) or non-increasing (sign −1), exactly."""
    bad = []
    for x in xs:
        x = float(x)
        prev_x, prev = x, f(x)
        for _ in range(3):
            y = nxt(prev_x)
            if not (lo <= y <= hi):
                break
            v = f(y)
            if (v < prev) if sign > 0 else (v > prev):
                bad.append((prev_x, prev, y, v))
            prev_x, prev = y, v
    assert not bad, f"{what}: {len(bad)} reversals, first f({bad[0][0]!r}) = {bad[0][1]!r} vs f({bad[0][2]!r}) = {bad[0][3]!r}"


def log_uniform(g: np.random.Generator, lo: float, hi: float, n: int) -> np.ndarray:
    return np.exp(g.uniform(math.log(lo), math.log(hi), n))


# ============================================================================ GDP


@pytest.mark.parametrize("eps", [0.0, 0.5, 3.0])
def test_gdp_mu_exactly_monotone_in_delta(eps):
    g = rng(1)
    ds = np.concatenate([log_uniform(g, 1e-300, 0.999, 150), g.uniform(0.0, 1.0, 50), [0.15625]])
    neighbours(lambda d: pabi.gdp_mu(eps, d), ds, +1, f"gdp_mu(eps={eps}, delta)", lo=5e-324, hi=nxt(1.0, DOWN))


def test_gdp_mu_pinned():
    assert pabi.gdp_mu(0.0, 0.15625) <= pabi.gdp_mu(0.0, 0.15625000000000003)


def test_gdp_compose_exactly_monotone():
    g = rng(2)
    for trial in range(60):
        n = int(g.integers(1, 40))
        scale = 10.0 ** g.uniform(-300, 300)
        mus = list(g.uniform(0.0, 1.0, n) * scale)
        if trial % 3 == 0:  # equal values and powers of two (exact squares)
            mus = [float(2.0 ** int(g.integers(-60, 60)))] * n
        base = pabi.gdp_compose(mus)
        for j in range(n):
            m2 = list(mus)
            m2[j] = nxt(m2[j])
            assert pabi.gdp_compose(m2) >= base, (mus, j)
        assert pabi.gdp_compose(mus + [float(g.uniform(0.0, 1.0) * scale)]) >= base
        assert pabi.gdp_compose(mus + [0.0]) == base
    mu = 7.15989777155113e16
    assert pabi.gdp_compose([mu, mu]) <= pabi.gdp_compose([nxt(mu), mu])


def test_gdp_compose_tight_and_sound():
    from fractions import Fraction
    g = rng(3)
    for n in (1, 2, 3, 7, 50, 1000):
        for scale in (5e-324, 1e-300, 1.0, 1e150, 1e300):
            mus = [float(x) for x in g.uniform(0.0, 1.0, n) * scale]
            out = pabi.gdp_compose(mus)
            ex = sum(Fraction(m) ** 2 for m in mus)
            assert Fraction(out) ** 2 >= ex
            if ex > Fraction(1e-290) ** 2:
                assert Fraction(out) ** 2 <= ex * Fraction(1 + 1e-13), (n, scale)


# ============================================================================ sampled Gaussian RDP


@pytest.mark.parametrize("frac", [
    "exact",  # the fractional path's clamp at floor(alpha) carries c's low part, as the integer path
    "ceil",
])
def test_sampled_gaussian_rdp_exactly_monotone_across_integer_orders(frac):
    """Around every integer order n the fractional value stays between the integer ones:
    ε(n − ulp) ≤ ε(n) ≤ ε(n + ulp) (inside (n, n + 1) the fractional series is not yet exactly
    monotone: test_laws.py::test_sampled_gaussian_rdp_monotone)."""
    g = rng(4)
    for _ in range(120):
        n = float(g.integers(2, 80))
        q = float(g.choice([g.uniform(0.0, 1.0), 10.0 ** g.uniform(-6, 0), 1.0]))
        z = float(10.0 ** g.uniform(-0.5, 1.5))
        f = lambda a: pabi.sampled_gaussian_rdp(a, sample_rate=q, noise_multiplier=z, fractional=frac)  # noqa: E731
        lo, hi = nxt(n, DOWN), nxt(n)
        assert f(lo) <= f(n) <= f(hi) <= f(n + 0.5) <= f(n + 1.0), (n, q, z, frac, f(lo), f(n), f(hi))


@pytest.mark.parametrize("alpha", [2.0, 3.0, 2.5, 9.0, 40.0, 300.0])
def test_sampled_gaussian_rdp_exactly_monotone_into_q_one(alpha):
    """The sampled values never exceed the unsampled one α·r²/2 (rounded up): no reversal at q = 1."""
    for z in (0.1, 0.5, 1.0, 3.0, 10.0):
        f = lambda q: pabi.sampled_gaussian_rdp(alpha, sample_rate=q, noise_multiplier=z)  # noqa: E731
        q = 1.0
        for _ in range(4):
            q = nxt(q, DOWN)
        neighbours(f, [q], +1, f"sampled_gaussian_rdp({alpha}, q, {z}) below q = 1")
    assert pabi.sampled_gaussian_rdp(3.0, sample_rate=nxt(1.0, DOWN), noise_multiplier=1.0) <= pabi.sampled_gaussian_rdp(3.0, sample_rate=1.0, noise_multiplier=1.0)


# ============================================================================ schedule limits δ*


STARS = [pabi.gaussian_schedule_delta_limit, pabi.laplace_schedule_delta_limit]


@pytest.mark.parametrize("f", STARS, ids=lambda f: f.__name__)
def test_schedule_delta_star_exactly_monotone(f):
    g = rng(5)
    for _ in range(150):
        c1 = float(10.0 ** g.uniform(-6, 13))
        e = float(g.uniform(0.0, 60.0))
        neighbours(lambda x: f(x, c1), [e], -1, f"{f.__name__}(eps, c1={c1!r})", lo=0.0)
        neighbours(lambda c: f(e, c), [c1], -1, f"{f.__name__}(eps={e!r}, c1)", lo=5e-324)
    assert pabi.laplace_schedule_delta_limit(9.875, c1=0.001) <= pabi.laplace_schedule_delta_limit(9.874999999999998, c1=0.001)


@pytest.mark.parametrize("f,k", [(pabi.laplace_schedule_delta_limit, 1.0), (pabi.gaussian_schedule_delta_limit, 2.0)],
                         ids=["laplace", "gauss"])
def test_schedule_delta_star_monotone_at_switch_points(f, k):
    """x = k·C1·e^{ε/2} crossing the rule switches x = 2 and 40, and the overflow of x."""
    for x in (2.0, 40.0, 1.7976931348623157e308):
        c1 = x / k
        start = c1
        for _ in range(4):
            start = nxt(start, DOWN)
        neighbours(lambda c: f(0.0, c), [start, nxt(nxt(start))], -1, f"{f.__name__}(0, c1) near x = {x}", lo=5e-324,
                   hi=1.7976931348623157e308)
    # past the overflow of x: still monotone, below the finite-x values and above the exact value
    big = [f(e, 1e308) for e in (0.0, 1.0, 2.0, 10.0, 100.0, 1000.0, 1500.0)]
    assert all(a >= b for a, b in zip(big, big[1:])), big
    assert big[-1] > 0.0


def test_schedule_delta_star_no_intermediate_overflow():
    """e^{ε/2} may overflow while x = C1·e^{ε/2} is finite (C1 tiny): δ* is then not small."""
    import mpmath as mp
    with mp.workdps(30):
        for e, c1 in ((1500.0, 5e-324), (1500.0, 1e-300), (2900.0, 5e-324), (1420.0, 1e-10), (1.0, 1e308)):
            for f, k in ((pabi.laplace_schedule_delta_limit, 1), (pabi.gaussian_schedule_delta_limit, 2)):
                x = k * mp.mpf(c1) * mp.e ** (mp.mpf(e) / 2)
                exact = (1 - mp.e ** (-x)) / x
                v = f(e, c1)
                assert v >= exact, (f.__name__, e, c1, v, exact)
                if exact > 1e-300:
                    assert v <= exact * (1 + 1e-13), (f.__name__, e, c1, v, exact)
    # (the loop's first case: pabi 0.0038490532168797, the closed form (1 − e^{−x})/x above)
