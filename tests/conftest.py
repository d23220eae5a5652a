import pathlib

import pytest

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden"


@pytest.fixture(scope="session")
def golden_dir() -> pathlib.Path:
    return GOLDEN
