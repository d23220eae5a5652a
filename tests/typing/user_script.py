"""A user's script: every family with scalars and arrays (type-checked by tests/test_user_typing.py
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

# PNSGD
reveal_type(pabi.pnsgd_delta(1.0, sigma=1.0, lipschitz=1.0, lr=0.1, diameter=1.0, n=10, order="shuffled"))  # -> float
reveal_type(pabi.pnsgd_delta(x, sigma=1.0, lipschitz=1.0, lr=0.1, diameter=1.0, n=10, order="shuffled"))  # -> ndarray

# schedules and online noise
reveal_type(pabi.gauss_schedule_delta(1.0, 1.0, 0.1, 1.0, 100, 1.0, 1.0))  # -> float
reveal_type(pabi.gauss_schedule_delta(x, 1.0, 0.1, 1.0, 100, 1.0, 1.0))  # -> ndarray

# Renyi DP
reveal_type(pabi.sampled_gaussian_rdp(8.0, 0.01, 1.0))  # -> float
reveal_type(pabi.sampled_gaussian_rdp(x + 1.0, 0.01, 1.0))  # -> ndarray

# composition and DP-SGD
reveal_type(pabi.gdp_delta(1.0, 1.0))  # -> float
reveal_type(pabi.gdp_delta(x, 1.0))  # -> ndarray
reveal_type(pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000))  # -> float
