"""Codemod for the vocabulary rename (issue 15): rewrite call sites after tools/vocabulary_plan.py.

For every Python file (and every ``>>>`` doctest line in .py docstrings and .md pages) given,
each call of a planned public function -- ``name(...)``, ``pabi.name(...)``,
``ref.name(...)``/``reference.name(...)`` (pabi.reference mirrors the public names), or a
method ``PrivacyLossDistribution.name(...)`` -- is rewritten:

* keyword arguments renamed after ``PARAMS[function]``;
* with ``--keywordize``: positional arguments after the first turned into keywords (named after
  the function's CURRENT signature, then renamed), so that call sites do not depend on the new
  argument order; only for calls of the public API (not ``ref.``, which has its own signature);
* the function renamed after ``FUNCTIONS``; a target written ``"f(log=True)"`` becomes a call of
  ``f`` with ``log=True`` appended;
* calls through ``_core``/``core`` (the binding) are never touched.

References that are not calls (``f = pabi.log_theta``, names in lists or strings) cannot be
rewritten safely: they are listed for a hand edit. Usage::

    python tools/rename_api.py [--write] [--keywordize] [--only f1,f2] PATH...

Without ``--write`` it prints a summary (files, calls rewritten, references to fix by hand).
``--only`` restricts the rename to some functions (one family at a time).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import inspect
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("vocabulary_plan", ROOT / "tools" / "vocabulary_plan.py")
assert _spec is not None and _spec.loader is not None
plan = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plan)

BINDING = {"_core", "core"}
REFERENCE = {"ref", "reference", "R"}
METHOD_OWNERS = {"PrivacyLossDistribution", "P", "PLD", "ComposedPLD"}


@dataclass
class Report:
    calls: int = 0
    files: int = 0
    by_hand: list[str] = field(default_factory=list)


def _planned_name(qual: str, only: set[str] | None) -> bool:
    base = qual.split(".")[-1]
    return only is None or base in only or qual in only


def _old_signature(qual: str) -> list[str] | None:
    sys.path.insert(0, str(ROOT / "python"))
    import pabi

    obj: object = pabi
    for part in qual.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    try:
        return [p.name for p in inspect.signature(obj).parameters.values()  # type: ignore[arg-type]
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return None


def _callee(node: ast.Call) -> tuple[str, str, ast.AST] | None:
    """(qualified plan key, kind, the node holding the name) of a call, or None."""
    f = node.func
    if isinstance(f, ast.Name):
        return f.id, "public", f
    if isinstance(f, ast.Attribute):
        v = f.value
        if isinstance(v, ast.Name):
            if v.id in BINDING:
                return None
            if v.id in METHOD_OWNERS:
                return f"PrivacyLossDistribution.{f.attr}", "public", f
            if v.id in REFERENCE:
                return f.attr, "reference", f
            if v.id == "pabi":
                return f.attr, "public", f
        if isinstance(v, ast.Attribute) and v.attr == "reference":
            return f.attr, "reference", f
        if isinstance(v, ast.Attribute) and v.attr in METHOD_OWNERS:  # pabi.PrivacyLossDistribution.f
            return f"PrivacyLossDistribution.{f.attr}", "public", f
    return None


def _offsets(src: str) -> list[int]:
    starts = [0]
    for line in src.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def rewrite_source(src: str, only: set[str] | None, keywordize: bool, where: str,
                   report: Report, first: int = 1) -> str:
    """Rewrite the planned calls in one piece of Python source (a file or a doctest line)."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return src
    starts = _offsets(src)

    def pos(line: int, col: int) -> int:
        # ast columns are UTF-8 byte offsets; convert within the line
        text = src[starts[line - 1]:starts[line]] if line < len(starts) else ""
        return starts[line - 1] + len(text.encode("utf-8")[:col].decode("utf-8", "replace"))

    edits: list[tuple[int, int, str]] = []
    planned = set(plan.PARAMS) | set(plan.FUNCTIONS)
    call_funcs: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        hit = _callee(node)
        if hit is None:
            continue
        qual, kind, name_node = hit
        if qual not in planned or not _planned_name(qual, only):
            continue
        call_funcs.add(id(name_node))
        renames = plan.PARAMS.get(qual, {})
        for kw in node.keywords:
            if kw.arg in renames:
                a = pos(kw.lineno, kw.col_offset)
                edits.append((a, a + len(kw.arg), renames[kw.arg]))
        if keywordize and kind == "public" and len(node.args) > first:
            names = _old_signature(qual)
            if names is not None and not any(isinstance(x, ast.Starred) for x in node.args):
                for i, arg in enumerate(node.args[first:], start=first):
                    if i < len(names):
                        a = pos(arg.lineno, arg.col_offset)
                        edits.append((a, a, renames.get(names[i], names[i]) + "="))
        target = plan.FUNCTIONS.get(qual)
        if target is not None:
            new, log = (target[:-len("(log=True)")], True) if target.endswith("(log=True)") else (target, False)
            end = pos(name_node.end_lineno, name_node.end_col_offset)  # type: ignore[arg-type]
            old = qual.split(".")[-1]
            edits.append((end - len(old), end, new.split(".")[-1]))
            if log:
                close = pos(node.end_lineno, node.end_col_offset) - 1  # type: ignore[arg-type]
                inner = src[:close].rstrip()
                sep = "" if inner.endswith(("(", ",")) else ", "
                edits.append((close, close, f"{sep}log=True"))
        report.calls += 1
    # references that are not calls
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "pabi":
            name = node.attr
        elif isinstance(node, ast.Name):
            name = node.id
        if name in plan.FUNCTIONS and id(node) not in call_funcs and _planned_name(name, only):
            report.by_hand.append(f"{where}:{getattr(node, 'lineno', '?')}: {name} (not a call)")
    for a, b, text in sorted(edits, reverse=True):
        src = src[:a] + text + src[b:]
    return src


