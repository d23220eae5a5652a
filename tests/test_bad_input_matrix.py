"""The bad-input matrix: every public function x every parameter x bad inputs (NaN, ±inf, -0.0,
negative, 0, subnormal, 1e308, huge ints, wrong types, odd arrays, shape mismatches).

Each case runs in a child worker process (``tests/_matrix_worker.py``; restarted when it dies,
killed after a per-case timeout), so a panic, abort or hang fails this test instead of killing
pytest. A case passes when the call returns a value without NaN, or raises DomainError/TypeError
naming the parameter (a plain ValueError naming it for structural inputs: shape mismatches,
empty or 0-d arrays, and option strings). See the worker's docstring for the classes.
"""

from __future__ import annotations

import collections
import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import _matrix_worker as mw  # noqa: E402

#: seconds a case may run before it counts as a hang. The slowest valid cases
#: (online_gaussian_epsilon at steps = 1e308 / 2**63, OnlinePNSGD(steps=None).epsilon) take
#: 4-8 s of wall time on a loaded 2-core machine, which tripped a 10 s limit; the hangs this
#: test exists for ran for minutes (killed at 120 s)
CASE_TIMEOUT = float(os.environ.get("PABI_MATRIX_TIMEOUT", "30"))
WORKER = Path(__file__).with_name("_matrix_worker.py")


