"""The numpy bridge shared by every public function: argument conversion, broadcasting, scalar
results and domain errors relocated to the caller's shape.

A public function is a thin wrapper::

    def theta(eps, r):
        return call(_core.theta, ("eps", "r"), eps, r)

where the core function takes contiguous 1-D float64 arrays (one per argument, in order) and
returns a 1-D float64 array. Every binding reads a length-1 argument as a broadcast value in
place (``pabi_core::driver::at``: a stride-0 view), so a single value is never expanded to the
full length (``theta(0.5, r)`` and ``pnsgd_delta(eps_array, noise_scale=1.0, ...)`` allocate
their output and nothing else of that size). Extra non-array options are bound with
``functools.partial`` before calling :func:`call`. A broadcast of partly broadcast arguments
(``eps`` of shape (N, 1) against ``r`` of shape (1, M)) larger than 2^20 elements is computed in
blocks written into the preallocated output, validated first, with the error of the one-call
path (:class:`Broadcast`, "Blocked broadcasts"): its extra memory does not grow with N·M.

The conversion rule (one rule for every public function)
--------------------------------------------------------

* **Real scalar** (:func:`real_scalar`): a Python ``int`` or ``float``, a numpy integer or
  floating scalar, a 0-d array of such a dtype, or another real-number object that converts
  itself with ``__float__`` (``fractions.Fraction``, ``mpmath.mpf``). An ``int`` too large for a double becomes
  ±inf (then rejected by the parameter's domain check where inf is not allowed). ``bool``,
  ``str``, ``bytes``, ``None``, complex numbers and any other object raise ``TypeError``
  (numeric strings are *not* parsed).
* **Integer scalar** (:func:`int_scalar`; counts, steps, indices): an ``int``, a numpy integer,
  a 0-d integer array, or a float holding an integer (``3.0``, ``np.float64(3)``). A
  non-integral, NaN or infinite float, or an integer outside the parameter's range, raises
  :class:`DomainError` (never ``OverflowError``); other types raise ``TypeError``.
* **Real array** (:func:`as_real`, :func:`real_array`): anything numpy turns into an array of
  integer, unsigned or floating dtype (any width, any byte order, any strides), converted to
  float64. A list holding Python ints too large for int64 is converted element by element like
  a scalar. Arrays of dtype bool, object, str, bytes, complex, datetime... raise ``TypeError``
  (for a list with a non-number in it, naming the index of the first one).
* Every error is a :class:`DomainError` (a ``ValueError``) or a ``TypeError`` whose message
  names the parameter and whose ``.param`` attribute is the parameter's name; a
  ``DomainError`` also carries ``.allowed``, ``.value`` and ``.index`` (None for a scalar, an
  int for a 1-D array, a tuple for an n-d array: the first bad element). Arrays that cannot be
  broadcast together raise ``ValueError`` naming every shape.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterator, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import _core

DomainError = _core.DomainError

ArrayLike = npt.ArrayLike
Float = Union[float, np.ndarray]
#: What a broadcasting function returns for array input (its scalar overload returns ``float``).
FloatArray = npt.NDArray[np.float64]
#: The scalar arguments of the scalar overloads (a numpy float64 is a ``float``).
Scalar = Union[float, int, np.floating, np.integer]

__all__ = [
    "ArrayLike",
    "Broadcast",
    "DomainError",
    "Float",
    "as_real",
    "call",
    "domain_error",
    "flag",
    "int_scalar",
    "opt_real_scalar",
    "real_array",
    "real_scalar",
    "relocate",
    "type_error",
]

_REAL_KINDS = "iuf"
#: Scalar types that are never numbers here, even though numpy or float() would convert them.
_NOT_REAL = (bool, np.bool_, str, bytes, complex, np.complexfloating)


def _describe(value: object) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype}" + (f" and shape {value.shape}" if value.ndim else " (0-d)")
    if value is None:
        return "None"
    if isinstance(value, (str, bytes)):
        return f"{type(value).__name__} {value!r}"[:80]
    return type(value).__name__


def _index(flat: int, shape: tuple[int, ...]) -> Union[int, tuple[int, ...]]:
    """The caller-facing index of flat position ``flat``: an int for 1-D, a tuple for n-d."""
    if len(shape) <= 1:
        return int(flat)
    return tuple(int(i) for i in np.unravel_index(flat, shape))


def type_error(name: str, expected: str, value: object, index: object = None,
               got: Optional[str] = None) -> TypeError:
    """A ``TypeError`` naming the parameter (``.param``) and, for arrays, the first bad index."""
    where = "" if index is None else f" at index {index}"
    err = TypeError(f"{name} must be {expected}, got {got or _describe(value)}{where}")
    err.param = name  # type: ignore[attr-defined]
    err.index = index  # type: ignore[attr-defined]
    return err


def domain_error(name: str, allowed: str, value: object, index: object = None, *, shown: str = "",
                 hint: str = "") -> DomainError:
    """A :class:`DomainError` with the attributes of the core's (param, allowed, value, index);
    the message shows ``value`` as ``shown`` (default its repr), then ``hint``."""
    where = "" if index is None else f" at index {index}"
    err = DomainError(f"{name} must be {allowed}, got {shown or repr(value)}{where}" + (f" {hint}" if hint else ""))
    err.param, err.allowed, err.value, err.index = name, allowed, value, index  # type: ignore[attr-defined,assignment]
    return err


def choice(name: str, value: object, allowed: Sequence[str], hint: str = "") -> str:
    """``value`` if it is one of the option strings ``allowed``, else the :class:`DomainError`
    of ``name`` with the wording of the core's options (``<name> must be one of 'a', 'b', got
    "x"``), followed by ``hint``."""
    if isinstance(value, str) and value in allowed:
        return value
    raise domain_error(name, "one of " + ", ".join(f"'{a}'" for a in allowed), value, hint=hint,
                       shown=f'"{value}"' if isinstance(value, str) else "")  # as the core shows a string


def _int_to_float(v: int) -> float:
    """A Python int as the nearest double; ±inf when it exceeds the double range."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _is_real_number(x: object) -> bool:
    """int, float, numpy integer/floating scalars, and other real-number objects converting
    themselves with ``__float__`` (``fractions.Fraction``, ``decimal.Decimal``, ``mpmath.mpf``);
    never bool, str, bytes, complex or numpy arrays."""
    if isinstance(x, _NOT_REAL) or isinstance(x, np.ndarray):
        return False
    if isinstance(x, (int, float, np.integer, np.floating)):
        return True
    t = type(x)  # a scalar object, not an array-like one (a pandas Series also has __float__)
    return hasattr(t, "__float__") and not any(hasattr(t, a) for a in ("__array__", "__len__", "__iter__"))


