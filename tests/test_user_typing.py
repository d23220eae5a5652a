"""Exact typing of the public API from a user's point of view (issue 15): ``mypy --strict`` on
the user scripts tests/typing/user_script*.py (one per family), every ``reveal_type`` compared with
the type written after ``# ->`` (``float`` for scalar calls, a float64 ``ndarray`` for array calls).

A line ending in ``pending`` belongs to a family whose wrappers still return ``float | ndarray``
for every call; the test fails if a pending line starts matching (drop the marker) or if any
other line does not match.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "tests" / "typing").glob("user_script*.py"))

EXPECTED = {
    "float": "float",
    "ndarray": "numpy.ndarray[tuple[Any, ...], numpy.dtype[numpy.float64]]",
}


def _expectations() -> dict[tuple[str, int], tuple[str, str, bool]]:
    out = {}
    for script in SCRIPTS:
        for i, line in enumerate(script.read_text(encoding="utf-8").splitlines(), start=1):
            m = re.match(r"reveal_type\((.*)\)  # -> (\w+)( pending)?$", line)
            if m:
                out[(script.name, i)] = (m.group(1), m.group(2), bool(m.group(3)))
    return out


def test_revealed_types_are_exact() -> None:
    assert len(SCRIPTS) >= 4
    res = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                          "--show-traceback", *map(str, SCRIPTS)], cwd=ROOT, capture_output=True,
                         text=True, timeout=600,
                         env={"MYPYPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"})
    revealed = {(m.group(1), int(m.group(2))): m.group(3).replace("builtins.", "") for m in
                re.finditer(r"(user_script\w*\.py):(\d+): note: Revealed type is \"(.*)\"", res.stdout)}
    # the user's scripts must type-check; the package's own strictness is tests/test_typing.py's
    errors = [line for line in res.stdout.splitlines() if ": error:" in line and "user_script" in line]
    assert not errors, "\n".join(errors)
    expect = _expectations()
    assert len(expect) >= 20 and set(revealed) == set(expect), res.stdout[-3000:]
    wrong, fixed = [], []
    for where, (call, want, pending) in expect.items():
        ok = revealed[where] == EXPECTED[want]
        if pending and ok:
            fixed.append(call)
        elif not pending and not ok:
            wrong.append(f"{where}: {call} revealed {revealed[where]}, want {EXPECTED[want]}")
    assert not wrong, "\n".join(wrong)
    assert not fixed, f"typed now: drop the pending marker: {fixed}"
