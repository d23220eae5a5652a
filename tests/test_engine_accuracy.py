"""Accuracy of the engine against pabi.reference (mpmath, 50 digits) and the golden file.

Contracts (issue #2): θ and 1 − θ relative error ≤ 1e-13, log θ and log(1 − θ) absolute error
≤ 1e-13·max(1, |value|), over ε ∈ [0, 700], r ∈ [1e-7, 1e3]; θ never below the exact value,
1 − θ never above; Q and log Q within a few ulp for t ∈ [−40, 1e4]; W within 8 ulp.
"""

import csv
import math

import mpmath as mp
import numpy as np
import pytest

import pabi
from pabi import reference as ref
from _engine_fns import log_theta, log_theta_complement

NORMAL = 2.2250738585072014e-308
ULP = 2.0**-52


def rel_err(value: float, exact: mp.mpf) -> float:
    return float((mp.mpf(value) - exact) / abs(exact))


def log_err(value: float, exact: mp.mpf) -> float:
    return float((mp.mpf(value) - exact) / max(1, abs(exact)))


def random_eps_r(seed: int, n: int):
    rng = np.random.default_rng(seed)
    eps = np.concatenate([rng.uniform(0, 700, n), 10 ** rng.uniform(-12, 1, n), rng.uniform(0, 10, n)])
    r = np.concatenate([10 ** rng.uniform(-7, 3, n), 10 ** rng.uniform(-7, 3, n), 10 ** rng.uniform(-2, 1, n)])
    return eps, r


def check_theta_family(eps, r):
    """θ, log θ, 1 − θ, log(1 − θ) at the pairs (eps, r) against the reference: the contract and
    the side (θ, log θ never below the exact value, the complements never above); scalar calls
    must equal the array result."""
    th, lth = pabi.theta(eps, r), pabi.theta(eps, r, log=True)
    co, lco = pabi.theta_complement(eps, r), pabi.theta_complement(eps, r, log=True)
    for i, (e, x) in enumerate(zip(eps, r)):
        e, x = float(e), float(x)
        assert (pabi.theta(e, x), pabi.theta_complement(e, x)) == (th[i], co[i])
        ex = ref.theta(e, x)
        if ex >= NORMAL:
            err = rel_err(th[i], ex)
            assert 0 <= err <= 1e-13, (e, x, th[i], ex)
        else:
            assert th[i] >= ex  # underflow: still an upper bound
        lex = ref.theta(e, x, log=True)
        assert 0 <= log_err(lth[i], lex) <= 1e-13, (e, x, lth[i], lex)
        cex = ref.theta_complement(e, x)
        if cex >= NORMAL:
            assert -1e-13 <= rel_err(co[i], cex) <= 0, (e, x, co[i], cex)
        else:
            assert co[i] <= cex
        lcex = ref.theta_complement(e, x, log=True)
        assert -1e-13 <= log_err(lco[i], lcex) <= 0, (e, x, lco[i], lcex)


@pytest.mark.parametrize("seed", [1, 2])
def test_theta_family_against_reference(seed):
    check_theta_family(*random_eps_r(seed, 120))


def test_theta_family_at_exact_a():
    """a = ε/r − r/2 exactly on a grid of eighths in [−8, 2]: the kernel's lanes switch form at
    a = −8, −1, 0, and at a = −4 (= −c, the kernel's shift) θ(10, 10) came out as 1 (found by
    hypothesis in CI; the near complement lanes divided by a + c = 0)."""
    a = np.arange(-64, 17) / 8.0
    eps, r = [], []
    for x in (0.25, 2.25, 9.0, 10.0, 16.0):
        e = x * (a + x / 2)
        keep = e >= 0
        eps.append(e[keep])
        r.append(np.full(keep.sum(), x))
    eps, r = np.concatenate(eps), np.concatenate(r)
    assert (eps / r - r / 2 == np.concatenate([a[a >= -x / 2] for x in (0.25, 2.25, 9.0, 10.0, 16.0)])).all()
    check_theta_family(eps, r)
    exact = ref.theta(10.0, 10.0)  # 0.99994659771914987831 (pabi 0.99994659771915)
    assert exact <= pabi.theta(10.0, 10.0) <= exact * (1 + mp.mpf(1e-15))


