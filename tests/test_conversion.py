"""One argument-conversion rule for every public function (pabi._bridge module doc).

Each test pins an example that behaved differently before the rule: numeric strings accepted by
non-elementwise functions, truncated integers, rejected numpy scalars / 0-d arrays, OverflowError
for huge ints, "got nan" for None, errors naming no parameter.
"""

from __future__ import annotations

import fractions
import math

import numpy as np
import pytest

import pabi
from pabi import DomainError
from pabi._bridge import as_real, int_scalar, real_array, real_scalar

S = np.full((3, 2), 0.5)


def _raises(exc: type[BaseException], param: str, fn, *a, **kw) -> BaseException:
    with pytest.raises(exc) as info:
        fn(*a, **kw)
    err = info.value
    assert getattr(err, "param", None) == param, (err, getattr(err, "param", None))
    assert param in str(err), str(err)
    return err


# ------------------------------------------------------------------ numeric strings are not numbers


def test_numeric_strings_rejected_by_scalar_functions():
    _raises(TypeError, "sample_rate", pabi.dpsgd_per_instance_rdp, 8, sample_rate="1.0", noise_scale=1, sensitivities=S)
    _raises(TypeError, "sample_rate", pabi.dpsgd_per_instance_rdp, 8.0, sample_rate="0.5", noise_scale=1.0, sensitivities=S)
    _raises(TypeError, "mu", pabi.gdp_compose, ["0.3", "0.4"])
    _raises(TypeError, "order", pabi.holder_orders, "2", holder_exponent=2.0, steps=3)
    _raises(TypeError, "delta", pabi.rdp_to_dp_epsilon, orders=[2.0], rdp=[0.5], delta="1e-5")
    _raises(TypeError, "noise_multiplier", pabi.dpsgd_epsilon, 1e-5, sample_rate=0.01, noise_multiplier="1.0", steps=10)
    _raises(TypeError, "eps", pabi.online_delta, "1.0", max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0, 2.0])
    # the elementwise functions always rejected them, and still do
    _raises(TypeError, "eps", pabi.theta, "1.0", 1.0)
    # the valid numbers give the same results as before
    assert pabi.dpsgd_per_instance_rdp(8, sample_rate=1.0, noise_scale=1, sensitivities=S) == pabi.dpsgd_per_instance_rdp(8.0, sample_rate=1.0, noise_scale=1.0, sensitivities=S)
    assert pabi.gdp_compose([0.3, 0.4]) == pytest.approx(0.5, rel=1e-15)


# ------------------------------------------------------------------ integer parameters


def test_integer_parameters_reject_fractions_and_accept_integral_values():
    err = _raises(DomainError, "steps", pabi.holder_orders, 2, holder_exponent=2, steps=2.7)  # was truncated to n = 2
    assert "an integer" in str(err) and err.value == 2.7
    expect = np.array([2.0, 3.0, 5.0])
    for n in (3, 3.0, np.int64(3), np.uint8(3), np.float64(3), np.array(3), np.array(3.0)):
        np.testing.assert_array_equal(pabi.holder_orders(2.0, holder_exponent=2.0, steps=n), expect)
    _raises(DomainError, "steps", pabi.holder_orders, 2.0, holder_exponent=2.0, steps=math.nan)
    _raises(DomainError, "steps", pabi.holder_orders, 2.0, holder_exponent=2.0, steps=-1)
    _raises(TypeError, "steps", pabi.holder_orders, 2.0, holder_exponent=2.0, steps=True)
    _raises(TypeError, "steps", pabi.holder_orders, 2.0, holder_exponent=2.0, steps=np.array([3]))
    _raises(DomainError, "steps", pabi.optimal_shifts, 2.5, initial_distance=0.5, map_difference=1.0,
            step_lipschitz=1.5)
    _raises(DomainError, "order", pabi.general_update_rdp, 3.5, noise_scale=1.0, updates_second=[[0.0]], updates_first=[[[[1.0], [1.0], [1.0]]]])
    _raises(DomainError, "index", pabi.online_delta, 1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0,
            noise_scale=[2.0, 2.0, 2.0], index=2.5)
    _raises(DomainError, "steps", pabi.dpsgd_epsilon, 1e-5, sample_rate=0.1, noise_multiplier=1.0, steps=10.5, grid_step=0.01)
    _raises(DomainError, "count", pabi.compose_plds, [(pabi.PrivacyLossDistribution.gaussian(1.0, grid_step=0.01), 1.5)])
    _raises(DomainError, "epochs", pabi.multi_epoch_epsilon, 1e-3, profile=lambda e: pabi.gdp_delta(e, 0.5), epochs=1.5)


