"""Output helpers of the ``pabi`` command: aligned text tables and JSON.

One number format for every sub-command: text output shows :data:`DIGITS` significant digits
(JSON output is exact: every float's shortest round-trip repr). A result that underflowed — a
certified upper bound such as δ whose exact value is below the smallest normal double, returned
rounded up to a subnormal like 2e-323 — is shown as what it is: the number followed by
``(floor)``; the sub-commands that print such results print their natural log beside them
(``ln delta``, ``log theta``), which carries the actual size.
"""

from __future__ import annotations

import json
import math
from typing import Any, Iterable, Mapping, Sequence


#: Significant digits of every number in the text output of the ``pabi`` command.
DIGITS = 10
#: Results below this (the smallest normal double) are floors of an underflowed value.
FLOOR = 2.2250738585072014e-308


def fmt(value: Any, *, result: bool = False) -> str:
    """A number for text output: :data:`DIGITS` significant digits, ``inf``/``-`` for the
    special cases; with ``result``, a positive value below :data:`FLOOR` is marked
    ``(floor)`` (an upper bound that underflowed)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if result and 0.0 < value < FLOOR:
            return f"{value:.2g} (floor)"
        return f"{value:.{DIGITS}g}"
    return str(value)


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]],
          results: Iterable[str] = ()) -> str:
    """Render ``rows`` as an aligned table; ``columns`` = [(key, header), ...]. Numbers are
    right-aligned (:func:`fmt`), text left-aligned; the columns named in ``results`` hold
    certified results (an underflowed one is marked as a floor)."""
    res = frozenset(results)
    cells = [[fmt(r.get(k), result=k in res) for k, _ in columns] for r in rows]
    numeric = [all(isinstance(r.get(k), (int, float)) or r.get(k) is None for r in rows) for k, _ in columns]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (_, h) in enumerate(columns)]

    def line(values: Iterable[str]) -> str:
        out = []
        for v, w, num in zip(values, widths, numeric):
            out.append(v.rjust(w) if num else v.ljust(w))
        return "  ".join(out).rstrip()

    head = line(h for _, h in columns)
    return "\n".join([head, "-" * len(head)] + [line(c) for c in cells])


def _clean(obj: Any) -> Any:
    """JSON-safe copy: non-finite floats become null, numpy scalars become Python numbers."""
    if isinstance(obj, Mapping):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        try:
            obj = obj.item()
        except (TypeError, ValueError):
            obj = obj.tolist()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def dumps(obj: Any) -> str:
    """Strict JSON (non-finite numbers as null) with full float precision (repr round trip)."""
    return json.dumps(_clean(obj), indent=2, allow_nan=False)
