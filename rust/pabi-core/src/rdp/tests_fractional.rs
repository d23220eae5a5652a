//! Tests of the fractional-order sampled Gaussian RDP (series and quadrature).

use super::fractional::*;
use super::fractional_quadrature::*;
use crate::rdp::sampled_gaussian::{ceil_order, sgm_rdp_value, Fractional, SgmTable};

/// Every point of a golden file (α, q, r, exact ε) through the full fractional path: an
/// upper bound of the exact value everywhere; returns (points, worst relative excess over the
/// points with exact > 0, its line, number of points with exact = 0).
fn golden_worst(data: &str) -> (usize, f64, String, usize) {
    let (mut n, mut worst, mut at, mut zeros) = (0, 0.0_f64, String::new(), 0);
    for line in data.lines().skip(1) {
        let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let (a, q, r, exact) = (f[0], f[1], f[2], f[3]);
        let t = SgmTable::new(ceil_order(a), q);
        let v = sgm_rdp_value(a, q, 0.5 * r * r, Fractional::Exact, &t);
        assert!(v >= exact * (1.0 - 1e-19), "below exact at {line}: {v}");
        if exact > 0.0 && (v - exact) / exact > worst {
            worst = (v - exact) / exact;
            at = line.to_string();
        }
        zeros += usize::from(exact == 0.0);
        n += 1;
    }
    (n, worst, at, zeros)
}

/// Golden points at fractional orders (tools/gen_rdp_golden.py --frac: mpmath quadrature
/// of the Rényi divergence, 50 digits): every value an upper bound, and within 1e-12 away
/// from the documented cancellation regime.
#[test]
fn fractional_golden() {
    let (n, worst, at, _) = golden_worst(include_str!("../../tests/golden/rdp_sgm_frac.csv"));
    eprintln!("fractional_golden: {n} points, worst {worst:e} at {at}");
    assert!(
        n >= 200 && worst < 1e-12,
        "{n} points, worst {worst:e} at {at}"
    );
}

/// The cancellation corner (tools/gen_rdp_frac_corner.py: mpmath quadrature, 50 digits):
/// upper bound and within 1e-12 relative everywhere (no exact value there is 0).
#[test]
fn fractional_corner_golden() {
    let (n, worst, at, zeros) =
        golden_worst(include_str!("../../tests/golden/rdp_sgm_frac_corner.csv"));
    assert_eq!(zeros, 0, "the corner has no exact zero");
    eprintln!("fractional_corner_golden: {n} points, worst {worst:e} at {at}");
    assert!(
        n >= 400 && worst < 1e-12,
        "{n} points, worst {worst:e} at {at}"
    );
}

/// The series' error bound is proven: |series − exact| ≤ b at 280 points
/// (tools/gen_rdp_frac_bound.py: exact ln(A − 1) as a double-double, mpmath quadrature at
/// 30 digits), 200 of them in the cancellation corner α ∈ [1.0005, 1.2], q ∈ [0.5, 0.8],
/// r ∈ [1e-3, 0.1], where b was exceeded 5-fold before the exponents c·j(j − 1) were
/// computed without cancellation. The series alone is tested (no quadrature); the full
/// path is checked as an upper bound within 1e-12.
#[test]
fn series_error_bound_holds() {
    use crate::dd::{exp_dd, Dd};
    let data = include_str!("../../tests/golden/rdp_sgm_frac_bound.csv");
    let (mut n, mut worst, mut at) = (0, 0.0_f64, String::new());
    let (mut worst_rel, mut at_rel) = (0.0_f64, String::new());
    for line in data.lines().skip(1) {
        let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let (a, q, c, l_hi, l_lo, rdp) = (f[0], f[1], f[2], f[3], f[4], f[5]);
        let s = series_am1(a, q, c).unwrap();
        // (A − 1)·e^{−scale} to ~1e-30 relative
        let exact = exp_dd(Dd::new(l_hi, l_lo).add_f(-s.scale));
        let diff = exact.add_f(-s.sum).to_f64().abs();
        let ratio = diff / s.bound;
        assert!(
            ratio <= 1.0,
            "bound exceeded at {line}: |error|/b = {ratio}"
        );
        if ratio > worst {
            worst = ratio;
            at = line.to_string();
        }
        let t = SgmTable::new(ceil_order(a), q);
        let v = sgm_rdp_value(a, q, c, Fractional::Exact, &t);
        // rdp is the exact value rounded to 20 digits, then to a double (≤ u/2)
        assert!(v >= rdp * (1.0 - 2.0 * U), "below exact at {line}: {v}");
        let rel = (v - rdp) / rdp;
        assert!(rel < 1e-12, "{rel:e} at {line}");
        if rel > worst_rel {
            worst_rel = rel;
            at_rel = line.to_string();
        }
        n += 1;
    }
    eprintln!("series_error_bound_holds: {n} points, worst |error|/b {worst:.3} at {at}");
    eprintln!("  worst relative error of the returned rdp {worst_rel:e} at {at_rel}");
    assert!(n >= 250);
}

