"""Runtime safety of the binding and the thread pool (no timing assertions except generous
upper bounds on Ctrl-C latency, which are printed):

(a) results from 8 Python threads equal the serial results bit for bit;
(b) the thread count changed mid-flight from another thread does not change any result;
(c) fork after the pool was used: the child computes correctly, no deadlock;
(d) Ctrl-C stops a long call promptly with KeyboardInterrupt (and other threads' calls are
    re-run, not corrupted; a SIGINT handler that does not raise lets the call finish);
(e) no Rust panic reaches Python as ``PanicException`` (a BaseException): every binding of
    ``pabi._core`` called with empty arrays and extreme sizes returns or raises an Exception;
    panics become ``pabi.InternalError``;
plus the thread-count bounds of ``set_num_threads`` and that small calls never build the pool.

Everything that could hang or abort runs in a child process with a timeout.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import pabi
import pabi._core as core

PYTHONPATH = str(Path(pabi.__file__).resolve().parents[1])


def run_child(code: str, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": PYTHONPATH, "RUST_BACKTRACE": "0"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True, text=True, timeout=timeout, env=env,
    )


# ---------------------------------------------------------------------------------------------
# the heavy-call mix shared by (a), (b), (c)

RNG = np.random.default_rng(7)
N = 60_000  # above the parallel threshold of the θ drivers (2^15)
EPS = RNG.uniform(0.0, 8.0, N)
R = 10 ** RNG.uniform(-2.0, 1.0, N)
SIG = RNG.uniform(0.5, 4.0, 20_000)
DIAM = RNG.uniform(0.1, 3.0, 2_000)


def heavy_mix() -> list[np.ndarray]:
    return [
        pabi.theta(EPS, R),
        pabi.theta_complement(EPS, R, log=True),
        pabi.gaussian_tail(R - 3.0),
        pabi.pnsgd_delta(eps=EPS[:20_000], noise_scale=SIG, max_grad_norm=1.0, lr=0.1, diameter=1.0,
                         steps=1000, ordering="shuffled"),
        pabi.pnsgd_calibrate_noise_scale(eps=1.0, delta=1e-6, max_grad_norm=1.0, lr=0.1, diameter=DIAM,
                                   steps=500, ordering="shuffled"),
        pabi.online_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=SIG),
        np.asarray(pabi.sampled_gaussian_rdp(np.linspace(1.5, 64.0, 5_000), sample_rate=0.01, noise_multiplier=1.1)),
    ]


def assert_bit_identical(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()


@pytest.fixture(scope="module")
def serial_mix():
    before = pabi.get_num_threads()
    try:
        pabi.set_num_threads(1)
        return heavy_mix()
    finally:
        pabi.set_num_threads(before)


def test_eight_python_threads_give_the_serial_results_bit_for_bit(serial_mix):
    results: dict[int, list[list[np.ndarray]]] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            results[k] = [heavy_mix() for _ in range(2)]
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    assert sorted(results) == list(range(8))
    for runs in results.values():
        for got in runs:
            assert_bit_identical(got, serial_mix)


def test_thread_count_changed_mid_flight(serial_mix):
    before = pabi.get_num_threads()
    stop = threading.Event()
    errors: list[BaseException] = []
    outputs: list[list[np.ndarray]] = []

    def toggle() -> None:
        k = 0
        while not stop.is_set():
            pabi.set_num_threads([1, 2, 3, 8, 5][k % 5])
            k += 1
            time.sleep(0.002)

    def work() -> None:
        try:
            for _ in range(3):
                outputs.append(heavy_mix())
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    toggler = threading.Thread(target=toggle)
    workers = [threading.Thread(target=work) for _ in range(3)]
    toggler.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=300)
    stop.set()
    toggler.join(timeout=10)
    pabi.set_num_threads(before)
    assert not errors, errors
    assert len(outputs) == 9
    for got in outputs:
        assert_bit_identical(got, serial_mix)


def _child_after_fork(queue) -> None:  # runs in the forked child
    queue.put([a.tobytes() for a in heavy_mix()])


def test_fork_after_the_pool_was_used(serial_mix):
    pabi.set_num_threads(2)
    assert_bit_identical(heavy_mix(), serial_mix)  # the parent's pool now has live workers
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child_after_fork, args=(queue,))
    proc.start()
    try:
        got = queue.get(timeout=120)
    finally:
        proc.join(timeout=60)
        if proc.is_alive():  # pragma: no cover - a deadlock
            proc.kill()
    assert proc.exitcode == 0
    assert got == [a.tobytes() for a in serial_mix]
    # and the parent still computes with its pool
    assert_bit_identical(heavy_mix(), serial_mix)


# ---------------------------------------------------------------------------------------------
# set_num_threads and the pool

def test_set_num_threads_bounds_and_types():
    before = pabi.get_num_threads()
    try:
        pabi.set_num_threads(np.int64(3))
        assert pabi.get_num_threads() == 3
        pabi.set_num_threads(np.uint8(2))
        assert pabi.get_num_threads() == 2
        pabi.set_num_threads(1024)
        assert pabi.get_num_threads() == 1024
        for bad in (0, -1, 1025, 5000, 2**63, 2**200, np.int64(-5)):
            with pytest.raises(pabi.DomainError, match="threads must be an integer >= 1 and <= 1024") as e:
                pabi.set_num_threads(bad)
            assert e.value.param == "threads"
        for bad in (True, False, np.bool_(True), 2.0, 1.5, "4", None):
            with pytest.raises(TypeError):
                pabi.set_num_threads(bad)
        # the binding checks the range itself (no overflow, no huge pool)
        for bad in (0, -3, 1025, 2**63, 2**64 + 5, 2**100):
            with pytest.raises(pabi.DomainError) as e:
                core.set_num_threads(bad)
            assert e.value.param == "threads"
        assert pabi.get_num_threads() == 1024
    finally:
        pabi.set_num_threads(before)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads via /proc")
def test_small_calls_never_build_the_pool():
    # the issue: after set_num_threads(5000) a scalar pnsgd_delta took 25 s (the pool was built
    # by every call before the size check); now scalar and small calls never spawn a thread
    out = run_child("""
        import os, numpy as np, pabi
        def threads(): return len(os.listdir("/proc/self/task"))
        pabi.set_num_threads(64)
        t0 = threads()
        print(pabi.pnsgd_delta(eps=1.0, noise_scale=2.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=100,
                               ordering="shuffled") > 0)
        pabi.theta(np.ones(1000), np.ones(1000)); pabi.sampled_gaussian_rdp(2.0, sample_rate=0.01, noise_multiplier=1.0)
        pabi.pnsgd_calibrate_noise_scale(eps=1.0, delta=1e-6, max_grad_norm=1.0, lr=0.1, diameter=1.0,
                                   steps=100, ordering="shuffled")
        print(threads() - t0)
        pabi.theta(np.ones(100_000), np.ones(100_000))
        print(threads() - t0)
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "0", "64"]


