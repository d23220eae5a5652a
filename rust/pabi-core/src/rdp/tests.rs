//! Tests of the integer-order sampled Gaussian RDP, the Hölder orders, the per-instance and
//! generic compositions and the conversions.

use super::composition::*;
use super::conversion::*;
use super::holder::*;
use super::per_instance::*;
use super::sampled_gaussian::*;
use crate::error::PabiError;
/// ⌈β_i⌉ of the exact order for the given doubles: the two cases where the double β_i sat on
/// the integer below the exact value (found by tools/rdp_accuracy_report.py), exact integers,
/// and a lattice of dyadic α, p (exact integers among them) where the expected ceiling is
/// computed in integers ((α − 1)p^i against (k − 1)(p − 1)^i).
#[test]
fn holder_ceil_order_is_the_exact_ceiling() {
    let c = OrderMap::Corrected;
    // exact β_2 = 4.0000000000000003 (the double computes 4.0), β_1 = 3.00000000000000025
    assert_eq!(holder_ceil_order(3.2040816326530615, 7.0, 2, c), 5);
    assert_eq!(holder_ceil_order(2.3333333333333335, 3.0, 1, c), 4);
    // β_0 = α, exact integers stay
    assert_eq!(holder_ceil_order(8.0, 3e4, 0, c), 8);
    assert_eq!(holder_ceil_order(8.0, 3e4, 0, OrderMap::AsPublished), 8);
    // mathematically on an integer: decided exactly (β_1 = 1 + 1·2 = 3, 1 + 1.5·4/3 = 3;
    // printed map a* + (α − a*)ρ with a* = 1/2, ρ = 2: 1/2 + 2.5 = 3)
    assert_eq!(holder_ceil_order(2.0, 2.0, 1, c), 3);
    assert_eq!(holder_ceil_order(2.5, 4.0, 1, c), 3);
    assert_eq!(holder_ceil_order(1.75, 2.0, 1, OrderMap::AsPublished), 3);
    let (mut exact_int, mut decided) = (0, 0);
    for a in (1u128..4000).step_by(37) {
        for b in (65u128..1024).step_by(29) {
            for i in 1..6u32 {
                // α = 1 + a/2^10, p = b/2^6: (α − 1)p^i = a·b^i / 2^(10+6i),
                // (p − 1)^i = (b − 64)^i / 2^(6i)
                let (alpha, p) = (1.0 + a as f64 / 1024.0, b as f64 / 64.0);
                let num = a * b.pow(i); // β − 1 = num / (1024 (b − 64)^i)
                let den = 1024 * (b - 64).pow(i);
                let exact_ceil = 1 + num.div_ceil(den) as u64;
                let got = holder_ceil_order(alpha, p, i as u64, c);
                if num % den == 0 {
                    exact_int += 1;
                } else {
                    decided += 1;
                }
                assert_eq!(got, exact_ceil.max(2), "a={a} b={b} i={i}");
            }
        }
    }
    assert!(exact_int > 0 && decided > 5000, "{exact_int} {decided}");
}

fn naive(alpha: u64, q: f64, r: f64) -> f64 {
    let c = r * r / 2.0;
    let mut s = 0.0;
    let mut binom = 1.0;
    for k in 0..=alpha {
        if k > 0 {
            binom = binom * (alpha - k + 1) as f64 / k as f64;
        }
        s += binom
            * (1.0 - q).powi((alpha - k) as i32)
            * q.powi(k as i32)
            * (c * (k * k - k) as f64).exp();
    }
    s.ln() / (alpha - 1) as f64
}

#[test]
fn q_one_and_alpha_two() {
    for &a in &[2u64, 3, 8, 64, 1000] {
        for &r in &[1e-3, 0.5, 2.0] {
            let v = sampled_gaussian_rdp(a as f64, 1.0, r).unwrap();
            let exact = a as f64 * r * r / 2.0;
            assert!(v >= exact && (v - exact) / exact < 1e-13, "{a} {r} {v}");
        }
    }
    // fractional orders without sampling: α r²/2 exactly (the ceiling rule gave ⌈α⌉ r²/2)
    for &a in &[1.01, 1.25, 2.5, 7.5, 1000.5] {
        for &r in &[1e-3, 0.5, 2.0] {
            let v = sampled_gaussian_rdp_at(a, 1.0, r, Fractional::Exact).unwrap();
            let exact = a * r * r / 2.0;
            assert!(v >= exact && (v - exact) / exact < 1e-13, "{a} {r} {v}");
        }
    }
    for &q in &[1e-8, 1e-3, 0.3, 0.9] {
        for &r in &[1e-3, 0.5, 2.0] {
            let v = sampled_gaussian_rdp(2.0, q, r).unwrap();
            let e = (q * q * (r * r).exp_m1()).ln_1p();
            assert!(((v - e) / e).abs() < 1e-13, "{q} {r} {v} {e}");
        }
    }
}

