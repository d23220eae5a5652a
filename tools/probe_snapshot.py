#!/usr/bin/env python
"""Behaviour snapshot of pabi's public API: record every public callable's outputs on a fixed
probe set, bit for bit, and compare two recordings.

Why: issue 14 reshapes the Rust core, the binding and the Python helpers "without changing a
single returned bit". This tool records, before the reshape, what every public callable returns
(or raises) on a fixed, broad, deterministic probe set, and shows afterwards that the reshaped
code returns the same bits -- or, where a value moved, by how much and in which direction.

The probe set (all deterministic; built from the valid default call of every public callable:
the one table of ``tests/_api_table.py``, shared with the bad-input matrix, and the entries first
recorded in the vocabulary of that time, kept below as that record):

* every callable of ``pabi.__all__`` and ``pabi.adapters.__all__``, the public methods and
  properties of ``PrivacyLossDistribution``, ``ComposedPLD`` and ``PNSGDAccountant``
  (``pabi.reference`` is the executable specification: it is not probed);
* per numeric parameter, the base call with that parameter swept over regimes (0, -0.0,
  subnormals, tiny/huge, ±inf, NaN, negative, near-ulp neighbours of the default, Python ints up
  to 2**63 and 10**30) and over the bad-input classes of the matrix (str, None, complex, bool,
  object, empty / 0-d / non-contiguous / big-endian / float32 / int / bool / object arrays,
  shape mismatches);
* array calls: each parameter as a 1-D array (and a list) of its accepted regime values, two
  parameters broadcast against each other, and dense grids for the elementary functions;
* every combination of the option parameters (``noise=``, ``order=``, ``variant=``, ``log=``,
  ``model=``, ``method=``, ``fractional=``, ...), each with its own edge sweep;
* hand-written edge probes: ties and breakpoints (eps = k*eps0, eps = r, x = -1/e, ...);
* a few ``python -m pabi`` command lines (in process, ``--json`` where available; exit status,
  stdout and stderr recorded).

Each output is recorded exactly: floats as ``float.hex``, numpy arrays as dtype, shape and the
little-endian bytes of every element, recursively through tuples, lists, dicts, named tuples,
PLD objects (h, pmf, losses, inf), accountants (state), data frames; exceptions as their class
name and message; warnings as category and message. The key of a probe is the function name and
a canonical repr of its arguments (floats by repr, arrays by dtype/shape/values or a digest).

Usage (from the repository root, after building the extension, e.g. ``maturin develop --release`` or ``pip install -e .``)::

    python tools/probe_snapshot.py record OUT.json.gz [--threads N] [--timing]
    python tools/probe_snapshot.py compare BASE [NEW] [--allow FILE] [--threads N]

``compare`` without NEW records afresh with the current build. It prints the number of probes
and of values (each float, each array element), identical and changed counts, for changed
floats the largest relative change and how many moved up / down, error class/message changes,
missing and new probes; its exit status is 1 when anything differs outside ``--allow`` (a file
of probe keys, one per line, ``#`` comments; a line ``glob:PATTERN`` allows every key matching
the fnmatch pattern).

Regenerating the baseline ``tools/probe_baseline.json.gz`` -- ONLY after a deliberate change that
was reviewed (every moved value checked against ``pabi.reference`` and found closer to it and
still on the safe side)::

    PYTHONPATH=$PWD/python python tools/probe_snapshot.py compare tools/probe_baseline.json.gz
    # review every reported difference, then:
    PYTHONPATH=$PWD/python python tools/probe_snapshot.py record tools/probe_baseline.json.gz
    git add tools/probe_baseline.json.gz   # and say in the commit message what moved and why

The recording pins pabi's thread count (``--threads``, default 1; results must not depend on
it: record with 1 and with 2 threads and compare). The SIMD level of the machine is stored in
the snapshot; a comparison across machines with different levels says so.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fnmatch
import gzip
import hashlib
import io
import itertools
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

FORMAT = 1
TRACE = bool(os.environ.get("PROBE_TRACE"))

# ============================================================================ encoding outputs

_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")


def _clean(text: str) -> str:
    """Strip memory addresses (object reprs inside messages) so that messages are reproducible."""
    return _ADDR.sub(" at 0x?", text)


#: arrays with more elements are recorded by a SHA-256 digest of all their bytes plus every
#: k-th element (at most SAMPLES of them, the last one included) -- equality stays exact, and a
#: changed large array still shows how far its samples moved -- to keep the snapshot small
BIG = 4096
SAMPLES = 256


def _nd(x: np.ndarray) -> list[Any]:
    dt = x.dtype
    if dt.kind == "O":
        return ["nd", dt.str, list(x.shape), [enc(v) for v in x.ravel().tolist()]]
    le = dt.newbyteorder("<") if dt.byteorder not in ("|", "=") else dt
    data = np.ascontiguousarray(x, dtype=le)
    if data.size > BIG:
        flat = data.ravel()
        idx = np.unique(np.append(np.arange(0, flat.size, -(-flat.size // SAMPLES)), flat.size - 1))
        return ["ndh", dt.str, list(x.shape), hashlib.sha256(data.tobytes()).hexdigest(), flat[idx].tobytes().hex()]
    return ["nd", dt.str, list(x.shape), data.tobytes().hex()]


def enc(x: Any, depth: int = 0) -> Any:
    """The exact, JSON-able record of an output ``x`` (floats as hex, arrays as bytes)."""
    if depth > 12:
        return ["deep", type(x).__name__]
    d = depth + 1
    if x is None:
        return ["none"]
    if isinstance(x, np.ndarray):
        return _nd(x)
    if isinstance(x, np.generic):
        if x.dtype.kind == "f":
            return ["np", x.dtype.str, float(x).hex()]
        if x.dtype.kind == "c":
            return ["np", x.dtype.str, [float(x.real).hex(), float(x.imag).hex()]]
        return ["np", x.dtype.str, enc(x.item(), d)]
    if isinstance(x, bool):
        return ["b", x]
    if isinstance(x, int):
        return ["i", str(x)]
    if isinstance(x, float):
        return ["f", x.hex()]
    if isinstance(x, complex):
        return ["c", [x.real.hex(), x.imag.hex()]]
    if isinstance(x, str):
        return ["s", _clean(x)]
    if isinstance(x, bytes):
        return ["bytes", x.hex()]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ["nt", type(x).__name__, [[f, enc(getattr(x, f), d)] for f in x._fields]]
    if isinstance(x, tuple):
        return ["t", [enc(v, d) for v in x]]
    if isinstance(x, list):
        return ["l", [enc(v, d) for v in x]]
    if isinstance(x, dict):
        return ["d", type(x).__name__, [[str(k), enc(v, d)] for k, v in x.items()]]
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return ["dc", type(x).__name__, [[f.name, enc(getattr(x, f.name), d)] for f in dataclasses.fields(x)]]
    if isinstance(x, BaseException):
        return {"error": type(x).__name__, "message": _clean(str(x))}
    tn = type(x).__name__
    mod = type(x).__module__ or ""
    if mod.startswith("pabi") and tn == "PrivacyLossDistribution":
        # recorded as "h" before the rename of issue 15 (the attribute is grid_step now)
        return ["PLD", [["h", enc(x.grid_step, d)], ["pmf", enc(x.pmf, d)], ["losses", enc(x.losses, d)],
                        ["inf", enc(x.inf, d)]]]
    if mod.startswith("pabi") and tn == "ComposedPLD":
        return ["ComposedPLD", [["error_budget", enc(x.error_budget, d)]]]
    if mod.startswith("pabi") and tn == "PNSGDAccountant":
        return ["PNSGDAccountant", enc(x.state_dict(), d)]
    if hasattr(x, "columns") and hasattr(x, "to_numpy"):  # a pandas DataFrame
        return ["DataFrame", [str(c) for c in x.columns], [enc(x[c].to_numpy(), d) for c in x.columns]]
    if mod.startswith("dp_accounting") and hasattr(x, "get_delta_for_epsilon"):  # a dp-accounting PLD
        # what pabi put into it (its dense pmfs), not dp-accounting's δ/ε of it: those go through
        # numpy's exp/log, whose last bit depends on the CPU (AVX-512 vs AVX2 builds differ)
        pms = [("remove", x._pmf_remove)] + ([] if x._symmetric else [("add", x._pmf_add)])
        if all(hasattr(pm, "_probs") for _, pm in pms):
            return ["dpa.PLD", [[f"{side}.{k}", enc(v, d)] for side, pm in pms for k, v in (
                ("h", pm._discretization), ("lower", pm._lower_loss), ("probs", np.asarray(pm._probs)),
                ("inf", pm._infinity_mass), ("pessimistic", pm._pessimistic_estimate))]]
        eps = [0.0, 0.25, 1.0, 2.0, 4.0, 8.0]
        dl = [1e-1, 1e-3, 1e-6, 1e-10]
        return ["dpa.PLD", [["delta", enc([x.get_delta_for_epsilon(e) for e in eps], d)],
                            ["epsilon", enc([x.get_epsilon_for_delta(v) for v in dl], d)]]]
    if mod.startswith("dp_accounting"):  # dp events: their attributes
        names = [a.name for a in getattr(type(x), "__attrs_attrs__", ())] or sorted(getattr(x, "__dict__", {}))
        return ["dpa", tn, [[k, enc(getattr(x, k), d)] for k in names]]
    if callable(x):
        return ["callable", tn]
    return ["obj", f"{mod}.{tn}", _clean(repr(x))[:200]]


# ============================================================================ canonical keys


def canon(v: Any) -> str:
    """A canonical, deterministic text of an argument value (for probe keys)."""
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, np.ndarray):
        flags = "" if v.flags.c_contiguous else ",nc"
        tag = f"nd<{v.dtype.str},{'x'.join(map(str, v.shape))}{flags}>"
        if v.size <= 12 and v.dtype.kind != "O":
            return tag + "[" + ",".join(canon(e) for e in v.ravel().tolist()) + "]"
        if v.dtype.kind == "O":
            return tag + "[" + ",".join(canon(e) for e in v.ravel().tolist()[:12]) + "]"
        digest = hashlib.sha1(np.ascontiguousarray(v).tobytes()).hexdigest()[:12]
        return tag + f"#{digest}"
    if isinstance(v, np.generic):
        return f"np.{v.dtype}({canon(v.item())})"
    if isinstance(v, (int, float, complex, str)):
        return repr(v)
    if isinstance(v, list):
        if len(v) > 12:
            return f"list[{len(v)}]#" + hashlib.sha1(repr(v).encode()).hexdigest()[:12]
        return "[" + ",".join(canon(e) for e in v) + "]"
    if isinstance(v, tuple):
        return "(" + ",".join(canon(e) for e in v) + ")"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{canon(e)}" for k, e in v.items()) + "}"
    if type(v) is object:
        return "<object>"
    if callable(v):
        return f"<{getattr(v, '__name__', type(v).__name__)}>"
    return f"<{type(v).__name__}>"


def key_of(name: str, kw: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{k}={canon(v)}" for k, v in kw.items()) + ")"


# ============================================================================ the table
# The one table of the public callables is tests/_api_table.py (shared with the bad-input matrix):
# its fixtures and input classes are used here, and its entries that the probe set holds in today's
# vocabulary are taken from it by name (FROM_API_TABLE). The entries written below are the record of
# the first recording, in the vocabulary of that time (translated when called, see ``translate``).
# A changed default of a shared entry changes its probe keys: ``compare`` reports them as missing
# and new probes.

if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

import _api_table  # noqa: E402
from _api_table import (ARRAY_CLASSES, SCALAR_CLASSES, _grid_delta, _pld, _profile,  # noqa: E402
                        _setup_epsilon, _GRID, _S, array_input, scalar_input)


def _pabi() -> Any:
    import pabi

    return pabi


def _call_pld(method: str) -> Callable[..., Any]:
    return _api_table._call_pld(method, translate)


def _pld_compose(**kw: Any) -> Any:
    return _api_table.on(_pld, "PrivacyLossDistribution.compose", translate)(**kw)


def _compose_plds(times: Any, tail: Any = 1e-15) -> Any:
    # the probe's recorded names (times, tail) are compose_plds' count of the part and tail_mass
    return _pabi().compose_plds([(_pld(), times)], tail_mass=tail)


def _sweep(**kw: Any) -> Any:
    # the grids are the swept function's keyword arguments: translated like a call of theta
    current = _params(_pabi().theta) or set()
    renames = _plan().PARAMS.get("theta", {})
    kw = {renames[k] if k not in current and k in renames else k: v for k, v in kw.items()}
    return _pabi().sweep(_pabi().theta, progress=False, **kw)


def _accountant(**kw: Any) -> Any:
    return _api_table.on(_api_table._accountant_class, "PNSGDAccountant.__init__", translate)(**kw)


_ACC_KW = dict(sigma=1.0, lipschitz=1.0, lr=0.5, diameter=1.0, n=10, h=0.05)


def _acc_method(method: str) -> Callable[..., Any]:
    return _api_table._acc_method(method, _accountant, _ACC_KW, translate)


def _adapter(name: str) -> Callable[..., Any]:
    return _api_table._adapter(name, translate)


def _geomspace(a: float, b: float, n: int) -> np.ndarray:
    """``np.geomspace(a, b, n)`` from Python's ``math`` (C libm) instead of numpy's vectorised
    exp/log, whose last bit depends on the CPU (numpy's AVX-512 and AVX2 loops differ): the probe
    inputs, and so their keys, are the same doubles on every x86-64 machine."""
    la, lb = math.log(a), math.log(b)
    return np.array([a] + [math.exp(la + (lb - la) * i / (n - 1)) for i in range(1, n - 1)] + [b])


THREADS = [1]


def _set_num_threads(**kw: Any) -> Any:
    """set_num_threads(n), then get_num_threads() (restores the recording's thread count)."""
    pabi = _pabi()
    try:
        fn, kw = translate("set_num_threads", pabi, kw)
        r = fn(**kw)
        return (r, pabi.get_num_threads())
    finally:
        pabi.set_num_threads(THREADS[0])


_PNSGD = dict(sigma=1.0, lipschitz=1.0, lr=0.5, diameter=1.0, n=10.0, index=3.0, smoothness=2.0,
              strong_convexity=0.5)
_PNSGD_OPT = dict(noise="gaussian", order="fixed", variant="refined")
_RDP_PNSGD = dict(sigma=1.0, lipschitz=1.0, lr=0.1, n=10.0, index=3.0, smoothness=2.0, strong_convexity=0.5)
_SCHED = dict(eps=1.0, lipschitz=1.0, lr=0.1, diameter=1.0, n=100.0, c1=10.0, c2=2.0, smoothness=2.0,
              strong_convexity=0.5)
_ONLINE = dict(eps=1.0, lipschitz=1.0, lr=0.1, diameter=1.0, index=3.0, c1=10.0, c2=2.0, decay=1.5,
               smoothness=2.0, strong_convexity=0.5)


# ---------------------------------------------------------------------------- renames
# The probe set is frozen in the vocabulary it was first recorded in: its keys never change. Where
# the API has since renamed a function, a parameter or an option value (issue 15, "One
# vocabulary"; tools/vocabulary_plan.py is the record of every rename), the CALL is translated to
# today's API, so that a comparison across the rename shows whether the bits moved.

_PLAN: list[Any] = []


def _plan() -> Any:
    if not _PLAN:
        import importlib.util

        spec = importlib.util.spec_from_file_location("vocabulary_plan", ROOT / "tools" / "vocabulary_plan.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _PLAN.append(mod)
    return _PLAN[0]


def _params(fn: Any) -> set[str] | None:
    import inspect

    try:
        return set(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None


def _default(fn: Any, name: str) -> Any:
    import inspect

    try:
        p = inspect.signature(fn).parameters.get(name)
    except (TypeError, ValueError):
        return None
    return None if p is None else p.default


def translate(qual: str, owner: Any, kw: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(today's callable, today's keyword arguments) for a probe written as ``qual(**kw)``.

    ``qual`` is the probe's name in the recorded vocabulary (``"theta"``,
    ``"PrivacyLossDistribution.gaussian"``, ``"PNSGDAccountant.__init__"``); ``owner`` the object
    to look the name up on. Without a rename this is ``getattr(owner, name), kw``."""
    plan = _plan()
    name = qual.split(".")[-1]
    extra: dict[str, Any] = {}
    fn = getattr(owner, name, None) if name != "__init__" else owner
    methods = getattr(plan, "ACCOUNTANT_METHODS", {})
    if fn is None and qual.startswith("PNSGDAccountant.") and name in methods:
        if methods[name] is not None:
            fn = getattr(owner, methods[name])
        elif name == "get_privacy_spent":  # removed: (epsilon, epochs) from today's methods
            def fn(delta: Any) -> Any:
                return owner.epsilon(delta), owner.epochs
    if fn is None and qual in plan.FUNCTIONS:
        target = plan.FUNCTIONS[qual]
        if target.endswith("(log=True)"):
            target, extra = target[: -len("(log=True)")], {"log": True}
        fn = getattr(owner, target.split(".")[-1])
    if fn is None:
        raise AttributeError(f"{qual}: neither in the API nor in tools/vocabulary_plan.py")
    current = _params(fn)
    renames = plan.PARAMS.get(qual, {})
    # the recorded arguments are in the old vocabulary as a whole: once one of them is gone from
    # today's signature, every planned rename applies (a rename may reuse a retired name, e.g.
    # online_delta's noise -> noise_scale, mechanism -> noise)
    old = current is not None and any(k not in current and k in renames for k in kw)
    out: dict[str, Any] = {}
    for k, v in kw.items():
        if current is not None and k in renames and (old or k not in current):
            values = getattr(plan, "VALUES", {}).get((qual, k))
            if values and isinstance(v, str) and v in values and values[v] not in values:
                v = values[v]  # an option value renamed with the parameter
            k = renames[k]
        out[k] = v
    # option values renamed in the plan (plan.VALUES) where the parameter kept its name
    for (f, p), values in getattr(plan, "VALUES", {}).items():
        if f == qual and p in out and p not in renames and isinstance(out[p], str) and out[p] in values:
            new = values[out[p]]
            if current is not None and (old or getattr(owner, name, None) is None):
                out[p] = new
    # defaults that changed: a recorded call without the argument ran with the old default
    if old or getattr(owner, name, None) is None:
        for (f, p), before in getattr(plan, "DEFAULTS_BEFORE", {}).items():
            if f == qual and p not in kw:
                out.setdefault(renames.get(p, p), before)
    out.update(extra)
    return fn, out


def _call_translated(name: str, fn: Callable[..., Any], kw: dict[str, Any]) -> Any:
    """``fn(**kw)`` for a probe of the public callable ``name`` (``"f"``, ``"f#variant"``,
    ``"Class.method"``), translated through the rename record where today's signature does
    not take the recorded arguments."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn(**kw)
    if any(p.kind is p.VAR_KEYWORD for p in params.values()) or all(k in params for k in kw):
        return fn(**kw)  # the tool's own wrappers translate themselves
    base = name.split("#")[0]
    head, _, meth = base.rpartition(".")
    owner = getattr(_pabi(), head) if head else _pabi()
    if not hasattr(owner, meth) and base not in _plan().FUNCTIONS:
        return fn(**kw)  # not a public name (a wrapper of the tool): called as recorded
    f2, kw2 = translate(base, owner, kw)
    return f2(**kw2)


def _bounds_records(delta: Any) -> Any:
    """(id, epsilon, valid) of every bound of two small setups (PNSGD over two epochs, cyclic DP-SGD)."""
    P = _pabi()
    setups = [P.PNSGD(records=10, lr=0.5, noise_scale=1.0, max_grad_norm=1.0, diameter=1.0, smoothness=2.0,
                      convex=True, epochs=2),
              P.CyclicDPSGD(records=100, batch_size=10, epochs=2, lr=0.1, max_grad_norm=1.0, noise_multiplier=1.0,
                            weak_convexity=0.1, smoothness=1.0, diameter=1.0)]
    return [(b.id, b.epsilon, b.valid) for s in setups for b in P.bounds(s, delta)]


def _f(name: str) -> Callable[..., Any]:
    return _api_table._f(name, translate)


#: option values probed, by parameter name (per-function overrides in OPTIONS_BY_FN)
OPTIONS = {
    "noise": ("gaussian", "laplace"), "order": ("fixed", "shuffled", "random_stop"),
    "variant": ("corrected", "as_published"), "mechanism": ("gaussian", "laplace"),
    "fractional": ("exact", "ceil"), "method": ("tight", "classical"), "model": ("triangle", "as_published"),
    "neighbour": ("remove", "add"), "log": (False, True), "allow_invalid": (False, True),
    "neighboring": ("add_remove", "replace_one"), "sampling": ("poisson", "without_replacement"),
}
_PN_VARIANT = ("refined", "as_published")
OPTIONS_BY_FN = {
    **{f: {"variant": _PN_VARIANT} for f in ("pnsgd_delta", "pnsgd_log_delta", "pnsgd_epsilon",
                                             "pnsgd_calibrate_sigma")},
    "hoeffding_sample_size_ln": {"variant": ("corrected", "proof_consistent", "as_published")},
    "hoeffding_sample_size": {"variant": ("corrected", "proof_consistent", "as_published")},
    "shifted_drift_bound": {"variant": ("exact", "as_published")},
    "PNSGDAccountant": {"order": ("shuffled", "fixed")},
    "PNSGDAccountant#fixed": {"order": ("fixed",)},
}

Entry = tuple[Callable[..., Any], dict[str, Any], dict[str, str]]

#: the entries of the probe set taken from tests/_api_table.py (written there once, in today's
#: vocabulary, with the same defaults and kinds the probe set was recorded with)
FROM_API_TABLE = ("lambertw", "wright_omega", "gdp_delta", "hockey_stick_divergence", "contraction_coefficient",
                  "pnsgd_stepwise_delta", "pnsgd_stepwise_epsilon", "gdp_epsilon", "gdp_mu", "gdp_mu_dominating",
                  "ComposedPLD.delta", "ComposedPLD.epsilon", "grid_size", "PNSGDAccountant.epoch_profile",
                  "laplace_schedule_epsilon", "gaussian_schedule_epsilon", "online_epsilon",
                  "mixture_hockey_stick_divergence")


def table() -> dict[str, Entry]:
    """name -> (callable, valid default keyword arguments, kinds of the non-scalar parameters)."""
    T: dict[str, Entry] = {}

    def add(name: str, defaults: dict[str, Any], kinds: dict[str, str] | None = None,
            fn: Callable[..., Any] | None = None) -> None:
        T[name] = (fn or _f(name.split("#")[0]), defaults, kinds or {})

    api = _api_table.table()

    def take(name: str) -> None:
        assert name in FROM_API_TABLE, name
        fn, defaults, kinds, _ = api[name]
        T[name] = (fn, defaults, kinds)

    for f in ("gaussian_tail", "log_gaussian_tail"):
        add(f, dict(t=1.0))
    for f in ("lambertw", "wright_omega"):
        take(f)
    for f in ("theta", "log_theta", "theta_complement", "log_theta_complement", "laplace_theta",
              "laplace_theta_complement"):
        add(f, dict(eps=1.0, r=1.0))
    take("gdp_delta")
    add("set_num_threads", dict(n=2), fn=_set_num_threads)
    take("hockey_stick_divergence")
    take("contraction_coefficient")
    opt = {"noise": "option", "order": "option", "variant": "option"}
    add("pnsgd_delta", dict(eps=1.0, **_PNSGD, **_PNSGD_OPT), opt)
    add("pnsgd_log_delta", dict(eps=1.0, **_PNSGD, **_PNSGD_OPT), opt)
    add("pnsgd_epsilon", dict(delta=1e-3, **_PNSGD, **_PNSGD_OPT), opt)
    add("pnsgd_calibrate_sigma", dict(eps=1.0, delta=1e-3, **{k: v for k, v in _PNSGD.items() if k != "sigma"},
                                      **_PNSGD_OPT), opt)
    add("pnsgd_factors", dict(eps=1.0, noise="gaussian", **{k: v for k, v in _PNSGD.items() if k not in ("n", "index")}),
        {"noise": "option"})
    for f, first in (("pnsgd_rdp_delta", dict(eps=1.0)), ("pnsgd_rdp_log_delta", dict(eps=1.0)),
                     ("pnsgd_rdp_epsilon", dict(delta=1e-3)), ("pnsgd_rdp_slope", {})):
        add(f, dict(**first, **_RDP_PNSGD))
    take("pnsgd_stepwise_delta")
    take("pnsgd_stepwise_epsilon")
    noise_kw = {k: _SCHED[k] for k in ("n", "c1", "c2", "lr", "diameter", "smoothness", "strong_convexity")}
    add("laplace_schedule_scale", noise_kw)
    add("gauss_schedule_sigma", noise_kw)
    add("laplace_schedule_delta", dict(_SCHED))
    add("gauss_schedule_delta", dict(_SCHED))
    add("laplace_schedule_delta_star", dict(eps=1.0, c1=10.0))
    add("gauss_schedule_delta_star", dict(eps=1.0, c1=10.0))
    add("schedule_c1_for_target", dict(delta_star=1e-3, eps=1.0, mechanism="laplace"), {"mechanism": "option"})
    add("online_delta", dict(eps=1.0, lipschitz=1.0, lr=0.1, diameter=1.0, noise=np.array([2.0, 2.0, 2.0]),
                             index=2, mechanism="gaussian", smoothness=2.0, strong_convexity=0.5, log=False),
        {"noise": "array", "mechanism": "option", "log": "option"})
    on_noise = dict(index=3.0, c1=10.0, c2=2.0, decay=1.5, lr=0.1, diameter=1.0, smoothness=2.0,
                    strong_convexity=0.5)
    add("online_laplace_scale", on_noise)
    add("online_gauss_sigma", on_noise)
    for kind in ("laplace", "gauss"):
        add(f"online_{kind}_delta", dict(_ONLINE, n=50.0, log=False), {"log": "option"})
        for suffix in ("delta_limit", "delta_limit_bound", "delta_star_lower"):
            add(f"online_{kind}_{suffix}", dict(_ONLINE, log=False), {"log": "option"})
        add(f"online_{kind}_delta_star_upper", dict(_ONLINE, variant="corrected", log=False),
            {"log": "option", "variant": "option"})
    # --- rdp
    frac = {"fractional": "option"}
    add("sampled_gaussian_rdp", dict(alpha=8.0, q=0.01, noise_multiplier=1.0, fractional="exact"), frac)
    add("sampled_gaussian_rdp_per_instance", dict(alpha=8.0, q=0.01, sensitivity=0.5, sigma=1.0,
                                                  fractional="exact"), frac)
    add("dpsgd_per_instance_rdp", dict(alpha=8.0, q=0.01, sigma=1.0, sensitivities=_S, p=9.0, variant="corrected"),
        {"sensitivities": "array", "variant": "option"})
    add("dpsgd_per_instance_rdp#conf", dict(alpha=8.0, q=0.01, sigma=1.0, sensitivities=_S, confidence=0.05,
                                            max_sensitivity=1.0), {"sensitivities": "array"})
    add("dpsgd_per_instance_rdp#terms", dict(alpha=8.0, q=0.01, sigma=1.0, sensitivities=_S, p=9.0,
                                             variant="corrected", return_terms=True),
        {"sensitivities": "array", "variant": "option", "return_terms": "skip"})
    add("holder_orders", dict(alpha=2.0, p=2.0, n=3, variant="corrected"), {"variant": "option"})
    hcb = dict(alpha=2.0, p=2.0, divergences=np.array([[0.5, 0.25], [0.5, 0.5]]),
               weights=np.array([[0.5, 0.5], [0.25, 0.75]]), variant="corrected")
    hcb_k = {"divergences": "array", "weights": "array", "variant": "option"}
    add("holder_composition_bound", hcb, hcb_k)
    add("holder_composition_bound#terms", dict(hcb, return_terms=True), dict(hcb_k, return_terms="skip"))
    add("holder_min_p", dict(n=10.0, alpha=8.0, cap_factor=2.0))
    add("hoeffding_sample_size_ln", dict(alpha=8.0, eps=1.0, eps_prime=2.0, c=0.1, J=0.05, variant="corrected"),
        {"variant": "option"})
    # the count itself (hoeffding_sample_size_ln is now its log=True form), added with the rename
    add("hoeffding_sample_size", dict(order=4.0, rdp=0.1, rdp_bound=0.2, tolerance=0.1, failure_prob=0.05,
                                      variant="corrected"), {"variant": "option"})
    curve = dict(orders=np.array([2.0, 4.0, 8.0]), rdp=np.array([0.5, 1.0, 2.0]))
    add("rdp_to_dp_epsilon", dict(curve, delta=1e-5, method="tight"),
        {"orders": "array", "rdp": "array", "method": "option"})
    add("rdp_to_dp_delta", dict(curve, eps=1.0, method="tight"),
        {"orders": "array", "rdp": "array", "method": "option"})
    add("rdp_compose", dict(curves=np.array([[0.1, 0.2], [0.3, 0.4]])), {"curves": "array"})
    add("profile_to_rdp", dict(alpha=2.0, eps_grid=_GRID, delta_grid=_grid_delta()),
        {"eps_grid": "array", "delta_grid": "array"})
    add("gaussian_dp_constant", dict(delta=1e-5, sigma=1.0))
    add("gaussian_mechanism_epsilon", dict(delta=1e-5, sigma=10.0, sensitivity=1.0, allow_invalid=False),
        {"allow_invalid": "option"})
    add("amplify_by_sampling", dict(eps=1.0, delta=1e-5, q=0.01))
    add("lp_per_instance_epsilon_delta", dict(q=0.01, p=100.0, delta=1e-5, delta_prime=1e-6, sigma=10.0,
                                              sensitivities=np.array([0.1, 0.5]), allow_invalid=False),
        {"sensitivities": "array", "allow_invalid": "option"})
    add("general_update_rdp", dict(alpha=3, sigma=1.0, outer=np.array([[0.0]]),
                                   inner=np.array([[[[1.0], [1.0], [1.0]]]])), {"outer": "array", "inner": "array"})
    add("weak_triangle_bound", dict(alpha=2.0, p=2.0, d_p_alpha=0.1, d_g_alpha=0.2))
    add("unlearning_keep", dict(alpha=1.5, beta=0.1, d_2alpha_prev=0.0, d_2alpha_minus_1_step=0.05,
                                variant="corrected"), {"variant": "option"})
    add("shifted_drift_bound", dict(alpha=2.0, sigma=1.0, zeta=1.0, T=10.0, ell=5.0, sbar=1.0, variant="exact"),
        {"variant": "option"})
    add("theta_l", dict(s=4.0, L=1.5))
    add("theta_l#kappa", dict(s=4.0, kappa=0.5))
    add("cyclic_theta_sum", dict(T=10.0, ell=4.0, L=1.5))
    add("cyclic_theta_sum#kappa", dict(T=10.0, ell=4.0, kappa=0.5))
    add("l_lambda_kappa", dict(lam=0.1, m=1.0, M=2.0, model="triangle"), {"model": "option"})
    add("last_iterate_rdp_general", dict(alpha=2.0, lam=0.1, clip=1.0, sigma=1.0, T=100.0))
    add("last_iterate_rdp_general#exact", dict(alpha=2.0, lam=0.1, clip=1.0, sigma=1.0, T=100.0, b=10.0, ell=10.0,
                                               t_star=3.0))
    add("last_iterate_rdp_bounded", dict(alpha=2.0, lam=0.1, clip=1.0, b=10.0, sigma=1.0, d_h=1.0, m=0.5, M=1.0,
                                         model="triangle"), {"model": "option"})
    add("last_iterate_rdp_cyclic", dict(alpha=2.0, lam=0.1, clip=1.0, b=10.0, sigma=1.0, T=20.0, ell=5.0, m=0.5,
                                        M=1.0, t_star=2.0, variant="corrected", model="triangle"),
        {"variant": "option", "model": "option"})
    add("shifted_cycle_bound", dict(alpha=2.0, sigma=1.0, T=10.0, ell=5.0, sbar=1.0, tau=0.5, L=1.5))
    add("shifted_cycle_bound#kappa", dict(alpha=2.0, sigma=1.0, T=10.0, ell=5.0, sbar=1.0, tau=0.5, kappa=0.5))
    add("optimal_residuals", dict(T=5, tau=0.5, s=1.0, L=1.5))
    add("optimal_residuals#kappa", dict(T=5, tau=0.5, s=1.0, kappa=0.5))
    add("cyclic_calibration", dict(alpha=8.0, eps=1.0, rho=0.5, M=2.0, clip=1.0, b=10.0, epochs=5.0,
                                   variant="corrected"), {"variant": "option"})
    add("theta_min_steps", dict(xi=2.0, L=2.0))
    add("theta_min_steps#kappa", dict(xi=2.0, kappa=0.5))
    add("last_iterate_rdp_small_step", dict(alpha=2.0, clip=1.0, b=1.0, sigma=1.0, ell=4.0, lam=0.1, m=0.5, M=1.0,
                                            model="triangle"), {"model": "option"})
    add("gd_contraction_rho", dict(eta=0.5, mu=1.0, smoothness=3.0))
    add("sensitivity_multi_epoch", dict(eta=0.5, mu=1.0, smoothness=1.0, grad_bound=1.0, batch_size=1.0, m=4.0,
                                        j=2.0, epochs=3.0))
    add("averaged_rdp", dict(alpha=2.0, sigma=1.0, sensitivities=np.array([0.0, 1.0])), {"sensitivities": "array"})
    add("mixture_rdp_bound", dict(alpha=2.0, weights=np.array([0.5, 0.5]), eps=np.array([0.0, 1.0])),
        {"weights": "array", "eps": "array"})
    add("gaussian_mech_rdp", dict(alpha=2.0, sensitivity=1.0, sigma=1.0))
    # --- composition
    add("tradeoff_eps_delta", dict(alpha=0.1, eps=1.0, delta=1e-3))
    add("tradeoff_from_profile", dict(alpha=0.1, eps=_GRID, delta=_grid_delta()), {"eps": "array", "delta": "array"})
    add("approx_dp_composition_delta", dict(eps0=0.5, delta0=1e-4, k=10.0, eps=2.0))
    add("approx_dp_composition_epsilon", dict(eps0=0.5, delta0=1e-4, k=10.0, delta=0.1))
    take("gdp_epsilon")
    take("gdp_mu")
    add("gdp_compose", dict(mus=np.array([0.3, 0.4])), {"mus": "array"})
    take("gdp_mu_dominating")
    ld = np.array([math.log(v) for v in _grid_delta()[:-1]] + [-800.0])
    add("gdp_mu_dominating#log", dict(eps=_GRID, log_delta=ld), {"eps": "array", "log_delta": "array"})
    add("gdp_dominating_pair", dict(eps=_GRID, log_delta=ld), {"eps": "array", "log_delta": "array"})
    add("gdp_dominating_pair#delta", dict(eps=_GRID, delta=_grid_delta()), {"eps": "array", "delta": "array"})
    add("PrivacyLossDistribution.gaussian", dict(sigma=1.0, sensitivity=1.0, h=0.05), fn=_call_pld("gaussian"))
    add("PrivacyLossDistribution.subsampled_gaussian", dict(q=0.1, sigma=1.0, neighbour="remove", h=0.05),
        {"neighbour": "option"}, fn=_call_pld("subsampled_gaussian"))
    add("PrivacyLossDistribution.laplace", dict(scale=1.0, sensitivity=1.0, h=0.05), fn=_call_pld("laplace"))
    add("PrivacyLossDistribution.from_eps_delta", dict(eps0=1.0, delta0=1e-3, h=0.01), fn=_call_pld("from_eps_delta"))
    add("PrivacyLossDistribution.from_profile", dict(delta=_grid_delta(), h=0.1, tail=1e-18),
        {"delta": "array"}, fn=_call_pld("from_profile"))
    add("PrivacyLossDistribution.from_profile#callable", dict(delta=_profile, h=0.1, eps_max=20.0, tail=1e-18),
        {"delta": "skip"}, fn=_call_pld("from_profile"))
    add("PrivacyLossDistribution.compose", dict(times=3, tail=1e-15), fn=_pld_compose)
    take("ComposedPLD.delta")
    take("ComposedPLD.epsilon")
    add("compose_plds", dict(times=3, tail=1e-15), fn=_compose_plds)
    add("dpsgd_epsilon", dict(q=0.1, sigma=1.0, steps=10, delta=1e-5, h=0.01))
    add("dpsgd_epsilon#bracket", dict(q=0.1, sigma=1.0, steps=10, delta=1e-5, h=0.01, bracket=True),
        {"bracket": "skip"})
    add("dpsgd_delta", dict(q=0.1, sigma=1.0, steps=10, eps=1.0, h=0.01))
    add("dpsgd_calibrate_sigma", dict(eps=2.0, delta=1e-5, q=0.1, steps=10, h=0.01, rtol=1e-2))
    # the accountant under replace-one neighbours, Poisson or without-replacement sampling
    _rel = {"neighboring": "option", "sampling": "option"}
    for how, sa in (("replace_one", "poisson"), ("without_replacement", "without_replacement")):
        add(f"dpsgd_epsilon#{how}", dict(q=0.1, sigma=1.0, steps=10, delta=1e-5, h=0.01, neighboring="replace_one",
                                         sampling=sa), _rel, fn=_f("dpsgd_epsilon"))
        add(f"dpsgd_delta#{how}", dict(q=0.1, sigma=1.0, steps=10, eps=1.0, h=0.01, neighboring="replace_one",
                                       sampling=sa), _rel, fn=_f("dpsgd_delta"))
    add("dpsgd_calibrate_sigma#replace_one", dict(eps=2.0, delta=1e-5, q=0.1, steps=10, h=0.01, rtol=1e-2,
                                                  neighboring="replace_one", sampling="poisson"), _rel,
        fn=_f("dpsgd_calibrate_sigma"))
    add("PrivacyLossDistribution.replace_one_gaussian", dict(sample_rate=0.1, noise_multiplier=1.0, grid_step=0.05),
        fn=_call_pld("replace_one_gaussian"))
    add("multi_epoch_epsilon", dict(delta=_profile, epochs=2, target_delta=1e-3, h=0.05, eps_max=20.0,
                                    orders=np.array([2.0, 4.0]), log_delta=None),
        {"delta": "skip", "log_delta": "skip", "orders": "array"})
    # --- sweep and adapters
    add("sweep", dict(eps=np.array([0.5, 1.0]), r=np.array([1.0]), chunk_size=1), {"eps": "array", "r": "array"},
        fn=_sweep)
    take("grid_size")
    acc_opt = {"noise": "option", "order": "option"}
    add("PNSGDAccountant", dict(_ACC_KW, noise="gaussian", order="shuffled", smoothness=2.0, strong_convexity=0.5,
                                eps_max=8.0), acc_opt, fn=_accountant)
    add("PNSGDAccountant#fixed", dict(_ACC_KW, noise="gaussian", order="fixed", index=3), acc_opt, fn=_accountant)
    add("PNSGDAccountant.step", dict(count=2), fn=_acc_method("step"))
    add("PNSGDAccountant.epoch_done", dict(count=1), fn=_acc_method("epoch_done"))
    add("PNSGDAccountant.get_epsilon", dict(delta=1e-3), fn=_acc_method("get_epsilon"))
    add("PNSGDAccountant.get_epsilon#rdp", dict(delta=1e-3, method="rdp"), {"method": "skip"},
        fn=_acc_method("get_epsilon"))
    add("PNSGDAccountant.get_delta", dict(eps=2.0), fn=_acc_method("get_delta"))
    add("PNSGDAccountant.get_privacy_spent", dict(delta=1e-3), fn=_acc_method("get_privacy_spent"))
    take("PNSGDAccountant.epoch_profile")
    add("pnsgd_zcdp_rho", dict(_RDP_PNSGD), fn=_adapter("pnsgd_zcdp_rho"))
    add("pnsgd_zcdp_event", dict(_RDP_PNSGD), fn=_adapter("pnsgd_zcdp_event"))
    add("pnsgd_epoch_pld", dict(_ACC_KW, eps_max=8.0), fn=_adapter("pnsgd_epoch_pld"))
    add("pld_from_profile", dict(delta=_grid_delta(), h=0.1, tail=1e-18), {"delta": "array"},
        fn=_adapter("pld_from_profile"))
    # --- training setups (issue 15; written in today's vocabulary): each asked for eps at 1e-3
    add("PNSGD", dict(records=10, lr=0.5, noise_scale=1.0, max_grad_norm=1.0, diameter=1.0, smoothness=2.0,
                      strong_convexity=0.5, convex=True, ordering="shuffled", epochs=1),
        {"convex": "skip", "ordering": "option"}, fn=_setup_epsilon("PNSGD"))
    add("DPSGD", dict(sample_rate=0.1, noise_multiplier=1.0, steps=10, grid_step=0.01), fn=_setup_epsilon("DPSGD"))
    add("CyclicDPSGD", dict(records=100, batch_size=10, epochs=2, lr=0.1, max_grad_norm=1.0, noise_multiplier=1.0,
                            ordering="cyclic", weak_convexity=0.1, smoothness=1.0, diameter=1.0),
        {"ordering": "option"}, fn=_setup_epsilon("CyclicDPSGD"))
    add("ScheduledPNSGD", dict(steps=100.0, lr=0.1, max_grad_norm=1.0, diameter=1.0, c1=10.0, c2=2.0, noise="laplace",
                               smoothness=2.0, strong_convexity=0.5), {"noise": "option"},
        fn=_setup_epsilon("ScheduledPNSGD"))
    add("bounds", dict(delta=1e-3), fn=_bounds_records)
    # --- schedule inversions (issue 16; today's vocabulary)
    take("laplace_schedule_epsilon")
    take("gaussian_schedule_epsilon")
    # --- online inversions (issue 16; today's vocabulary)
    take("online_epsilon")
    _on_inv = dict(delta=1e-3, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=50.0, index=3.0, c1=10.0, c2=2.0,
                   decay=1.5, smoothness=2.0, strong_convexity=0.5)
    add("online_laplace_epsilon", _on_inv)
    add("online_gaussian_epsilon", _on_inv)
    # --- the issue-16 setups: each asked for eps at 1e-3
    add("StepwisePNSGD", dict(noise_scale=np.array([1.0, 1.5]), max_grad_norm=1.0, lr=np.array([0.5, 0.2]),
                              diameter=1.0, noise_factor=1.0, run_lengths=np.array([10.0, 20.0]),
                              ordering="random_stop", index=12.0, smoothness=2.0, strong_convexity=0.5),
        {"noise_scale": "array", "lr": "array", "run_lengths": "array", "ordering": "option"},
        fn=_setup_epsilon("StepwisePNSGD"))
    add("OnlinePNSGD", dict(index=3, lr=0.1, max_grad_norm=1.0, diameter=1.0, c1=10.0, c2=2.0, decay=1.5, steps=50.0,
                            noise="laplace", smoothness=2.0, strong_convexity=0.5), {"noise": "option"},
        fn=_setup_epsilon("OnlinePNSGD"))
    add("LastIterateSGD", dict(theorem="cyclic", lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=20, batch_size=5,
                               batches_per_epoch=10, weak_convexity=0.1, smoothness=1.0), {"theorem": "option"},
        fn=_setup_epsilon("LastIterateSGD"))
    add("ERMGradientDescent", dict(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0, batch_size=10,
                                   batches_per_epoch=10, noise_scale=1.0, epochs=3, batch_order="random"),
        {"batch_order": "option"}, fn=_setup_epsilon("ERMGradientDescent"))
    # its coupled names were passed here as ``fn`` (a copy of the matrix's four-field entry into
    # this three-field ``add``): every probe of it recorded "TypeError: 'dict' object is not callable"
    take("mixture_hockey_stick_divergence")
    return T


# ============================================================================ input regimes

#: scalar regimes of every numeric parameter (floats; then the Python ints below)
FLOATS = (0.0, -0.0, 5e-324, 2.2250738585072014e-308, 1e-300, 1e-30, 1e-12, 1e-6, 1e-3, 0.01, 0.1, 0.25,
          0.5, 0.75, 0.9, 0.999, 1.0, 1.5, 2.0, 3.0, 7.0, 10.0, 100.0, 1e3, 1e6, 1e12, 1e15, 1e100, 1e300,
          1.7976931348623157e308, math.inf, -math.inf, math.nan, -1.0, -1e-300)
INTS = (0, 1, 2, 3, 5, 64, 1000, 2**31, 2**53, 2**53 + 1, 2**63, 10**30, -1)
#: a shorter list for the expensive callables and for the option combinations
MEDIUM = (0.0, 5e-324, 1e-6, 0.1, 0.5, 1.0, 2.0, 10.0, 1e3, 1e15, 1e300, math.inf, math.nan, -1.0)
#: the expensive callables: the edges that are rejected before any work, plus half and twice
#: the default (see EXPENSIVE)
SHORT = (0.0, math.inf, math.nan, -math.inf, -1.0)
#: non-numeric / structural bad-input classes of the matrix (tests/_matrix_worker.py)
BAD = SCALAR_CLASSES[SCALAR_CLASSES.index("half"):]  # the numeric ones are in FLOATS and INTS
BAD_SHORT = ("str", "None", "bool", "empty", "mismatch")
ARRAY_BAD = ARRAY_CLASSES
OPTION_BAD = ("bogus", None, 3)

#: expensive callables (a valid call costs 10-200 ms, more at extreme arguments): short sweeps.
#: Their values in SLOW_SKIP are replaced by smaller ones (listed; recorded in the snapshot).
EXPENSIVE = {"online_gauss_delta_limit", "online_gauss_delta_limit_bound", "online_laplace_delta_limit",
             "online_laplace_delta_limit_bound", "dpsgd_calibrate_sigma", "dpsgd_calibrate_noise_multiplier", "pnsgd_epoch_pld", "multi_epoch_epsilon",
             "PNSGDAccountant", "PNSGDAccountant#fixed", "PNSGDAccountant.get_epsilon",
             "PNSGDAccountant.get_epsilon#rdp", "PNSGDAccountant.get_delta", "PNSGDAccountant.get_privacy_spent",
             "pnsgd_zcdp_rho", "pnsgd_zcdp_event", "sweep", "dpsgd_epsilon", "dpsgd_epsilon#bracket", "dpsgd_delta",
             "compose_plds", "PrivacyLossDistribution.compose", "ComposedPLD.delta", "ComposedPLD.epsilon",
             "tradeoff_from_profile", "DPSGD", "bounds", "PNSGD", "dpsgd_epsilon#replace_one",
             "dpsgd_epsilon#without_replacement", "dpsgd_delta#replace_one", "dpsgd_delta#without_replacement",
             "dpsgd_calibrate_sigma#replace_one", "PrivacyLossDistribution.replace_one_gaussian"}


#: (callable, parameter) -> (lo, hi): finite arguments with lo < |v| < hi are not probed, because
#: there a single call costs 0.1 s to seconds (the online bounds sum or search over a range that
#: grows with these parameters; PLD grids grow as h, sigma shrink); the same regimes are probed at
#: smaller arguments. Listed in the snapshot's meta.
SKIP = {
    **{(f"online_{k}_delta_star_{s}", p): (1e6, math.inf) for k in ("gauss", "laplace") for s in ("lower", "upper")
       for p in ("c1", "c2")},
    **{(f"online_{k}_delta_star_{s}", "eps"): (100.0, math.inf) for k in ("gauss", "laplace")
       for s in ("lower", "upper")},
    **{(f"online_{k}_delta", "n"): (1e4, math.inf) for k in ("gauss", "laplace")},
    **{(f"online_{k}_epsilon", "steps"): (1e3, math.inf) for k in ("gaussian", "laplace")},
    **{(f, "alpha"): (1e4, math.inf) for f in ("sampled_gaussian_rdp", "sampled_gaussian_rdp_per_instance")},
    **{(f"PrivacyLossDistribution.{c}", "h"): (1e-7, 1e-2) for c in ("gaussian", "subsampled_gaussian", "laplace",
                                                                     "from_eps_delta")},
    **{(f"PrivacyLossDistribution.{c}", "sigma"): (1e-3, 0.1) for c in ("gaussian", "subsampled_gaussian")},
    ("PrivacyLossDistribution.gaussian", "sensitivity"): (10.0, 1e3),
}


def _capped(name: str, p: str, v: Any) -> bool:
    rng = SKIP.get((name, p))
    if rng is None or v is None or isinstance(v, (str, complex, np.ndarray, bool)):
        return False
    try:
        f = abs(float(v))
    except (TypeError, ValueError, OverflowError):
        return True  # an int beyond float range: the largest magnitude
    return math.isfinite(f) and rng[0] < f < rng[1]


#: the most expensive ones (~0.15 s a call): one accepted value per parameter besides the default
VERY_EXPENSIVE = {"online_gauss_delta_limit", "online_gauss_delta_limit_bound"}


# ============================================================================ the recorder


class Recorder:
    def __init__(self, timing: bool = False) -> None:
        self.records: dict[str, Any] = {}
        self.times: dict[str, float] = {}
        self.timing = timing
        self.unit = ""  # the unit of work now recording (see ``units``)

    def call(self, key: str, thunk: Callable[[], Any]) -> Any:
        """Run one probe (once per key); its record."""
        if key in self.records:
            return self.records[key]
        if TRACE:
            print(f"probe: {key[:200]}", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                rec: Any = {"value": enc(thunk())}
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # noqa: BLE001 - a pyo3 PanicException is a BaseException
                rec = {"error": type(exc).__name__, "message": _clean(str(exc))}
        # pabi's own warnings (third-party import-time warnings would depend on probe order)
        mine = [w for w in caught if "site-packages" not in str(w.filename)]
        if mine:
            rec["warnings"] = [[w.category.__name__, _clean(str(w.message))] for w in mine]
        if self.timing:
            self.times[key] = time.perf_counter() - t0
        rec["unit"] = self.unit  # not compared: says which part of the set owns the probe
        if TRACE:
            print(f"done {time.perf_counter() - t0:.4f}", file=sys.stderr, flush=True)
        self.records[key] = rec
        return rec

    def probe(self, name: str, fn: Callable[..., Any], kw: dict[str, Any]) -> Any:
        return self.call(key_of(name, kw), lambda: _call_translated(name, fn, kw))


def _ok(rec: Any) -> bool:
    return "value" in rec


def _ulp_neighbours(v: float) -> list[float]:
    if not math.isfinite(v) or v == 0:
        return []
    return [math.nextafter(v, -math.inf), math.nextafter(v, math.inf), v / 2, v * 2]


def _pick(vals: list[Any], n: int) -> list[Any]:
    """At most n values, evenly spread, first and last kept (deterministic)."""
    if len(vals) <= n:
        return list(vals)
    if n == 1:
        return [vals[len(vals) // 2]]
    idx = sorted({round(i * (len(vals) - 1) / (n - 1)) for i in range(n)})
    return [vals[i] for i in idx]


def _sortkey(v: Any) -> tuple[int, float]:
    f = float(v)
    return (1, 0.0) if math.isnan(f) else (0, f)


def probe_entry(R: Recorder, name: str, entry: Entry) -> None:
    fn, defaults, kinds = entry
    expensive = name in EXPENSIVE
    base_opts = {p: defaults[p] for p, k in kinds.items() if k == "option"}
    numeric = [p for p, v in defaults.items() if kinds.get(p) is None and isinstance(v, (int, float))
               and not isinstance(v, bool)]
    arrays = [p for p, k in kinds.items() if k == "array"]
    fname = name.split("#")[0]
    optvals = {p: OPTIONS_BY_FN.get(name, {}).get(p, OPTIONS_BY_FN.get(fname, {}).get(p, OPTIONS.get(p, ())))
               for p in base_opts}

    R.probe(name, fn, dict(defaults))

    def sweep(base: dict[str, Any], regimes: Iterable[Any], bad: Iterable[str], with_ints: bool) -> dict[str, list[Any]]:
        valid: dict[str, list[Any]] = {}
        for p in numeric:
            v0 = base[p]
            if not expensive:
                values: list[Any] = list(regimes) + _ulp_neighbours(float(v0))
            elif name in VERY_EXPENSIVE:
                values = list(regimes) + [float(v0) * 2 or 2.0]
            else:
                values = list(regimes) + [float(v0) / 2 or 0.5, float(v0) * 2 or 2.0]
            if with_ints:
                values += list(INTS)
            ok = []
            for v in values:
                if _capped(name, p, v):
                    continue
                kw = dict(base)
                kw[p] = v
                if _ok(R.probe(name, fn, kw)) and isinstance(v, float):
                    ok.append(v)
            for cls in bad:
                kw = dict(base)
                kw[p] = scalar_input(cls, v0)
                if cls == "mismatch":
                    other = next((q for q in numeric if q != p), None)
                    if other is None:
                        continue
                    kw[other] = np.array([float(base[other])] * 3)
                R.probe(name, fn, kw)
            valid[p] = sorted(set(ok), key=_sortkey)
        return valid

    if expensive:
        valid = sweep(defaults, SHORT, BAD_SHORT, False)
    else:
        valid = sweep(defaults, FLOATS, BAD, True)
    nmax = 2 if expensive else 16
    # --- array calls: each numeric parameter as an array / a list of its accepted values
    for p in (numeric if not expensive else numeric[:1]):
        vals = _pick(valid[p], nmax)
        if not vals:
            continue
        R.probe(name, fn, dict(defaults, **{p: np.array(vals)}))
        if not expensive:
            R.probe(name, fn, dict(defaults, **{p: list(vals)}))
            R.probe(name, fn, dict(defaults, **{p: np.array(vals[::-1]).reshape(-1, 1)}))
    if not expensive:
        # every regime in one array (the first rejected element names its index)
        for p in numeric[:2]:
            R.probe(name, fn, dict(defaults, **{p: np.array([v for v in FLOATS if not _capped(name, p, v)])}))
    # broadcasting: the first two numeric parameters against each other
    if len(numeric) >= 2:
        p1, p2 = numeric[:2]
        a = _pick(valid[p1], 2 if expensive else 6)
        b = _pick(valid[p2], 1 if expensive else 5)
        if a and b:
            R.probe(name, fn, dict(defaults, **{p1: np.array(a).reshape(-1, 1), p2: np.array(b).reshape(1, -1)}))
            if not expensive and len(numeric) >= 3 and valid[numeric[2]]:
                p3 = numeric[2]
                c = _pick(valid[p3], 2)
                R.probe(name, fn, dict(defaults, **{p1: np.array(a).reshape(-1, 1, 1), p2: np.array(b).reshape(1, -1, 1),
                                                    p3: np.array(c).reshape(1, 1, -1)}))
    # --- array-valued parameters: the matrix's bad classes
    for p in arrays:
        for cls in (ARRAY_BAD if not expensive else ("el-nan", "el-negative", "empty", "mismatch", "str")):
            R.probe(name, fn, dict(defaults, **{p: array_input(cls, np.asarray(defaults[p], dtype=np.float64))}))
    # --- option parameters: bad values, then every combination with its own sweep
    for p in base_opts:
        for bad in OPTION_BAD:
            R.probe(name, fn, dict(defaults, **{p: bad}))
    if base_opts:
        names = list(base_opts)
        for combo in itertools.product(*(optvals[p] for p in names)):
            kw = dict(defaults, **dict(zip(names, combo)))
            if all(kw[p] == defaults[p] for p in names):
                continue
            R.probe(name, fn, kw)
            if expensive:
                continue
            v2 = sweep(kw, MEDIUM, (), False)
            if numeric and v2[numeric[0]]:
                R.probe(name, fn, dict(kw, **{numeric[0]: np.array(_pick(v2[numeric[0]], 8))}))


# ============================================================================ hand-written probes


def probe_extra(R: Recorder) -> None:
    import pabi
    from pabi import adapters

    P = pabi
    # dense grids of the elementary functions (one vectorised call each)
    eps_pts = np.array([0.0, 5e-324, 1e-300, 1e-10, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 700.0,
                        1e4, 1e10, 1e300, math.inf])
    r_pts = np.array([0.0, 5e-324, 1e-300, 1e-10, 1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 40.0, 100.0, 1e4,
                      1e10, 1e300, math.inf])
    eg = _geomspace(1e-8, 1e3, 40).reshape(-1, 1)
    rg = _geomspace(1e-4, 1e3, 25).reshape(1, -1)
    for f in ("theta", "log_theta", "theta_complement", "log_theta_complement", "laplace_theta",
              "laplace_theta_complement"):
        fn = _f(f)
        R.probe(f, fn, dict(eps=eps_pts.reshape(-1, 1), r=r_pts.reshape(1, -1)))
        R.probe(f, fn, dict(eps=eg, r=rg))
        # ties: eps = r (Laplace breakpoint), eps = r^2/2 and their neighbours
        for r in (1e-3, 0.5, 1.0, 2.0, 10.0, 1e3):
            es = [r, math.nextafter(r, 0), math.nextafter(r, math.inf), r * r / 2, math.nextafter(r * r / 2, 0),
                  math.nextafter(r * r / 2, math.inf)]
            R.probe(f, fn, dict(eps=np.array(es), r=r))
    R.probe("gdp_delta", P.gdp_delta, dict(eps=eps_pts.reshape(-1, 1), mu=r_pts.reshape(1, -1)))
    R.probe("gdp_delta", P.gdp_delta, dict(eps=eg, mu=rg))
    t = np.concatenate([np.linspace(-40, 40, 161), [-1e300, -38.5, 37.5, 38.5, 39.0, 1e3, 1e10, 1e300, math.inf,
                                                    -math.inf, 5e-324, -5e-324, 0.0, -0.0]])
    for f in ("gaussian_tail", "log_gaussian_tail"):
        R.probe(f, _f(f), dict(t=t))
    mie = -0.36787944117144233
    x = np.concatenate([[mie, math.nextafter(mie, 0), -0.36, -0.3, -0.1, -1e-10, -5e-324, 0.0, -0.0, 5e-324, 1e-10],
                        _geomspace(1e-3, 1e300, 60), [math.inf]])
    R.probe("lambertw", P.lambertw, dict(x=x))
    R.probe("lambertw", P.lambertw, dict(x=math.nextafter(mie, -math.inf)))
    w = np.concatenate([np.linspace(-800, 800, 161), [-1e300, -746.0, -745.0, 709.0, 710.0, 1e10, 1e300,
                                                      -math.inf, math.inf, 0.0, -0.0, 5e-324]])
    R.probe("wright_omega", P.wright_omega, dict(x=w))
    # ties / breakpoints of the approximate-DP composition: eps = j*eps0
    for k in (1.0, 2.0, 3.0, 10.0, 100.0):
        for eps0 in (0.1, 0.5, 1.0):
            es = sorted({j * eps0 for j in range(0, int(k) + 1)} | {math.nextafter(k * eps0, 0),
                                                                     math.nextafter(k * eps0, math.inf)})
            R.probe("approx_dp_composition_delta", P.approx_dp_composition_delta,
                    dict(eps0=eps0, delta0=1e-4, k=k, eps=np.array(es)))
            R.probe("approx_dp_composition_epsilon", P.approx_dp_composition_epsilon,
                    dict(eps0=eps0, delta0=1e-4, k=k, delta=np.array([1e-12, 1e-6, 1e-4, 1e-2, 0.1, 0.5, 0.9])))
    R.probe("approx_dp_composition_delta", P.approx_dp_composition_delta,
            dict(eps0=np.array([0.0, 1e-3, 0.5]).reshape(-1, 1), delta0=np.array([0.0, 1e-6, 0.5]),
                 k=np.array([1.0, 7.0, 1e3]).reshape(-1, 1, 1), eps=0.25))
    # tradeoff curve ends: alpha at 0, 1, delta, 1 - delta
    R.probe("tradeoff_eps_delta", P.tradeoff_eps_delta,
            dict(alpha=np.array([0.0, 5e-324, 1e-3, 1e-2, 0.5, 1 - 1e-3, 1.0]).reshape(-1, 1),
                 eps=np.array([0.0, 0.5, 1.0, 5.0]), delta=1e-3))
    # the RDP accountant over the default orders
    R.probe("sampled_gaussian_rdp", P.sampled_gaussian_rdp,
            dict(alpha=P.DEFAULT_ORDERS, q=np.array([1e-4, 0.01, 0.1, 0.5, 1.0]).reshape(-1, 1), noise_multiplier=1.0))
    for frac in ("exact", "ceil"):
        R.probe("sampled_gaussian_rdp", P.sampled_gaussian_rdp,
                dict(alpha=P.DEFAULT_ORDERS, q=0.01, noise_multiplier=np.array([0.3, 0.7, 2.0, 10.0]).reshape(-1, 1),
                     fractional=frac))
    for m in ("tight", "classical"):
        R.probe("rdp_to_dp_epsilon", P.rdp_to_dp_epsilon,
                dict(orders=P.DEFAULT_ORDERS, rdp=P.DEFAULT_ORDERS * 0.01, delta=1e-5, method=m))
        R.probe("rdp_to_dp_delta", P.rdp_to_dp_delta,
                dict(orders=P.DEFAULT_ORDERS, rdp=P.DEFAULT_ORDERS * 0.01, eps=1.0, method=m))
    R.probe("holder_orders", P.holder_orders, dict(alpha=8.0, p=9.0, n=12, variant="corrected"))
    # pnsgd: index sweep, large n, order/noise product with arrays of eps
    pk = dict(sigma=1.0, lipschitz=1.0, lr=0.5, diameter=1.0, n=10.0, smoothness=2.0, strong_convexity=0.5)
    R.probe("pnsgd_delta", P.pnsgd_delta, dict(eps=1.0, **pk, index=np.arange(1.0, 11.0)))
    for n in (1.0, 2.0, 1e3, 1e6, 2.0**53 - 1):
        for order in ("fixed", "shuffled", "random_stop"):
            for noise in ("gaussian", "laplace"):
                R.probe("pnsgd_delta", P.pnsgd_delta,
                        dict(eps=np.array([0.0, 0.1, 1.0, 10.0]), **dict(pk, n=n), order=order, noise=noise,
                             index=1.0 if order == "fixed" else None))
    # PLD objects and compositions
    pld_g = P.PrivacyLossDistribution.gaussian(2.0, grid_step=0.05)
    pld_l = P.PrivacyLossDistribution.laplace(1.0, grid_step=0.05)
    pld_s = P.PrivacyLossDistribution.subsampled_gaussian(sample_rate=0.05, noise_multiplier=1.0, grid_step=0.05)
    pld_a = P.PrivacyLossDistribution.subsampled_gaussian(sample_rate=0.05, noise_multiplier=1.0, direction="add",
                                                          grid_step=0.05)
    pld_e = P.PrivacyLossDistribution.from_eps_delta(0.5, 1e-4, grid_step=0.05)
    plds = {"gauss2": pld_g, "laplace1": pld_l, "subs": pld_s, "subs_add": pld_a, "epsdelta": pld_e}
    for nm, pld in plds.items():
        R.call(f"PrivacyLossDistribution[{nm}].(h, pmf, losses, inf)", lambda pld=pld: (pld.grid_step, pld.pmf, pld.losses,
                                                                                         pld.inf))
        for times in (1, 2, 10, 100):
            R.call(f"PrivacyLossDistribution[{nm}].compose(times={times}).error_budget",
                   lambda pld=pld, times=times: pld.compose(times).error_budget)
            if times in (2, 100):
                comp = pld.compose(times)
                R.call(f"PrivacyLossDistribution[{nm}].compose(times={times}).delta(eps=grid)",
                       lambda comp=comp: comp.delta(np.array([0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 20.0, math.inf])))
                R.call(f"PrivacyLossDistribution[{nm}].compose(times={times}).epsilon(delta=grid)",
                       lambda comp=comp: comp.epsilon(np.array([1e-12, 1e-8, 1e-5, 1e-3, 0.1, 0.5, 1.0])))
    mixes = {"g3+l2": [(pld_g, 3), (pld_l, 2)], "s10+e5": [(pld_s, 10), (pld_e, 5)],
             "all": [(p, 2) for p in plds.values()]}
    for nm, parts in mixes.items():
        comp = P.compose_plds(parts)
        R.call(f"compose_plds[{nm}]", lambda comp=comp: comp)
        R.call(f"compose_plds[{nm}].delta(eps=grid)", lambda comp=comp: comp.delta(np.array([0.0, 0.5, 1.0, 4.0])))
        R.call(f"compose_plds[{nm}].epsilon(delta=grid)", lambda comp=comp: comp.epsilon(np.array([1e-9, 1e-5, 1e-2])))
    R.call("compose_plds[empty]", lambda: P.compose_plds([]))
    R.call("compose_plds[bad-part]", lambda: P.compose_plds([(pld_g, 0)]))
    R.call("compose_plds[not-a-pld]", lambda: P.compose_plds([(1.0, 2)]))
    # DP-SGD accountant regimes (h 0.01 keeps it fast)
    for q in (1e-3, 0.1, 1.0):
        for steps in (1, 100):
            for sigma in (0.7, 2.0):
                R.probe("dpsgd_epsilon", P.dpsgd_epsilon, dict(q=q, sigma=sigma, steps=steps, delta=1e-5, h=0.01))
                R.probe("dpsgd_delta", P.dpsgd_delta, dict(q=q, sigma=sigma, steps=steps, eps=1.0, h=0.01))
    # accountant: the public surface
    def acc(**kw: Any) -> Any:
        return _accountant(**dict(_ACC_KW, **kw))

    def acc_run(kw: dict[str, Any], steps: int, epochs: int = 0) -> Any:
        a = acc(**kw)
        a.record_steps(steps)
        if epochs:
            a.record_epochs(epochs)
        return a

    for order in ("shuffled", "fixed"):
        for noise in ("gaussian", "laplace"):
            kw = dict(order=order, noise=noise, **({"index": 3} if order == "fixed" else {}))
            tag = f"PNSGDAccountant[{order},{noise}]"
            R.call(f"{tag}.state_dict()", lambda kw=kw: acc_run(kw, 10, 2).state_dict())
            R.call(f"{tag}.(history, sigma, n, steps, epochs_completed, epochs, len, mechanism())",
                   lambda kw=kw: (lambda a: [[(a.noise_scale, a.records, a.steps_taken)], a.noise_scale, a.records,
                                             a.steps_taken, a.epochs_completed, a.epochs, a.steps_taken,
                                             "pnsgd"])(acc_run(kw, 25)))
            R.call(f"{tag}.get_epsilon(1e-5)", lambda kw=kw: acc_run(kw, 30).epsilon(1e-5))
            R.call(f"{tag}.get_epsilon(1e-5,rdp)", lambda kw=kw: acc_run(kw, 30).epsilon(1e-5, method="rdp"))
            R.call(f"{tag}.get_delta(1.0)", lambda kw=kw: acc_run(kw, 30).delta(1.0))
            R.call(f"{tag}.get_privacy_spent(1e-5)",
                   lambda kw=kw: (lambda a: (a.epsilon(1e-5), a.epochs))(acc_run(kw, 20)))
            R.call(f"{tag}.epoch_profile(grid)",
                   lambda kw=kw: acc_run(kw, 0).epoch_profile(np.array([0.0, 0.5, 1.0, 4.0])))
            # one epoch (10 steps): its PLD as pabi built it; several epochs are composed by
            # dp-accounting's numpy FFT, whose last bits depend on the CPU
            R.call(f"{tag}.to_dp_accounting_pld", lambda kw=kw: acc_run(kw, 10).to_dp_accounting_pld())
    R.call("PNSGDAccountant.get_epsilon(steps=0)", lambda: acc().epsilon(1e-5))
    R.call("PNSGDAccountant.epoch_done(mid-epoch)", lambda: acc_run({}, 3, 1))
    R.call("PNSGDAccountant.load_state_dict(roundtrip)",
           lambda: (lambda a, b: (b.load_state_dict(a.state_dict()), b)[1])(acc_run({}, 17), acc()))
    R.call("PNSGDAccountant.load_state_dict(other config)",
           lambda: acc(sigma=2.0).load_state_dict(acc_run({}, 5).state_dict()))
    R.call("PNSGDAccountant.load_state_dict(bad)", lambda: acc().load_state_dict({}))
    R.call("PNSGDAccountant.mechanism()", lambda: "pnsgd")  # removed; the state dict's tag
    R.call("to_dp_accounting_pld(pld_from_profile)",
           lambda: adapters.to_dp_accounting_pld(pld_e))
    R.call("to_dp_accounting_pld(bad)", lambda: adapters.to_dp_accounting_pld(1.0))
    # sweep: other functions, fixed parameters, chunking
    R.call("sweep(theta, eps 7 x r 3, chunk 4)",
           lambda: P.sweep(P.theta, progress=False, chunk_size=4, eps=np.linspace(0, 3, 7), shift=np.array([0.5, 1, 2])))
    R.call("sweep(pnsgd_delta, fixed)",
           lambda: _sweep_translated("pnsgd_delta", dict(eps=np.array([0.5, 1.0]), sigma=np.array([1.0, 2.0])),
                                     dict(lipschitz=1.0, lr=0.5, diameter=1.0, n=10.0, index=3.0)))
    R.call("sweep(gdp_delta, validate=False)",
           lambda: P.sweep(P.gdp_delta, progress=False, validate=False, eps=np.array([0.0, 1.0]), mu=np.array([1.0])))
    R.call("sweep(theta, bad backend)",
           lambda: P.sweep(P.theta, progress=False, backend="bogus", eps=np.array([1.0]), shift=np.array([1.0])))
    R.call("grid_size(3 grids)", lambda: P.grid_size(a=np.arange(3), b=np.arange(4), c=[1, 2]))
    # module-level constants and classes
    R.call("DEFAULT_ORDERS", lambda: P.DEFAULT_ORDERS)
    # machine-dependent: only its type and range are recorded (the level itself is in the meta)
    R.call("simd_level() in known levels", lambda: P.simd_level() in ("avx512", "avx2+fma", "neon", "portable"))
    R.call("__version__", lambda: P.__version__)
    for cls in ("DomainError", "InternalError"):
        R.call(f"{cls}.__mro__", lambda cls=cls: [c.__name__ for c in getattr(P, cls).__mro__])
    R.call("__all__", lambda: sorted(P.__all__))
    R.call("adapters.__all__", lambda: sorted(adapters.__all__))
    for n in (1, 2, 3, 0, -1, 2**70, 1.5, "2", None):
        R.call(f"set_num_threads({n!r});get_num_threads()", lambda n=n: _set_num_threads(n=n))


_SECONDS = re.compile(r'"seconds": [-+0-9.eE]+')


def _cli_clean(text: str, tmp: Path) -> str:
    """Command output without what varies from run to run: temporary paths, wall-clock timings."""
    return _SECONDS.sub('"seconds": "<t>"', text.replace(str(tmp), "<TMP>").replace(str(ROOT), "<ROOT>"))


def probe_threaded(R: Recorder) -> None:
    """Inputs large enough for the multi-threaded paths of the core (element-wise batches of
    >= 2^15 elements, PNSGD drivers >= 2^14, solvers >= 64, RDP element maps >= 4096, the
    online direct sum >= 2^15 steps): their results must not depend on the thread count."""
    import pabi as P

    N = (1 << 15) + 7
    eps = _geomspace(1e-6, 50.0, N)
    r = _geomspace(1e-3, 30.0, N)[::-1].copy()
    for f in ("theta", "log_theta", "theta_complement", "log_theta_complement", "laplace_theta",
              "laplace_theta_complement"):
        R.probe(f, _f(f), dict(eps=eps, r=r))
    R.probe("gdp_delta", P.gdp_delta, dict(eps=eps, mu=r))
    for f in ("gaussian_tail", "log_gaussian_tail"):
        R.probe(f, _f(f), dict(t=np.linspace(-40.0, 40.0, N)))
    R.probe("lambertw", P.lambertw, dict(x=_geomspace(1e-300, 1e300, N)))
    R.probe("wright_omega", P.wright_omega, dict(x=np.linspace(-800.0, 800.0, N)))
    for f in ("gauss_schedule_delta", "laplace_schedule_delta"):
        R.probe(f, _f(f), dict(_SCHED, eps=np.linspace(0.0, 5.0, N)))
    pk = dict(sigma=1.0, lipschitz=1.0, lr=0.5, diameter=1.0, n=10.0, index=3.0, smoothness=2.0, strong_convexity=0.5)
    n_d = (1 << 14) + 3
    for order in ("fixed", "shuffled"):
        kw = dict(pk, order=order, **({} if order == "fixed" else {"index": None}))
        R.probe("pnsgd_delta", P.pnsgd_delta, dict(kw, eps=np.linspace(0.0, 8.0, n_d)))
        R.probe("pnsgd_epsilon", P.pnsgd_epsilon, dict(kw, delta=_geomspace(1e-12, 0.5, 70)))
    R.probe("pnsgd_calibrate_sigma", _f("pnsgd_calibrate_sigma"),
            dict({k: v for k, v in pk.items() if k != "sigma"}, eps=np.linspace(0.1, 5.0, 70), delta=1e-5))
    R.probe("sampled_gaussian_rdp", P.sampled_gaussian_rdp,
            dict(alpha=np.linspace(1.5, 5000.5, 101), q=0.01, noise_multiplier=1.0, fractional="exact"))
    R.probe("last_iterate_rdp_general", _f("last_iterate_rdp_general"),
            dict(alpha=np.linspace(1.5, 64.0, 4500), lam=0.1, clip=1.0, sigma=1.0, T=100.0))
    R.probe("gaussian_mech_rdp", _f("gaussian_mech_rdp"),
            dict(alpha=np.linspace(1.5, 64.0, 4500), sensitivity=1.0, sigma=1.0))
    grid = np.linspace(0.05, 1.0, 64 * 64).reshape(64, 64)
    R.probe("dpsgd_per_instance_rdp", P.dpsgd_per_instance_rdp,
            dict(alpha=8.0, q=0.01, sigma=1.0, sensitivities=grid, p=9.0))
    R.probe("online_delta", P.online_delta,
            dict(eps=1.0, lipschitz=1.0, lr=0.1, diameter=1.0, noise=np.linspace(1.0, 3.0, N), index=2,
                 mechanism="gaussian", smoothness=2.0, strong_convexity=0.5))
    for f in ("online_gauss_delta", "online_laplace_delta"):
        R.probe(f, _f(f), dict(_ONLINE, n=float((1 << 15) + 1)))


def _sweep_translated(name: str, grids: dict[str, Any], fixed: dict[str, Any]) -> Any:
    """``sweep(name, **grids, fixed=fixed)`` recorded in the old vocabulary: the grids and the
    fixed parameters translated together, like one call of ``name``."""
    fn, kw = translate(name, _pabi(), {**grids, **fixed})
    renames = _plan().PARAMS.get(name, {})
    new_grids = {renames.get(k, k) for k in grids}
    return _pabi().sweep(fn, progress=False, **{k: v for k, v in kw.items() if k in new_grids},
                   fixed={k: v for k, v in kw.items() if k not in new_grids})


def _cli_translate(argv: list[str]) -> list[str]:
    """A recorded command line in today's flags (tools/vocabulary_plan.py CLI_FLAGS)."""
    flags = getattr(_plan(), "CLI_FLAGS", {}).get(argv[0] if argv else "", {})
    return [flags.get(a, a) for a in argv]


def probe_cli(R: Recorder, tmp: Path) -> None:
    """A few ``python -m pabi`` command lines, run in process (pabi.cli.main) for speed."""
    from pabi.cli import main

    csv = tmp / "sens.csv"
    csv.write_text("0.5,0.25,1.0\n0.75,0.5,0.25\n1.0,1.0,0.5\n")
    PN = ["--sigma", "4", "--lipschitz", "1", "--lr", "0.05", "--diameter", "1", "--n", "1000"]
    LI = ["--lr", "0.1", "--clip", "1", "--sigma", "1", "--steps", "10", "--n", "10", "--batch-size", "1"]
    lines = [
        ["--version"], ["theta", "1", "1", "--json"], ["theta", "0.5", "3", "--json"], ["theta", "1", "1"],
        ["demo", "--json"],
        ["pnsgd", *PN, "--eps", "1", "--json"], ["pnsgd", *PN, "--delta", "1e-5", "--json"],
        ["pnsgd", *PN, "--order", "shuffled", "--delta", "1e-5,1e-6", "--json"],
        ["pnsgd", *PN, "--noise", "laplace", "--eps", "1", "--json"],
        ["pnsgd", *[a for a in PN if a not in ("--sigma", "4")], "--delta", "1e-5", "--eps", "1",
         "--calibrate-sigma", "--json"],
        ["pnsgd", *PN, "--eps", "1", "--variant", "as_published", "--index", "3", "--json"],
        ["dpsgd", "--q", "0.01", "--sigma", "1", "--steps", "100", "--delta", "1e-5", "--h", "0.01", "--json"],
        ["dpsgd", "--q", "0.01", "--sigma", "1", "--steps", "100", "--eps", "1", "--h", "0.01", "--no-rdp", "--json"],
        ["per-instance", str(csv), "--q", "0.01", "--sigma", "1", "--alpha", "8", "--json"],
        ["per-instance", str(csv), "--q", "0.01", "--sigma", "1", "--delta", "1e-5", "--json"],
        ["last-iterate", "--alpha", "8", "--delta", "1e-5", *LI, "--json"],
        ["last-iterate", "--alpha", "2,4", *LI, "--json"],
        ["report", str(ROOT / "examples" / "report.toml"), "--json"],
        # errors: one line on stderr, exit status 2
        ["theta", "-1", "1"], ["pnsgd", *PN, "--eps", "nan", "--json"], ["dpsgd", "--q", "2", "--steps", "1"],
        ["pnsgd", "--bogus"], ["per-instance", str(tmp / "missing.csv"), "--q", "0.1", "--sigma", "1"],
    ]
    # one real ``python -m pabi`` process (the module entry point; ~0.5 s for its imports)
    def real() -> Any:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]),
                   PABI_NUM_THREADS=str(THREADS[0]))
        r = subprocess.run([sys.executable, "-m", "pabi", "theta", "2", "0.5", "--json"], capture_output=True,
                           text=True, env=env, timeout=120, cwd=str(ROOT))
        return {"status": r.returncode, "stdout": _cli_clean(r.stdout, tmp), "stderr": _cli_clean(r.stderr, tmp)}

    R.call("cli(subprocess): python -m pabi theta 2 0.5 --json", real)
    cli_flags = getattr(_plan(), "CLI_FLAGS", {})
    for argv in lines:
        def run(argv: list[str] = argv) -> Any:
            # command lines recorded with renamed flags run with today's (tools/vocabulary_plan.py)
            flags = cli_flags.get(argv[0], {}) if argv else {}
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(_cli_translate(argv))
            return {"status": rc, "stdout": _cli_clean(out.getvalue(), tmp), "stderr": _cli_clean(err.getvalue(), tmp)}
        shown = [a.replace(str(tmp), "<TMP>").replace(str(ROOT), "<ROOT>") for a in argv]
        R.call("cli: pabi " + " ".join(shown), run)


# ============================================================================ record / compare


def units() -> list[tuple[str, Callable[[Recorder], None]]]:
    """The probe set's units of work in recording order: one per table entry, then the
    hand-written ``extra``, ``threaded`` and ``cli`` probes. Each record notes the unit that
    first produced it (``"unit"``), so that a part of the set can be compared alone (``--shard``)."""
    def cli(R: Recorder) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            probe_cli(R, Path(tmp))

    out: list[tuple[str, Callable[[Recorder], None]]] = [
        (name, lambda R, name=name, entry=entry: probe_entry(R, name, entry)) for name, entry in table().items()]
    return out + [("extra", probe_extra), ("threaded", probe_threaded), ("cli", cli)]


def shard_units(shard: str | None) -> set[str] | None:
    """The units of part ``"k/n"`` (k = 1..n): every n-th unit from the k-th (None: all)."""
    if shard is None:
        return None
    k, n = (int(x) for x in shard.split("/"))
    if not 1 <= k <= n:
        raise SystemExit(f"--shard {shard}: k must be in 1..n")
    return {name for name, _ in units()[k - 1::n]}


def record(threads: int = 1, timing: bool = False, only: str | None = None,
           shard: str | None = None) -> dict[str, Any]:
    import pabi

    THREADS[0] = threads
    pabi.set_num_threads(threads)
    _api_table.forget_built()  # the base PLDs are built again under this thread count
    R = Recorder(timing)
    t0 = time.perf_counter()
    part = shard_units(shard)
    with np.errstate(all="ignore"):
        for name, run in units():
            hand = name in ("extra", "threaded", "cli")
            if only is not None and not (name in only.split(",") if hand
                                         else any(name.startswith(o) for o in only.split(","))):
                continue
            if part is not None and name not in part:
                continue
            R.unit = name
            run(R)
    elapsed = time.perf_counter() - t0
    if timing:
        per_fn: dict[str, float] = {}
        for k, v in R.times.items():
            fn = k.split("(")[0].split("[")[0]
            per_fn[fn] = per_fn.get(fn, 0.0) + v
        print(f"{len(R.records)} probes in {elapsed:.1f} s", file=sys.stderr)
        for fn, v in sorted(per_fn.items(), key=lambda kv: -kv[1])[:25]:
            print(f"  {v:7.2f} s  {fn}", file=sys.stderr)
        for k, v in sorted(R.times.items(), key=lambda kv: -kv[1])[:25]:
            print(f"  {v * 1e3:8.1f} ms  {k[:160]}", file=sys.stderr)
    return {"format": FORMAT, "meta": {"threads": threads, "simd_level": pabi.simd_level(),
                                       "pabi_version": pabi.__version__, "numpy": np.__version__,
                                       "skipped": sorted(f"{f}:{lo:g}<|{p}|<{hi:g}" for (f, p), (lo, hi) in SKIP.items())},
            "probes": R.records}


def write(snap: dict[str, Any], path: str) -> None:
    data = json.dumps(snap, sort_keys=True, separators=(",", ":")).encode()
    with open(path, "wb") as fh:
        with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=9) as gz:
            gz.write(data)


def read(path: str) -> dict[str, Any]:
    with open(path, "rb") as fh:
        raw = fh.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


class Diff:
    def __init__(self) -> None:
        self.values = 0
        self.same = 0
        self.changed = 0
        self.up = 0
        self.down = 0
        self.max_rel = 0.0
        self.max_rel_key = ""
        self.other: list[str] = []  # non-float leaf changes / structure changes (descriptions)
        self.float_keys: dict[str, list[Any]] = {}  # probe -> [moved, up, down, max relative change]
        self.named = 0  # plain tuples recorded before the result became a NamedTuple (values compared)

    def count(self, node: Any) -> int:
        """Number of values in an encoded node."""
        if isinstance(node, dict):
            if "error" in node:
                return 1
            return sum(self.count(v) for v in node.values())
        if not isinstance(node, list) or not node:
            return 1
        tag = node[0]
        if tag in ("nd", "ndh"):
            return int(np.prod(node[2])) if node[2] else 1
        if tag in ("t", "l"):
            return sum(self.count(v) for v in node[1])
        if tag in ("nt", "dc", "d"):
            return sum(self.count(v) for _, v in node[2])
        if tag in ("PLD", "ComposedPLD", "dpa.PLD"):
            return sum(self.count(v) for _, v in node[1])
        if tag == "dpa":
            return sum(self.count(v) for _, v in node[2])
        if tag in ("PNSGDAccountant",):
            return self.count(node[1])
        if tag == "DataFrame":
            return sum(self.count(v) for v in node[2])
        return 1

    def floats(self, a: np.ndarray, b: np.ndarray, key: str) -> None:
        """Compare two float arrays elementwise by bits."""
        ut = np.dtype(f"u{a.dtype.itemsize}")
        same = a.view(ut) == b.view(ut)
        n = a.size
        ns = int(same.sum())
        self.values += n
        self.same += ns
        if ns == n:
            return
        self.changed += n - ns
        x, y = a[~same].astype(np.float64), b[~same].astype(np.float64)
        with np.errstate(all="ignore"):
            up, down = int((y > x).sum()), int((y < x).sum())
            rel = np.where(x != 0, np.abs(y - x) / np.abs(x), np.where(y == x, 0.0, np.inf))
            rel = np.where(np.isnan(rel), np.inf, rel)
        m = float(rel.max())
        self.up += up
        self.down += down
        st = self.float_keys.setdefault(key, [0, 0, 0, 0.0])
        st[0] += n - ns
        st[1] += up
        st[2] += down
        st[3] = max(st[3], m)
        if m > self.max_rel or not self.max_rel_key:
            self.max_rel, self.max_rel_key = m, key

    def walk(self, a: Any, b: Any, key: str) -> bool:
        """Compare encoded nodes; True when identical."""
        if a == b:
            self.values += self.count(a)
            self.same += self.count(a)
            return True
        named = _named_result(a, b)
        if named is not None:
            return all([self.walk(x, y, key) for x, y in named])
        if isinstance(a, list) and isinstance(b, list) and a and b and {a[0], b[0]} == {"t", "nt"}:
            # a tuple result that became a named tuple (issue 15) or back: compare the elements,
            # report the change of type once
            xs, ys = [a[1] if n[0] == "t" else [v for _, v in n[2]] for n in (a, b)]
            if len(xs) == len(ys):
                named = a if a[0] == "nt" else b
                self.other.append(f"{key}: tuple {'->' if b is named else '<-'} named tuple {named[1]} "
                                  f"({', '.join(f for f, _ in named[2])})")
                for x, y in zip(xs, ys):
                    self.walk(x, y, key)
                return False
        if (isinstance(a, list) and isinstance(b, list) and a[:1] == ["t"] and b[:1] == ["nt"]
                and len(a[1]) == len(b[2])):
            # a result renamed into a NamedTuple (issue 15): the same values, field by field
            self.named += 1
            return all([self.walk(x, y, key) for x, (_, y) in zip(a[1], b[2])])
        if isinstance(a, list) and isinstance(b, list) and a and b and a[0] == b[0]:
            tag = a[0]
            if tag == "f" or (tag == "np" and isinstance(a[2], str)):
                fa, fb = float.fromhex(a[-1]), float.fromhex(b[-1])
                self.floats(np.array([fa]), np.array([fb]), key)
                return False
            if tag == "nd" and a[1] == b[1] and a[2] == b[2] and isinstance(a[3], str) and np.dtype(a[1]).kind == "f":
                dt = np.dtype(a[1]).newbyteorder("<")
                self.floats(np.frombuffer(bytes.fromhex(a[3]), dt), np.frombuffer(bytes.fromhex(b[3]), dt), key)
                return False
            if tag == "ndh" and a[1] == b[1] and a[2] == b[2] and np.dtype(a[1]).kind == "f":
                # a large array: its digest differs; the samples show how far values moved
                dt = np.dtype(a[1]).newbyteorder("<")
                sub = Diff()
                sub.floats(np.frombuffer(bytes.fromhex(a[4]), dt), np.frombuffer(bytes.fromhex(b[4]), dt), key)
                n = self.count(a)
                self.values += n
                self.changed += n
                self.up += sub.up
                self.down += sub.down
                if sub.max_rel > self.max_rel or not self.max_rel_key:
                    self.max_rel, self.max_rel_key = sub.max_rel, key
                self.other.append(f"{key}: large array {a[2]} differs ({sub.changed} of {sub.values} samples moved, "
                                  f"max rel {sub.max_rel:.3e}; all {n} elements counted changed)")
                return False
            if tag in ("t", "l") and len(a[1]) == len(b[1]):
                return all([self.walk(x, y, key) for x, y in zip(a[1], b[1])])
            if tag in ("nt", "dc", "d", "dpa") and a[1] == b[1] and [k for k, _ in a[2]] == [k for k, _ in b[2]]:
                return all([self.walk(x, y, key) for (_, x), (_, y) in zip(a[2], b[2])])
            if tag in ("PLD", "ComposedPLD", "dpa.PLD") and [k for k, _ in a[1]] == [k for k, _ in b[1]]:
                # a[1][1] = ["pmf", ["nd" | "ndh", dtype, shape, ...]]
                if tag == "PLD" and a[1][1] != b[1][1] and a[1][1][1][2] != b[1][1][1][2]:
                    self.other.append(f"{key}: PLD pmf shape {a[1][1][1][2]} -> {b[1][1][1][2]}")
                return all([self.walk(x, y, key) for (_, x), (_, y) in zip(a[1], b[1])])
            if tag == "PNSGDAccountant":
                return self.walk(a[1], b[1], key)
            if tag == "DataFrame" and a[1] == b[1]:
                return all([self.walk(x, y, key) for x, y in zip(a[2], b[2])])
        n = self.count(a)
        self.values += n
        self.changed += n
        self.other.append(f"{key}: {_short(a)} -> {_short(b)}")
        return False


#: results that became named tuples in the rename of issue 15: type -> {recorded dict key ->
#: field} (None: a tuple, or a dict with the fields' names). A recorded tuple or dict is compared
#: with the named tuple field by field; anything else about it is a change.
NAMED_RESULTS: dict[str, dict[str, str] | None] = {
    "Bracket": None,
    "MultiEpochEpsilon": None,
    "ErrorBudget": {"h": "grid_step", "window_points": "window_points", "inf": "inf_mass", "bad": "truncated_mass",
                    "tail_hi": "tail_above", "tail_lo": "tail_below", "fft_err": "fft_error",
                    "steps": "compositions"},
}


def _named_result(a: Any, b: Any) -> list[tuple[Any, Any]] | None:
    """The (recorded, new) pairs of a recorded tuple/dict ``a`` that is now the named tuple ``b``
    (:data:`NAMED_RESULTS`), or None."""
    if not (isinstance(a, list) and isinstance(b, list) and a and b and b[0] == "nt" and b[1] in NAMED_RESULTS):
        return None
    fields = [f for f, _ in b[2]]
    if a[0] == "t" and len(a[1]) == len(fields):
        return list(zip(a[1], [v for _, v in b[2]]))
    if a[0] == "d" and a[1] == "dict" and len(a[2]) == len(fields):
        keys = NAMED_RESULTS[b[1]] or {f: f for f in fields}
        if [keys.get(k) for k, _ in a[2]] == fields:
            return list(zip([v for _, v in a[2]], [v for _, v in b[2]]))
    return None


def _short(node: Any) -> str:
    s = json.dumps(node)
    return s if len(s) <= 160 else s[:157] + "..."


def _compared(rec: dict[str, Any]) -> dict[str, Any]:
    """A record without its bookkeeping (the unit that produced it)."""
    return {k: v for k, v in rec.items() if k != "unit"}


def compare(base: dict[str, Any], new: dict[str, Any], allow: set[str], globs: list[str],
            out: Any = sys.stdout, part: set[str] | None = None) -> int:
    B, N = base["probes"], new["probes"]
    if part is not None:
        # a part of the set (``--shard``): the base's probes that its units own, and the probes
        # its units also produced that another unit owns in a whole recording
        if any("unit" not in v for v in B.values()):
            raise SystemExit("--shard needs a baseline recorded with units (record it again)")
        B = {k: v for k, v in B.items() if v["unit"] in part or k in N}
    missing = sorted(set(B) - set(N))
    added = sorted(set(N) - set(B))
    D = Diff()
    changed_keys: list[str] = []
    errors: list[str] = []
    kind_changes: list[str] = []
    for k in sorted(set(B) & set(N)):
        a, b = B[k], N[k]
        if "error" in a or "error" in b:
            D.values += 1
            if _compared(a) == _compared(b):
                D.same += 1
                continue
            D.changed += 1
            changed_keys.append(k)
            if "error" in a and "error" in b:
                errors.append(f"{k}:\n      {a['error']}: {a['message']}\n   -> {b['error']}: {b['message']}")
            else:
                kind_changes.append(f"{k}: {_short(a)} -> {_short(b)}")
            continue
        ok = D.walk(a["value"], b["value"], k)
        if a.get("warnings") != b.get("warnings"):
            ok = False
            D.other.append(f"{k}: warnings {a.get('warnings')} -> {b.get('warnings')}")
        if not ok:
            changed_keys.append(k)
    p = lambda *s: print(*s, file=out)  # noqa: E731
    mb, mn = base.get("meta", {}), new.get("meta", {})
    show = ("threads", "simd_level", "pabi_version", "numpy")
    p(f"base: {len(B)} probes ({', '.join(f'{k}={mb.get(k)}' for k in show)}); "
      f"new: {len(N)} probes ({', '.join(f'{k}={mn.get(k)}' for k in show)})")
    if mb.get("simd_level") != mn.get("simd_level"):
        p(f"NOTE: SIMD level differs ({mb.get('simd_level')} vs {mn.get('simd_level')})")
    p(f"probes compared: {len(set(B) & set(N))}; values: {D.values}; identical: {D.same}; changed: {D.changed}")
    p(f"probes changed: {len(changed_keys)}; missing in new: {len(missing)}; new probes: {len(added)}")
    if D.named:
        p(f"tuple results now NamedTuples (values compared field by field): {D.named}")
    if D.up or D.down:
        p(f"changed floats: {D.up} moved up, {D.down} moved down; max relative change {D.max_rel:.3e} "
          f"(at {D.max_rel_key})")
    for title, items in (("error changes", errors), ("value <-> error", kind_changes), ("other changes", D.other),
                         ("missing probes", missing), ("new probes", added)):
        if items:
            p(f"--- {title} ({len(items)}):")
            for s in items[:40]:
                p("  " + s)
            if len(items) > 40:
                p(f"  ... {len(items) - 40} more")
    fl = D.float_keys
    if fl:
        p(f"--- probes with changed floats ({len(fl)}):")
        for k, (n, up, down, m) in list(fl.items())[:40]:
            p(f"  {k}\n      {n} moved ({up} up, {down} down, other: NaN/sign), max rel change {m:.3e}")
    if len(fl) > 40:
        p(f"  ... {len(fl) - 40} more")
    bad = [k for k in changed_keys + missing + added
           if k not in allow and not any(fnmatch.fnmatchcase(k, g) for g in globs)]
    if bad:
        p(f"RESULT: DIFFERENT ({len(bad)} probe(s) outside --allow)")
        return 1
    p("RESULT: IDENTICAL" if not (changed_keys or missing or added) else "RESULT: differences all allowed")
    return 0


def _read_allow(path: str | None) -> tuple[set[str], list[str]]:
    keys: set[str] = set()
    globs: list[str] = []
    if path:
        for line in Path(path).read_text().splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("glob:"):
                globs.append(line[5:])
            else:
                keys.add(line)
    return keys, globs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="record a snapshot")
    r.add_argument("out")
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--timing", action="store_true", help="print the slowest probes on stderr")
    r.add_argument("--only", help="development: only the table entries with these name prefixes "
                   "(comma list; 'extra', 'cli' for the hand-written probes)")
    c = sub.add_parser("compare", help="compare BASE with NEW (default: a fresh recording)")
    c.add_argument("base")
    c.add_argument("new", nargs="?")
    c.add_argument("--allow", help="file of probe keys allowed to differ")
    c.add_argument("--threads", type=int, default=1)
    c.add_argument("--shard", help="k/n: record and compare only part k of n of the probe set (its units "
                   "of work: every n-th table entry or hand-written group)")
    a = ap.parse_args(argv)
    if a.cmd == "record":
        t0 = time.perf_counter()
        snap = record(a.threads, a.timing, a.only)
        write(snap, a.out)
        print(f"recorded {len(snap['probes'])} probes in {time.perf_counter() - t0:.1f} s -> {a.out} "
              f"({os.path.getsize(a.out)} bytes)")
        return 0
    base = read(a.base)
    new = read(a.new) if a.new else json.loads(json.dumps(record(a.threads, shard=a.shard)))
    allow, globs = _read_allow(a.allow)
    return compare(base, new, allow, globs, part=shard_units(a.shard))


if __name__ == "__main__":
    sys.exit(main())
