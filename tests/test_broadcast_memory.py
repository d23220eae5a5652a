"""n-d broadcasting in bounded memory (issue 17): a broadcast such as eps of shape (N, 1)
against shift of shape (1, M) is computed in blocks (``pabi._bridge.Broadcast``, "Blocked
broadcasts"), never materialising an argument at the full N·M size.

* ``theta`` on (4096, 1) × (1, 4096): the traced peak (numpy allocations, tracemalloc) stays
  below 1.25 × the output's bytes (the materialising path copied both arguments: 2 ×), and the
  values are those of the one-call path (spot rows against 1-D calls).
* Every public function of the bad-input matrix's table, with two numeric parameters (its first
  and last) given as (3, 1) and (1, 4) arrays, returns bit for bit what the one-call path returns, values and
  errors (blocks lowered to a few elements so that the blocked path runs on small inputs).
* Random shapes and values (hypothesis), bad values included, some arguments as reversed views:
  the same outcome blocked and in one call; errors name the parameter and the first bad index
  of the original broadcast.
* Full-size arguments that are not C-contiguous float64 (a transpose, reversed strides, float32)
  go through the blocked path too: no whole copy, same values and errors.
"""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pabi
from pabi import _bridge

sys.path.insert(0, str(Path(__file__).parent))
import _matrix_worker as mw  # noqa: E402

TABLE = mw._table()


def _outcome(fn: Any, *args: Any, **kw: Any) -> Any:
    try:
        return ("ok", fn(*args, **kw))
    except pabi.DomainError as exc:
        return ("domain", exc.param, exc.index, repr(exc.value), str(exc))
    except Exception as exc:  # noqa: BLE001 - the exception itself is compared
        return ("err", type(exc).__name__, str(exc))


_same = mw.same_outcome


def _blocked(monkeypatch: pytest.MonkeyPatch, block: int = 5, probe: int = 3) -> None:
    monkeypatch.setattr(_bridge, "_BLOCK", block)
    monkeypatch.setattr(_bridge, "_PROBE", probe)


def _both(monkeypatch: pytest.MonkeyPatch, fn: Any, *args: Any, **kw: Any) -> tuple[Any, Any]:
    """(blocked outcome, one-call outcome)."""
    _blocked(monkeypatch)
    got = _outcome(fn, *args, **kw)
    monkeypatch.undo()
    return got, _outcome(fn, *args, **kw)


def test_theta_outer_grid_stays_in_bounded_memory() -> None:
    eps = np.linspace(0.0, 4.0, 4096).reshape(4096, 1)
    shift = np.linspace(0.0, 6.0, 4096).reshape(1, 4096)
    pabi.theta(eps[:2], shift[:, :2])  # warm up (imports, caches)
    tracemalloc.start()
    try:
        out = pabi.theta(eps, shift)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.shape == (4096, 4096) and out.dtype == np.float64
    # the output plus a few blocks of 2^20 elements (the materialising path: 2 x the output)
    assert peak < 1.25 * out.nbytes, (peak, out.nbytes)
    for i in (0, 1, 2047, 4095):  # rows against the 1-D path (a single eps against shift)
        assert np.array_equal(out[i], pabi.theta(float(eps[i, 0]), shift[0]))
    assert np.array_equal(out[:, 4095], pabi.theta(eps[:, 0], float(shift[0, 4095])))


def test_blocks_are_not_used_below_the_block_size() -> None:
    b = _bridge.Broadcast(("eps", "shift"), (np.ones((3, 1)), np.ones((1, 4))))
    assert not b.blocked
    b = _bridge.Broadcast(("eps", "shift"), (np.ones((1025, 1)), np.ones((1, 1024))))
    assert b.blocked
    b = _bridge.Broadcast(("eps", "shift"), (np.ones((1025, 1024)), 1.0))  # no partial argument
    assert not b.blocked


def _vary(v: float, shape: tuple[int, ...]) -> np.ndarray:
    """``v`` slightly varied over ``shape`` (distinct values, near the valid default)."""
    k = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    return v * (1.0 + 0.01 * k) if v != 0 else 0.01 * k


def _takes_array(fn: Any, defaults: dict[str, Any], p: str) -> bool:
    """Whether parameter ``p`` takes an array (the call with it as one succeeds)."""
    return _outcome(fn, **dict(defaults, **{p: np.full(3, defaults[p])}))[0] == "ok"