#[test]
fn direct_and_log_paths_agree_with_naive() {
    for &a in &[3u64, 5, 8, 16, 30] {
        for &q in &[0.01, 0.1, 0.5] {
            for &r in &[0.3, 1.0] {
                let v = sampled_gaussian_rdp(a as f64, q, r).unwrap();
                let w = naive(a, q, r);
                assert!(((v - w) / w).abs() < 1e-11, "{a} {q} {r} {v} {w}");
                // force log path
                let t = SgmTable {
                    direct: false,
                    ..SgmTable::new(a, q)
                };
                let l = t.log_a(r * r / 2.0) / (a - 1) as f64;
                assert!(((l - w) / w).abs() < 1e-11);
            }
        }
    }
}

#[test]
#[ignore]
fn timing_row() {
    let tab = SgmTable::new(11, 0.01);
    let row: Vec<f64> = (0..100).map(|i| i as f64 / 100.0).collect();
    let t0 = std::time::Instant::now();
    let mut a = 0.0;
    for _ in 0..10_000 {
        a += row_direct(&tab.pmf, 11, &row, 1.0, 1e5).1;
    }
    println!("10k rows: {:?} {a}", t0.elapsed());
}

#[test]
fn errors() {
    assert!(sampled_gaussian_rdp(1.0, 0.1, 1.0).is_err());
    assert!(sampled_gaussian_rdp(2.0, 1.1, 1.0).is_err());
    assert!(sampled_gaussian_rdp(2.0, 0.1, f64::NAN).is_err());
    let o = CompositionOptions {
        map: OrderMap::Corrected,
        ucb: None,
        fractional: Fractional::Ceil,
    };
    let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &[1.0; 2000], 2000, 1, 1.001, o);
    assert!(matches!(
        e,
        Err(PabiError::Domain {
            param: "holder_exponent",
            ..
        })
    ));
    let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &[1.0, -1.0], 1, 2, 3.0, o);
    assert!(matches!(e, Err(PabiError::Domain { index: Some(1), .. })));
}

/// The parameter a domain error names (panics on any other error).
pub(super) fn param_of(e: PabiError) -> &'static str {
    match e {
        PabiError::Domain { param, .. } => param,
        other => panic!("not a domain error: {other:?}"),
    }
}

#[test]
fn sizes_are_checked_before_allocation() {
    let c = OrderMap::Corrected;
    for n in [MAX_LEN + 1, 1_000_000_000_000, 1 << 63, u64::MAX] {
        assert_eq!(
            param_of(holder_orders(2.0, 2.0, n, c).unwrap_err()),
            "steps"
        );
    }
    assert_eq!(
        holder_orders(2.0, 2.0, 3, c).unwrap().0,
        vec![2.0, 3.0, 5.0]
    );
    assert_eq!(
        param_of(holder_orders(0.5, 0.5, 3, c).unwrap_err()),
        "order"
    );
    assert_eq!(
        param_of(holder_orders(2.0, f64::INFINITY, 3, OrderMap::AsPublished).unwrap_err()),
        "holder_exponent"
    );
    // products of shapes that overflow usize are shape errors, not wrapped matches
    let o = CompositionOptions {
        map: c,
        ucb: None,
        fractional: Fractional::Ceil,
    };
    let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &[0.5; 2], 1 << 63, 2, 3.0, o);
    assert!(matches!(e, Err(PabiError::Shape { .. })));
    let e = holder_composition_terms(2.0, 2.0, &[0.5; 2], None, 1 << 63, 2, c);
    assert!(matches!(e, Err(PabiError::Shape { .. })));
    let mut out = [0.0; 2];
    assert!(matches!(
        rdp_compose(&[0.1; 2], usize::MAX / 2 + 2, 2, &mut out),
        Err(PabiError::Shape { .. })
    ));
}

#[test]
fn composition_tables_are_capped() {
    // orders spread over [2, 1e5] across 1e5 steps: ~8e8 table entries, refused up front as
    // a Domain error naming p (raising p lowers every order; formerly `Unreachable`)
    let o = CompositionOptions {
        map: OrderMap::Corrected,
        ucb: None,
        fractional: Fractional::Ceil,
    };
    let sens = vec![0.5; 100_000];
    let e = dpsgd_per_instance_terms(2.0, 0.01, 1.0, &sens, 100_000, 1, 8700.0, o);
    assert!(
        matches!(
            e,
            Err(PabiError::Domain {
                param: "holder_exponent",
                ..
            })
        ),
        "{e:?}"
    );
    assert!(format!("{e:?}").contains("binomial-table entries"));
    // q = 1 needs no table: allowed
    assert!(dpsgd_per_instance_terms(2.0, 1.0, 1.0, &sens, 100_000, 1, 8700.0, o).is_ok());
}

