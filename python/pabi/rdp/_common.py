"""Private helpers shared by the RDP modules: option flags and argument checks.

Every numeric argument of the element-wise functions of :mod:`pabi.rdp` broadcasts like a numpy
ufunc: scalars in → float (or tuple of floats) out, arrays → arrays of the broadcast shape.
Integer parameters (T, ell, b, ...) accept integer-valued arrays. Domain errors name the
parameter, the allowed range and, for arrays, the (n-d) index of the first bad element.
Functions with a sample axis (sensitivities, weights) take it as the LAST axis; their other
arguments broadcast against the leading axes.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from .._bridge import ArrayLike, choice, as_real as _as_real, domain_error as _domain_error


_VARIANTS = ("corrected", "as_published")


def _map_flag(variant: str) -> bool:
    return choice("variant", variant, _VARIANTS) == "as_published"


def _opt_int(name: str, v: Optional[ArrayLike]) -> ArrayLike:
    """Optional integer argument: None → NaN (the core's "unknown"); NaN given by the caller is
    rejected here."""
    if v is None:
        return np.nan
    a = _as_real(name, v)
    bad = np.isnan(np.asarray(a, dtype=np.float64))
    if bad.any():
        k = int(np.argmax(bad))
        idx = None if bad.ndim == 0 else (k if bad.ndim == 1 else tuple(int(i) for i in np.unravel_index(k, bad.shape)))
        raise _domain_error(name, "a positive integer or None", float("nan"), idx)
    return a


def _check_entries(name: str, arr: np.ndarray, allowed: str, ok: Callable[[np.ndarray], np.ndarray]) -> None:
    """DomainError at the first entry of ``arr`` failing ``ok`` (index: int for 1-D, else tuple)."""
    bad = ~ok(arr)
    if bad.any():
        pos = np.unravel_index(int(np.argmax(bad)), arr.shape)
        where: object = int(pos[0]) if arr.ndim == 1 else tuple(int(i) for i in pos)
        raise _domain_error(name, allowed, float(arr[pos]), where)


def _samples(name: str, samples: ArrayLike) -> tuple[np.ndarray, np.ndarray, int]:
    """(flat samples, row index array of the leading shape, row length) of a sample array whose
    last axis is the sample axis; rejects empty, negative, NaN or infinite samples (n-d index)."""
    s = np.asarray(_as_real(name, samples), dtype=np.float64)
    if s.ndim == 0:
        s = s.reshape(1)
    if s.size == 0 or s.shape[-1] == 0:
        raise ValueError(f"{name} must be non-empty, got shape {s.shape}")
    bad = ~(np.isfinite(s) & (s >= 0))
    if bad.any():
        idx = np.unravel_index(int(np.argmax(bad)), s.shape)
        where = idx[0] if s.ndim == 1 else tuple(int(i) for i in idx)
        raise _domain_error(name, ">= 0 and finite", float(s[idx]), where)
    lead = s.shape[:-1]
    rows = np.arange(int(np.prod(lead, dtype=np.int64)), dtype=np.float64).reshape(lead)
    return np.ascontiguousarray(s).reshape(-1), rows, s.shape[-1]
