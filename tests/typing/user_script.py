"""A user's script: the engine and composition families with scalars and arrays (type-checked by tests/test_user_typing.py
with ``mypy --strict``; each ``reveal_type`` line carries the type it must reveal after ``# ->``)."""

import numpy as np

import pabi

x = np.linspace(0.1, 1.0, 5)

# engine
reveal_type(pabi.theta(1.0, 1.0))  # -> float
reveal_type(pabi.theta(x, 1.0))  # -> ndarray
reveal_type(pabi.theta(1.0, 1e-3, log=True))  # -> float
reveal_type(pabi.theta_complement(x, x, log=True))  # -> ndarray
reveal_type(pabi.gaussian_tail(2.0))  # -> float
reveal_type(pabi.gaussian_tail([1.0, 2.0]))  # -> ndarray
reveal_type(pabi.laplace_theta(1.0, 2.0))  # -> float
reveal_type(pabi.lambertw(x))  # -> ndarray
reveal_type(pabi.wright_omega(3.0))  # -> float
reveal_type(pabi.hockey_stick_divergence([0.5, 0.5], [0.25, 0.75], 0.5))  # -> float
reveal_type(pabi.hockey_stick_divergence([0.5, 0.5], [0.25, 0.75], x))  # -> ndarray
reveal_type(pabi.contraction_coefficient([[0.9, 0.1], [0.1, 0.9]], 0.5))  # -> float

# composition and DP-SGD
reveal_type(pabi.gdp_delta(1.0, 1.0))  # -> float
reveal_type(pabi.gdp_delta(x, 1.0))  # -> ndarray
reveal_type(pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000))  # -> float
