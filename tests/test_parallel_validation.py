"""Long arguments are validated in parallel (chunks of 2^16 from 2^20 elements): the error names
the first bad index whatever the thread count, as the serial scan did."""

from __future__ import annotations

import numpy as np
import pytest

import pabi


@pytest.mark.parametrize("threads", [1, 2])
def test_first_bad_index_of_a_long_argument(threads):
    old = pabi.get_num_threads()
    pabi.set_num_threads(threads)
    try:
        s = np.full((1100, 1000), 0.5)
        s[1000, 3] = -1.0  # a later chunk
        s[900, 5] = np.nan  # the first bad element (flat index 900_005, chunk 13)
        s[1099, 999] = np.inf
        with pytest.raises(pabi.DomainError) as e:
            pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=s, fractional="ceil")
        assert e.value.param == "sensitivities"
        assert e.value.index == (900, 5)
        # one bad element at the very end of the last (partial) chunk
        s = np.full((1100, 1000), 0.5)
        s[1099, 999] = -0.0 - 1e-300
        with pytest.raises(pabi.DomainError) as e:
            pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=s, fractional="ceil")
        assert e.value.index == (1099, 999)
    finally:
        pabi.set_num_threads(old)


def test_long_eps_argument_of_pnsgd_delta():
    eps = np.full(1 << 21, 0.5)
    eps[(1 << 20) + 7] = -1.0
    eps[(1 << 20) + 70_000] = np.nan
    with pytest.raises(pabi.DomainError) as e:
        pabi.pnsgd_delta(eps, noise_scale=2.0, max_grad_norm=1.0, lr=0.05, diameter=3.0, steps=10)
    assert e.value.param == "eps" and e.value.index == (1 << 20) + 7
