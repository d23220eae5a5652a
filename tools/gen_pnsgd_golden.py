"""Write the PNSGD golden file rust/pabi-core/tests/golden/pnsgd_cases.csv from pabi.reference.

Rows: kind,noise,order,x,sigma,lipschitz,lr,diameter,n,index,smoothness,strong_convexity,value,cond
— x is ε (or δ for rdp_epsilon), index/smoothness = "" when absent, value the mpmath result at 40
significant digits (dps = 50 inside), cond = |(n − i)·ln B| for the fixed order (the condition
number of δ with respect to 1 − B), else 0. Used by rust/pabi-core/tests/pnsgd_golden.rs (no
Python needed to run cargo test). Deterministic (fixed seed).

    python3 tools/gen_pnsgd_golden.py
"""
import csv
import math
import pathlib
import random
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
import mpmath as mp  # noqa: E402

from pabi import reference as ref  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "rust/pabi-core/tests/golden/pnsgd_cases.csv"


def cases(rnd, count):
    for _ in range(count):
        noise = rnd.choice(["gaussian", "laplace"])
        order = rnd.choice(["fixed", "fixed", "shuffled", "random_stop", "as_published"])
        n = max(1, int(10 ** rnd.uniform(0, 15)))
        if rnd.random() < 0.5:
            i = rnd.randint(1, n)
        else:
            i = max(1, n - int(10 ** rnd.uniform(0, math.log10(n) if n > 1 else 0)))
        kw = dict(noise=noise, noise_scale=10 ** rnd.uniform(-1, 1), max_grad_norm=10 ** rnd.uniform(-1, 0.5),
                  lr=10 ** rnd.uniform(-2, 0), diameter=10 ** rnd.uniform(-1, 1.3), steps=n,
                  smoothness=None, strong_convexity=0.0)
        if rnd.random() < 0.3:
            beta = 10 ** rnd.uniform(-1, 1)
            rho = beta * rnd.uniform(0, 1)
            kw.update(smoothness=beta, strong_convexity=rho, lr=min(kw["lr"], 1.99 / (beta + rho)))
        kw["ordering"], kw["index"], kw["variant"] = {
            "fixed": ("fixed", i, "corrected"),
            "shuffled": ("shuffled", None, "corrected"),
            "random_stop": ("random_stop", i if rnd.random() < 0.7 else None, "corrected"),
            "as_published": ("random_stop", None, "as_published"),
        }[order]
        yield rnd.uniform(0, 6), kw, order


def fmt(v):
    return "" if v is None else repr(float(v)) if not isinstance(v, int) else str(v)


def main():
    rnd = random.Random(20261122)
    rows = []
    for eps, kw, label in cases(rnd, 400):
        d = ref.pnsgd_delta(eps, **kw)
        cond = 0.0
        if kw["ordering"] == "fixed":
            _, b, _ = ref.pnsgd_factors(eps, noise=kw["noise"], noise_scale=kw["noise_scale"], max_grad_norm=kw["max_grad_norm"],
                                        lr=kw["lr"], diameter=kw["diameter"], smoothness=kw["smoothness"],
                                        strong_convexity=kw["strong_convexity"], dps=20)
            cond = float(abs((kw["steps"] - kw["index"]) * mp.log(b))) if b > 0 else 0.0
        common = [kw["noise"], label, repr(eps), repr(kw["noise_scale"]), repr(kw["max_grad_norm"]), repr(kw["lr"]),
                  repr(kw["diameter"]), str(kw["steps"]), fmt(kw["index"]), fmt(kw["smoothness"]),
                  repr(kw["strong_convexity"])]
        rows.append(["delta", *common, mp.nstr(d, 40), f"{cond:.3g}"])
        ld = mp.log(d) if d > 0 else mp.ninf
        rows.append(["log_delta", *common, mp.nstr(ld, 40) if d > 0 else "-inf", f"{cond:.3g}"])
    for _ in range(120):  # RDP comparison bound (000 Prop. 1)
        n = max(1, int(10 ** rnd.uniform(0, 12)))
        i = rnd.randint(1, n) if rnd.random() < 0.5 else max(1, n - rnd.randint(0, 50))
        kw = dict(noise_scale=10 ** rnd.uniform(-1, 1), max_grad_norm=10 ** rnd.uniform(-1, 0.5),
                  lr=10 ** rnd.uniform(-3, 0), steps=n, index=i, smoothness=None, strong_convexity=0.0)
        if rnd.random() < 0.6:
            beta = 10 ** rnd.uniform(-1, 1)
            kw.update(smoothness=beta, strong_convexity=beta * 10 ** rnd.uniform(-10, 0))
            kw["lr"] = min(kw["lr"], 1.99 / (beta + kw["strong_convexity"]))
        eps = 10 ** rnd.uniform(-2, 1.5)
        common = ["gaussian", "fixed", None, repr(kw["noise_scale"]), repr(kw["max_grad_norm"]), repr(kw["lr"]), "0.0",
                  str(n), str(i), fmt(kw["smoothness"]), repr(kw["strong_convexity"])]
        ld = ref.pnsgd_rdp_delta(eps, **kw, log=True)
        common[2] = repr(eps)
        rows.append(["rdp_log_delta", *common, mp.nstr(ld, 40), "0"])
        if ld > -700:  # δ_B a normal double (mp.exp of a huge negative log is very slow)
            rows.append(["rdp_delta", *common, mp.nstr(mp.exp(ld), 40), "0"])
        delta = 10 ** rnd.uniform(-300, -0.1)
        common[2] = repr(delta)
        rows.append(["rdp_epsilon", *common, mp.nstr(ref.pnsgd_rdp_epsilon(delta, **kw), 40), "0"])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["kind", "noise", "order", "x", "sigma", "lipschitz", "lr", "diameter", "n", "index",
                    "smoothness", "strong_convexity", "value", "cond"])
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {OUT}")


if __name__ == "__main__":
    main()
