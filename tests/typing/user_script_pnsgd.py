"""A user's script, PNSGD, noise schedules and online noise (type-checked by tests/test_user_typing.py with ``mypy --strict``;
each ``reveal_type`` line carries the type it must reveal after ``# ->``; a trailing ``pending``
marks a family whose wrappers are not yet exactly typed)."""

import numpy as np

import pabi

x = np.linspace(0.1, 1.0, 5)

# PNSGD
reveal_type(pabi.pnsgd_delta(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=10, ordering="shuffled"))  # -> float
reveal_type(pabi.pnsgd_delta(x, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=10, ordering="shuffled"))  # -> ndarray
reveal_type(pabi.pnsgd_delta(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=10, log=True))  # -> float
reveal_type(pabi.pnsgd_epsilon(1e-5, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=10))  # -> float
reveal_type(pabi.pnsgd_epsilon(x * 1e-5, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=10))  # -> ndarray
reveal_type(pabi.pnsgd_calibrate_noise_scale(1.0, 1e-5, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=10))  # -> float
reveal_type(pabi.pnsgd_calibrate_noise_scale(x, 1e-5, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=10))  # -> ndarray
reveal_type(pabi.pnsgd_rdp_delta(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=10, index=1))  # -> float
reveal_type(pabi.pnsgd_rdp_delta(x, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=10, index=1, log=True))  # -> ndarray
reveal_type(pabi.pnsgd_rdp_epsilon(1e-5, noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=10, index=1))  # -> float
reveal_type(pabi.pnsgd_rdp_slope(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=10, index=1))  # -> float
reveal_type(pabi.pnsgd_rdp_slope(noise_scale=x, max_grad_norm=1.0, lr=0.1, steps=10, index=1))  # -> ndarray

# schedules and online noise
reveal_type(pabi.gaussian_schedule_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=100, c1=1.0, c2=1.0))  # -> float
reveal_type(pabi.gaussian_schedule_delta(x, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=100, c1=1.0, c2=1.0))  # -> ndarray
reveal_type(pabi.laplace_schedule_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=100, c1=1.0, c2=2.0))  # -> float
reveal_type(pabi.gaussian_schedule_noise_scale(100, c1=1.0, c2=1.0, lr=0.1, diameter=1.0))  # -> float
reveal_type(pabi.laplace_schedule_noise_scale(x * 100, c1=1.0, c2=2.0, lr=0.1, diameter=1.0))  # -> ndarray
reveal_type(pabi.gaussian_schedule_delta_limit(1.0, c1=1e5))  # -> float
reveal_type(pabi.laplace_schedule_delta_limit(x, c1=1e5))  # -> ndarray
reveal_type(pabi.schedule_calibrate_c1(1.0, 1e-5, noise="laplace"))  # -> float
reveal_type(pabi.schedule_calibrate_c1(x, 1e-5))  # -> ndarray
reveal_type(pabi.online_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0, 2.0]))  # -> ndarray
reveal_type(pabi.online_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=[2.0, 2.0], index=1))  # -> float
reveal_type(pabi.online_gaussian_noise_scale(10, c1=100.0, c2=100.0, decay=1.5, lr=0.01, diameter=1.0))  # -> float
reveal_type(pabi.online_laplace_noise_scale(x * 10, c1=100.0, c2=100.0, decay=1.5, lr=0.01, diameter=1.0))  # -> ndarray
reveal_type(pabi.online_gaussian_delta(1.0, max_grad_norm=1.0, lr=0.01, diameter=1.0, steps=100, index=10, c1=100.0, c2=100.0, decay=1.5))  # -> float
reveal_type(pabi.online_laplace_delta(x, max_grad_norm=1.0, lr=0.01, diameter=1.0, steps=100, index=10, c1=100.0, c2=100.0, decay=1.5, log=True))  # -> ndarray
reveal_type(pabi.online_gaussian_delta_limit(1.0, max_grad_norm=1.0, lr=0.01, diameter=1.0, index=10, c1=100.0, c2=100.0, decay=1.5))  # -> float
reveal_type(pabi.online_laplace_delta_limit_upper(x, max_grad_norm=1.0, lr=0.01, diameter=1.0, index=10, c1=100.0, c2=100.0, decay=1.5))  # -> ndarray
reveal_type(pabi.online_gaussian_delta_limit_closed_upper(1.0, max_grad_norm=1.0, lr=0.01, diameter=1.0, index=10, c1=100.0, c2=100.0, decay=1.5, variant="as_published"))  # -> float
reveal_type(pabi.online_laplace_delta_limit_lower(1.0, max_grad_norm=1.0, lr=0.01, diameter=1.0, index=10, c1=100.0, c2=100.0, decay=1.5))  # -> float
reveal_type(pabi.gaussian_schedule_epsilon(1e-5, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=100, c1=1e5, c2=1.0))  # -> float
reveal_type(pabi.laplace_schedule_epsilon(x * 1e-3, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=100, c1=1e5, c2=2.0))  # -> ndarray