def test_numpy_scalars_and_0d_arrays_accepted_by_scalar_functions():
    base = pabi.dpsgd_epsilon(1e-5, sample_rate=0.1, noise_multiplier=1.0, steps=10, grid_step=0.01)
    assert pabi.dpsgd_epsilon(1e-5, sample_rate=np.array(0.1), noise_multiplier=1.0, steps=10, grid_step=0.01) == base
    assert pabi.dpsgd_epsilon(sample_rate=np.float64(0.1), noise_multiplier=np.float32(1.0), steps=np.int64(10),
                              delta=np.array(1e-5), grid_step=np.float64(0.01)) == base
    for steps in (np.int64(10), np.int32(10), np.uint16(10), np.array(10), 10.0, np.float64(10)):
        assert pabi.dpsgd_epsilon(1e-5, sample_rate=0.1, noise_multiplier=1.0, steps=steps, grid_step=0.01) == base
        assert pabi.dpsgd_delta(1.0, sample_rate=0.1, noise_multiplier=1.0, steps=steps, grid_step=0.01) == pabi.dpsgd_delta(1.0, sample_rate=0.1, noise_multiplier=1.0, steps=10, grid_step=0.01)
    v = pabi.online_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0, 2.0, 2.0], index=3)
    for index in (np.float64(3), np.int64(3), np.array(3), 3.0):
        assert pabi.online_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0, 2.0, 2.0], index=index) == v
    assert pabi.online_delta(np.array(1.0), max_grad_norm=np.float32(1.0), lr=np.float64(0.1), diameter=np.int8(1),
                             noise_scale=[2.0, 2.0, 2.0], index=3) == v
    r = pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=S)
    assert pabi.dpsgd_per_instance_rdp(np.array(8.0), sample_rate=np.float64(0.01), noise_scale=np.int64(1), sensitivities=S) == r
    _raises(TypeError, "sample_rate", pabi.dpsgd_epsilon, 1e-5, sample_rate=np.array([0.1]), noise_multiplier=1.0, steps=10)  # 1-d is not a scalar


# ------------------------------------------------------------------ huge integers


def test_huge_integers():
    # a real parameter: converted to the nearest double (then the domain check decides)
    assert pabi.theta(2**63, 1.0) == pabi.theta(float(2**63), 1.0)
    assert pabi.theta(10**30, 1.0) == pabi.theta(1e30, 1.0)
    np.testing.assert_array_equal(pabi.theta([0.5, 10**30], 1.0), pabi.theta([0.5, 1e30], 1.0))
    assert pabi.theta(10**400, 1.0) == pabi.theta(math.inf, 1.0)  # beyond the double range: inf
    _raises(DomainError, "shift", pabi.theta, 1.0, -(10**400))
    _raises(DomainError, "sample_rate", pabi.dpsgd_epsilon, 1e-5, sample_rate=2**63, noise_multiplier=1.0, steps=10)
    _raises(DomainError, "sample_rate", pabi.dpsgd_per_instance_rdp, 8.0, sample_rate=10**30, noise_scale=1.0, sensitivities=S)
    # an integer parameter: DomainError (not OverflowError)
    for big in (2**63, 10**30, 10**400):
        _raises(DomainError, "steps", pabi.dpsgd_epsilon, 1e-5, sample_rate=0.1, noise_multiplier=1.0, steps=big)
        _raises(DomainError, "steps", pabi.holder_orders, 2.0, holder_exponent=2.0, steps=big)
        _raises(DomainError, "index", pabi.online_delta, 1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0,
                noise_scale=[2.0, 2.0], index=big)
        _raises(DomainError, "order", pabi.general_update_rdp, big, noise_scale=1.0, updates_second=[[0.0]], updates_first=[[[[1.0], [1.0], [1.0]]]])


# ------------------------------------------------------------------ wrong types name the parameter


