//! Tests of [`super`] (log-space helpers).

use super::*;

#[test]
fn infinities_are_not_nan() {
    // found by the RDP hardening: inf − inf inside gave NaN
    assert_eq!(log_add_exp(f64::INFINITY, f64::INFINITY), f64::INFINITY);
    assert_eq!(log_add_exp(f64::INFINITY, 0.0), f64::INFINITY);
    assert_eq!(
        log_add_exp(f64::NEG_INFINITY, f64::NEG_INFINITY),
        f64::NEG_INFINITY
    );
    assert_eq!(neumaier_sum([1e308, 1e308]), f64::INFINITY);
    assert_eq!(neumaier_sum([-1e308, -1e308]), f64::NEG_INFINITY);
    assert_eq!(neumaier_sum([1.0, 1e100, 1.0, -1e100]), 2.0);
}

#[test]
fn log_space_helpers() {
    assert!((log_add_exp(1000.0, 1000.0) - (1000.0 + std::f64::consts::LN_2)).abs() < 1e-12);
    assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
    assert!((log_sum_exp(&[-1e4, -1e4 + 1.0_f64.ln()]) - (-1e4 + 2.0_f64.ln())).abs() < 1e-11);
    assert!((log1mexp(-1e-20) - (1e-20_f64).ln()).abs() < 1e-15);
    assert!((log1mexp(-50.0) + (-50.0_f64).exp()).abs() < 1e-30);
    let xs: Vec<f64> = (0..1000)
        .map(|i| if i % 2 == 0 { 1e16 } else { 1.0 })
        .collect();
    assert_eq!(
        neumaier_sum(xs.iter().copied().chain([-500.0 * 1e16])),
        500.0
    );
}

/// The std and vmath forms agree to a few ulp with each other and with double-double values.
#[test]
fn std_and_vmath_forms_agree() {
    use crate::dd::{exp_dd, log1p_dd, Dd};
    let close =
        |a: f64, b: f64, ulps: f64| (a - b).abs() <= ulps * f64::EPSILON * b.abs().max(1e-300);
    for &y in &[-700.0, -30.0, -1.0, -1e-8, 0.0, 1e-8, 0.5, 3.0, 40.0, 700.0] {
        let exact = if y > 0.0 {
            y + log1p_dd(exp_dd(Dd::from_f64(-y))).to_f64()
        } else {
            log1p_dd(exp_dd(Dd::from_f64(y))).to_f64()
        };
        assert!(close(softplus_std(y), exact, 4.0), "{y}");
        assert!(close(softplus_vmath(y), exact, 4.0), "{y}");
    }
    assert_eq!(softplus_std(f64::NEG_INFINITY), 0.0);
    assert_eq!(softplus_vmath(f64::NEG_INFINITY), 0.0);
    for &(a, b) in &[(0.0, 0.0), (-3.0, 2.0), (100.0, -100.0), (1e-10, 2e-10)] {
        assert!(close(log_add_exp_std(a, b), log_add_exp(a, b), 4.0));
    }
    assert_eq!(log_add_exp_std(f64::INFINITY, 1.0), f64::INFINITY);
    for &x in &[-1e-20, -1e-5, -0.5, -0.7, -3.0, -50.0] {
        assert!(close(log1mexp_std(x), log1mexp(x), 4.0), "{x}");
    }
    assert!(close(log_expm1_std(1e-10), (1e-10f64).ln() + 5e-11, 4.0));
    assert_eq!(log_expm1_std(0.0), f64::NEG_INFINITY);
}

/// The accumulator's two finishes: `value` is s + c as is (NaN after an overflow), `sum` maps
/// an overflow to ±inf; otherwise they are equal.
#[test]
fn neumaier_value_and_sum() {
    let mut a = Neumaier::default();
    for x in [1.0, 1e100, 1.0, -1e100] {
        a.add(x);
    }
    assert_eq!((a.value(), a.sum()), (2.0, 2.0));
    let mut b = Neumaier::default();
    b.add(1e308);
    b.add(1e308);
    assert!(b.value().is_nan());
    assert_eq!(b.sum(), f64::INFINITY);
}
