"""The shape of the source tree (issue "One concept, one place").

- docs/architecture.md's module map is the one `tools/module_map.py` generates from the files;
- every source file opens with a line that says what it holds;
- no source file under rust/ or python/pabi/ exceeds the size limit (tests included);
- no second definition of the directed-rounding and log-space primitives outside `num/`.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("module_map", ROOT / "tools" / "module_map.py")
assert _spec is not None and _spec.loader is not None
module_map = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(module_map)

ALL = [(tree, p) for tree, _, ext in module_map.TREES for p in module_map.sources(tree, ext)]


def test_module_map_is_current() -> None:
    assert module_map.current_block() == module_map.render(), (
        "docs/architecture.md is out of date: run `python tools/module_map.py --write`"
    )


@pytest.mark.parametrize("path", [p for _, p in ALL], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_file_says_what_it_holds(path: Path) -> None:
    assert module_map.summary(path), f"{path.relative_to(ROOT)} has no opening doc line"


def test_no_file_over_the_size_limit() -> None:
    big = []
    for _, p in ALL:
        n = len(p.read_text(encoding="utf-8").splitlines())
        if n > module_map.MAX_LINES:
            big.append(f"{p.relative_to(ROOT)}: {n} lines")
    assert not big, "files over the limit:\n" + "\n".join(big)


#: Primitives with one home in rust/pabi-core/src/num/: a definition elsewhere is a copy.
ONE_HOME = ("up", "down", "next_up", "next_down", "log_add_exp", "log1mexp", "stirlerr", "bd0")


def test_rounding_and_logspace_primitives_defined_once() -> None:
    core = ROOT / "rust" / "pabi-core" / "src"
    pat = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?fn\s+(" + "|".join(ONE_HOME) + r")\s*[<(]", re.M)
    copies = []
    for p in sorted(core.rglob("*.rs")):
        if p.is_relative_to(core / "num"):
            continue
        for m in pat.finditer(p.read_text(encoding="utf-8")):
            copies.append(f"{p.relative_to(ROOT)}: fn {m.group(1)}")
    assert not copies, "defined outside num/ (use crate::num):\n" + "\n".join(copies)
