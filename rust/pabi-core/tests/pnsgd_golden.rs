//! Golden tests of the PNSGD bounds against mpmath (tests/golden/pnsgd_cases.csv, written by
//! tools/gen_pnsgd_golden.py from pabi.reference at 50 digits). No Python needed.
//!
//! Contract checked: every δ is never below the exact value and within
//! 1e-12 + 4e-14·cond relative (cond = |(n − i) ln B| for the fixed order, the amplification of
//! the engine's ~3e-14 error on 1 − B; 0 otherwise); logs never below and within
//! 1e-13·max(1, |exact|); the RDP bound and its inverse likewise.

use pabi_core::pnsgd::{self, Model, Noise, Order, Params, RdpParams};
use pabi_core::setup::SetupArgs;

const GOLDEN: &str = include_str!("golden/pnsgd_cases.csv");

struct Row<'a> {
    kind: &'a str,
    noise: Noise,
    order: Order,
    x: f64,
    sigma: f64,
    max_grad_norm: f64,
    lr: f64,
    diameter: f64,
    n: f64,
    index: Option<f64>,
    smoothness: Option<f64>,
    strong_convexity: f64,
    exact: f64,
    cond: f64,
}

fn opt(s: &str) -> Option<f64> {
    if s.is_empty() {
        None
    } else {
        Some(s.parse().unwrap())
    }
}

fn rows() -> Vec<Row<'static>> {
    GOLDEN
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let (order, variant) = match f[2] {
                "as_published" => ("random_stop", "as_published"),
                o => (o, "corrected"),
            };
            Row {
                kind: f[0],
                noise: Noise::parse(f[1]).unwrap(),
                order: Order::parse(order, variant).unwrap(),
                x: f[3].parse().unwrap(),
                sigma: f[4].parse().unwrap(),
                max_grad_norm: f[5].parse().unwrap(),
                lr: f[6].parse().unwrap(),
                diameter: f[7].parse().unwrap(),
                n: f[8].parse().unwrap(),
                index: opt(f[9]),
                smoothness: opt(f[10]),
                strong_convexity: f[11].parse().unwrap(),
                exact: f[12].parse().unwrap(),
                cond: f[13].parse().unwrap(),
            }
        })
        .collect()
}

fn eval(r: &Row) -> f64 {
    let (sigma, lip, lr, diam, n, sc) = (
        [r.sigma],
        [r.max_grad_norm],
        [r.lr],
        [r.diameter],
        [r.n],
        [r.strong_convexity],
    );
    let index = r.index.map(|i| [i]);
    let smooth = r.smoothness.map(|b| [b]);
    let mut out = [0.0];
    let x = [r.x];
    if r.kind.starts_with("rdp") {
        let p = RdpParams {
            sigma: &sigma,
            max_grad_norm: &lip,
            lr: &lr,
            n: &n,
            index: index.as_ref().unwrap(),
            smoothness: smooth.as_ref().map(|b| &b[..]),
            strong_convexity: &sc,
        };
        match r.kind {
            "rdp_delta" => pnsgd::rdp_delta(&x, p, &mut out, false),
            "rdp_log_delta" => pnsgd::rdp_delta(&x, p, &mut out, true),
            _ => pnsgd::rdp_epsilon(&x, p, &mut out),
        }
        .unwrap();
        return out[0];
    }
    let p = Params {
        model: Model {
            noise: r.noise,
            order: r.order,
            setup: SetupArgs {
                max_grad_norm: &lip,
                lr: &lr,
                diameter: &diam,
                smoothness: smooth.as_ref().map(|b| &b[..]),
                strong_convexity: &sc,
            },
            n: &n,
            index: index.as_ref().map(|i| &i[..]),
        },
        sigma: &sigma,
    };
    if r.kind == "delta" {
        pnsgd::delta(&x, p, &mut out).unwrap();
    } else {
        pnsgd::log_delta(&x, p, &mut out).unwrap();
    }
    out[0]
}

#[test]
fn golden_pnsgd_against_mpmath() {
    let mut worst = std::collections::BTreeMap::<String, f64>::new();
    let mut count = 0;
    for r in rows() {
        let v = eval(&r);
        let e = r.exact;
        assert!(!v.is_nan(), "{} returned NaN", r.kind);
        let log = r.kind.contains("log");
        let tag = format!("{} x={:e} n={} i={:?}", r.kind, r.x, r.n, r.index);
        if log {
            if e == f64::NEG_INFINITY {
                // exactly −∞ (δ = 0), or a log below −MAX: −MAX is then the upper bound
                assert!(v == e || v == -f64::MAX, "{tag}: {v:e}");
                continue;
            }
            // a δ within 1e-40 of 1 is 1 at the reference's 40 printed digits
            assert!(
                v >= e || (e == 0.0 && v > -1e-30),
                "{tag}: {v:e} below {e:e}"
            );
            let err = (v - e) / e.abs().max(1.0);
            // RDP: c_i far below the double range carries ~|ln c|·1e-15 (its condition number)
            let tol = if r.kind.starts_with("rdp") {
                1e-12
            } else {
                1e-13
            };
            assert!(err <= tol, "{tag}: log error {err:e}");
            let w = worst.entry(r.kind.to_string()).or_insert(0.0);
            *w = w.max(err);
        } else {
            if e < f64::MIN_POSITIVE {
                assert!((0.0..=1e-290).contains(&v), "{tag}: {v:e} vs {e:e}");
                continue;
            }
            let err = (v - e) / e;
            assert!(err >= 0.0, "{tag}: {v:e} below exact {e:e} ({err:e})");
            let tol = if r.kind == "rdp_delta" {
                1e-12 + 1e-13 * (-e.ln())
            } else if r.kind == "rdp_epsilon" {
                // ε ∝ √c, and ln c = k·log1p(−x) + ...: conditioned like |ln ε|
                1e-12 + 4e-15 * e.ln().abs()
            } else {
                1e-12 + 4e-14 * r.cond
            };
            assert!(err <= tol, "{tag}: {v:e} vs {e:e}, error {err:e} > {tol:e}");
            let key = if r.cond > 25.0 {
                format!("{} (cond > 25)", r.kind)
            } else {
                r.kind.to_string()
            };
            let w = worst.entry(key).or_insert(0.0);
            *w = w.max(err);
        }
        count += 1;
    }
    assert!(count > 750, "only {count} rows checked");
    println!("worst relative errors: {worst:?}");
}

#[test]
fn profile_fast_path_equals_general_path() {
    let eps: Vec<f64> = (0..50_000).map(|i| i as f64 * 2e-4).collect();
    let base = |sigma: &'static [f64]| Params {
        model: Model {
            noise: Noise::Gaussian,
            order: Order::Shuffled,
            setup: SetupArgs {
                max_grad_norm: &[1.0],
                lr: &[0.1],
                diameter: &[1.0],
                smoothness: Some(&[4.0]),
                strong_convexity: &[0.5],
            },
            n: &[1e9],
            index: None,
        },
        sigma,
    };
    let mut fast = vec![0.0; eps.len()];
    pnsgd::delta(&eps, base(&[1.7]), &mut fast).unwrap();
    let sig: &'static [f64] = Box::leak(vec![1.7; eps.len()].into_boxed_slice());
    let mut slow = vec![0.0; eps.len()];
    pnsgd::delta(&eps, base(sig), &mut slow).unwrap();
    assert_eq!(fast, slow);
}
