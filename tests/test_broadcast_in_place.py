"""Broadcasting without materialising (issue 17): a single value crosses to the core as a
length-1 array read in place (a stride-0 view), never expanded to the full length.

* Every public function of the bad-input matrix's table, with each numeric parameter in turn
  given as an array (the others single values), returns bit for bit what the materialising path
  returns (``_bridge.IN_PLACE`` emptied), values and errors.
* Every name in ``IN_PLACE`` is a binding of ``_core``, and a length-1 argument next to a
  length-n one is accepted by it.
* ``theta(scalar, n-array)`` allocates the output and nothing else of its size (peak resident
  memory measured in a child process; a memory bound, not a timing).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pabi
from pabi import _bridge, _core

sys.path.insert(0, str(Path(__file__).parent))
import _matrix_worker as mw  # noqa: E402

TABLE = mw._table()


def _outcome(fn: Any, kw: dict[str, Any]) -> Any:
    try:
        return ("ok", fn(**kw))
    except Exception as exc:  # noqa: BLE001 - the exception itself is compared
        return ("err", type(exc).__name__, str(exc))


_same = mw.same_outcome


def _cases() -> list[tuple[str, str]]:
    out = []
    for name, (_, defaults, kinds, _) in TABLE.items():
        for p, v in defaults.items():
            if kinds.get(p) is None and isinstance(v, float):
                out.append((name, p))
    return out


@pytest.mark.parametrize("name,param", _cases())
def test_in_place_equals_materialised(name: str, param: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fn, defaults, _, _ = TABLE[name]
    v = defaults[param]
    for arr in (np.array([v, v, v]),):
        kw = dict(defaults, **{param: arr})
        got = _outcome(fn, kw)
        monkeypatch.setattr(_bridge, "IN_PLACE", frozenset())
        want = _outcome(fn, kw)
        monkeypatch.undo()
        assert got[0] == want[0] and (_same(got[1], want[1]) if got[0] == "ok" else got == want), (name, param)


def test_in_place_names_are_bindings() -> None:
    missing = sorted(n for n in _bridge.IN_PLACE if not hasattr(_core, n))
    assert not missing


def test_theta_reads_a_single_value_in_place() -> None:
    r = np.linspace(0.0, 5.0, 100_003)
    for fn in (_core.theta, _core.log_theta, _core.theta_complement, _core.log_theta_complement,
               _core.laplace_theta, _core.laplace_theta_complement):
        full = fn(np.full(r.size, 0.7), r)
        assert np.array_equal(fn(np.array([0.7]), r), full)
        assert np.array_equal(fn(r, np.array([1.3])), fn(r, np.full(r.size, 1.3)))
        assert fn(np.array([0.7]), np.array([], dtype=np.float64)).size == 0
        with pytest.raises(ValueError, match="expected"):
            fn(np.array([0.7, 0.8]), r)
    # the first bad index is the broadcast element's: 0
    with pytest.raises(pabi.DomainError) as e:
        pabi.theta(-1.0, r)
    assert e.value.param == "eps" and e.value.index == 0
    with pytest.raises(pabi.DomainError) as e:
        pabi.theta(np.inf, np.r_[1.0, np.inf])
    assert e.value.param == "shift" and e.value.index == 1


def test_theta_scalar_against_array_allocates_only_the_output() -> None:
    code = textwrap.dedent("""
        import resource, numpy as np, pabi
        r = np.linspace(0.1, 3.0, 10_000_000)
        pabi.theta(0.5, np.array([1.0, 2.0]))
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = pabi.theta(0.5, r)
        print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024, out.nbytes)
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    extra, out = map(int, res.stdout.split())
    # input + output + 10 %: the output (80 MB) and at most 10 % of the input besides
    assert extra <= out + 0.1 * out, (extra, out)
