"""The public vocabulary: walk every public signature, and render docs/glossary.md.

``python tools/glossary_doc.py --write`` regenerates docs/glossary.md from
``pabi._glossary.TERMS``; ``python tools/glossary_doc.py --check`` lists every public parameter
whose name is not in the glossary (what remains of the rename plan, tools/vocabulary_plan.py).
tests/test_glossary.py uses :func:`public_parameters` and :func:`render`.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "glossary.md"

# The modules whose public names form the API (pabi's top level re-exports most of them).
MODULES = ("pabi", "pabi.pnsgd", "pabi.schedules", "pabi.rdp", "pabi.composition", "pabi.sweep",
           "pabi.adapters", "pabi.adapters.accountant", "pabi.adapters.dp_accounting",
           "pabi.adapters.opacus")
# Modules that need an optional dependency: skipped by the tool where it is missing (the test
# loads Opacus's accountant code first, so it always walks them).
OPTIONAL = ("pabi.adapters.opacus",)


def _public_callables() -> Iterator[tuple[str, object]]:
    seen: set[int] = set()
    for mod_name in MODULES:
        try:
            mod = importlib.import_module(mod_name)
        except ImportError:
            if mod_name in OPTIONAL:
                continue
            raise
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or id(obj) in seen:
                continue
            own = getattr(obj, "__module__", "") or ""
            if not own.startswith("pabi"):
                continue  # re-exported third-party names (numpy, typing)
            seen.add(id(obj))
            if inspect.isclass(obj):
                if issubclass(obj, BaseException):
                    continue
                for meth_name, meth in inspect.getmembers(obj):
                    if (meth_name.startswith("_") and meth_name != "__init__") or not callable(meth):
                        continue
                    if getattr(meth, "__objclass__", None) is tuple:
                        continue  # a NamedTuple result's count/index (tuple's, not pabi's)
                    if meth_name == "__init__" and (meth is object.__init__ or _wraps_core(meth)):
                        continue  # built by classmethods from a core object (not a user call)
                    yield f"{obj.__name__}.{meth_name}", meth
            elif callable(obj):
                yield name, obj


def _wraps_core(init: object) -> bool:
    try:
        names = [p for p in inspect.signature(init).parameters if p != "self"]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return True
    return names == ["core"]


def public_parameters() -> list[tuple[str, str]]:
    """Every (public callable, parameter name) of the API, self/cls and *args/**kwargs excluded."""
    out: list[tuple[str, str]] = []
    for qual, fn in _public_callables():
        try:
            sig = inspect.signature(fn)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        for p in sig.parameters.values():
            if p.name in ("self", "cls") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            out.append((qual, p.name))
    return sorted(set(out))


def render() -> str:
    sys.path.insert(0, str(ROOT / "python"))
    from pabi._glossary import TERMS

    groups: dict[str, list[str]] = {}
    for name, term in TERMS.items():
        groups.setdefault(term.group, []).append(name)
    lines = [
        "# Glossary: one name, one meaning",
        "",
        "Every parameter of pabi's public API has exactly one meaning, listed here, and each",
        "quantity has one name. Where the privacy ecosystem has a word (Opacus, dp-accounting),",
        "pabi uses it. Generated from `pabi._glossary` by `python tools/glossary_doc.py --write`;",
        "`tests/test_glossary.py` fails when a public signature uses a name that is not here.",
        "",
        "Two names that are easy to confuse:",
        "",
        "* **`noise_multiplier`** is DP-SGD's z = (noise standard deviation) / (clipping norm),",
        "  a pure number;",
        "* **`noise_scale`** is the noise itself, in the units of what it is added to (the",
        "  standard deviation of Gaussian noise, the scale b of Laplace noise).",
        "",
    ]
    for group, names in groups.items():
        lines += [f"## {group}", "", "| name | meaning | domain |", "|---|---|---|"]
        for name in names:
            t = TERMS[name]
            lines.append(f"| `{name}` | {t.meaning} | {t.domain} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="regenerate docs/glossary.md")
    ap.add_argument("--check", action="store_true", help="list parameters not in the glossary")
    args = ap.parse_args()
    if args.write:
        DOC.write_text(render() + "\n", encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}")
    if args.check:
        sys.path.insert(0, str(ROOT / "python"))
        from pabi._glossary import TERMS

        bad = [(q, p) for q, p in public_parameters() if p not in TERMS]
        for q, p in bad:
            print(f"{q}: {p}")
        print(f"{len(bad)} parameters outside the glossary")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