/// Where the series is accurate, the quadrature (forced) agrees with it: two independent
/// methods, each an upper bound with its own error bound.
#[test]
fn quadrature_agrees_with_series() {
    let mut checked = 0;
    for &a in &[1.3, 2.5, 4.5, 10.5] {
        for &q in &[1e-6, 1e-3, 0.05, 0.2, 0.9] {
            for &r in &[0.3, 1.0, 2.0] {
                let c = 0.5 * r * r;
                let s = series_am1(a, q, c).unwrap();
                // compared on ln A = ln(1 + I) (what ε is made of)
                let l_series = crate::num::logspace::softplus_std(s.scale + s.sum.ln());
                if (s.scale + s.bound.ln() - l_series).exp() / l_series > 2e-14 {
                    continue;
                }
                let l_quad = am1_quadrature_up(a, q, c).unwrap().ln_1p();
                let rel = (l_quad - l_series) / l_series;
                assert!(
                    rel > -4e-14 && rel < 5e-14,
                    "{a} {q} {r}: {l_quad} vs {l_series}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 25, "{checked}");
}

#[test]
fn quadrature_pieces() {
    // h(y) = (1 + y)ln(1 + y) − y and E1(w) = e^w − 1 − w on both sides of the switch
    for &y in &[
        -0.9, -0.5000001, -0.4999999, -1e-3, 1e-8, 0.3, 0.4999999, 0.5000001, 7.0,
    ] {
        let (v, rel) = h_plogp(y, f64::ln_1p(y));
        // Taylor polynomial for small |y|, the direct form (≤ ~10 ulp there) elsewhere
        let want = if y.abs() < 1e-2 {
            // Σ_{k≥2} (−y)^k/(k(k − 1)), 10 terms
            (2..12)
                .map(|k| (-y).powi(k) / (k * (k - 1)) as f64)
                .sum::<f64>()
        } else {
            (1.0 + y) * f64::ln_1p(y) - y
        };
        let tol = if y.abs() < 1e-2 { 1e-12 } else { 1e-13 };
        assert!(((v - want) / want).abs() < tol, "h({y}) = {v} vs {want}");
        assert!(rel < 1e-14);
    }
    for &w in &[
        -3.0, -0.5000001, -0.4999999, -1e-5, 1e-9, 0.4999999, 0.5000001, 5.0,
    ] {
        let (v, rel) = expm1_minus_x(w);
        let want = if w.abs() < 1e-3 {
            w * w / 2.0 + w * w * w / 6.0 + w.powi(4) / 24.0 + w.powi(5) / 120.0
        } else {
            f64::exp_m1(w) - w
        };
        assert!(((v - want) / want).abs() < 1e-13, "E1({w}) = {v} vs {want}");
        assert!(rel < 1e-14);
    }
}

#[test]
fn matches_known_values() {
    // values from mpmath quadrature of the Rényi divergence (50 digits)
    let cases = [
        (1.5, 0.01, 1.0, 0.00012725374332744983),
        (1.5, 0.1, 1.0, 0.011734592196685236),
        (2.5, 0.001, 1.0, 2.1507424323147326e-06),
        (3.7, 0.7, 0.8, 0.8052321822307577),
        (10.5, 0.01, 0.5, 0.00015315075194924003),
    ];
    for &(a, q, r, want) in &cases {
        let la = log_a_frac_up(a, q, r * r / 2.0, None).unwrap();
        let e = la / (a - 1.0);
        assert!(e >= want * (1.0 - 1e-15), "{a} {q} {r}: {e} < {want}");
        assert!((e - want) / want < 1e-12, "{a} {q} {r}: {e} vs {want}");
    }
}
mod stress {
    use crate::rdp::sampled_gaussian::{ceil_order, sgm_rdp_value, Fractional, SgmTable};

    /// Random (α, q, r) over the domain (α up to 1e4 here, q down to 1e-9, r ∈ [1e-3, 10]):
    /// finite, between ε(⌊α⌋) and the ceiling rule ε(⌈α⌉) (D_α is non-decreasing in α).
    #[test]
    fn sandwiched_on_random_domain_points() {
        let mut state = 12345u64;
        let mut rnd = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..400 {
            let a = 1.0 + f64::powf(10.0, -4.0 + 8.0 * rnd());
            let a = if a == a.floor() { a + 0.5 } else { a };
            let q = f64::powf(10.0, -9.0 * rnd()).min(0.999);
            let r = f64::powf(10.0, -3.0 + 4.0 * rnd());
            let c = 0.5 * r * r;
            let tf = SgmTable::new(ceil_order(a), q);
            let v = sgm_rdp_value(a, q, c, Fractional::Exact, &tf);
            let lo = if a >= 2.0 {
                let tl = SgmTable::new(ceil_order(a.floor()), q);
                sgm_rdp_value(a.floor(), q, c, Fractional::Exact, &tl)
            } else {
                0.0
            };
            let ceil = sgm_rdp_value(a, q, c, Fractional::Ceil, &tf);
            assert!(
                v.is_finite() && v >= lo * (1.0 - 1e-13) && v <= ceil && v > 0.0,
                "{a} {q} {r}: {v} {lo} {ceil}"
            );
        }
    }
}
mod timing {
    /// Time per call of `log_a_frac_up` on the three golden grids (a wall-clock figure, not a
    /// test): `cargo test -p pabi-core --release --lib frac_timing -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn frac_timing() {
        let grids = [
            (
                "rdp_sgm_frac",
                include_str!("../../tests/golden/rdp_sgm_frac.csv"),
                false,
            ),
            (
                "rdp_sgm_frac_corner",
                include_str!("../../tests/golden/rdp_sgm_frac_corner.csv"),
                false,
            ),
            (
                "rdp_sgm_frac_bound",
                include_str!("../../tests/golden/rdp_sgm_frac_bound.csv"),
                true,
            ),
        ];
        for (name, data, has_c) in grids {
            let pts: Vec<(f64, f64, f64)> = data
                .lines()
                .skip(1)
                .map(|line| {
                    let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
                    (f[0], f[1], if has_c { f[2] } else { 0.5 * f[2] * f[2] })
                })
                .collect();
            let reps = 20;
            let (mut best, mut acc) = (f64::INFINITY, 0.0);
            for _ in 0..5 {
                let t0 = std::time::Instant::now();
                for _ in 0..reps {
                    for &(a, q, c) in &pts {
                        acc += crate::rdp::fractional::log_a_frac_up(a, q, c, None).unwrap_or(0.0);
                    }
                }
                best = best.min(t0.elapsed().as_secs_f64());
            }
            let per_call = best / (reps * pts.len()) as f64 * 1e6;
            println!(
                "{name}: {} points, {per_call:.2} us per call (checksum {acc:e})",
                pts.len()
            );
        }
    }
}