# ---------------------------------------------------------------------------------------------
# Ctrl-C

CTRL_C_CHILD = """
import signal, sys, threading, time, numpy as np, pabi
# Python's own Ctrl-C handler whatever the parent did: a test run launched in the background of
# a non-interactive shell inherits SIGINT ignored, and an ignored SIGINT stays ignored in the
# child (the test then waited out its timeout instead of measuring anything)
signal.signal(signal.SIGINT, signal.default_int_handler)
kind = sys.argv[1]
if kind == "theta":
    e = np.linspace(0.0, 5.0, 20_000_000); r = np.linspace(0.01, 10.0, 20_000_000)
    f = lambda: pabi.theta(e, r)
elif kind == "theta_one_thread":
    pabi.set_num_threads(1)
    e = np.linspace(0.0, 5.0, 20_000_000); r = np.linspace(0.01, 10.0, 20_000_000)
    f = lambda: pabi.theta(e, r)
elif kind == "pnsgd_calibrate":
    d = np.linspace(0.5, 5.0, 300_000)  # ~290 chunks of work
    f = lambda: pabi.pnsgd_calibrate_noise_scale(eps=1.0, delta=1e-6, max_grad_norm=1.0, lr=0.1,
                                           diameter=d, steps=1000, ordering="shuffled")
elif kind == "online":
    s = np.linspace(1.0, 3.0, 20_000_000)
    f = lambda: pabi.online_delta(1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=s)
elif kind == "dpsgd":
    f = lambda: pabi.dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=100_000, grid_step=1e-5)
elif kind == "kov_scalar":  # one scalar call of ~0.6 s: ~57 KOV sums of sqrt(1e9) terms (the
    # chunk count does not depend on k: 56 at k = 1e10, a call 7x as long)
    f = lambda: pabi.approx_dp_composition_epsilon(1.0, 0.0, 1e9, 1e-5)
elif kind == "online_limit":  # 40 limits of ~0.05 s each (2^18 direct terms, then the certified
    # tail); a scalar call of the family is no longer long (issue 13: the slow paths at huge eps
    # took ~2-4 s, now <= 0.3 s), so an array of indices stands in
    f = lambda: pabi.online_gaussian_delta_limit_upper(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0,
                                                       index=np.arange(1, 41), c1=100.0, c2=100.0,
                                                       decay=1.5, log=True)
# one full call first: its poll counts (work units: chunks begun) are the yardstick; it is the
# second call (the first fills the caches, e.g. the DP-SGD single-step PLD cache, whose misses
# poll more), so that it counts what every later call of the loop does
f()
pabi._core._interrupt_stats(True)
f()
full = pabi._core._interrupt_stats()[0]
side_ok = []
if kind == "theta":  # a second Python thread computing meanwhile: not corrupted by Ctrl-C
    x = np.linspace(0.0, 3.0, 200_000)
    want = pabi.theta(x, x + 1.0)
    stop = threading.Event()
    def side():
        while not stop.is_set():
            side_ok.append(bool(np.array_equal(pabi.theta(x, x + 1.0), want)))
    th = threading.Thread(target=side, daemon=True); th.start()
print("ready", flush=True)
try:
    while True:
        pabi._core._interrupt_stats(True)
        f()
except KeyboardInterrupt:
    n_go, n_stop, n_after = pabi._core._interrupt_stats()
    print("stats", full, n_go, n_stop, n_after, pabi.get_num_threads(), flush=True)
    if kind == "theta":
        stop.set(); th.join()  # its call in flight during the Ctrl-C completes correctly
        print("side", len(side_ok), all(side_ok), flush=True)
    sys.exit(3)
"""


