"""A user's script, Renyi DP (type-checked by tests/test_user_typing.py with ``mypy --strict``;
each ``reveal_type`` line carries the type it must reveal after ``# ->``; a trailing ``pending``
marks a family whose wrappers are not yet exactly typed)."""

import numpy as np

import pabi

x = np.linspace(0.1, 1.0, 5)
s = np.full((10, 4), 0.5)

# Renyi DP of the sampled Gaussian
reveal_type(pabi.sampled_gaussian_rdp(8.0, sample_rate=0.01, noise_multiplier=1.0))  # -> float
reveal_type(pabi.sampled_gaussian_rdp(x + 1.0, sample_rate=0.01, noise_multiplier=1.0))  # -> ndarray
reveal_type(pabi.sampled_gaussian_rdp_per_instance(8.0, sample_rate=0.01, sensitivity=0.5, noise_scale=1.0))  # -> float
reveal_type(pabi.sampled_gaussian_rdp_per_instance(8.0, sample_rate=x, sensitivity=0.5, noise_scale=1.0))  # -> ndarray

# Hoelder composition and its parameters
reveal_type(pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=s))  # -> float
reveal_type(pabi.dpsgd_per_instance_rdp(8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=s, return_terms=True).terms)  # -> ndarray
reveal_type(pabi.holder_orders(2.0, holder_exponent=2.0, steps=3))  # -> ndarray
reveal_type(pabi.holder_min_exponent(8.0, steps=100))  # -> float
reveal_type(pabi.holder_min_exponent(x + 1.0, steps=100))  # -> ndarray
reveal_type(pabi.hoeffding_sample_size(8, rdp=1.0, rdp_bound=2.0, tolerance=0.1, failure_prob=0.05, log=True))  # -> float
reveal_type(pabi.hoeffding_sample_size(8, rdp=x, rdp_bound=2.0, tolerance=0.1, failure_prob=0.05))  # -> ndarray

# classical Gaussian mechanism, weak triangle inequality
reveal_type(pabi.gaussian_dp_constant(1e-5, 1.0))  # -> float
reveal_type(pabi.gaussian_mechanism_epsilon(1e-5, noise_scale=10.0, sensitivity=x))  # -> ndarray
reveal_type(pabi.weak_triangle_bound(2.0, holder_exponent=2.0, divergence_pq=0.1, divergence_qr=0.2))  # -> float

# conversions and composition of RDP curves
reveal_type(pabi.rdp_to_dp_epsilon(1e-5, orders=[2.0, 4.0], rdp=[0.5, 1.0]).eps)  # -> float
reveal_type(pabi.rdp_to_dp_delta(1.0, orders=[2.0, 4.0], rdp=[0.5, 1.0]).delta)  # -> float
reveal_type(pabi.rdp_compose([[0.1, 0.2], [0.3, 0.4]]))  # -> ndarray

# ERM: averaged and mixture RDP (samples on the last axis; one row with scalar arguments -> float)
reveal_type(pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=[0.0, 1.0]))  # -> float
reveal_type(pabi.averaged_rdp(x + 1.0, noise_scale=1.0, sensitivities=[0.0, 1.0]))  # -> ndarray
reveal_type(pabi.averaged_rdp(2.0, noise_scale=1.0, sensitivities=s))  # -> ndarray
reveal_type(pabi.mixture_rdp_bound(2.0, weights=[0.5, 0.5], rdp=[0.0, 1.0]))  # -> float
reveal_type(pabi.mixture_rdp_bound(x + 1.0, weights=[0.5, 0.5], rdp=[0.0, 1.0]))  # -> ndarray
reveal_type(pabi.mixture_rdp_bound(2.0, weights=[[0.5, 0.5]], rdp=[[0.0, 1.0]]))  # -> ndarray
