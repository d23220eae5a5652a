"""One vocabulary (issue 15): every public parameter name has one meaning, in the glossary.

``pabi._glossary.TERMS`` is the glossary; ``tools/vocabulary_plan.py`` the record of the renames
(pending or done). The walk covers every public callable of pabi, its family modules and the
adapters (methods and constructors included).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pabi
from _opacus_support import load_opacus_accountants
from pabi._glossary import TERMS

load_opacus_accountants()  # so that the walk includes pabi.adapters.opacus

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


glossary_doc = _load("glossary_doc")
plan = _load("vocabulary_plan")
PARAMS = glossary_doc.public_parameters()


def test_the_walk_sees_the_whole_api() -> None:
    names = {q for q, _ in PARAMS}
    # spot checks across the families, methods and constructors
    for q in ("theta", "pnsgd_delta", "dpsgd_epsilon", "sampled_gaussian_rdp", "sweep",
              "PrivacyLossDistribution.subsampled_gaussian", "ComposedPLD.epsilon",
              "PNSGDAccountant.__init__", "to_dp_accounting_pld", "PabiAccountant.step",
              "PabiAccountant.__init__"):
        assert q in names, q
    assert len(PARAMS) > 500


def test_every_parameter_is_in_the_glossary_or_planned() -> None:
    unknown = []
    for q, p in PARAMS:
        planned = plan.PARAMS.get(q, {}).get(p)
        if planned is not None:
            if planned not in TERMS:
                unknown.append(f"{q}({p}): planned name {planned!r} is not in the glossary")
        elif p not in TERMS:
            unknown.append(f"{q}({p}): not in pabi._glossary.TERMS")
    assert not unknown, "\n".join(unknown)


def _new_function(old: str) -> str:
    target = plan.FUNCTIONS.get(old, old)
    return target[: -len("(log=True)")] if target.endswith("(log=True)") else target


def test_every_plan_entry_is_pending_or_done() -> None:
    """The plan is the permanent record of the renames (the probe tool translates its frozen
    probe set through it): each entry is either still to do (the old name exists) or done (the
    new name exists), never neither."""
    present = set(PARAMS)
    broken = []
    for old_fn, ren in plan.PARAMS.items():
        head, _, meth = old_fn.rpartition(".")
        if head == "PNSGDAccountant":  # its methods left Opacus's names (plan.ACCOUNTANT_METHODS)
            meth = plan.ACCOUNTANT_METHODS.get(meth) or meth
        new_fn = f"{head}.{_new_function(meth)}" if head else _new_function(old_fn)
        for old, new in ren.items():
            if (old_fn, old) not in present and (new_fn, new) not in present:
                broken.append(f"{old_fn}({old}) -> {new_fn}({new})")
    assert not broken, f"neither the old nor the new name exists: {broken}"
    for old in plan.FUNCTIONS:
        assert hasattr(pabi, old) or hasattr(pabi, _new_function(old)), old
    for (fn, param) in list(plan.VALUES) + list(plan.DEFAULTS):
        new = (_new_function(fn), plan.PARAMS.get(fn, {}).get(param, param))
        assert (fn, param) in present or new in present, (fn, param)


def test_pending_renames_count() -> None:
    """How much of the rename is left (printed; the count can only be what the plan says)."""
    pending = [(q, p) for q, p in PARAMS if p in plan.PARAMS.get(q, {})]
    functions = [f for f in plan.FUNCTIONS if hasattr(pabi, f)]
    print(f"pending: {len(pending)} parameters, {len(functions)} functions")
    assert {(q, p) for q, p in PARAMS if p not in TERMS} <= set(pending)


def test_no_name_keeps_a_second_meaning() -> None:
    # a glossary name used today with another meaning must be planned away
    for q, ren in plan.PARAMS.items():
        for old, new in ren.items():
            assert old != new, (q, old)
    # each glossary term is used by the API now or after the plan (no dead entries)
    after = {plan.PARAMS.get(q, {}).get(p, p) for q, p in PARAMS}
    dead = sorted(set(TERMS) - after)
    assert not dead, f"glossary terms nothing uses: {dead}"


def test_glossary_entries_are_complete() -> None:
    for name, term in TERMS.items():
        assert name.isidentifier() and name == name.strip(), name
        assert term.meaning.endswith((".", ")")) and len(term.meaning) > 20, name
        assert term.domain and term.group, name


def test_glossary_page_is_current() -> None:
    page = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert page == glossary_doc.render() + "\n", "run `python tools/glossary_doc.py --write`"
