"""Output helpers of the ``pabi`` command: aligned text tables and JSON."""

from __future__ import annotations

import json
import math
from typing import Any, Iterable, Mapping, Sequence


def fmt(value: Any, digits: int = 10) -> str:
    """A number for a table: ``digits`` significant digits, ``inf``/``-`` for the special cases."""
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
        return f"{value:.{digits}g}"
    return str(value)


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]], digits: int = 10) -> str:
    """Render ``rows`` as an aligned table; ``columns`` = [(key, header), ...]. Numbers are
    right-aligned, text left-aligned."""
    cells = [[fmt(r.get(k), digits) for k, _ in columns] for r in rows]
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