#[test]
fn compose_inf_and_overflow() {
    let mut out = [0.0; 2];
    rdp_compose(&[0.1, 0.2, f64::INFINITY, 0.4], 2, 2, &mut out).unwrap();
    assert_eq!(out[0], f64::INFINITY);
    assert!(out[1] >= 0.6 && out[1] < 0.6 * (1.0 + 1e-12));
    rdp_compose(&[1e308, 1.0, 1e308, 1.0], 2, 2, &mut out).unwrap();
    assert_eq!(out[0], f64::INFINITY);
    let e = rdp_compose(&[0.1, 0.2, f64::NAN, 0.4], 2, 2, &mut out).unwrap_err();
    assert!(matches!(
        e,
        PabiError::Domain {
            param: "rdp",
            index: Some(2),
            ..
        }
    ));
    assert_eq!(sum_terms_up(&[1e308, 1e308]), f64::INFINITY);
}

#[test]
fn conversions_agree_and_are_monotone() {
    let rules = [Conversion::Tight, Conversion::Classical];
    // a zero RDP value: equal distributions
    let orders = [1.5, 2.0, 8.0];
    for rule in rules {
        assert_eq!(
            rdp_to_dp_delta(&orders, &[0.0; 3], 0.0, rule).unwrap().0,
            0.0
        );
        assert_eq!(
            rdp_to_dp_epsilon(&orders, &[0.0; 3], 0.5, rule).unwrap().0,
            0.0
        );
        assert_eq!(
            rdp_to_dp_delta(&orders, &[1.0, 0.0, 3.0], 0.0, rule).unwrap(),
            (0.0, 2.0)
        );
    }
    // a deterministic family of curves: δ(ε(δ)) ≤ δ, ε minimal, δ non-increasing per ulp
    let mut rng = crate::num::test_rng::XorShift::with_seed(0x2545_f491_4f6c_dd1d);
    let mut unif = || rng.next_f64();
    for _ in 0..200 {
        let k = 1 + (unif() * 5.0) as usize;
        let o: Vec<f64> = (0..k).map(|_| 1.0 + (unif() * 10.0 - 4.0).exp()).collect();
        let r: Vec<f64> = (0..k).map(|_| (unif() * 14.0 - 10.0).exp()).collect();
        for rule in rules {
            let delta = (-unif() * 40.0).exp().min(0.99);
            let (e, _) = rdp_to_dp_epsilon(&o, &r, delta, rule).unwrap();
            assert!(e.is_finite());
            assert!(rdp_to_dp_delta(&o, &r, e, rule).unwrap().0 <= delta);
            if e > 0.0 {
                assert!(rdp_to_dp_delta(&o, &r, e.next_down(), rule).unwrap().0 > delta);
            }
            let mut x = unif() * 5.0;
            let mut prev = rdp_to_dp_delta(&o, &r, x, rule).unwrap().0;
            for _ in 0..50 {
                x = x.next_up();
                let d = rdp_to_dp_delta(&o, &r, x, rule).unwrap().0;
                assert!(d <= prev, "{o:?} {r:?} {x} {d} {prev}");
                prev = d;
            }
        }
    }
    // domain
    let e = rdp_to_dp_delta(&[2.0, f64::INFINITY], &[0.1, 0.1], 1.0, Conversion::Tight);
    assert!(matches!(
        e,
        Err(PabiError::Domain {
            param: "orders",
            index: Some(1),
            ..
        })
    ));
    // ε = +∞: δ = 0 at an order with a finite RDP value, else 1
    let e = rdp_to_dp_delta(&[2.0], &[0.1], f64::INFINITY, Conversion::Tight);
    assert_eq!(e.unwrap(), (0.0, 2.0));
    let e = rdp_to_dp_delta(&[2.0], &[f64::INFINITY], f64::INFINITY, Conversion::Tight);
    assert_eq!(e.unwrap(), (1.0, 2.0));
    let e = rdp_to_dp_delta(&[2.0], &[0.1], f64::NAN, Conversion::Tight);
    assert_eq!(param_of(e.unwrap_err()), "eps");
}