def _pairs() -> Iterator[tuple[str, str, str]]:
    for name, (fn, defaults, kinds, _) in TABLE.items():
        if name in mw.SLOW:
            continue
        ps = [p for p, v in defaults.items() if kinds.get(p) is None and isinstance(v, float)
              and _takes_array(fn, defaults, p)]
        if len(ps) >= 2:  # its first and last (every argument goes through the same Broadcast)
            yield name, ps[0], ps[-1]


@pytest.mark.parametrize("layout", ["outer", "strided"])
@pytest.mark.parametrize("name,p,q", list(_pairs()))
def test_every_function_blocked_equals_one_call(name: str, p: str, q: str, layout: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The blocked path gives the one call's values and errors: for an outer grid ((3, 1) against
    (1, 4)) and for full-size arguments the one-call path would copy (a transpose, reversed
    strides), converted a piece at a time."""
    fn, defaults, _, _ = TABLE[name]
    runs: list[int] = []
    blocked = _bridge.Broadcast._apply_blocked

    def counted(self: Any, *args: Any, **kw: Any) -> Any:
        runs.append(1)
        return blocked(self, *args, **kw)

    if layout == "outer":
        a, b = _vary(defaults[p], (3, 1)), _vary(defaults[q], (1, 4))
    else:
        a, b = _vary(defaults[p], (4, 3)).T, _vary(defaults[q], (3, 4))[:, ::-1]
        assert not a.flags.c_contiguous and not b.flags.c_contiguous
    _blocked(monkeypatch)
    monkeypatch.setattr(_bridge.Broadcast, "_apply_blocked", counted)
    got = _outcome(fn, **dict(defaults, **{p: a, q: b}))
    monkeypatch.undo()
    want = _outcome(fn, **dict(defaults, **{p: np.ascontiguousarray(a), q: np.ascontiguousarray(b)}))
    assert runs, (name, p, q, "the blocked path did not run")
    assert got[0] == want[0] and (_same(got[1], want[1]) if got[0] == "ok" else got == want), (got, want)
    # a NaN in each, the later one in the argument the core may check first (Fortran-order
    # copies: the strided layout stays non-contiguous)
    a, b = a.copy(order="F"), b.copy(order="F")
    a[2, 0], b[0, 1] = np.nan, np.nan
    got, want = _both(monkeypatch, fn, **dict(defaults, **{p: a, q: b}))
    assert got == want and got[0] != "ok", (got, want)


def test_noncontiguous_input_is_not_copied_whole() -> None:
    """theta(scalar, x[::2]) (4e6 elements): the traced peak stays below the output's bytes plus
    three pieces (a contiguous copy of the argument would add a whole output's worth), same
    values; a bad element is named at its index."""
    x = np.linspace(0.01, 5.0, 8_000_000)
    v = x[::2]
    want = pabi.theta(1.0, np.ascontiguousarray(v))
    tracemalloc.start()
    try:
        got = pabi.theta(1.0, v)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.array_equal(got, want)
    # the output and a few pieces of _BLOCK values (converted input, the piece's output); a
    # whole copy of the argument (the one-call path) would add got.nbytes
    assert peak < got.nbytes + 3 * 8 * _bridge._BLOCK < 2 * got.nbytes, (peak, got.nbytes)
    assert np.array_equal(pabi.theta(1.0, v.astype(np.float32)), pabi.theta(1.0, v.astype(np.float32).astype(np.float64)))
    x[2 * 3_000_001] = -1.0
    with pytest.raises(pabi.DomainError) as e:
        pabi.theta(1.0, v)
    assert (e.value.param, e.value.index, e.value.value) == ("shift", 3_000_001, -1.0)


def test_theta_error_names_the_first_bad_broadcast_index(monkeypatch: pytest.MonkeyPatch) -> None:
    eps = np.array([[0.5], [1.0], [-1.0], [2.0]])
    shift = np.array([[1.0, 2.0, np.inf]])
    for blocked in (False, True):
        if blocked:
            _blocked(monkeypatch, block=2, probe=2)
        # eps's first bad element (shift = inf with a finite eps is allowed)
        with pytest.raises(pabi.DomainError) as e:
            pabi.theta(eps, shift)
        assert (e.value.param, e.value.index, e.value.value) == ("eps", (2, 0), -1.0)
        # theta(inf, inf) is undefined: the first such element in C order is (3, 2)
        e2 = np.array([[0.5], [1.0], [3.0], [np.inf]])
        with pytest.raises(pabi.DomainError) as e:
            pabi.theta(e2, shift)
        assert (e.value.param, e.value.index) == ("shift", (3, 2))
        # a bad shift before a bad eps in C order: eps is still named (checked first)
        with pytest.raises(pabi.DomainError) as e:
            pabi.theta(eps, np.array([[-3.0, 1.0, 2.0]]))
        assert (e.value.param, e.value.index) == ("eps", (2, 0))
        monkeypatch.undo()


def test_elementwise_error_is_the_first_failing_element(monkeypatch: pytest.MonkeyPatch) -> None:
    # an elementwise map names the first failing element in C order, whichever argument fails
    order = np.array([[2.0], [3.0], [-1.0]])
    noise = np.array([[1.0, 0.0, 2.0, 3.0]])
    want = _outcome(pabi.gaussian_mechanism_rdp, order, sensitivity=1.0, noise_scale=noise)
    _blocked(monkeypatch, block=4, probe=2)
    got = _outcome(pabi.gaussian_mechanism_rdp, order, sensitivity=1.0, noise_scale=noise)
    assert got == want and got[0] == "domain"
    assert got[1:3] == ("noise_scale", (0, 1))


_val = st.one_of(st.floats(0.0, 5.0), st.sampled_from([0.0, np.inf, -1.0, np.nan]))


@st.composite
def _args(draw: Any) -> tuple[np.ndarray, np.ndarray]:
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    ma = [draw(st.booleans()) for _ in shape]
    mb = [draw(st.booleans()) for _ in shape]
    sa = tuple(n if m else 1 for n, m in zip(shape, ma))[draw(st.integers(0, len(shape))):]
    sb = tuple(n if m else 1 for n, m in zip(shape, mb))
    a = np.array(draw(st.lists(_val, min_size=int(np.prod(sa)), max_size=int(np.prod(sa)))),
                 dtype=np.float64).reshape(sa)
    b = np.array(draw(st.lists(_val, min_size=int(np.prod(sb)), max_size=int(np.prod(sb)))),
                 dtype=np.float64).reshape(sb)
    if draw(st.booleans()):  # the same values through a reversed (non-contiguous) view
        b = b[::-1][::-1] if b.ndim == 0 else np.flip(np.flip(b, -1).copy(), -1)
    return a, b


def _rdp(order: Any, noise_scale: Any) -> Any:
    """An elementwise map of the RDP bindings (per-element checks)."""
    return pabi.gaussian_mechanism_rdp(order, sensitivity=1.0, noise_scale=noise_scale)


@settings(max_examples=150, deadline=None)
@given(_args(), st.integers(1, 7), st.integers(1, 4))
def test_random_broadcasts_blocked_equal_one_call(args: tuple[np.ndarray, np.ndarray], block: int,
                                                   probe: int) -> None:
    a, b = args
    for fn in (pabi.theta, pabi.laplace_theta, _rdp):
        want = _outcome(fn, a, b)
        old = (_bridge._BLOCK, _bridge._PROBE)
        _bridge._BLOCK, _bridge._PROBE = block, probe
        try:
            got = _outcome(fn, a, b)
        finally:
            _bridge._BLOCK, _bridge._PROBE = old
        assert got[0] == want[0] and (_same(got[1], want[1]) if got[0] == "ok" else got == want), (got, want)


def test_single_argument_errors_come_before_any_block(monkeypatch: pytest.MonkeyPatch) -> None:
    # every value of a partly broadcast argument is validated (small calls) before any block is
    # computed: a bad eps in the last row raises without a block-sized core call
    from pabi import _core

    lengths: list[int] = []
    theta = _core.theta

    def spy(eps: np.ndarray, shift: np.ndarray) -> np.ndarray:
        lengths.append(max(eps.size, shift.size))
        return theta(eps, shift)

    monkeypatch.setattr(_core, "theta", spy)
    _blocked(monkeypatch, block=8, probe=3)
    eps = np.array([[0.5], [1.0], [1.5], [2.0], [2.5], [-1.0]])
    shift = np.linspace(0.0, 3.0, 8).reshape(1, 8)
    with pytest.raises(pabi.DomainError) as e:
        pabi.theta(eps, shift)
    assert (e.value.param, e.value.index) == ("eps", (5, 0))
    assert lengths and max(lengths) <= 4  # pieces of 3 (+ the failing element), no block of 8
    lengths.clear()
    assert np.array_equal(pabi.theta(eps[:5], shift), np.vstack([theta(np.full(8, v), shift[0]) for v in eps[:5, 0]]))
    assert 8 in lengths  # the valid call ran in blocks (one row of 8 each)