class Worker:
    """A long-lived child process running cases; restarted after a crash or a hang."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        env = dict(os.environ, PABI_NUM_THREADS="1", PYTHONFAULTHANDLER="")
        # stderr to a file, not a pipe: panic messages must not fill a pipe and block the worker
        self.err = tempfile.TemporaryFile(mode="w+b")
        self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, text=True,
                                     bufsize=1, env=env)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        self.buf = ""

    def stop(self) -> str:
        """Kill the worker; its stderr tail."""
        if self.proc is None:
            return ""
        proc, self.proc = self.proc, None
        proc.kill()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()  # type: ignore[union-attr]
            except OSError:
                pass
        self.sel.close()
        self.err.seek(0)
        lines = self.err.read().decode(errors="replace").strip().splitlines()
        self.err.close()
        return lines[-1][:200] if lines else ""

    def run(self, case: tuple[str, str, str], timeout: float) -> dict[str, object]:
        if self.proc is None:
            self.start()
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        t0 = time.monotonic()
        try:
            self.proc.stdin.write(json.dumps(case) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return {"outcome": "crash", "named": False, "msg": self.stop(), "time": 0.0}
        fd = self.proc.stdout.fileno()
        while "\n" not in self.buf:
            left = timeout - (time.monotonic() - t0)
            if left <= 0 or not self.sel.select(left):
                self.stop()
                return {"outcome": "hang", "named": False, "msg": f"no answer in {timeout:.0f} s",
                        "time": time.monotonic() - t0}
            chunk = os.read(fd, 1 << 16).decode()
            if not chunk:  # EOF: the worker died
                code = self.proc.poll()
                tail = self.stop()
                return {"outcome": "crash", "named": False, "msg": f"exit {code}: {tail}",
                        "time": time.monotonic() - t0}
            self.buf += chunk
        line, self.buf = self.buf.split("\n", 1)
        res = json.loads(line)
        res["time"] = time.monotonic() - t0
        return res


def verdict(case: tuple[str, str, str], res: dict[str, object]) -> str | None:
    """None if the case passes, else the failure class."""
    name, param, cls = case
    outcome = res["outcome"]
    if outcome == "value":
        return None
    if outcome in ("nan", "other", "crash", "hang"):
        return str(outcome)
    kind = mw.TABLE[name][2].get(param)
    if outcome == "valueerror" and not (cls in mw.STRUCTURAL or cls == "None" or kind == "option"):
        # (None for an optional parameter may legitimately be "missing argument" ValueError)
        return "wrong-exception"
    if not res["named"]:
        return "unnamed"
    return None


#: the matrix runs in this many parts, each its own test with its own worker process (so that
#: pytest-xdist spreads the ~17,000 cases over its processes instead of one holding them all)
SHARDS = 4


def run_matrix(shard: int = 0, shards: int = 1) -> tuple[list[tuple[tuple[str, str, str], dict[str, object]]], float]:
    """The cases ``shard``, ``shard + shards``, ... of the matrix, and the seconds they took."""
    all_cases = mw.cases()[shard::shards]
    worker = Worker()
    results = []
    t0 = time.monotonic()
    try:
        for case in all_cases:
            results.append((case, worker.run(case, CASE_TIMEOUT)))
    finally:
        worker.stop()
    return results, time.monotonic() - t0


def test_harness_classifies_abort_and_hang_and_recovers() -> None:
    worker = Worker()
    try:
        assert worker.run(("__selftest__", "ok", ""), 30)["outcome"] == "value"
        assert worker.run(("__selftest__", "abort", ""), 30)["outcome"] == "crash"
        assert worker.run(("__selftest__", "ok", ""), 30)["outcome"] == "value"  # restarted
        assert worker.run(("__selftest__", "hang", ""), 1)["outcome"] == "hang"
        assert worker.run(("theta", "eps", "nan"), 30)["outcome"] == "domain"
        assert worker.run(("theta", "eps", "str"), 30)["outcome"] == "type"
    finally:
        worker.stop()
    assert verdict(("theta", "eps", "nan"), {"outcome": "nan", "named": True}) == "nan"
    assert verdict(("theta", "eps", "nan"), {"outcome": "valueerror", "named": True}) == "wrong-exception"
    assert verdict(("theta", "eps", "mismatch"), {"outcome": "valueerror", "named": True}) is None
    assert verdict(("theta", "eps", "nan"), {"outcome": "domain", "named": False}) == "unnamed"


def test_every_public_callable_is_in_the_table() -> None:
    import pabi

    names = {n.split("#")[0].split(".")[0] for n in mw.TABLE}
    missing = [n for n in pabi.__all__ if n not in names and n not in mw.NOT_NUMERIC]
    assert missing == []


@pytest.mark.parametrize("shard", range(SHARDS))
def test_bad_input_matrix(shard: int) -> None:
    results, elapsed = run_matrix(shard, SHARDS)
    assert len(results) > 4000  # every part runs its share of the ~17,000 cases
    counts = collections.Counter(str(r["outcome"]) for _, r in results)
    failures = [(c, r, v) for c, r in results if (v := verdict(c, r)) is not None]
    slow = sorted(((float(r["time"]), c) for c, r in results), reverse=True)[:5]
    lines = [f"bad-input matrix, part {shard + 1} of {SHARDS}: {len(results)} cases in {elapsed:.1f} s; outcomes: "
             + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
             "slowest: " + ", ".join(f"{c[0]}({c[1]}={c[2]}) {t:.2f}s" for t, c in slow)]
    print("\n".join(lines))
    if failures:
        by = collections.Counter(v for _, _, v in failures)
        table = [f"{len(failures)} failing cases (" + ", ".join(f"{k} {v}" for k, v in sorted(by.items())) + "):",
                 f"{'function':44} {'parameter':24} {'input':12} {'failure':15} message"]
        for (name, param, cls), r, v in failures:
            table.append(f"{name:44} {param:24} {cls:12} {v:15} {r['msg']}")
        pytest.fail("\n".join(lines + table), pytrace=False)


if __name__ == "__main__":  # a standalone report: python tests/test_bad_input_matrix.py
    res, el = run_matrix()
    fails = [(c, r, v) for c, r in res if (v := verdict(c, r)) is not None]
    print(f"{len(res)} cases, {el:.1f} s, outcomes {collections.Counter(str(r['outcome']) for _, r in res)}")
    print(f"failures {collections.Counter(v for _, _, v in fails)}")
    per_fn: collections.Counter[str] = collections.Counter()
    for c, r in res:
        if r["outcome"] != "hang":
            per_fn[c[0]] += float(r["time"])  # type: ignore[arg-type]
    print("time by function (hangs excluded):", ", ".join(f"{k} {v:.1f}s" for k, v in per_fn.most_common(15)))
    for (name, param, cls), r, v in fails:
        print(f"{name:44} {param:24} {cls:12} {v:15} {r['msg']}")
