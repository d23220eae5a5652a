"""Write the engine golden file rust/pabi-core/tests/golden/engine.csv from pabi.reference.

Rows: function,x,y,value — x, y are the exact double inputs (repr), value the mpmath result
at 40 significant digits (dps=50 inside). Used by the Rust golden tests (cargo test needs no
Python) and by tests/test_engine_accuracy.py. Deterministic (fixed seed).

    python3 tools/gen_golden.py
"""
import csv
import math
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
import mpmath as mp  # noqa: E402

from pabi import reference as ref  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden/engine.csv"


def logu(rnd, lo, hi):
    return 10 ** rnd.uniform(math.log10(lo), math.log10(hi))


def theta_points(rnd):
    pts = []
    # Issue #2 domain: eps in [0, 700], r in [1e-7, 1e3]; several bands.
    for _ in range(250):
        pts.append((rnd.uniform(0, 10), logu(rnd, 1e-2, 10)))  # benchmark distribution
    for _ in range(250):
        pts.append((rnd.uniform(0, 700), logu(rnd, 1e-7, 1e3)))
    for _ in range(150):
        pts.append((logu(rnd, 1e-12, 1.0), logu(rnd, 1e-7, 1e3)))
    for _ in range(150):  # theta near its largest relative condition number: a in [10, 38]
        a = rnd.uniform(10, 38)
        r = logu(rnd, 1e-3, 10)
        pts.append((r * (a + r / 2), r))
    for _ in range(150):  # around a = -1 and a = 0 (kernel branch points), small r
        a = rnd.choice([-1.0, 0.0]) + rnd.uniform(-1e-3, 1e-3)
        r = logu(rnd, 1e-7, 4)
        e = r * (a + r / 2)
        if e >= 0:
            pts.append((e, r))
    for _ in range(100):  # theta within 1e-300 of 1 (complement regime)
        pts.append((rnd.uniform(0, 50), rnd.uniform(40, 1e3)))
    pts += [(0.0, 1e-7), (0.0, 1.0), (0.0, 1e3), (700.0, 1e-7), (700.0, 1e3), (1.0, 1e-3),
            (1.0, 1.0), (1e-300, 1e-7), (5e-324, 2.0), (1.0, 50.0)]
    return pts


def main():
    rnd = random.Random(20261121)
    rows = []
    for e, r in theta_points(rnd):
        for name in ("theta", "log_theta", "theta_complement", "log_theta_complement"):
            v = getattr(ref, name.removeprefix("log_"))(e, r, dps=50, log=name.startswith("log_"))
            if mp.isfinite(v):
                rows.append((name, repr(float(e)), repr(float(r)), mp.nstr(v, 40)))
    for _ in range(200):
        e, r = rnd.uniform(0, 50), rnd.uniform(0, 60)
        for name in ("laplace_theta", "laplace_theta_complement"):
            rows.append((name, repr(e), repr(r), mp.nstr(getattr(ref, name)(e, r), 40)))
    ts = [rnd.uniform(-40, 40) for _ in range(400)] + [logu(rnd, 40, 1e4) for _ in range(100)]
    ts += [logu(rnd, 1e-10, 1) * rnd.choice([-1, 1]) for _ in range(100)] + [0.0, 37.5, 38.4, -40.0]
    for t in ts:
        rows.append(("gaussian_tail", repr(float(t)), "0", mp.nstr(ref.gaussian_tail(t), 40)))
        rows.append(("log_gaussian_tail", repr(float(t)), "0", mp.nstr(ref.gaussian_tail(t, log=True), 40)))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["function", "x", "y", "value"])
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
