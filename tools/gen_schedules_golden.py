"""Write rust/pabi-core/tests/golden/schedules.csv from pabi.reference (mpmath, 50 digits).

Rows: func,eps,lipschitz,lr,diameter,n,index,c1,c2,decay,exact — inputs are exact doubles
(repr), unused ones 0; exact at 40 significant digits. Read by
rust/pabi-core/tests/schedules_golden.rs (cargo test needs no Python). Deterministic (fixed
seed); takes about a minute.

    python3 tools/gen_schedules_golden.py
"""
import math
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
import mpmath as mp  # noqa: E402

from pabi.reference import _schedules as S  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden/schedules.csv"
COLS = ("eps", "lipschitz", "lr", "diameter", "n", "index", "c1", "c2", "decay")


def row(func, value, **kw):
    vals = [repr(float(kw.get(c, 0.0))) for c in COLS]
    return ",".join([func, *vals, mp.nstr(value, 40)])


def main():
    rnd = random.Random(20261121)
    rows = []
    for _ in range(40):
        eps = rnd.uniform(0, 4)
        L = 10 ** rnd.uniform(-1, 1.5)
        lr = 10 ** rnd.uniform(-2.5, -0.5)
        D = 10 ** rnd.uniform(-0.5, 0.5)
        n = float(math.floor(10 ** rnd.uniform(0, 15)))
        c1 = 10 ** rnd.uniform(-1, 6)
        c2 = rnd.choice([0.0, 1.5, 2.0, 100.0]) if n / c1 > 1.5 else rnd.uniform(1.1, 100.0)
        kw = dict(eps=eps, lipschitz=L, lr=lr, diameter=D, n=n, c1=c1, c2=c2)
        rows.append(row("laplace_schedule_delta", S.laplace_schedule_delta(eps, L, lr, D, n, c1, c2), **kw))
        rows.append(row("laplace_schedule_scale", S.laplace_schedule_noise_scale(n, c1, c2, lr, D), **kw))
        rows.append(row("gauss_schedule_delta", S.gaussian_schedule_delta(eps, L, lr, D, n, c1, c2), **kw))
        rows.append(row("gauss_schedule_sigma", S.gaussian_schedule_noise_scale(n, c1, c2, lr, D), **kw))
        rows.append(row("laplace_schedule_delta_star", S.laplace_schedule_delta_limit(eps, c1), **kw))
        rows.append(row("gauss_schedule_delta_star", S.gaussian_schedule_delta_limit(eps, c1), **kw))
    # online schedules: Fig. 4 / Fig. 5 parameters and two variations
    pts = [(1.0, 10.0, 0.01, 1.0, 100, 100.0, 100.0, 1.5), (0.5, 10.0, 0.1, 2.0, 3, 5.0, 3.0, 2.0),
           (2.0, 4.0, 0.05, 1.0, 10, 1.0, 10.0, 1.2)]
    for eps, L, lr, D, i, c1, c2, a in pts:
        kw = dict(eps=eps, lipschitz=L, lr=lr, diameter=D, index=i, c1=c1, c2=c2, decay=a)
        for mech, T in (("laplace", 600), ("gaussian", 300)):
            dps = 50
            args = (mech, eps, L, lr, D)
            rows.append(row(f"online_{mech}_limit", S.online_schedule_delta_limit(
                *args, i, c1, c2, a, dps=dps, T=T), **kw))
            rows.append(row(f"online_{mech}_star_upper", S.online_schedule_delta_star_upper(
                *args, i, c1, c2, a, dps=dps), **kw))
            for n in (i + 50, 10 ** 9):
                rows.append(row(f"online_{mech}_delta", S.online_schedule_delta(
                    *args, n, i, c1, c2, a, dps=dps, T=T), **{**kw, "n": n}))
    OUT.write_text("func," + ",".join(COLS) + ",exact\n" + "\n".join(rows) + "\n")
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
