import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden"

# The default profile "ci" is deterministic (a fixed seed per test), so CI gives the same verdict
# on every run; failures that random exploration finds are pinned with @example. Other profiles:
#   PABI_HYPOTHESIS_PROFILE=long   random seeds, 20x the examples, no deadline: a test's own
#                                  @settings(max_examples=k) becomes 20k (pytest_collection_modifyitems
#                                  below; a module that sizes its tests from the profile itself sets
#                                  SCALES_WITH_PROFILE = True: tests/test_laws.py)
#   PABI_HYPOTHESIS=explore        (older name) random seeds, 2000 examples per test
# e.g. PABI_HYPOTHESIS_PROFILE=long python -m pytest tests/test_laws.py --hypothesis-show-statistics
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, max_examples=100)
settings.register_profile("long", derandomize=False, deadline=None, print_blob=True, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.register_profile("explore", max_examples=2000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("PABI_HYPOTHESIS_PROFILE") or os.environ.get("PABI_HYPOTHESIS", "ci"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under a profile with more examples than "ci" (the long random run), scale every test's own
    ``max_examples`` by the same ratio: an explicit ``@settings(max_examples=40)`` would otherwise
    keep the long run at the deterministic run's count for that test."""
    base = settings.get_profile("ci").max_examples
    ratio = settings.default.max_examples / base
    if ratio <= 1:
        return
    done: set[int] = set()
    for item in items:
        fn = getattr(item, "obj", None)
        own = getattr(fn, "_hypothesis_internal_use_settings", None)
        if own is None or id(fn) in done or getattr(getattr(item, "module", None), "SCALES_WITH_PROFILE", False):
            continue
        done.add(id(fn))  # (a parametrized test shares its function: scaled once)
        if own.max_examples < settings.default.max_examples:
            fn._hypothesis_internal_use_settings = settings(own, max_examples=int(own.max_examples * ratio))


@pytest.fixture(scope="session")
def golden_dir() -> pathlib.Path:
    return GOLDEN