def test_none_and_wrong_types_name_the_parameter():
    err = _raises(TypeError, "eps", pabi.theta, None, 1)  # said "got nan" (None became NaN)
    assert "nan" not in str(err) and "None" in str(err)
    _raises(TypeError, "shift", pabi.theta, 1.0, True)
    _raises(TypeError, "shift", pabi.theta, 1.0, 1 + 0j)
    _raises(TypeError, "shift", pabi.theta, 1.0, object())
    _raises(TypeError, "shift", pabi.theta, 1.0, b"1")
    _raises(TypeError, "shift", pabi.theta, 1.0, np.array([1.0, 2.0], dtype=object))
    _raises(TypeError, "shift", pabi.theta, 1.0, np.array([True, False]))
    _raises(TypeError, "shift", pabi.theta, 1.0, np.array([1 + 0j]))
    _raises(TypeError, "shift", pabi.theta, 1.0, np.array(["1.0"]))
    # the generic "'None' is not an instance of 'ndarray'" of the binding
    for fn, kw in ((pabi.pnsgd_delta, dict(eps=1.0, noise_scale=None, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=10,
                                            index=3, ordering="fixed")),
                   (pabi.pnsgd_rdp_slope, dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=10, index=None)),
                   (pabi.laplace_schedule_delta, dict(eps=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=None,
                                                      c1=10.0, c2=2.0))):
        missing = [k for k, v in kw.items() if v is None][0]
        _raises(TypeError, missing, fn, **kw)
    _raises(TypeError, "log", pabi.online_gaussian_delta, 1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=50,
            index=3, c1=10.0, c2=2.0, decay=1.5, log="yes")


def test_list_with_a_bad_element_names_its_index():
    err = _raises(TypeError, "eps", pabi.theta, [0.5, None], 1.0)
    assert err.index == 1 and "at index 1" in str(err)
    err = _raises(TypeError, "eps", pabi.theta, [[0.5, 1.0], [2.0, None]], 1.0)
    assert err.index == (1, 1)


def test_sweep_with_a_none_in_a_grid():
    # broke while building its own error message (None has no .item())
    _raises(TypeError, "eps", pabi.sweep, pabi.theta, eps=[0.5, None], shift=[1.0])
    err = _raises(DomainError, "eps", pabi.sweep, pabi.theta, eps=[0.5, -1.0], shift=[1.0])
    assert err.index == (1, 0)
    # a grid numpy stores as objects (an int beyond int64) is converted like any argument
    df = pabi.sweep(pabi.theta, eps=[0.5, 10**30], shift=[1.0])
    np.testing.assert_array_equal(df["value"], pabi.theta([0.5, 1e30], 1.0))
    err = _raises(DomainError, "eps", pabi.sweep, pabi.theta, eps=[0.5, -(10**30)], shift=[1.0])
    assert err.index == (1, 0) and "eps=-1e+30" in str(err)


def test_errors_name_the_public_parameter():
    _raises(DomainError, "mu", pabi.gdp_delta, 1.0, -1.0)  # was "r" (theta's name)
    _raises(DomainError, "batch_size", pabi.sensitivity_multi_epoch, lr=0.5, strong_convexity=1.0, smoothness=1.0,
            max_grad_norm=1.0, batch_size=math.nan, batches_per_epoch=4, batch_index=2)
    _raises(DomainError, "noise_multiplier", pabi.sampled_gaussian_rdp, 8, sample_rate=0.01, noise_multiplier=-1.0)
    _raises(DomainError, "kappa", pabi.shift_weight, 4.0, kappa=math.nan)
    with pytest.raises(ValueError, match=r"kappa has shape \(2,\), steps has shape \(3,\)"):  # was "L has shape"
        pabi.shift_weight([1.0, 2.0, 3.0], kappa=[0.5, 0.5])
    _raises(DomainError, "step_lipschitz", pabi.shift_weight_min_steps, 2.0, step_lipschitz=math.nan)
    _raises(DomainError, "orders", pabi.multi_epoch_epsilon, 1e-3, profile=lambda e: pabi.gdp_delta(e, 0.5), epochs=2,
            orders=[2.0, 0.5])


# ------------------------------------------------------------------ arrays


def test_array_dtypes_byte_orders_and_strides():
    ref = pabi.theta(np.array([0.5, 1.0, 2.0]), 1.0)
    for a in (np.array([0.5, 1.0, 2.0], dtype=">f8"), np.array([0.5, 1.0, 2.0], dtype=np.float32),
              np.array([0.5, 9.0, 1.0, 9.0, 2.0, 9.0])[::2], np.array([0.5, 1.0, 2.0], dtype=np.longdouble)):
        np.testing.assert_array_equal(pabi.theta(a, 1.0), ref)
    ints = np.array([1, 2, 3])
    for dt in (np.int8, np.uint16, ">i4", np.int64, np.uint64):
        np.testing.assert_array_equal(pabi.theta(ints.astype(dt), 1.0), pabi.theta([1.0, 2.0, 3.0], 1.0))
    np.testing.assert_array_equal(pabi.theta(np.array([2**63], dtype=np.uint64), 1.0),
                                  pabi.theta(np.array([float(2**63)]), 1.0))
    s = np.asfortranarray(np.full((3, 2), 0.5, dtype=">f4"))
    assert pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=s) == pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=S)
    _raises(TypeError, "sensitivities", pabi.dpsgd_per_instance_rdp, 8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=S.astype(bool))
    _raises(TypeError, "sensitivities", pabi.dpsgd_per_instance_rdp, 8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=S.astype(object))