def _to_float(name: str, x: object, index: object = None) -> float:
    if isinstance(x, int):
        return _int_to_float(int(x))
    try:
        return float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise type_error(name, "a real number", x, index) from None


def _object_to_float(name: str, arr: np.ndarray) -> np.ndarray:
    """A numpy object array made from a Python sequence (e.g. ints beyond int64): every element
    must be a real number (converted like :func:`real_scalar`)."""
    flat = arr.reshape(-1)
    out = np.empty(flat.shape, dtype=np.float64)
    for k, x in enumerate(flat):
        if not _is_real_number(x):
            raise type_error(name, "a real number or an array of real numbers", x,
                             None if arr.ndim == 0 else _index(k, arr.shape))
        out[k] = _to_float(name, x, None if arr.ndim == 0 else _index(k, arr.shape))
    return out.reshape(arr.shape)


def as_real(name: str, value: ArrayLike) -> np.ndarray:
    """``value`` as a numpy array of a real dtype (int, uint or float kind; unchanged if it
    already is one), following the module's conversion rule; TypeError otherwise."""
    if type(value) is float:
        return np.asarray(value)
    if isinstance(value, _NOT_REAL) or value is None:
        raise type_error(name, "a real number or an array of real numbers", value)
    if isinstance(value, int):
        return np.asarray(_int_to_float(value))
    if not isinstance(value, (np.ndarray, np.generic, list, tuple)) and _is_real_number(value):
        return np.asarray(_to_float(name, value))  # Fraction, Decimal, mpmath.mpf, ...
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:  # ragged nesting, odd objects
        raise type_error(name, f"a real number or a rectangular array of real numbers ({exc})", value) from None
    kind = arr.dtype.kind
    if kind in _REAL_KINDS:
        return arr
    if kind == "O" and not isinstance(value, np.ndarray):
        return _object_to_float(name, arr)
    if kind == "O" and arr.ndim == 0 and _is_real_number(arr.item()):
        return _object_to_float(name, arr)
    if isinstance(value, np.ndarray):
        raise type_error(name, "a real number or an array of real numbers", value)
    raise type_error(name, "a real number or an array of real numbers", value,
                     got=f"{type(value).__name__} of numpy dtype {arr.dtype}")


