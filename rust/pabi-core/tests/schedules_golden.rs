//! Golden tests of the schedules against mpmath (tests/golden/schedules.csv, written by
//! tools/gen_schedules_golden.py from pabi.reference at 50 digits). No Python needed.
//!
//! Contract: δ-type values never below the exact value and within
//! max(1e-12, 6·INFLATE·|ln δ|) relative (every log-factor of the engine carries its outward
//! rounding INFLATE; a δ = e^{−S} inherits it on S); noise levels within 1e-14 (to nearest).

use pabi_core::num::INFLATE;
use pabi_core::schedules::online::OnlineSchedule;
use pabi_core::schedules::{self as sc, Noise, Problem};

const GOLDEN: &str = include_str!("golden/schedules.csv");

#[test]
fn schedules_golden() {
    let mut worst: std::collections::BTreeMap<String, f64> = Default::default();
    for line in GOLDEN.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let v: Vec<f64> = f[1..].iter().map(|s| s.parse().unwrap()).collect();
        let (eps, l, lr, d, n, i, c1, c2, a, exact) =
            (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]);
        let p = Problem::new(eps, l, lr, d, None, 0.0).unwrap();
        let func = f[0];
        let (got, directed) = match func {
            "laplace_schedule_delta" => (sc::laplace_schedule_delta(&p, n, c1, c2), true),
            "gauss_schedule_delta" => (sc::gauss_schedule_delta(&p, n, c1, c2), true),
            "laplace_schedule_scale" => (sc::laplace_schedule_scale(&p, n, c1, c2), false),
            "gauss_schedule_sigma" => (sc::gauss_schedule_sigma(&p, n, c1, c2), false),
            "laplace_schedule_delta_star" => {
                (sc::schedule_delta_star(Noise::Laplace, eps, c1), true)
            }
            "gauss_schedule_delta_star" => {
                (sc::schedule_delta_star(Noise::Gaussian, eps, c1), true)
            }
            _ => {
                let kind = if func.contains("laplace") {
                    Noise::Laplace
                } else {
                    Noise::Gaussian
                };
                let s = OnlineSchedule::new(kind, p, c1, c2, a).unwrap();
                let lg = if func.ends_with("_limit") {
                    s.log_delta_limit(i)
                } else if func.ends_with("_star_upper") {
                    s.log_delta_star_upper(i, false)
                } else {
                    s.log_delta(n, i)
                };
                (lg.map(|x| pabi_core::num::up(x.exp())), true)
            }
        };
        let got = got.unwrap_or_else(|e| panic!("{line}: {e}"));
        if exact < f64::MIN_POSITIVE {
            assert!(got <= 1e-300, "{line}: {got:e}");
            continue;
        }
        let err = (got - exact) / exact;
        let tol = if directed {
            1e-12_f64.max(6.0 * INFLATE * exact.ln().abs())
        } else {
            1e-14
        };
        assert!(err.abs() <= tol, "{line}: got {got:e}, error {err:e}");
        if directed {
            assert!(got >= exact, "{line}: {got:e} below the exact value");
        }
        let w = worst.entry(func.to_string()).or_insert(0.0);
        *w = w.max(err.abs());
    }
    for (k, v) in worst {
        eprintln!("{k:32} worst relerr {v:.2e}");
    }
}
