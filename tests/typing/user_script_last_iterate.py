"""A user's script, Renyi DP (type-checked by tests/test_user_typing.py with ``mypy --strict``;
each ``reveal_type`` line carries the type it must reveal after ``# ->``; a trailing ``pending``
marks a family whose wrappers are not yet exactly typed)."""

import numpy as np

import pabi

x = np.linspace(0.1, 1.0, 5)
orders = np.array([2.0, 4.0, 8.0])

# last iterate (lines added with the family's exact overloads)
reveal_type(pabi.shift_weight(3.0, 0.9))  # -> float
reveal_type(pabi.shift_weight(x + 1.0, 0.9))  # -> ndarray
reveal_type(pabi.shift_weight(3.0, kappa=x))  # -> ndarray
reveal_type(pabi.cyclic_shift_weight_sum(10, batches_per_epoch=4, step_lipschitz=1.1))  # -> float
reveal_type(pabi.clipped_step_kappa(0.1, weak_convexity=1.0, smoothness=2.0))  # -> float
reveal_type(pabi.clipped_step_kappa(x / 10, weak_convexity=1.0, smoothness=2.0))  # -> ndarray
reveal_type(pabi.last_iterate_rdp_general(2.0, lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100))  # -> float
reveal_type(pabi.last_iterate_rdp_general(orders, lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100))  # -> ndarray
reveal_type(pabi.last_iterate_rdp_cyclic(2.0, lr=0.1, max_grad_norm=1.0, batch_size=10, noise_scale=1.0, steps=20, batches_per_epoch=5, weak_convexity=0.5, smoothness=1.0))  # -> float
reveal_type(pabi.last_iterate_rdp_cyclic(orders, lr=0.1, max_grad_norm=1.0, batch_size=10, noise_scale=1.0, steps=20, batches_per_epoch=5, weak_convexity=0.5, smoothness=1.0, index=2))  # -> ndarray
reveal_type(pabi.last_iterate_rdp_bounded(2.0, lr=0.1, max_grad_norm=1.0, batch_size=10, noise_scale=1.0, diameter=1.0, weak_convexity=0.5, smoothness=1.0))  # -> float
reveal_type(pabi.last_iterate_rdp_small_step(orders, lr=0.1, max_grad_norm=1.0, batch_size=10, noise_scale=1.0, batches_per_epoch=5, weak_convexity=0.5, smoothness=1.0))  # -> ndarray
reveal_type(pabi.shifted_drift_bound(2.0, noise_scale=1.0, drift=1.0, steps=10, batches_per_epoch=5))  # -> float
reveal_type(pabi.shifted_cycle_bound(orders, noise_scale=1.0, steps=10, batches_per_epoch=5, map_difference=1.0, step_lipschitz=1.0))  # -> ndarray
reveal_type(pabi.optimal_shifts(5, initial_distance=0.5, map_difference=1.0, step_lipschitz=1.5))  # -> ndarray
reveal_type(pabi.shift_weight_min_steps(2.0, 2.0))  # -> float
reveal_type(pabi.sensitivity_multi_epoch(lr=0.5, strong_convexity=1.0, smoothness=1.0, max_grad_norm=1.0, batch_size=1.0, batches_per_epoch=4, batch_index=2))  # -> float
reveal_type(pabi.gaussian_mechanism_rdp(2.0, sensitivity=1.0, noise_scale=1.0))  # -> float
reveal_type(pabi.gaussian_mechanism_rdp(orders, sensitivity=1.0, noise_scale=1.0))  # -> ndarray