def test_log_theta_large_radius_near_the_origin():
    """log θ for r ∈ [1e3, 1e15] with a = ε/r − r/2 ∈ [−1, 3]: ln r and ln(b + c) are large and
    nearly cancel, the regime where the divided-difference form's logarithms carry the most
    absolute rounding (ln θ = −a²/2 + ln(num/((a+c)(b+c))) + ln r). Never below the reference,
    within the 1e-13 contract."""
    rng = np.random.default_rng(3)
    for _ in range(150):
        r = 10.0 ** rng.uniform(3, 15)
        e = float(r * (rng.uniform(-1, 3) + r / 2))
        lex = ref.theta(e, r, log=True)
        assert 0 <= log_err(pabi.theta(e, r, log=True), lex) <= 1e-13, (e, r)


def test_log_theta_where_theta_underflows():
    # The example: eps = 1, r = 1e-3 gives about -5e5.
    v = pabi.theta(1.0, 1e-3, log=True)
    assert pabi.theta(1.0, 1e-3) == 0.0 or pabi.theta(1.0, 1e-3) < 1e-300
    assert 0 <= log_err(v, ref.theta(1.0, 1e-3, log=True)) <= 1e-13
    assert -500_022 < v < -500_021
    # 1 - theta within 1e-300 of 0 (r large): complement stays accurate
    c = pabi.theta_complement(1.0, 40.0)
    assert 0 < c < 1e-80
    assert -1e-13 <= rel_err(c, ref.theta_complement(1.0, 40.0)) <= 0
    lc = pabi.theta_complement(0.5, 1e3, log=True)
    assert -1e-13 <= log_err(lc, ref.theta_complement(0.5, 1e3, log=True)) <= 0


def test_theta_across_the_underflow_threshold():
    """a near 37.6-38.6: e^{-a^2/2} crosses the normal/subnormal boundary. The kernel forms the
    product in a scaled domain and unscales by integer operations (no subnormal arithmetic):
    normal results keep the relative contract, subnormal ones stay on the right side within a
    few subnormal units, and theta rounds to TINY = 4 * 2^-1074 when it underflows completely."""
    tiny = 4 * 5e-324
    a = np.concatenate([np.linspace(37.0, 38.7, 40), [39.0, 40.0, 45.0]])
    for rr in (1e-3, 0.5, 3.0):
        eps = rr * (a + rr / 2)
        th, co = pabi.theta(eps, rr), pabi.theta_complement(eps, rr)
        lth, lco = pabi.theta(eps, rr, log=True), pabi.theta_complement(eps, rr, log=True)
        for e, t, c, lt, lc in zip(eps, th, co, lth, lco):
            e = float(e)
            ex = ref.theta(e, rr, dps=60)
            if ex >= NORMAL:
                assert 0 <= rel_err(t, ex) <= 1e-13, (e, rr, t, ex)
            else:
                assert float(ex) <= t <= float(ex) * (1 + 1e-13) + 2 * tiny, (e, rr, t, ex)
            assert c == 1.0 - 2.0**-53
            assert 0 <= log_err(lt, ref.theta(e, rr, dps=60, log=True)) <= 1e-13
            assert -1e-13 <= log_err(lc, ref.theta_complement(e, rr, dps=60, log=True)) <= 0
    assert pabi.theta(40.5, 1.0) == tiny  # a = 40: e^{-800} underflows completely