DOCTEST = re.compile(r"^(\s*)(>>> |\.\.\. )(.*)$")


def rewrite_doctests(text: str, only: set[str] | None, keywordize: bool, where: str,
                     report: Report, first: int = 1) -> str:
    """Rewrite the one-line ``>>>`` statements of docstrings and markdown pages."""
    out = []
    for i, line in enumerate(text.splitlines(keepends=True), start=1):
        m = DOCTEST.match(line.rstrip("\n"))
        if m and m.group(2) == ">>> ":
            body = m.group(3)
            new = rewrite_source(body, only, keywordize, f"{where}:{i}", report, first)
            if new != body:
                line = f"{m.group(1)}>>> {new}" + ("\n" if line.endswith("\n") else "")
        out.append(line)
    return "".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--keywordize", action="store_true")
    ap.add_argument("--only", default=None, help="comma-separated functions to rename")
    ap.add_argument("--all-keywords", action="store_true",
                    help="with --keywordize, the first positional argument too (a reordered signature)")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    report = Report()
    files = [p for path in args.paths for p in ([path] if path.is_file() else
             sorted(path.rglob("*.py")) + sorted(path.rglob("*.md")))]
    for path in files:
        if path.resolve() == (ROOT / "tools" / "vocabulary_plan.py").resolve():
            continue
        text = path.read_text(encoding="utf-8")
        first = 0 if args.all_keywords else 1
        if path.suffix == ".py":
            new = rewrite_source(text, only, args.keywordize, str(path), report, first)
            new = rewrite_doctests(new, only, args.keywordize, str(path), report, first)
        else:
            new = rewrite_doctests(text, only, args.keywordize, str(path), report, first)
        if new != text:
            report.files += 1
            if args.write:
                path.write_text(new, encoding="utf-8")
    print(f"{report.calls} calls rewritten in {report.files} files"
          + ("" if args.write else " (dry run: --write to apply)"))
    for line in report.by_hand:
        print("by hand:", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
