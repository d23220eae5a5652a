"""The scripts beside the package (``benches/``, ``examples/``, ``tools/``) call pabi by names that
exist, with keywords that its functions accept.

They are not run by the test suite (the benches take minutes), so a renamed parameter broke
them silently: ``benches/bench_sweep.py`` still passed ``r=`` to ``pabi.sweep(pabi.theta, ...)``
after θ's shift was renamed ``shift``, and its cases failed with a ``TypeError``. This test reads
every script with ``ast`` and checks each call of a ``pabi`` attribute without running it:

* the attribute exists (``pabi.x.y`` resolves);
* the call's positional count and keyword names bind to the callee's signature
  (``inspect.Signature.bind_partial``; calls with ``*args`` or ``**kwargs`` are checked for the
  rest only);
* for ``pabi.sweep(pabi.f, grid=..., ...)``, the grid names bind to ``pabi.f``'s signature.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import pabi

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for d in ("benches", "examples", "tools") for p in (ROOT / d).glob("*.py"))


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted pabi path, from the module's imports."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "pabi" or a.name.startswith("pabi."):
                    names[a.asname or a.name.split(".")[0]] = a.name if a.asname else "pabi"
        elif isinstance(node, ast.ImportFrom) and node.module and (
                node.module == "pabi" or node.module.startswith("pabi.")):
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """The dotted pabi path of ``node`` (``pabi.a.b`` or an imported alias), else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _resolve(path: str) -> object:
    parts = path.split(".")
    obj: object = pabi
    for i, part in enumerate(parts[1:], 2):
        if not hasattr(obj, part) and inspect.ismodule(obj):
            try:  # a submodule not imported yet (pabi.reference, pabi.cli)
                importlib.import_module(".".join(parts[:i]))
            except ModuleNotFoundError:
                pass
        obj = getattr(obj, part)  # AttributeError: a name that no longer exists
    return obj


def _bind(fn: object, n_pos: int, keywords: list[str], where: str) -> str | None:
    try:
        sig = inspect.signature(fn)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None  # a builtin without a signature: nothing to check
    try:
        sig.bind_partial(*([None] * n_pos), **{k: None for k in keywords})
    except TypeError as e:
        return f"{where}: {e}"
    return None


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    aliases = _aliases(tree)
    out: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func, aliases)
        if name is None:
            continue
        where = f"{path.relative_to(ROOT)}:{node.lineno} {name}"
        try:
            fn = _resolve(name)
        except AttributeError:
            out.append(f"{where}: no such attribute")
            continue
        if not callable(fn) or isinstance(fn, type) and issubclass(fn, BaseException):
            continue
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        n_pos = 0 if starred else len(node.args)
        keywords = [k.arg for k in node.keywords if k.arg is not None]
        problem = _bind(fn, n_pos, keywords, where)
        if problem:
            out.append(problem)
        if fn is pabi.sweep and node.args:
            target = _dotted(node.args[0], aliases)
            if target is not None:
                own = set(inspect.signature(pabi.sweep).parameters)
                grids = [k for k in keywords if k not in own]
                problem = _bind(_resolve(target), 0, grids, f"{where} grids of {target}")
                if problem:
                    out.append(problem)
    return out


def test_scripts_exist():
    assert len(SCRIPTS) >= 20, [p.name for p in SCRIPTS]  # the globs find the scripts


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_script_calls_bind(path):
    assert _problems(path) == []


def test_the_check_finds_a_stale_keyword(tmp_path):
    """The check itself: the bench_sweep regression, a renamed function and a wrong keyword."""
    bad = tmp_path / "stale.py"
    bad.write_text("import pabi\nfrom pabi import gdp_epsilon as ge\n"
                   "pabi.sweep(pabi.theta, eps=[1.0], r=[1.0])\n"
                   "pabi.theta(1.0, r=2.0)\n"
                   "pabi.no_such_function(1.0)\n"
                   "ge(1e-5, mu=1.0, sigma=2.0)\n"
                   "pabi.theta(1.0, shift=2.0)\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = _problems(bad)
    finally:
        ROOT = saved
    assert [p.split(":")[1].split()[0] for p in found] == ["3", "4", "5", "6"], found