def test_array_domain_errors_carry_the_first_bad_index():
    err = _raises(DomainError, "eps", pabi.theta, np.array([[0.5, 1.0], [-1.0, -2.0]]), 1.0)
    assert err.index == (1, 0)
    err = _raises(DomainError, "eps", pabi.theta, [0.5, -1.0, -2.0], 1.0)
    assert err.index == 1
    err = _raises(DomainError, "sensitivities", pabi.dpsgd_per_instance_rdp, 8.0, sample_rate=0.01, noise_scale=1.0,
                  sensitivities=np.array([[0.5, 0.5], [0.5, math.nan], [-1.0, 0.5]]))
    assert err.index == (1, 1)
    err = _raises(DomainError, "sensitivities", pabi.averaged_rdp, 2.0, noise_scale=1.0,
                  sensitivities=[[0.0, 1.0], [math.inf, 0.0]])
    assert err.index == (1, 0)


# ------------------------------------------------------------------ the helpers themselves


def test_helpers():
    assert real_scalar("x", 3) == 3.0 and type(real_scalar("x", 3)) is float
    assert real_scalar("x", np.float32(0.5)) == 0.5
    assert real_scalar("x", np.array(2, dtype=">i2")) == 2.0
    assert real_scalar("x", fractions.Fraction(1, 4)) == 0.25
    assert real_scalar("x", 10**400) == math.inf and real_scalar("x", -(10**400)) == -math.inf
    for bad in (True, np.bool_(True), "1", b"1", None, 1j, np.complex128(1), object(), np.array([1.0]),
                np.array(True), [1.0]):
        with pytest.raises(TypeError, match="^x must be"):
            real_scalar("x", bad)
    assert int_scalar("k", 7.0) == 7 and type(int_scalar("k", np.int64(7))) is int
    with pytest.raises(DomainError, match=r"k must be an integer in \[1, 2\^53\), got 0"):
        int_scalar("k", 0)
    with pytest.raises(DomainError, match="k must be an integer"):
        int_scalar("k", math.inf)
    with pytest.raises(DomainError, match=r"k must be an integer in \[2, 5\], got 6"):
        int_scalar("k", 6, lo=2, hi=5)
    assert as_real("a", [1, 2]).dtype.kind == "i"
    np.testing.assert_array_equal(as_real("a", [1, 10**30]), [1.0, 1e30])
    r = real_array("a", np.arange(6, dtype=">i8").reshape(2, 3)[:, ::2])
    assert r.dtype == np.float64 and r.flags.c_contiguous and r.tolist() == [[0.0, 2.0], [3.0, 5.0]]
    with pytest.raises(ValueError, match="a must be a 1-D array"):
        real_array("a", [[1.0]], ndim=1)
    with pytest.raises(TypeError, match="a must be a real number or a rectangular array"):
        as_real("a", [[1.0], [1.0, 2.0]])


def test_pld_profile_grid_arguments_checked_before_the_grid_is_built():
    P = pabi.PrivacyLossDistribution
    prof = lambda e: pabi.gdp_delta(e, 0.5)  # noqa: E731
    _raises(DomainError, "grid_step", P.from_profile, prof, grid_step=0.0, eps_max=20.0)  # was ZeroDivisionError
    _raises(DomainError, "grid_step", P.from_profile, prof, grid_step=math.nan, eps_max=20.0)  # was "cannot convert NaN"
    _raises(DomainError, "eps_max", P.from_profile, prof, grid_step=0.1, eps_max=math.inf)  # was OverflowError
    _raises(DomainError, "eps_max", P.from_profile, prof, grid_step=0.1, eps_max=10**30)  # was "Maximum allowed size"
    _raises(DomainError, "eps_max", P.from_profile, prof, grid_step=0.1, eps_max=-0.0)
    _raises(DomainError, "noise_scale", P.laplace, 5e-324, grid_step=0.01)  # r = inf: was OverflowError
    _raises(DomainError, "grid_step", P.laplace, 1.0, grid_step=-0.0)  # was ZeroDivisionError
    _raises(TypeError, "noise_scale", P.laplace, "1.0")
    _raises(DomainError, "grid_step", pabi.multi_epoch_epsilon, 1e-3, profile=prof, epochs=2, grid_step=5e-324)
    assert P.from_profile(prof, grid_step=0.1, eps_max=20.0).grid_step == 0.1


