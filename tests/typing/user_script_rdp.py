"""A user's script, Renyi DP (type-checked by tests/test_user_typing.py with ``mypy --strict``;
each ``reveal_type`` line carries the type it must reveal after ``# ->``; a trailing ``pending``
marks a family whose wrappers are not yet exactly typed)."""

import numpy as np

import pabi

x = np.linspace(0.1, 1.0, 5)

# Renyi DP
reveal_type(pabi.sampled_gaussian_rdp(8.0, 0.01, 1.0))  # -> float pending
reveal_type(pabi.sampled_gaussian_rdp(x + 1.0, 0.01, 1.0))  # -> ndarray pending

