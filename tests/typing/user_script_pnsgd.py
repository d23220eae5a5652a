"""A user's script, PNSGD, noise schedules and online noise (type-checked by tests/test_user_typing.py with ``mypy --strict``;
each ``reveal_type`` line carries the type it must reveal after ``# ->``; a trailing ``pending``
marks a family whose wrappers are not yet exactly typed)."""

import numpy as np

import pabi

x = np.linspace(0.1, 1.0, 5)

# PNSGD
reveal_type(pabi.pnsgd_delta(1.0, sigma=1.0, lipschitz=1.0, lr=0.1, diameter=1.0, n=10, order="shuffled"))  # -> float pending
reveal_type(pabi.pnsgd_delta(x, sigma=1.0, lipschitz=1.0, lr=0.1, diameter=1.0, n=10, order="shuffled"))  # -> ndarray pending

# schedules and online noise
reveal_type(pabi.gauss_schedule_delta(1.0, 1.0, 0.1, 1.0, 100, 1.0, 1.0))  # -> float pending
reveal_type(pabi.gauss_schedule_delta(x, 1.0, 0.1, 1.0, 100, 1.0, 1.0))  # -> ndarray pending

