"""Load Opacus's accountant code for the tests, with or without torch.

Opacus's accountants (``opacus.accountants``: ``IAccountant``, the registry, the RDP/PRV
accountants and ``utils.get_noise_multiplier``) need only numpy and scipy, but ``import opacus``
imports torch (the package's ``__init__`` loads the privacy engine, and ``accountant.py``
imports ``DPOptimizer`` for a type hint). The test command installs Opacus with ``--no-deps``
(README); where torch is absent, this module loads the accountant modules from the installed
Opacus package under a stand-in ``opacus`` package whose ``optimizers`` module provides the
one name they import. The code exercised is Opacus's own, unmodified.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types


def torch_available() -> bool:
    return importlib.util.find_spec("torch") is not None


def load_opacus_accountants() -> types.ModuleType:
    """Return ``opacus.accountants`` (Opacus's own code). Raises if Opacus is not installed:
    the test command installs it, so a missing Opacus is a failure, not a skip."""
    if torch_available():
        return importlib.import_module("opacus.accountants")
    if "opacus.accountants" in sys.modules:
        return sys.modules["opacus.accountants"]
    spec = importlib.util.find_spec("opacus")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("Opacus is not installed: run the README's test command "
                          "(it installs opacus with --no-deps)")
    pkg = types.ModuleType("opacus")
    pkg.__path__ = list(spec.submodule_search_locations)
    pkg.__spec__ = spec
    optimizers = types.ModuleType("opacus.optimizers")

    class DPOptimizer:  # the name accountant.py imports for its optimiser hook's type hint
        noise_multiplier: float
        accumulated_iterations: int

    optimizers.DPOptimizer = DPOptimizer  # type: ignore[attr-defined]
    sys.modules["opacus"] = pkg
    sys.modules["opacus.optimizers"] = optimizers
    pkg.optimizers = optimizers  # type: ignore[attr-defined]
    return importlib.import_module("opacus.accountants")