def test_array_likes_and_real_number_objects():
    import pandas as pd
    np.testing.assert_array_equal(pabi.theta(pd.Series([0.5, 1.0]), 1.0), pabi.theta([0.5, 1.0], 1.0))
    np.testing.assert_array_equal(pabi.theta(pd.Series([0.5]), 1.0), pabi.theta([0.5], 1.0))  # not a scalar
    assert pabi.theta(fractions.Fraction(1, 2), 1.0) == pabi.theta(0.5, 1.0)
    import mpmath
    np.testing.assert_array_equal(pabi.theta([mpmath.mpf(0.5), 1], 1.0), pabi.theta([0.5, 1.0], 1.0))


# ------------------------------------------------------------------ the all-Python-scalars fast path


@pytest.mark.parametrize("steps", [100, 2**53 + 1, 10**30, 2**2000], ids=["100", "2^53+1", "1e30", "2^2000"])
def test_python_scalar_fast_path_equals_the_numpy_path(steps):
    """Broadcast converts all-Python float/int arguments without numpy broadcasting; the values,
    the float result and the errors are those of the general path (numpy scalars, 0-d arrays),
    ints above 2^53 and beyond the double range included."""
    kw = dict(noise_scale=2.0, max_grad_norm=1.0, lr=0.5, diameter=1.0)
    def run(**k):
        try:
            return pabi.pnsgd_delta(1.0, **kw, **k)
        except DomainError as e:
            return ("DomainError", e.param, e.index, str(e))
    fast = run(steps=steps)
    as_double = float(steps) if steps < 2**1000 else math.inf
    slow = run(steps=np.asarray(as_double))
    assert type(fast) is type(slow)
    if isinstance(fast, float):
        assert fast == slow and fast.hex() == slow.hex()
    else:
        assert fast == slow
    arr = run(steps=np.array([as_double]))  # an array argument: the general path, same value
    if isinstance(slow, tuple):  # the same error, located at index 0 of the array
        assert isinstance(arr, tuple) and arr[:2] == slow[:2] and arr[2] == 0
    else:
        assert float(arr[0]).hex() == slow.hex()


def test_python_scalar_fast_path_takes_floats_and_ints_only():
    """bool, str, None and other objects keep the general path's TypeError naming the parameter;
    a Fraction converts as before."""
    kw = dict(noise_scale=2.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=10)
    _raises(TypeError, "lr", pabi.pnsgd_delta, 1.0, **{**kw, "lr": True})
    _raises(TypeError, "lr", pabi.pnsgd_delta, 1.0, **{**kw, "lr": "0.5"})
    _raises(TypeError, "lr", pabi.pnsgd_delta, 1.0, **{**kw, "lr": None})
    assert pabi.pnsgd_delta(1.0, **{**kw, "lr": fractions.Fraction(1, 2)}) == pabi.pnsgd_delta(1.0, **kw)
    assert isinstance(pabi.pnsgd_delta(1.0, **kw), float)


def test_core_bindings_read_python_floats_as_length_one_arrays():
    """The scalar call's path: a binding takes a Python float where it takes a float64 array
    (read as a length-1 array, no numpy array made), with the same bits as the array, the
    same broadcast against a longer array, and the same errors; anything else that is not an
    array (a numpy scalar, an int, a string) is still the array conversion's TypeError."""
    from pabi import _core

    one = np.array([0.75])
    long = np.array([0.0, 0.5, 3.0, 40.0])
    for f in (_core.theta, _core.log_theta, _core.theta_complement, _core.log_theta_complement,
              _core.laplace_theta, _core.laplace_theta_complement):
        for x, y in ((0.75, 2.0), (0.0, 1e-3), (30.0, 0.5), (1e-300, 5e-324)):
            a = f(x, y)
            assert isinstance(a, np.ndarray) and a.shape == (1,)
            assert a[0].tobytes() == f(np.array([x]), np.array([y]))[0].tobytes(), (f, x, y)
        assert f(0.75, long).tobytes() == f(one, long).tobytes()
        assert f(long, 0.75).tobytes() == f(long, one).tobytes()
    assert _core.gaussian_tail(1.5)[0] == _core.gaussian_tail(np.array([1.5]))[0]
    with pytest.raises(pabi.DomainError) as e:
        _core.theta(-1.0, 2.0)
    assert e.value.param == "eps"
    for bad in (np.float64(1.0), 1, True, "1.0", [1.0]):
        with pytest.raises(TypeError):
            _core.theta(bad, 2.0)
    # the public scalar call goes this way and agrees with the array call bit for bit
    assert pabi.theta(0.75, 2.0) == float(pabi.theta(np.array([0.75]), 2.0)[0])