def real_array(name: str, value: ArrayLike, ndim: Optional[int] = None) -> np.ndarray:
    """``value`` as a C-contiguous float64 array (see :func:`as_real`); with ``ndim``, a
    ``ValueError`` naming the parameter unless the array has that many dimensions."""
    arr = as_real(name, value)
    if ndim is not None and arr.ndim != ndim:
        what = {0: "a scalar", 1: "a 1-D array"}.get(ndim, f"a {ndim}-D array")
        raise ValueError(f"{name} must be {what}, got shape {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.float64)


def real_scalar(name: str, value: object) -> float:
    """A real scalar argument as a Python float (see the module doc); TypeError otherwise."""
    t = type(value)
    if t is float:
        return value  # type: ignore[return-value]
    if t is int:
        return _int_to_float(value)  # type: ignore[arg-type]
    if isinstance(value, _NOT_REAL) or value is None:
        raise type_error(name, "a real number", value)
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            if value.dtype.kind in _REAL_KINDS:
                return float(value)
            if value.dtype.kind == "O" and _is_real_number(value.item()):
                return _to_float(name, value.item())
        raise type_error(name, "a real number", value)
    if _is_real_number(value):
        return _to_float(name, value)
    raise type_error(name, "a real number", value)


def flag(name: str, value: object) -> bool:
    """A boolean option (``log``, ...): ``bool`` or ``numpy.bool_`` only, TypeError naming it otherwise."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise type_error(name, "True or False", value)


def opt_real_scalar(name: str, value: object) -> Optional[float]:
    """:func:`real_scalar`, with None passed through (an absent optional argument)."""
    return None if value is None else real_scalar(name, value)


def int_scalar(name: str, value: object, lo: int = 1, hi: int = 2**53 - 1) -> int:
    """An integer argument (count, steps, index) as a Python int in [lo, hi] (see the module
    doc): DomainError for a non-integral float or a value out of range, TypeError for others."""
    allowed = f"an integer in [{lo}, 2^53)" if hi == 2**53 - 1 else f"an integer in [{lo}, {hi}]"
    if isinstance(value, _NOT_REAL) or value is None:
        raise type_error(name, "an integer", value)
    v: object = value
    if isinstance(v, np.ndarray):
        if v.ndim != 0 or v.dtype.kind not in _REAL_KINDS + "O":
            raise type_error(name, "an integer", value)
        v = v.item()
        if isinstance(v, _NOT_REAL) or not _is_real_number(v):
            raise type_error(name, "an integer", value)
    if isinstance(v, (int, np.integer)):
        i = int(v)
    elif isinstance(v, (float, np.floating)):
        f = float(v)
        if not math.isfinite(f) or f != math.floor(f):
            raise domain_error(name, allowed, f)
        i = int(f)
    else:
        raise type_error(name, "an integer", value)
    if not lo <= i <= hi:
        raise domain_error(name, allowed, i)
    return i


#: Output elements per core call of a blocked broadcast (:class:`Broadcast`); tests lower it.
_BLOCK = 1 << 20
#: Elements per core call of the validation pass and the error search of a blocked broadcast:
#: below the core's parallel threshold (2^15), so a call stops at its first failing element.
_PROBE = 1 << 14


def _runs(start: int, stop: int) -> Iterator[np.ndarray]:
    """The flat indices start..stop-1 in consecutive runs of :data:`_PROBE` (the error search
    of a blocked broadcast)."""
    return (np.arange(s, min(s + _PROBE, stop)) for s in range(start, stop, _PROBE))


def _copied(a: np.ndarray, size: int) -> bool:
    """Whether the one-call path would copy this full-size argument: it is not a C-contiguous
    native float64 array (a strided view such as ``x[::2]``, a transposed array, float32, int
    or big-endian data). A blocked broadcast converts such an argument one piece at a time."""
    return a.size == size > 1 and not (a.dtype == np.float64 and a.dtype.isnative and a.flags.c_contiguous)


#: :func:`_python_float`'s answer for a value that is not a plain Python number
_NOT_SCALAR = object()


def _python_float(v: object) -> object:
    """``v`` as a Python float when it is a Python float or int (ints convert as in
    :func:`as_real`, beyond the double range to ±inf), else :data:`_NOT_SCALAR`: the one rule of
    the scalar calls below."""
    t = type(v)
    if t is float:
        return v
    if t is int:
        return _int_to_float(v)  # type: ignore[arg-type]
    return _NOT_SCALAR


def _python_scalars(values: Sequence[object]) -> Optional[list[float]]:
    """The common scalar call (an accounting service's): when every value is a plain Python
    number, each as a Python float (:func:`_python_float`), which the core bindings read as a
    length-1 array without a numpy array being made on either side (a scalar ``theta`` 2.5 ->
    1.2 µs); else None (the general path: numpy conversion and broadcasting). Positional, for
    :func:`call` (a name map costs a scalar ``theta`` about 0.5 µs more)."""
    out: list[float] = []
    for v in values:
        f = _python_float(v)
        if f is _NOT_SCALAR:
            return None
        out.append(f)  # type: ignore[arg-type]
    return out


def _python_scalar_map(names: Sequence[str], values: Sequence[object],
                       optional: Sequence[str]) -> Optional[dict[str, Optional[float]]]:
    """:func:`_python_scalars` as the name → value map of :class:`Broadcast` (``None`` kept for
    the names in ``optional``), in one pass (a scalar ``pnsgd_delta`` 10.6 -> 8.6 µs)."""
    out: dict[str, Optional[float]] = {}
    for k, v in zip(names, values):
        if v is None and k in optional:
            out[k] = None
            continue
        f = _python_float(v)
        if f is _NOT_SCALAR:
            return None
        out[k] = f  # type: ignore[assignment]
    return out


class Broadcast:
    """Numeric arguments broadcast together: the one broadcasting rule of every public function.

    ``names`` and ``values`` pair each parameter's name (for error messages) with its value,
    converted by :func:`as_real`. ``None`` (an absent optional argument) is allowed for the names
    in ``optional`` and kept as ``None``; elsewhere it is a ``TypeError``. Shapes that cannot be
    broadcast together raise ``ValueError`` naming every shape.

    Attributes: ``shape`` (the broadcast shape), ``scalar`` (every argument 0-d: the results are
    floats), and, for the core call, ``size`` and ``flat`` (name → contiguous float64 array of
    length 1 for a single value, of length ``size`` otherwise, or ``None``). Every binding reads
    a length-1 array as a broadcast value (stride 0: no materialised copies). :meth:`apply` runs
    the core call (a thunk reading ``flat`` or ``size``), relocating its domain errors to the caller's shape and
    shaping its result.

    **Blocked broadcasts** (issue 17). When some argument is neither a single value nor of the
    full broadcast size (``eps`` of shape (N, 1) against ``r`` of shape (1, M)), or is full-size
    but not a C-contiguous native float64 array (``r[::2]``, a transpose, float32 or int data:
    the one-call path would copy it whole), and the broadcast has more than :data:`_BLOCK`
    elements, nothing is materialised at the full size: during
    :meth:`apply`, ``flat`` and ``size`` describe one *piece* at a time and the thunk runs once
    per piece, each result written into the preallocated output. The extra memory is a few
    pieces (``_BLOCK`` elements per argument), whatever the broadcast size.

    1. *Validation first.* Every value of every argument that is neither a single value nor
       full-size occurs at a first broadcast position (its broadcast axes at index 0). Those
       positions, sorted in C order, are run through the core first, in pieces of
       :data:`_PROBE` elements (a small, cheap call): every single-argument domain check of the
       core sees every value of these arguments before any block is computed, and the first bad
       one it meets is the first bad one in broadcast order.
    2. *Blocks.* The broadcast is cut into contiguous C-order blocks along its leading axes
       (≤ ``_BLOCK`` elements); an argument constant along a block crosses as a length-1 array,
       the others as the block's slice. Each element is computed by the same scalar formula as
       in one call over the whole broadcast (every binding here is elementwise), so the values
       are bit for bit those of the materialising path.
    3. *The error.* The core reports, for one call, the element failing its earliest check (its
       checks run in a fixed order: each argument's range over the whole array, then relations
       between arguments, then the per-element computation), the first such element in index
       order. Once a piece fails, the error of the whole broadcast is found exactly: the rest of
       the broadcast is scanned in pieces of ``_PROBE`` elements, each with the best failing
       element so far inserted at its place in index order, so the core itself decides between
       them (a piece either names an element that beats it or names it again; a piece with it
       inserted fails at its check, before any computation of the later checks' work). The error
       names the parameter and the first bad flat (C-order) index of the original broadcast,
       as the one-call path does.
    """

    def __init__(self, names: Sequence[str], values: Sequence[Optional[ArrayLike]],
                 optional: Sequence[str] = ()) -> None:
        fast = _python_scalar_map(names, values, optional)
        if fast is not None:
            self.scalar, self.blocked = True, False
            self.shape: tuple[int, ...] = ()
            self.size = 1
            self.flat: dict[str, Union[np.ndarray, float, None]] = fast  # type: ignore[assignment]
            return
        #: the arguments as broadcast views (no copy), for the pieces of a blocked broadcast
        self._views: dict[str, np.ndarray] = {}
        self._own: dict[str, np.ndarray] = {}
        self._single: dict[str, np.ndarray] = {}
        arrays = []
        for k, v in zip(names, values):
            if v is not None or k not in optional:  # None outside ``optional``: as_real's TypeError
                arrays.append((k, as_real(k, v)))  # type: ignore[arg-type]
        self.scalar = all(a.ndim == 0 for _, a in arrays)
        try:
            self.shape = np.broadcast_shapes(*(a.shape for _, a in arrays))
        except ValueError:
            shapes = ", ".join(f"{k} has shape {a.shape}" for k, a in arrays)
            raise ValueError(f"shape mismatch: {shapes}; they cannot be broadcast together") from None
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.flat = {k: None for k in names}
        self.blocked = self.size > _BLOCK and any(1 < a.size < self.size or _copied(a, self.size)
                                                  for _, a in arrays)
        for k, a in arrays:
            if self.blocked:
                self._views[k], self._own[k] = np.broadcast_to(a, self.shape), a
                if a.size == 1:
                    self.flat[k] = self._single[k] = np.ascontiguousarray(a, dtype=np.float64).reshape(1)
            elif a.size == 1:
                self.flat[k] = np.ascontiguousarray(a, dtype=np.float64).reshape(1)
            elif a.shape == self.shape:
                self.flat[k] = np.ascontiguousarray(a, dtype=np.float64).reshape(-1)
            else:
                self.flat[k] = np.ascontiguousarray(np.broadcast_to(a, self.shape), dtype=np.float64).reshape(-1)

    def apply(self, thunk: Callable[[], Any], nout: int = 1) -> Any:
        """``thunk()`` (the core call) with domain errors relocated to the broadcast shape; its
        result shaped like the arguments: a float or an array, or for a tuple of arrays (or a flat
        ``(nout, size)`` array with ``nout`` > 1) a tuple of them. A blocked broadcast runs the
        thunk once per piece (see the class doc)."""
        if self.blocked:
            return self._apply_blocked(thunk, nout)
        try:
            out = thunk()
        except DomainError as exc:
            raise relocate(exc, self.shape, self.scalar) from None
        if self.scalar and nout == 1 and type(out) is np.ndarray:
            return float(out[0])  # (the scalar call: `_result`'s value without its dispatch)
        return self._result(out, nout)

    def _result(self, out: Any, nout: int) -> Any:
        if isinstance(out, tuple):
            return tuple(self._shaped(o) for o in out)
        if nout > 1:
            return tuple(self._shaped(o) for o in np.asarray(out).reshape(nout, -1))
        return self._shaped(out)

    def _shaped(self, out: np.ndarray) -> Float:
        if self.scalar:
            return float(out[0])
        return out.reshape(self.shape)

    # -- blocked broadcasts ------------------------------------------------------------------

    def _apply_blocked(self, thunk: Callable[[], Any], nout: int) -> Any:
        total, saved = self.size, dict(self.flat)
        try:
            best = self._search(thunk, self._first_positions(), None)
            if best is None:
                outs: list[np.ndarray] = []
                for start, stop, piece in self._blocks():
                    self._set(piece, stop - start)
                    try:
                        res = thunk()
                    except DomainError as exc:
                        best = self._failed(exc, np.arange(start, stop), None)
                        best = self._search(thunk, _runs(stop, total), best)
                        break
                    parts = list(res) if isinstance(res, tuple) else (
                        list(np.asarray(res).reshape(nout, -1)) if nout > 1 else [np.asarray(res)])
                    if not outs:
                        outs = [np.empty(total, dtype=p.dtype) for p in parts]
                    for o, p in zip(outs, parts):
                        o[start:stop] = p
                    # drop this block's arrays before the next one is built (peak: one block)
                    tup = isinstance(res, tuple)
                    del res, parts, p, piece
                    self.flat = saved
                if best is None:
                    shaped = [o.reshape(self.shape) for o in outs]
                    return tuple(shaped) if tup or nout > 1 else shaped[0]
            else:
                best = self._search(thunk, _runs(0, total), best)
        finally:
            self.size, self.flat = total, saved
        err, flat, _ = best
        raise domain_error(err.param, err.allowed, err.value, _index(flat, self.shape)) from None

    def _set(self, piece: dict[str, np.ndarray], n: int) -> None:
        """Make ``flat`` and ``size`` describe one piece of ``n`` elements."""
        self.size = n
        self.flat = {k: piece.get(k) for k in self.flat}

    def _blocks(self) -> Any:
        """The C-order blocks ``(start, stop, piece)``: a prefix of leading indices fixed, a
        range of the next axis, every later axis whole; ≤ ``_BLOCK`` elements each (size >
        ``_BLOCK``, so at least one axis is cut)."""
        shape = self.shape
        inner, axis = 1, len(shape)
        while inner * shape[axis - 1] <= _BLOCK:  # stops before axis 0: size > _BLOCK
            axis -= 1
            inner *= shape[axis]
        a = axis - 1  # the axis cut into ranges of `step` indices (inner: the size of axes > a)
        step = max(1, _BLOCK // inner)
        for prefix in np.ndindex(*shape[:a]):
            base = int(np.ravel_multi_index(prefix + (0,) * (len(shape) - a), shape))
            for lo in range(0, shape[a], step):
                hi = min(lo + step, shape[a])
                piece = {}
                for k, v in self._views.items():
                    if k in self._single:
                        piece[k] = self._single[k]
                        continue
                    blk = v[prefix + (slice(lo, hi),)]
                    if all(st == 0 or n == 1 for st, n in zip(blk.strides, blk.shape)):  # constant along it
                        piece[k] = np.array([blk.reshape(-1)[0]], dtype=np.float64)
                    else:
                        piece[k] = np.ascontiguousarray(blk, dtype=np.float64).reshape(-1)
                yield base + lo * inner, base + hi * inner, piece

    def _first_positions(self) -> Any:
        """The pieces (sorted flat indices) of the validation pass: the first broadcast
        position (broadcast axes at index 0) of every value of every argument that is neither
        a single value nor full-size."""
        firsts = []
        nd = len(self.shape)
        strides = [int(np.prod(self.shape[k + 1:], dtype=np.int64)) for k in range(nd)]
        for a in self._own.values():
            if 1 < a.size < self.size:
                dims = (1,) * (nd - a.ndim) + a.shape
                pos = np.zeros((1,) * nd, dtype=np.int64)  # flat index = sum of index x stride
                for k, n in enumerate(dims):
                    if n > 1:
                        axis = (1,) * k + (n,) + (1,) * (nd - k - 1)
                        pos = pos + (np.arange(n, dtype=np.int64) * strides[k]).reshape(axis)
                firsts.append(pos.reshape(-1))
        if not firsts:  # blocked only for a full-size argument that would be copied: no pass
            return iter(())
        # Each argument's positions are increasing and distinct, so a sort and a neighbour
        # test merge them (np.unique's hash path took seconds on a few million positions)
        pos = np.sort(np.concatenate(firsts), kind="stable")
        pos = pos[np.r_[True, pos[1:] != pos[:-1]]]
        return (pos[s:s + _PROBE] for s in range(0, pos.size, _PROBE))

    def _gather(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """The arguments at the flat indices ``flat`` (single values stay length 1)."""
        idx = np.unravel_index(flat, self.shape)
        return {k: self._single[k] if k in self._single else np.asarray(v[idx], dtype=np.float64)
                for k, v in self._views.items()}

    def _failed(self, exc: DomainError, flat: np.ndarray, best: Any) -> Any:
        """The best failing element after a piece over the flat indices ``flat`` (``best``
        inserted where it belongs: see :meth:`_search`) raised ``exc``."""
        index = getattr(exc, "index", None)
        if index is None or getattr(exc, "param", None) is None:
            raise relocate(exc, self.shape, False) from None  # not at an element: as in one call
        i = int(index)
        if best is not None and best[1] not in flat:
            at = int(np.searchsorted(flat, best[1]))
            if i == at:
                return best
            if i > at:
                i -= 1
        f = int(flat[i])
        return (exc, f, {k: np.asarray(v[np.unravel_index(f, self.shape)], dtype=np.float64).reshape(1)
                         for k, v in self._views.items()})

    def _search(self, thunk: Callable[[], Any], pieces: Any, best: Any) -> Any:
        """Run the thunk on each piece (sorted flat indices), the best failing element so far
        (``(error, flat index, its arguments)``) inserted at its place in index order; the best
        failing element afterwards (``None`` if every piece passed)."""
        for flat in pieces:
            if flat.size == 0:
                continue
            piece = self._gather(flat)
            if best is not None and best[1] not in flat:
                at = int(np.searchsorted(flat, best[1]))
                piece = {k: v if k in self._single else np.insert(v, at, best[2][k]) for k, v in piece.items()}
                n = flat.size + 1
            else:
                n = flat.size
            self._set(piece, n)
            try:
                thunk()
            except DomainError as exc:
                best = self._failed(exc, flat, best)
        return best


def call(fn: Callable[..., np.ndarray], names: Sequence[str], *args: ArrayLike, nout: int = 1) -> Any:
    """``fn`` (a binding taking one float64 array per argument, in order, each of the broadcast
    length or of length 1) on the broadcast ``args`` (``names`` for messages): a float for scalar arguments, else an array of
    the broadcast shape; with ``nout`` > 1 ``fn`` returns a flat (nout, size) array and the
    result is a tuple of ``nout`` of them. See :class:`Broadcast`."""
    flat = _python_scalars(args)  # plain Python numbers: no broadcasting, same call and errors
    if flat is not None:
        try:
            out = fn(*flat)
        except DomainError as exc:
            raise relocate(exc, (), True) from None
        if nout > 1:
            return tuple(float(o[0]) for o in np.asarray(out).reshape(nout, -1))
        return float(out[0])
    b = Broadcast(names, args)
    return b.apply(lambda: fn(*b.flat.values()), nout)


def call_named(fn: Callable[..., Any], numeric: dict[str, Optional[ArrayLike]], optional: Sequence[str],
               options: dict[str, object]) -> Any:
    """``fn(**numeric, **options, len=size)`` on the broadcast ``numeric`` arguments (name →
    value, in the binding's order; ``None`` allowed for the names in ``optional``): a float (or a
    tuple of floats) for scalar arguments, else arrays of the broadcast shape (see
    :class:`Broadcast`). Plain Python numbers take the scalar path of :func:`call`: the same
    conversion (:func:`_python_float`), the numeric values passed by position and no
    :class:`Broadcast` (a scalar ``pnsgd_delta`` 6.3 -> 2.6 µs), with the same values and
    errors."""
    flat: list[Optional[float]] = []
    for k, v in numeric.items():
        if v is None and k in optional:
            flat.append(None)
            continue
        f = _python_float(v)
        if f is _NOT_SCALAR:
            b = Broadcast(tuple(numeric), tuple(numeric.values()), optional)
            return b.apply(lambda: fn(**b.flat, **options, len=b.size))
        flat.append(f)  # type: ignore[arg-type]
    try:
        out = fn(*flat, **options, len=1)
    except DomainError as exc:
        raise relocate(exc, (), True) from None
    if type(out) is tuple:
        return tuple(float(o[0]) for o in out)
    return float(out[0])


def relocate(exc: BaseException, shape: tuple[int, ...], scalar: bool) -> BaseException:
    """Rewrite a core domain error for the caller's shape (scalar: no index; n-d: a tuple)."""
    param = getattr(exc, "param", None)
    index = getattr(exc, "index", None)
    if param is None:
        return exc
    where: object = None
    if not scalar and index is not None:
        where = _index(int(index), shape)
    return domain_error(param, exc.allowed, exc.value, where)  # type: ignore[attr-defined]


def rename(exc: BaseException, old: str, new: str) -> BaseException:
    """A domain error of the core's parameter ``old`` re-labelled as the public name ``new``."""
    if getattr(exc, "param", None) != old:
        return exc
    return domain_error(new, exc.allowed, exc.value, exc.index)  # type: ignore[attr-defined]

