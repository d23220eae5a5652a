//! Unit tests of the RDP comparison bound (Asoodeh–Diaz–Calmon Prop. 1): the strongly convex
//! example against mpmath, c = 0, the Feldman et al. limit at x = 0.

use crate::gd::step_contraction;

use super::rdp_comparison::{rdp_epsilon_one, rdp_log_delta_one};
use super::{rdp_log_slope, rdp_slope, RdpM};
use crate::num::round::prob_up;

/// The strongly convex example (k·x/(1 − x) ≈ 6400): c_i ≥ the exact
/// 1.0996323084801524e-143 (mpmath, 50 digits) and within 1e-14; it was 1.1e-12 below when
/// ln(1 − x) came from a rounded x. c = 0 gives δ_B = 0 at every ε and ε(δ) = 0. (lr lies
/// 6.9e-18 above 2/(β + ρ), so M is the general constant ηβ − 1; Lemma 4's M gave
/// 1.099632308480122e-143, a hair below.)
#[test]
fn rdp_slope_strongly_convex_example() {
    let c = step_contraction(
        0.479_205_791_304_832_65,
        Some(2.317_021_061_480_099),
        1.856_551_203_901_308,
    )
    .unwrap();
    let cm = RdpM::new(&c);
    let v = rdp_slope(100.0, 0.01, &cm, 79.0);
    let exact = 1.099_632_308_480_152_4e-143;
    assert!(v >= exact && v / exact - 1.0 < 1e-14, "{v:e}");
    let lv = rdp_log_slope(100.0, 0.01, &cm, 79.0);
    assert!(lv >= exact.ln() && lv - exact.ln() < 1e-12);
    assert_eq!(rdp_slope(0.0, 1.0, &cm, 3.0), 0.0);
    assert_eq!(
        rdp_log_delta_one(0.0, f64::NEG_INFINITY, 0.0),
        f64::NEG_INFINITY
    );
    assert_eq!(rdp_epsilon_one(0.1, f64::NEG_INFINITY, 0.0), 0.0);
    let e = rdp_epsilon_one(1e-10, lv, v);
    assert!(prob_up(rdp_log_delta_one(e, lv, v)) <= 1e-10);
    let below = f64::from_bits(e.to_bits() - 1);
    assert!(prob_up(rdp_log_delta_one(below, lv, v)) > 1e-10);
}

#[test]
fn rdp_slope_feldman_limit() {
    let c0 = rdp_slope(1.0, 2.0, &RdpM::from_x(0.0), 20.0);
    let c1 = rdp_slope(1.0, 2.0, &RdpM::from_x(1e-12), 20.0);
    assert!(rdp_log_slope(1.0, 2.0, &RdpM::from_x(0.5), 1e12) < -6e11);
    assert!((c0 / (2.0 / (4.0 * 21.0)) - 1.0).abs() < 1e-13);
    assert!((c1 / c0 - 1.0).abs() < 1e-9);
}
