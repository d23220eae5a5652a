"""The hand-written stubs match the compiled module, and the package type-checks."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_stubtest_core_extension():
    import mypy  # noqa: F401 (a test dependency: the README's test command installs it)
    res = run("mypy.stubtest", "pabi._core")
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_whole_package(tmp_path):
    """``mypy python/pabi`` (the configuration of pyproject.toml: mypy's defaults, the untyped
    optional dependencies imported as Any) finds no error in any module of the package. A fresh
    cache, as in CI: ~8 s of one core."""
    import mypy  # noqa: F401 (a test dependency: the README's test command installs it)
    res = run("mypy", "--no-incremental", "--cache-dir", str(tmp_path / "mypy-cache"), "python/pabi")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Success: no issues found" in res.stdout, res.stdout
