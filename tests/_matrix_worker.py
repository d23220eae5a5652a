"""The bad-input matrix: every public pabi callable x every parameter x a list of bad inputs.

Used by ``tests/test_bad_input_matrix.py``. This module has two roles:

* importable: :data:`TABLE` (a valid default call per function: ``tests/_api_table.py``, the one
  table of the public callables, shared with ``tools/probe_snapshot.py``) and :func:`cases` (the
  list of case ids, plain tuples);
* ``python tests/_matrix_worker.py``: a worker process that reads case ids (one JSON array per
  line) on stdin, runs each case and writes one JSON object per line on stdout. Run in a child
  process, a panic, abort or hang in a case cannot take pytest down with it.

A case ``(function, parameter, input class)`` calls the function with its valid defaults, the
parameter replaced by the input. Its outcome is classified by :func:`run_case`:

``value``       returned, no NaN anywhere in the result;
``nan``         returned a NaN (FAIL);
``domain``      DomainError; ``type``: TypeError; ``valueerror``: another ValueError;
``other``       any other exception, panics included (FAIL);
``crash``/``hang`` (decided by the parent: the worker died / ran past the timeout; FAIL).

An exception must name the parameter (or one it is coupled with in the table): otherwise the
case FAILS as ``unnamed``. A plain ValueError (not DomainError) is accepted only for structural
input classes (shape mismatch, empty or 0-d arrays where arrays are needed) and option strings.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from typing import Any

import numpy as np

from _api_table import (ARRAY_CLASSES, NOT_NUMERIC, OPTION_CLASSES, SCALAR_CLASSES,  # noqa: F401
                        array_input, scalar_input, table as _table)

# ----------------------------------------------------------------------------- case selection

#: for the slow functions (a valid call costs 0.05-0.2 s), the classes that only exercise the
#: shared array conversion of pabi._bridge (covered by every cheap function) are left out
BRIDGE_ONLY = {"0-d", "noncontig", "bigendian", "float32", "int-array", "object-array", "complex", "object"}
SLOW = {"online_gaussian_delta_limit", "online_gaussian_delta_limit_upper", "online_laplace_delta_limit",
        "online_laplace_delta_limit_upper", "dpsgd_calibrate_noise_multiplier", "pnsgd_epoch_pld", "multi_epoch_epsilon",
        "PNSGDAccountant.epsilon", "PNSGDAccountant.delta"}
#: input classes whose natural answer is a structural ValueError
STRUCTURAL = {"empty", "0-d", "mismatch", "noncontig", "bigendian", "float32", "int-array"}

TABLE = _table()


def _other_numeric(defaults: dict[str, Any], kinds: dict[str, str], param: str) -> str | None:
    for k, v in defaults.items():
        if k != param and kinds.get(k) is None and isinstance(v, (int, float)) and not isinstance(v, bool):
            return k
    return None


def cases() -> list[tuple[str, str, str]]:
    """Every (table entry, parameter, input class)."""
    out = []
    for name, (_, defaults, kinds, _) in TABLE.items():
        for param, v in defaults.items():
            kind = kinds.get(param)
            if kind == "skip":
                continue
            if kind == "option":
                classes = OPTION_CLASSES
            elif kind == "array":
                classes = ARRAY_CLASSES
            else:
                classes = SCALAR_CLASSES
            for cls in classes:
                if name in SLOW and cls in BRIDGE_ONLY:
                    continue
                if cls == "mismatch" and kind is None and _other_numeric(defaults, kinds, param) is None:
                    continue
                out.append((name, param, cls))
    return out


# ----------------------------------------------------------------------------- running a case


def _has_nan(x: Any, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(x, float):
        return math.isnan(x)
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fc" and bool(np.isnan(x).any())
    if isinstance(x, np.floating):
        return bool(np.isnan(x))
    if isinstance(x, (tuple, list)):
        return any(_has_nan(v, depth + 1) for v in x)
    if isinstance(x, dict):
        return any(_has_nan(v, depth + 1) for v in x.values())
    if hasattr(x, "_core") and hasattr(x, "pmf"):  # a PrivacyLossDistribution
        return _has_nan([x.grid_step, x.pmf, x.inf], depth + 1)
    if hasattr(x, "_core") and hasattr(x, "error_budget"):  # a ComposedPLD
        return _has_nan(list(x.error_budget), depth + 1)
    if hasattr(x, "get_epsilon_for_delta"):  # a dp-accounting PLD
        return _has_nan(x.get_delta_for_epsilon(1.0), depth + 1)
    if hasattr(x, "columns") and hasattr(x, "to_numpy"):  # a DataFrame
        return _has_nan(np.asarray(x["value"], dtype=float), depth + 1)
    return False


def _names(msg: str, param: str, coupled: tuple[str, ...]) -> bool:
    base = param.split("#")[0]
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(p)}(?![A-Za-z0-9_])", msg) for p in (base, *coupled))


def run_case(name: str, param: str, cls: str) -> dict[str, Any]:
    if name == "__selftest__":  # the harness's own test: die or hang on purpose
        if param == "abort":
            os.abort()
        if param == "hang":
            import time

            time.sleep(3600)
        return {"outcome": "value", "named": True, "msg": "ok"}
    fn, defaults, kinds, coupled = TABLE[name]
    kw = dict(defaults)
    kind = kinds.get(param)
    v = defaults[param]
    if kind == "option":
        kw[param] = {"bogus": "bogus", "None": None, "number": 3}[cls]
    elif kind == "array":
        kw[param] = array_input(cls, np.asarray(v, dtype=np.float64))
    else:
        kw[param] = scalar_input(cls, 1.0 if v is None else v)
        if cls == "mismatch":
            other = _other_numeric(defaults, kinds, param)
            kw[other] = np.array([float(defaults[other])] * 3)
            # a scalar-only function rejects whichever array it converts first
            coupled = dict(coupled, **{param: (*coupled.get(param, ()), other)})
    try:
        res = fn(**kw)
    except BaseException as exc:  # noqa: BLE001 - panics are BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        msg = f"{type(exc).__name__}: {exc}"[:300]
        named = _names(str(exc), param, coupled.get(param, ()))
        from pabi import DomainError

        if isinstance(exc, DomainError):
            outcome = "domain"
        elif isinstance(exc, TypeError):
            outcome = "type"
        elif isinstance(exc, ValueError):
            outcome = "valueerror"
        else:
            outcome = "other"
        return {"outcome": outcome, "named": named, "msg": msg}
    if _has_nan(res):
        return {"outcome": "nan", "named": True, "msg": repr(res)[:300]}
    return {"outcome": "value", "named": True, "msg": repr(res)[:120]}


def main() -> None:
    try:
        import resource

        limit = int(os.environ.get("PABI_MATRIX_MEM", str(6 << 30)))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass
    import warnings

    warnings.simplefilter("ignore")
    import pabi  # noqa: F401 - import before the first case (its time is not a case's)

    out = sys.stdout
    for line in sys.stdin:
        case = json.loads(line)
        try:
            res = run_case(*case)
        except BaseException as exc:  # the classification itself failed
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            res = {"outcome": "other", "named": False, "msg": f"(worker) {type(exc).__name__}: {exc}"[:300]}
        out.write(json.dumps(res) + "\n")
        out.flush()


def same_outcome(a: Any, b: Any) -> bool:
    """Two call outcomes (values, arrays, tuples of them) equal to the bit (NaN equal to NaN)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same_outcome(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and bool(
            np.all((a == b) | (np.isnan(a) & np.isnan(b))) if a.dtype.kind == "f" else np.all(a == b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if type(a) is not type(b):
        return False
    if type(a).__eq__ is object.__eq__:  # a result object without value equality (a PLD)
        return True  # its type matched; its values are tested by its own module
    return bool(a == b)


if __name__ == "__main__":
    main()