def test_theta_family_domain_errors_from_fused_check():
    """The theta kernels check the domain in the same (parallel) pass: first bad index, as before."""
    n = 100_000
    eps, r = np.ones(n), np.ones(n)
    eps[70_000], r[50_000] = -1.0, np.nan
    for f in (pabi.theta, log_theta, pabi.theta_complement, log_theta_complement):
        with pytest.raises(pabi.DomainError) as info:
            f(eps, r)
        assert info.value.param == "eps" and info.value.index == 70_000
    eps[70_000] = 2.0
    with pytest.raises(pabi.DomainError) as info:
        pabi.theta(eps, r)
    assert info.value.param == "shift" and info.value.index == 50_000
    r[50_000] = 1.0
    eps[99_999], r[99_999] = math.inf, math.inf
    with pytest.raises(pabi.DomainError) as info:
        pabi.theta(eps, r)
    assert info.value.param == "shift" and info.value.index == 99_999
    eps[99_999] = math.inf
    r[99_999] = 2.0
    assert pabi.theta(eps, r)[99_999] == 0.0


def test_golden_file_in_python(golden_dir):
    """Same golden rows the Rust tests use, through the Python API (numpy path)."""
    rows = list(csv.DictReader((golden_dir / "engine.csv").open()))
    funcs = {r["function"] for r in rows}
    assert {"theta", "log_theta", "theta_complement", "gaussian_tail"} <= funcs
    for name in sorted(funcs):
        sel = [r for r in rows if r["function"] == name]
        x = np.array([float(r["x"]) for r in sel])
        y = np.array([float(r["y"]) for r in sel])
        exact = [mp.mpf(r["value"]) for r in sel]
        is_log = name.startswith("log_")
        f = getattr(pabi, name.removeprefix("log_"))  # the golden file names the log forms log_*
        opts = {"log": True} if is_log else {}
        got = f(x, **opts) if "gaussian" in name else f(x, y, **opts)
        tol = 4 * ULP if "gaussian" in name else 1e-13
        for g, ex in zip(got, exact):
            if is_log and "gaussian" not in name:
                err = log_err(g, ex)  # contract: absolute error <= 1e-13 * max(1, |log|)
            elif abs(ex) < NORMAL:  # not a normal double: no relative contract
                assert abs(g - float(ex)) <= 1e-300
                continue
            else:
                err = rel_err(g, ex)
            assert abs(err) <= tol, (name, g, ex)


def test_gaussian_tail_ulps():
    rng = np.random.default_rng(7)
    t = np.concatenate([rng.uniform(-40, 37.5, 400), 10 ** rng.uniform(-8, 0, 50), [0.0, -0.0, 5.0, -5.0]])
    q, lq = pabi.gaussian_tail(t), pabi.gaussian_tail(t, log=True)
    worst = 0.0
    for ti, qi, lqi in zip(t, q, lq):
        exact = ref.gaussian_tail(float(ti))
        worst = max(worst, abs(rel_err(qi, exact)))
        lexact = ref.gaussian_tail(float(ti), log=True)
        if abs(lexact) >= NORMAL:
            assert abs(rel_err(lqi, lexact)) <= 4 * ULP
    assert worst <= 4 * ULP
    # far tail, log only: t up to 1e4
    for ti in [50.0, 123.456, 1e3, 1e4]:
        assert abs(rel_err(pabi.gaussian_tail(ti, log=True), ref.gaussian_tail(ti, log=True))) <= 4 * ULP
    assert pabi.gaussian_tail(0.0) == 0.5
    assert pabi.gaussian_tail(-math.inf) == 1.0 and pabi.gaussian_tail(math.inf) == 0.0
    assert pabi.gaussian_tail(math.inf, log=True) == -math.inf and pabi.gaussian_tail(-math.inf, log=True) == 0.0


