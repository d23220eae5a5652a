import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden"

# The default profile "ci" is deterministic (a fixed seed per test), so CI gives the same verdict
# on every run; failures that random exploration finds are pinned with @example. Other profiles:
#   PABI_HYPOTHESIS_PROFILE=long   random seeds, 20x the examples (tests/test_laws.py scales
#                                  every test's count with it), no deadline
#   PABI_HYPOTHESIS=explore        (older name) random seeds, 2000 examples per test
# e.g. PABI_HYPOTHESIS_PROFILE=long python -m pytest tests/test_laws.py --hypothesis-show-statistics
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, max_examples=100)
settings.register_profile("long", derandomize=False, deadline=None, print_blob=True, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.register_profile("explore", max_examples=2000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("PABI_HYPOTHESIS_PROFILE") or os.environ.get("PABI_HYPOTHESIS", "ci"))


@pytest.fixture(scope="session")
def golden_dir() -> pathlib.Path:
    return GOLDEN