# Calls that end in a phase without interrupt polls (a request arriving there is seen when the
# call returns: discarded, KeyboardInterrupt): online_delta's suffix scan, pass 2 (O(n) additions
# after the factor pass); dpsgd_epsilon's last ≈ 25 % (after ~1.6e6 polls; found with issue 13,
# outside the online code).
UNPOLLED_TAIL = ("online",)  # dpsgd polls in its tail since the PLD speed work (FFTs, powering, suffix sums)


@pytest.mark.parametrize("kind", ["theta", "theta_one_thread", "pnsgd_calibrate", "online", "dpsgd",
                                  "kov_scalar", "online_limit"])
def test_ctrl_c_stops_a_long_call_promptly(kind):
    """Ctrl-C mid-call raises KeyboardInterrupt, and promptly in units of WORK, not seconds (no
    timing assertion): the core counts its interrupt polls (`_core._interrupt_stats`, a test
    hook; every long loop polls once per chunk of work and a chunk starts only after a poll).
    The interrupted call (1) saw the request at one of its own polls (stopped mid-flight, not
    run to the end and discarded), (2) began at most one chunk per thread after the request
    (a poll racing the flag), and (3) had begun fewer chunks than a full call, which has at
    least 4× as many chunks as there are threads: what can still run after a request (the chunks
    in flight plus the racing ones) is at most half a call. Where a call ends in a phase without
    polls (UNPOLLED_TAIL) a request landing there is seen only when the call returns: then all
    its chunks had run. The communicate timeout is a hang guard only."""
    env = {**os.environ, "PYTHONPATH": PYTHONPATH}
    proc = subprocess.Popen([sys.executable, "-c", CTRL_C_CHILD, kind], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # inside the loop of long calls (any moment of a call will do)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:  # pragma: no cover
            proc.kill()
    assert proc.returncode == 3, err
    lines = dict(line.split(" ", 1) for line in out.strip().splitlines())
    full, go, stop, after, threads = map(int, lines["stats"].split())
    print(f"Ctrl-C ({kind}): full call {full} chunks, interrupted after {go}, {after} begun after "
          f"the request, {stop} polls saw it, {threads} threads")
    workers = threads + 1  # the pool and the calling thread
    if after == -1:
        # the signal landed between two calls: Python raised KeyboardInterrupt itself and the
        # core never saw a request (nothing to measure, and nothing was late)
        assert stop == 0
        return
    if kind == "theta":  # the second Python thread's call in flight completed correctly
        count, ok = lines["side"].split()
        assert int(count) >= 1 and ok == "True"
    else:  # (theta: a second Python thread computes meanwhile, its polls and chunks count too)
        assert 0 <= after <= workers  # (2)
        assert full >= 4 * workers
    if stop == 0:
        # (1) fails only in a race: the request came after the call's last poll, so every chunk
        # had begun (the request landed during the final chunk, or in a final phase without
        # polls, UNPOLLED_TAIL) and nothing ran late; ~1 chunk in 2,400 for theta, whose count
        # also holds the second thread's chunks (at least the full call's)
        assert (go >= full) if kind == "theta" else (go == full), (go, full, kind)
    elif kind != "theta":
        assert go < full  # (3)


def test_a_sigint_handler_that_does_not_raise_lets_the_call_finish():
    out = run_child("""
        import os, signal, threading, numpy as np, pabi
        e = np.linspace(0.0, 5.0, 6_000_000); r = np.linspace(0.01, 10.0, 6_000_000)
        want = pabi.theta(e, r)
        seen = []
        signal.signal(signal.SIGINT, lambda *a: seen.append(1))
        # a signal during the call (sent from another thread, like a terminal's Ctrl-C)
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
        got = [pabi.theta(e, r) for _ in range(10)]
        print(len(seen), all(np.array_equal(g, want) for g in got))
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "True"]


def test_sigint_handler_is_restored_after_each_call():
    # scalar calls do not touch the handler; long calls put Python's back afterwards
    h = signal.getsignal(signal.SIGINT)
    pabi.theta(EPS, R)
    pabi.theta(0.5, 1.0)
    assert signal.getsignal(signal.SIGINT) is h
    out = run_child("""
        import signal, numpy as np, pabi
        pabi.theta(np.ones(100_000), np.ones(100_000))
        signal.raise_signal(signal.SIGINT)
    """)
    assert out.returncode != 0 and "KeyboardInterrupt" in out.stderr


# ---------------------------------------------------------------------------------------------
# no PanicException

def test_panics_become_internal_error():
    assert issubclass(pabi.InternalError, RuntimeError)
    assert pabi.InternalError is core.InternalError
    for place in ("caller", "pool"):
        with pytest.raises(pabi.InternalError, match="please report it.*test panic"):
            core._panic_for_tests(place)
    # the pool survives a panic in a worker
    assert pabi.theta(EPS, R).tobytes() == pabi.theta(EPS, R).tobytes()


def test_issue_examples_raise_exceptions_or_return_empty():
    E = np.zeros(0)
    common = dict(max_grad_norm=1.0, lr=0.1, diameter=1.0, ordering="fixed")
    # empty n / index: an empty result (numpy broadcasting with a size-0 axis), was a panic
    assert pabi.pnsgd_delta(eps=1.0, noise_scale=1.0, steps=E, index=1, **common).shape == (0,)
    assert pabi.pnsgd_delta(eps=1.0, noise_scale=1.0, steps=10, index=E, **common).shape == (0,)
    assert pabi.pnsgd_epsilon(delta=1e-5, noise_scale=1.0, steps=E, index=1, **common).shape == (0,)
    assert pabi.pnsgd_calibrate_noise_scale(eps=1.0, delta=1e-5, steps=E, index=1, **common).shape == (0,)
    one = np.ones(1)
    for fn in (core.pnsgd_rdp_delta,):
        assert fn(one, one, one, one, E, one, None, np.zeros(1), False, 0).shape == (0,)
    assert core.pnsgd_rdp_epsilon(np.full(1, 1e-5), one, one, one, E, one, None,
                                  np.zeros(1), 0).shape == (0,)
    assert core.pnsgd_rdp_slope(one, one, one, E, one, None, np.zeros(1), 0).shape == (0,)
    # a length that no argument has is refused before any allocation
    with pytest.raises(ValueError, match="len = 1099511627776 matches no argument"):
        core.pnsgd_delta(one, one, one, one, one, one, None, None, np.zeros(1),
                         "gaussian", "shuffled", "corrected", False, 2**40)
    with pytest.raises(ValueError, match="steps has length 0, expected 1$"):
        core.pnsgd_delta(one, one, one, one, one, E, None, None, np.zeros(1),
                         "gaussian", "shuffled", "corrected", False, 1)
    # capacity overflows: an Exception (MemoryError / DomainError / InternalError), never a
    # BaseException-only PanicException
    for call in (lambda: pabi.holder_orders(2.0, holder_exponent=2.0, steps=2**63),
                 lambda: pabi.optimal_shifts(2**63, initial_distance=1.0, map_difference=1.0, step_lipschitz=0.5),
                 lambda: core.rdp_compose(one, 2**63, 2)):
        with pytest.raises(Exception) as e:
            call()
        assert type(e.value).__name__ != "PanicException"


FUZZ_CHILD = r"""
import inspect, sys, numpy as np
import pabi._core as core

class Sentinel: pass
STR = {"noise": "gaussian", "ordering": "shuffled", "variant": "corrected", "direction": "remove"}
KINDS = ["arr", "float", "int", "bool", "str", "setup"]
mode = sys.argv[1]

def value(kind, name, mode):
    if kind == "arr": return np.zeros(0) if mode == "empty" else np.ones(1)
    if kind == "float": return 1.0
    if kind == "int": return {"empty": 0, "zero": 0, "big63": 2**63, "big64": 2**64 - 1}[mode]
    if kind == "bool": return False
    if kind == "setup":  # the schedules' setup arrays (lr, diameter, smoothness, strong_convexity)
        a = value("arr", name, mode)
        return (a, a, None, a)
    return STR.get(name, "corrected")

def infer(fn):
    # the type of each parameter, in order: a candidate is accepted when the TypeError (if any)
    # is about a later parameter (which holds a Sentinel)
    params = list(inspect.signature(fn).parameters)
    kinds = []
    for i, p in enumerate(params):
        for k in KINDS:
            args = ([value(kk, q, "empty") for kk, q in zip(kinds, params)] + [value(k, p, "empty")]
                    + [Sentinel()] * (len(params) - i - 1))
            try:
                fn(*args)
            except TypeError as e:
                if "Sentinel" not in str(e):
                    continue
            except BaseException:
                pass
            kinds.append(k)
            break
        else:
            return params, None
    return params, kinds

def targets():
    for n in sorted(dir(core)):
        o = getattr(core, n)
        if n.startswith("__") or n in ("DomainError", "InternalError", "_panic_for_tests"):
            continue
        if isinstance(o, type):
            for m, v in sorted(vars(o).items()):
                if isinstance(v, staticmethod) or type(v).__name__ == "builtin_function_or_method":
                    yield f"{n}.{m}", getattr(o, m)
        elif callable(o):
            yield n, o

def outcome(call):
    try:
        call()
        return "ok"
    except Exception as e:
        return "Exception:" + type(e).__name__
    except BaseException as e:
        return "BASE:" + type(e).__name__

for name, fn in targets():
    print("start", name, flush=True)
    if name == "pld_compose":
        p = core._Pld.eps_delta(1.0, 1e-6, 1e-3)
        big = {"empty": 0, "zero": 0, "big63": 2**63, "big64": 2**64 - 1}[mode]
        print("done", name, outcome(lambda: fn([])), outcome(lambda: fn([(p, big)])), flush=True)
        c = fn([(p, 2)])
        E = np.zeros(0) if mode == "empty" else np.ones(1)
        print("done _Composition", outcome(lambda: c.delta(E)), outcome(lambda: c.epsilon(E)),
              outcome(c.budget), flush=True)
        continue
    if name == "first_ok":  # its predicate is a Python callable (the setups' calibrations)
        print("done", name, outcome(lambda: fn(lambda x: x >= 1.0, 1.0)), outcome(lambda: fn(lambda x: 1 / 0, 1.0)),
              outcome(lambda: fn(None, 1.0)), flush=True)
        continue
    if name in ("pnsgd_stepwise_delta", "pnsgd_stepwise_epsilon"):  # the per-step arguments: one tuple
        A = np.zeros(0) if mode == "empty" else np.ones(1)
        big = float({"empty": 0, "zero": 0, "big63": 2**63, "big64": 2**64 - 1}[mode])
        flags = (False, True) if name.endswith("delta") else (True,)
        arrays = (A, A, A, A, None, A, A, big, "gaussian", "random_stop", None, None)
        source = (None,) * 7 + (None, "gaussian", "shuffled", lambda a, b: (A,) * 6, big)
        print("done", name, outcome(lambda: fn(A, arrays, *flags)), outcome(lambda: fn(A, source, *flags)),
              outcome(lambda: fn(A, (1, 2), *flags)), flush=True)
        continue
    params, kinds = infer(fn)
    if kinds is None:
        print("done", name, "untyped", flush=True)
        continue
    args = [value(k, p, mode) for k, p in zip(kinds, params)]
    print("done", name, outcome(lambda: fn(*args)), flush=True)
print("finished", flush=True)
"""


@pytest.mark.parametrize("mode", ["empty", "zero", "big63", "big64"])
def test_every_binding_with_empty_arrays_and_extreme_sizes_raises_only_exceptions(mode):
    try:
        out = run_child(FUZZ_CHILD, mode, timeout=240)
    except subprocess.TimeoutExpired as e:  # pragma: no cover - a hang: name the function
        started = [ln for ln in (e.stdout or b"").decode().splitlines() if ln.startswith("start")]
        pytest.fail(f"hang in {started[-1:]}")
    lines = out.stdout.splitlines()
    started = [ln.split()[1] for ln in lines if ln.startswith("start")]
    assert out.returncode == 0 and lines[-1] == "finished", (
        f"child died (rc {out.returncode}) in {started[-1:]}: {out.stderr[-500:]}")
    done = [ln for ln in lines if ln.startswith("done")]
    assert len(done) >= 80  # every binding was reached
    bad = [ln for ln in done if "BASE:" in ln or "untyped" in ln]
    assert not bad, bad


def test_every_binding_calls_the_core_through_the_guard():
    # static companion of the fuzz test above: every #[pyfunction] / #[pymethods] body of the
    # binding reaches the core through guarded() or a helper built on it (args.rs), except
    # the field getters of the PLD classes (no core call)
    import re

    src = Path(__file__).resolve().parents[1] / "rust" / "pabi-py" / "src"
    # (with_steps: the per-step bindings' guarded call, pnsgd.rs)
    helper = re.compile(r"\b(guarded|detach|array|fill3?|map|map_long|map_outputs|\$map|stepwise|with_steps)\(")
    rows = []
    for f in sorted(src.glob("*.rs")):
        s = f.read_text()
        for m in re.finditer(r"#\[pyfunction\]\s*(?:#\[[^\]]*\]\s*)*fn (\w+)", s):
            pre = s[:m.start()]
            if pre.rfind("macro_rules!") > pre.rfind("\n}\n"):
                continue  # inside a macro definition: checked through its invocations
            body = s[m.end(): s.find("\n}\n", m.end())]
            rows.append((m.group(1), bool(helper.search(body))))
        for m in re.finditer(r"^elementwise!\(\s*(?:///[^\n]*\s*)*(\w+),\s*fn (\w+)", s, re.M):
            rows.append((m.group(2), m.group(1) in ("map", "map_long", "map_outputs")))
        for m in re.finditer(r"^(?:amplification|comparison)! \{\s*(?:///[^\n]*\s*)*fn (\w+)",
                             s, re.M):
            body = s[m.end(): s.find("\n}\n", m.end())]
            rows.append((m.group(1), bool(helper.search(body))))
        for m in re.finditer(r"^(?:unary|binary)!\((\w+)\);", s, re.M):
            rows.append((m.group(1), "guarded(py, xs.len() >= LONG_LEN, || batch::$name(" in s))
        for blk in re.finditer(r"#\[pymethods\]\s*impl \w+ \{(.*?)\n\}\n", s, re.S):
            for m in re.finditer(r"\n    (?:#\[[^\]]*\]\s*)*fn (\w+)[^{]*\{(.*?)\n    \}",
                                 blk.group(1), re.S):
                body = m.group(2)
                getter = "#[getter]" in m.group(0) or m.group(1) == "budget"
                rows.append((m.group(1), getter or bool(helper.search(body) or "self.each(" in body)))
    names = [n for n, _ in rows]
    module = [n for n in dir(core) if callable(getattr(core, n))
              and not isinstance(getattr(core, n), type) and not n.startswith("__")]
    assert set(module) <= set(names)  # every module function was found in the sources
    assert [n for n, good in rows if not good] == []
