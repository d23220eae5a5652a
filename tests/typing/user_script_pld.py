"""A user's script, privacy loss distributions and composition (type-checked by
tests/test_user_typing.py with ``mypy --strict``; each ``reveal_type`` line carries the type it
must reveal after ``# ->``; a trailing ``pending`` marks a family whose wrappers are not yet
exactly typed)."""

import numpy as np

import pabi

x = np.linspace(0.1, 1.0, 5)
P = pabi.PrivacyLossDistribution

# privacy loss distributions: a scalar query gives a Bracket of floats, an array query one of arrays
reveal_type(P.gaussian(1.0).compose(10).epsilon(1e-5).upper)  # -> float
reveal_type(P.gaussian(1.0).compose(10).epsilon(x).upper)  # -> ndarray
reveal_type(P.subsampled_gaussian(sample_rate=0.01, noise_multiplier=1.0).compose(100).delta(1.0).lower)  # -> float
reveal_type(P.laplace(1.0, grid_step=1e-3).compose(2).delta(x).estimate)  # -> ndarray
reveal_type(P.from_eps_delta(0.5, 1e-4).grid_step)  # -> float
reveal_type(P.from_profile(lambda e: pabi.gdp_delta(e, 0.5)).pmf)  # -> ndarray
reveal_type(pabi.compose_plds([(P.gaussian(2.0), 3)]).error_budget.fft_error)  # -> float
reveal_type(pabi.multi_epoch_epsilon(1e-5, profile=lambda e: pabi.gdp_delta(e, 0.5), epochs=2).pld)  # -> float
reveal_type(pabi.dpsgd_delta(1.0, sample_rate=0.01, noise_multiplier=1.0, steps=10).upper)  # -> float

# Gaussian DP, exact composition, trade-off functions
reveal_type(pabi.gdp_epsilon(1e-5, 1.0))  # -> float
reveal_type(pabi.gdp_epsilon(x * 1e-3, 1.0))  # -> ndarray
reveal_type(pabi.gdp_mu(1.0, 1e-5))  # -> float
reveal_type(pabi.gdp_mu(x, 1e-5))  # -> ndarray
reveal_type(pabi.approx_dp_composition_delta(0.5, 1e-4, 10, 2.0))  # -> float
reveal_type(pabi.approx_dp_composition_delta(0.5, 1e-4, 10, x))  # -> ndarray
reveal_type(pabi.approx_dp_composition_epsilon(0.5, 1e-4, 10, 1e-3))  # -> float
reveal_type(pabi.tradeoff_eps_delta(0.1, 1.0, 1e-3))  # -> float
reveal_type(pabi.tradeoff_eps_delta(x, 1.0, 1e-3))  # -> ndarray
reveal_type(pabi.tradeoff_from_profile(0.1, x, pabi.gdp_delta(x, 1.0)))  # -> float
reveal_type(pabi.tradeoff_from_profile(x, x, pabi.gdp_delta(x, 1.0)))  # -> ndarray
