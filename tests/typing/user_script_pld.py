"""A user's script, Renyi DP (type-checked by tests/test_user_typing.py with ``mypy --strict``;
each ``reveal_type`` line carries the type it must reveal after ``# ->``; a trailing ``pending``
marks a family whose wrappers are not yet exactly typed)."""

import numpy as np

import pabi

x = np.linspace(0.1, 1.0, 5)

# privacy loss distributions
reveal_type(pabi.PrivacyLossDistribution.gaussian(1.0).compose(10).epsilon(1e-5))  # -> float pending