#[test]
fn profile_domain_and_tiny_cells() {
    let e = profile_to_rdp(f64::INFINITY, &[0.0, 1.0], &[0.5, 0.0]).unwrap_err();
    assert_eq!(param_of(e), "order");
    // (α − 1)h underflows: the cell still counts (≈ α·2h·δ, here 1e-300)
    let v = profile_to_rdp(1.0 + f64::EPSILON, &[0.0, 1e-300], &[0.5, 0.0]).unwrap();
    assert!((1e-300..1.000_001e-300).contains(&v), "{v}");
}

#[test]
fn one_step_identity() {
    let o = CompositionOptions {
        map: OrderMap::Corrected,
        ucb: None,
        fractional: Fractional::Ceil,
    };
    let t = dpsgd_per_instance_terms(8.0, 0.1, 2.0, &[0.5, 1.0, 0.7], 1, 3, 3.0, o).unwrap();
    let d = sampled_gaussian_rdp(8.0, 0.1, 0.5).unwrap();
    assert!((t[0] - d).abs() <= 1e-13 * d);
}

#[test]
fn ucb_without_max_sensitivity_names_it() {
    let sens = vec![0.5; 4];
    let o = CompositionOptions {
        map: OrderMap::Corrected,
        ucb: Some((0.1, None)),
        fractional: Fractional::Ceil,
    };
    let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &sens, 2, 2, 3.0, o).unwrap_err();
    assert!(
        matches!(
            e,
            PabiError::Domain {
                param: "max_sensitivity",
                ..
            }
        ),
        "{e:?}"
    );
    let o = CompositionOptions {
        map: OrderMap::Corrected,
        ucb: Some((0.1, Some(1.0))),
        fractional: Fractional::Ceil,
    };
    assert!(dpsgd_per_instance_terms(8.0, 0.01, 1.0, &sens, 2, 2, 3.0, o).is_ok());
}

/// The sensitivities are checked inside the parallel pass of the composition (row by row): the
/// error is still the first bad value in row-major order (rows are computed from the last step,
/// in parallel: a later bad row meets the pass first), NaN and +inf included, on the serial and
/// the parallel path, and it still comes before the order-cap and table-size errors that the
/// upfront check used to precede; with `ucb` the upfront check stays (before `failure_prob`).
#[test]
fn per_instance_sensitivity_errors_come_first_and_in_order() {
    let o = CompositionOptions {
        map: OrderMap::Corrected,
        ucb: None,
        fractional: Fractional::Ceil,
    };
    for &(steps, samples) in &[(40usize, 3usize), (5000, 20)] {
        let mut sens = vec![0.5; steps * samples];
        let last = steps * samples - 2;
        sens[last] = -1.0; // the last row, met first
        assert_eq!(
            dpsgd_per_instance_terms(8.0, 0.01, 1.0, &sens, steps, samples, 3.0 * steps as f64, o)
                .unwrap_err(),
            PabiError::domain("sensitivities", ">= 0 and finite", -1.0).at(last)
        );
        for (k, bad) in [(2 * samples + 1, f64::NAN), (1, f64::INFINITY)] {
            sens[k] = bad;
            let e = dpsgd_per_instance_terms(
                8.0,
                0.01,
                1.0,
                &sens,
                steps,
                samples,
                3.0 * steps as f64,
                o,
            )
            .unwrap_err();
            assert!(
                matches!(e, PabiError::Domain { param: "sensitivities", index: Some(i), .. } if i == k),
                "{steps}x{samples}: {e:?}"
            );
        }
    }
    // before the order cap (p close to 1) and the table cap (the orders of 1e5 steps at p = 8700)
    let mut sens = vec![1.0; 2000];
    let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &sens, 2000, 1, 1.001, o).unwrap_err();
    assert_eq!(param_of(e), "holder_exponent");
    sens[1500] = -1.0;
    let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &sens, 2000, 1, 1.001, o).unwrap_err();
    assert_eq!(param_of(e), "sensitivities");
    let mut sens = vec![0.5; 100_000];
    sens[99_999] = f64::NAN;
    let e = dpsgd_per_instance_terms(2.0, 0.01, 1.0, &sens, 100_000, 1, 8700.0, o).unwrap_err();
    assert!(
        matches!(
            e,
            PabiError::Domain {
                param: "sensitivities",
                index: Some(99_999),
                ..
            }
        ),
        "{e:?}"
    );
    let ucb = CompositionOptions {
        ucb: Some((2.0, Some(1.0))),
        ..o
    };
    let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &[0.5, -0.5], 1, 2, 3.0, ucb).unwrap_err();
    assert_eq!(param_of(e), "sensitivities");
}
