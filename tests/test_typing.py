"""The hand-written stubs match the compiled module, and the package type-checks."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_stubtest_core_extension():
    pytest.importorskip("mypy")
    res = run("mypy.stubtest", "pabi._core")
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_public_api():
    pytest.importorskip("mypy")
    res = run("mypy", "--ignore-missing-imports", "python/pabi/_api.py", "python/pabi/_bridge.py")
    assert res.returncode == 0, res.stdout + res.stderr
