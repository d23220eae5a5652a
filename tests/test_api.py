"""The numpy bridge: scalars and broadcasting, dtypes, errors naming the parameter and index."""

import math

import numpy as np
import pytest

import pabi
from _engine_fns import log_gaussian_tail, log_theta, log_theta_complement

BINARY = [pabi.theta, log_theta, pabi.theta_complement, log_theta_complement,
          pabi.laplace_theta, pabi.laplace_theta_complement]
UNARY = [pabi.gaussian_tail, log_gaussian_tail, pabi.lambertw, pabi.wright_omega]


def test_scalar_in_float_out():
    for f in BINARY:
        v = f(1.0, 0.5)
        assert type(v) is float
    for f in UNARY:
        assert type(f(0.25)) is float
    assert type(pabi.theta(np.float32(1.0), 1)) is float  # numpy scalars and ints count as scalars


def test_broadcasting_matches_elementwise_calls():
    eps = np.array([[0.0], [0.5], [3.0]])
    r = np.array([0.1, 1.0, 10.0, 100.0])
    out = pabi.theta(eps, r)
    assert out.shape == (3, 4) and out.dtype == np.float64
    for i in range(3):
        for j in range(4):
            assert out[i, j] == pabi.theta(float(eps[i, 0]), float(r[j]))
    # non-contiguous and float32/int inputs
    big = np.linspace(0, 5, 40).reshape(5, 8)[:, ::2]
    assert np.array_equal(pabi.theta(big, 1), pabi.theta(np.ascontiguousarray(big), 1.0))
    assert np.array_equal(pabi.theta(np.arange(4), np.float32(2.0)), pabi.theta(np.arange(4.0), 2.0))
    assert pabi.theta([], []).shape == (0,)
    assert pabi.gaussian_tail([[1.0, 2.0]]).shape == (1, 2)


@pytest.mark.parametrize("bad", [math.nan, -1.0, -1e-300, -math.inf])
def test_bad_eps_is_a_value_error_naming_eps(bad):
    with pytest.raises(ValueError, match=r"^eps must be >= 0 and not NaN, got") as info:
        pabi.theta(bad, 1.0)
    assert info.value.param == "eps" and info.value.index is None
    assert "index" not in str(info.value)


def test_first_bad_index_is_reported_for_arrays():
    eps = np.ones(10_000)
    eps[7321] = -2.0
    eps[9000] = np.nan
    with pytest.raises(pabi.DomainError, match=r"eps must be >= 0 and not NaN, got -2.0 at index 7321$") as info:
        pabi.theta(eps, 0.5, log=True)
    assert info.value.index == 7321 and info.value.param == "eps"
    r = np.ones((3, 4))
    r[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"^shift must be >= 0 and not NaN, got nan at index \(2, 1\)$"):
        pabi.theta_complement(1.0, r)


def test_other_domain_errors():
    with pytest.raises(ValueError, match="shift must be finite where eps is infinite"):
        pabi.theta(math.inf, math.inf)
    with pytest.raises(ValueError, match=r"x must be >= -1/e \(-0.36787944117144233\) and not NaN, got -0.4"):
        pabi.lambertw(-0.4)
    with pytest.raises(ValueError, match=r"got nan at index 1"):
        pabi.lambertw([1.0, math.nan])
    with pytest.raises(ValueError, match="x must be a real number"):
        pabi.gaussian_tail(math.nan)
    with pytest.raises(ValueError, match="x must be a real number"):
        pabi.wright_omega([math.nan])


def test_shape_mismatch_and_types():
    with pytest.raises(ValueError, match=r"shape mismatch: eps has shape \(3,\), shift has shape \(2,\)"):
        pabi.theta([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(TypeError, match="eps must be a real number"):
        pabi.theta("1.0", 1.0)
    with pytest.raises(TypeError, match="shift must be a real number"):
        pabi.theta(1.0, 1j)
    with pytest.raises(TypeError):
        pabi.theta(1.0, [True, False])
    with pytest.raises(TypeError):
        pabi.gaussian_tail(object())
    # objects convertible to float are accepted (e.g. mpmath numbers)
    import mpmath

    assert pabi.theta(mpmath.mpf(1), 1.0) == pabi.theta(1.0, 1.0)


def test_special_values():
    assert pabi.theta(1.0, 0.0) == 0.0
    assert pabi.theta(1.0, math.inf) == 1.0
    assert pabi.theta(math.inf, 3.0) == 0.0
    assert pabi.theta_complement(1.0, math.inf) == 0.0
    assert pabi.theta(1.0, 0.0, log=True) == -math.inf
    assert pabi.laplace_theta(0.0, math.inf) == 1.0
    assert pabi.laplace_theta(5.0, 1.0) == 0.0 and pabi.laplace_theta_complement(5.0, 1.0) == 1.0
    assert pabi.lambertw(0.0) == 0.0 and pabi.lambertw(math.inf) == math.inf
    assert pabi.wright_omega(-math.inf) == 0.0 and pabi.wright_omega(math.inf) == math.inf


def test_threads_setting_and_parallel_equals_serial():
    rng = np.random.default_rng(0)
    eps, r = rng.uniform(0, 10, 200_003), 10 ** rng.uniform(-2, 1, 200_003)
    before = pabi.get_num_threads()
    try:
        pabi.set_num_threads(1)
        assert pabi.get_num_threads() == 1
        serial = pabi.theta(eps, r)
        pabi.set_num_threads(2)
        par = pabi.theta(eps, r)
    finally:
        pabi.set_num_threads(before)
    assert np.array_equal(serial, par)
    with pytest.raises(ValueError, match="threads must be an integer >= 1"):
        pabi.set_num_threads(0)
    with pytest.raises(TypeError):
        pabi.set_num_threads(1.5)


def test_simd_level_is_reported():
    assert pabi.simd_level() in {"avx512", "avx2+fma", "neon", "portable"}


def test_input_arrays_are_not_modified():
    eps = np.array([0.5, 1.0])
    r = np.array([1.0, 2.0])
    pabi.theta(eps, r)
    assert eps.tolist() == [0.5, 1.0] and r.tolist() == [1.0, 2.0]


def test_domain_error_pickles_with_its_attributes():
    """DomainError crosses process boundaries (dask workers, multiprocessing) intact."""
    import pickle

    with pytest.raises(pabi.DomainError) as info:
        pabi.theta([1.0, 2.0], [1.0, -1.0])
    err = pickle.loads(pickle.dumps(info.value))
    assert type(err) is pabi.DomainError
    assert isinstance(err, ValueError)
    assert (err.param, err.index, str(err)) == (info.value.param, info.value.index, str(info.value))
    assert err.index == 1
