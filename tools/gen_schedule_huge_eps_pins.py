"""Recompute the two pinned limits ln δ_∞ at ε = 1e3 of tests/test_schedules.py
(test_online_gauss_limit_at_huge_eps_is_informative_and_consistent pins its value without
recomputing it, as the 16-digit reference takes 20-30 s; test_online_laplace_limit_at_huge_eps_
against_reference recomputes its own) with pabi.reference at 16 and 25 digits, T = 20 and 100:
the pins must equal the 16-digit values to 1e-15 and the two precisions agree. A few minutes.

    python tools/gen_schedule_huge_eps_pins.py
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
import mpmath as mp  # noqa: E402

from pabi import reference as ref  # noqa: E402

PINS = {  # kind: (args after eps, the pinned double in tests/test_schedules.py)
    "gaussian": ((10.0, 0.01, 1.0, 100, 100.0, 100.0, 1.5), -3.9326696928443671e94),
    "laplace": ((10.0, 0.1, 1.0, 3, 1.0, 1e250, 1.5), -1.5755623716758827e134),
}


def main():
    for kind, (args, pin) in PINS.items():
        v16 = ref.online_schedule_log_delta_limit(kind, 1e3, *args, dps=16, T=20)
        v25 = ref.online_schedule_log_delta_limit(kind, 1e3, *args, dps=25, T=100)
        rel = abs(float(v16) / pin - 1)
        print(f"{kind}: 16 digits {mp.nstr(v16, 17)}  25 digits {mp.nstr(v25, 26)}  pin {pin!r}  rel {rel:.1e}")
        assert rel <= 1e-15 and abs(v16 / v25 - 1) < 1e-15


if __name__ == "__main__":
    main()
