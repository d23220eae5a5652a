"""A missing optional dependency gives a message that names the extra to install (issue 15)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run a child in which the named top-level packages cannot be imported.
BLOCK = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}")
        return None
sys.meta_path.insert(0, _Block())
"""


def _run(blocked: set[str], code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", BLOCK.format(blocked=blocked) + code], capture_output=True,
                          text=True, env=env, timeout=120)


def test_reference_without_mpmath_names_the_extra() -> None:
    out = _run({"mpmath"}, "import pabi.reference")
    assert out.returncode != 0
    assert "pabi.reference needs mpmath: pip install 'pabi[reference]'" in out.stderr
    assert _run({"mpmath"}, "import pabi; print(pabi.theta(1.0, 1.0) > 0)").stdout.strip() == "True"


def test_example_without_sklearn_names_the_extra() -> None:
    code = (f"import runpy, sys; sys.argv = ['x']; "
            f"runpy.run_path({str(ROOT / 'examples' / 'per_instance_dpsgd.py')!r}, run_name='__main__')")
    out = _run({"sklearn"}, code)
    assert out.returncode != 0
    assert "needs scikit-learn" in out.stderr and "pip install 'pabi[examples]'" in out.stderr


def test_opacus_adapter_without_opacus_names_the_extra() -> None:
    out = _run({"opacus"}, "import pabi.adapters.opacus")
    assert out.returncode != 0
    assert "pip install 'pabi[opacus]'" in out.stderr
