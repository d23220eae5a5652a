"""The numpy bridge shared by every public function: dtype checks, broadcasting, scalar results
and domain errors relocated to the caller's shape.

A public function is a thin wrapper::

    def theta(eps, r):
        return call(_core.theta, ("eps", "r"), eps, r)

where the core function takes equally long contiguous 1-D float64 arrays (one per argument, in
order) and returns a 1-D float64 array. Extra non-array options are bound with
``functools.partial`` before calling :func:`call`.
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _core

DomainError = _core.DomainError

ArrayLike = npt.ArrayLike
Float = Union[float, np.ndarray]

__all__ = ["ArrayLike", "DomainError", "Float", "as_real", "call"]


def as_real(name: str, value: ArrayLike) -> np.ndarray:
    arr = np.asarray(value)
    kind = arr.dtype.kind
    if kind in "iuf":
        return arr
    if kind == "O":
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError):
            pass
    raise TypeError(
        f"{name} must be a real number or an array of real numbers, got {type(value).__name__}"
        + (f" with dtype {arr.dtype}" if kind != "O" else "")
    )


def call(fn: Callable[..., np.ndarray], names: Sequence[str], *args: ArrayLike) -> Float:
    # Fast path for plain Python numbers (the common scalar call of an accounting service):
    # no dtype inspection or broadcasting, same core call, same errors.
    if all(type(a) is float or type(a) is int for a in args):
        try:
            out = fn(*[np.array([a], dtype=np.float64) for a in args])
        except DomainError as exc:
            raise relocate(exc, (), True) from None
        return float(out[0])
    arrays = [as_real(n, a) for n, a in zip(names, args)]
    scalar = all(a.ndim == 0 for a in arrays)
    try:
        bcast = np.broadcast_arrays(*arrays)
    except ValueError:
        shapes = ", ".join(f"{n} has shape {a.shape}" for n, a in zip(names, arrays))
        raise ValueError(f"shape mismatch: {shapes}; they cannot be broadcast together") from None
    shape = bcast[0].shape
    flat = [np.ascontiguousarray(b, dtype=np.float64).reshape(-1) for b in bcast]
    try:
        out = fn(*flat)
    except DomainError as exc:
        raise relocate(exc, shape, scalar) from None
    if scalar:
        return float(out[0])
    return out.reshape(shape)


def relocate(exc: BaseException, shape: tuple[int, ...], scalar: bool) -> BaseException:
    """Rewrite a core domain error for the caller's shape (scalar: no index; n-d: a tuple)."""
    param = getattr(exc, "param", None)
    index = getattr(exc, "index", None)
    if param is None:
        return exc
    msg = f"{param} must be {exc.allowed}, got {exc.value!r}"  # type: ignore[attr-defined]
    where: object = None
    if not scalar and index is not None:
        where = index if len(shape) <= 1 else tuple(int(i) for i in np.unravel_index(index, shape))
        msg += f" at index {where}"
    new = DomainError(msg)
    new.param, new.allowed, new.value = param, exc.allowed, exc.value  # type: ignore[attr-defined]
    new.index = where  # type: ignore[assignment]
    return new
