import os
import pathlib

import pytest
from hypothesis import settings

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden"

# The default profile is deterministic (a fixed seed per test), so CI gives the same verdict on
# every run; failures that random exploration finds are pinned with @example. Explore with
#   PABI_HYPOTHESIS=explore python -m pytest tests/test_properties.py
# (random seeds, 20x the examples, no deadline).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", max_examples=2000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("PABI_HYPOTHESIS", "ci"))


@pytest.fixture(scope="session")
def golden_dir() -> pathlib.Path:
    return GOLDEN