def test_gaussian_tail_beats_naive_erfc_in_the_tail():
    """The double-double argument matters: erfc(t/sqrt(2))/2 loses ~t^2 ulp at t = 37."""
    from scipy.special import erfc

    t = 37.123456789
    exact = ref.gaussian_tail(t)
    assert abs(rel_err(pabi.gaussian_tail(t), exact)) <= 4 * ULP
    assert abs(rel_err(0.5 * erfc(t / math.sqrt(2)), exact)) > 50 * ULP


def test_laplace_theta_against_reference():
    rng = np.random.default_rng(3)
    eps, r = rng.uniform(0, 50, 300), rng.uniform(0, 60, 300)
    eps[:20] = r[:20] * (1 - 1e-9)  # exponent -> 0^-: expm1 regime
    v, c = pabi.laplace_theta(eps, r), pabi.laplace_theta_complement(eps, r)
    for e, x, vi, ci in zip(eps, r, v, c):
        ex, cx = ref.laplace_theta(float(e), float(x)), ref.laplace_theta_complement(float(e), float(x))
        if ex == 0:
            assert vi == 0.0
        else:
            assert 0 <= rel_err(vi, ex) <= 1e-13
        assert -1e-13 <= rel_err(ci, cx) <= 0


@pytest.mark.parametrize(
    "xs",
    [
        [-0.36787944117144233, -0.3678794411714, -0.36, -0.2, -1e-3, -1e-100, -5e-324],
        [0.0, 5e-324, 1e-300, 1e-12, 1e-3, 0.5, 1.0, 2.718281828459045, 10.0, 1e3, 1e10, 1e100, 1e300, 1.7e308],
    ],
)
def test_lambertw_against_reference(xs):
    got = pabi.lambertw(np.array(xs))
    for x, w in zip(xs, got):
        ex = ref.lambertw(x)
        if ex == 0:
            assert w == 0.0
            continue
        assert abs(rel_err(w, ex)) <= 8 * ULP, (x, w, ex)


def test_lambertw_random_bands():
    rng = np.random.default_rng(11)
    xs = np.concatenate([rng.uniform(-0.36787944117144233, 0, 200), 10 ** rng.uniform(-300, 308, 300)])
    for x, w in zip(xs, pabi.lambertw(xs)):
        assert abs(rel_err(w, ref.lambertw(float(x)))) <= 8 * ULP, x


def test_wright_omega_against_reference():
    rng = np.random.default_rng(12)
    xs = np.concatenate([rng.uniform(-745, 50, 200), 10 ** rng.uniform(0, 300, 200), [0.0, 1.0, 1e6, 1e15]])
    for x, w in zip(xs, pabi.wright_omega(xs)):
        ex = ref.wright_omega(float(x))
        if ex < NORMAL:
            assert abs(w - float(ex)) <= 5e-324 * 4
            continue
        assert abs(rel_err(w, ex)) <= 8 * ULP, (x, w, ex)


def test_reference_theta_keeps_its_digits_at_huge_eps():
    """The reference's working precision covers the exponent e^eps Q(b) = exp(eps - b^2/2 + ...)
    (found in review: ref theta(1e154, sqrt(0.92)/0.2) was a negative number, its log -inf)."""
    r = math.sqrt(0.92) / 0.2
    lv = ref.theta(1e154, r, log=True)
    assert lv == pytest.approx(float(ref.theta(1e154, r, 400, log=True)), rel=1e-14)
    # the Gaussian tail's asymptotics: θ = Q(b) − e^ε Q(b + r) with b = ε/r − r/2 ≈ 4.6e153, so
    # ln θ = −b²/2 − ln(b√(2π)) to relative 1e-300 (−2.1739130434782614e306)
    with mp.workdps(40):
        b = mp.mpf(1e154) / mp.mpf(r) - mp.mpf(r) / 2
        assert float(lv) == pytest.approx(float(-b**2 / 2 - mp.log(b * mp.sqrt(2 * mp.pi))), rel=1e-15)
    assert pabi.theta(1e154, r, log=True) >= lv
