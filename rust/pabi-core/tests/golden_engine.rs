//! Golden tests of the engine against mpmath (tests/golden/engine.csv, written by
//! tools/gen_golden.py from pabi.reference at 50 digits). No Python needed to run them.

use pabi_core::{tail, theta};

const GOLDEN: &str = include_str!("golden/engine.csv");
const MIN_NORMAL: f64 = f64::MIN_POSITIVE;

struct Row {
    func: String,
    x: f64,
    y: f64,
    exact: f64,
}

fn rows() -> Vec<Row> {
    GOLDEN
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Row {
                func: f[0].to_string(),
                x: f[1].parse().unwrap(),
                y: f[2].parse().unwrap(),
                exact: f[3].parse().unwrap(),
            }
        })
        .collect()
}

/// Worst error over the rows of one function; `dir` = +1 means the value must never be below
/// the exact one, −1 never above, 0 no direction. `log` uses the absolute error scaled by
/// max(1, |exact|) (the contract for logarithms).
fn sweep(func: &str, f: impl Fn(f64, f64) -> f64, tol: f64, dir: f64, log: bool) -> f64 {
    let mut worst: f64 = 0.0;
    let mut n = 0;
    for row in rows().iter().filter(|r| r.func == func) {
        let v = f(row.x, row.y);
        assert!(!v.is_nan(), "{func}({}, {}) returned NaN", row.x, row.y);
        let e = row.exact;
        if !log && e.abs() < MIN_NORMAL {
            continue; // the contract is relative accuracy where the value is a normal double
        }
        let err = if log {
            (v - e) / e.abs().max(1.0)
        } else {
            (v - e) / e.abs()
        };
        assert!(
            err.abs() <= tol,
            "{func}({:e}, {:e}) = {v:e}, exact {e:e}, error {err:e}",
            row.x,
            row.y
        );
        assert!(
            dir * (v - e) >= 0.0,
            "{func}({:e}, {:e}) = {v:e} is on the wrong side of {e:e}",
            row.x,
            row.y
        );
        worst = worst.max(err.abs());
        n += 1;
    }
    assert!(n > 100, "{func}: only {n} golden rows");
    println!("{func:>26}: {n:5} rows, worst error {worst:.3e}");
    worst
}

#[test]
fn theta_family_matches_mpmath_and_is_directed() {
    sweep("theta", theta::theta, 1e-13, 1.0, false);
    sweep("log_theta", theta::log_theta, 1e-13, 1.0, true);
    sweep(
        "theta_complement",
        theta::theta_complement,
        1e-13,
        -1.0,
        false,
    );
    sweep(
        "log_theta_complement",
        theta::log_theta_complement,
        1e-13,
        -1.0,
        true,
    );
}

#[test]
fn laplace_theta_matches_mpmath_and_is_directed() {
    sweep("laplace_theta", theta::laplace_theta, 1e-13, 1.0, false);
    sweep(
        "laplace_theta_complement",
        theta::laplace_theta_complement,
        1e-13,
        -1.0,
        false,
    );
}

#[test]
fn gaussian_tail_within_a_few_ulp() {
    // 4 ulp of the value, relative: 4 * 2^-53 (values in [2^k, 2^(k+1)) have ulp <= 2^-52 rel).
    sweep(
        "gaussian_tail",
        |t, _| tail::gaussian_tail(t),
        4.0 * f64::EPSILON,
        0.0,
        false,
    );
    sweep(
        "log_gaussian_tail",
        |t, _| tail::log_gaussian_tail(t),
        4.0 * f64::EPSILON,
        0.0,
        false,
    );
}
