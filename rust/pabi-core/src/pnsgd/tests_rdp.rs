//! Unit tests of the RDP comparison bound (Asoodeh–Diaz–Calmon Prop. 1): the strongly convex
//! example against mpmath, c = 0, the Feldman et al. limit at x = 0.

use crate::gd::step_contraction;

use super::rdp_comparison::{rdp_epsilon_one, rdp_log_delta_one};
use super::{rdp_log_slope, rdp_slope, RdpM};
use crate::rdp::conversion_prob::exp_prob_up as prob_up;

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

/// ln δ_B for a c below the normal range: c = 2e-300 at ε = 3c was −ε²/(4c) = −4.5e-300 (the
/// −c of (ε − c)² lost), below the exact −c = −2e-300; c = 1e-320 (subnormal) and c = e^-1000
/// (underflowed: only ln c is known) at ε = 3c and 2^40·c give −c and −(2^40 − 1)²c/4 to ~1e-13;
/// d² under/overflowing in the normal range (ε = 2c at c = 1e-160; ε = 5c at c = 2e200).
#[test]
fn rdp_log_delta_tiny_slope() {
    let chk = |eps: f64, lc: f64, c: f64, exact: f64| {
        let v = rdp_log_delta_one(eps, lc, c);
        assert!(
            v >= exact && (v / exact - 1.0).abs() < 1e-12,
            "{eps:e} {v:e} {exact:e}"
        );
    };
    chk(6e-300, 2e-300f64.ln(), 2e-300, -2e-300 * (1.0 + 1e-15));
    // c = 1e-320 exactly as e^{lc} (lc to nearest, then raised by a few ulp as the slope does)
    let c = 1e-320f64;
    let lc = c.ln() + 4e-13;
    let cv = crate::num::up(c);
    // (ε − c)²/(4c) with the raised c: within 1e-12 of the exact at c (the double 1e-320);
    // a subnormal result within 2 subnormal ulps
    let v = rdp_log_delta_one(3.0 * c, lc, cv);
    assert!(v >= -c && v <= -c + 1e-323, "{v:e}");
    let r = 2f64.powi(40);
    chk(
        r * c,
        lc,
        cv,
        -(r - 1.0) * ((r - 1.0) * c) / 4.0 * (1.0 + 1e-15),
    );
    let lc = -1000.0;
    let cv = crate::num::up(0.0);
    let c = (-1000f64).exp(); // 0: the expected value from the exponent and mantissa
    assert_eq!(c, 0.0);
    // ε = 1e-300: ln q = 2 ln ε − ln 4 + 1000 (c/ε ~ e^-309)
    let t = 2.0 * 1e-300f64.ln() - 4f64.ln() + 1000.0;
    chk(1e-300, lc, cv, -t.exp() * (1.0 + 1e-13));
    chk(2e-160, 1e-160f64.ln(), 1e-160, -0.25e-160 * (1.0 + 1e-15));
    chk(1e201, 2e200f64.ln(), 2e200, -8e200 * (1.0 + 1e-15));
    // below c, and c underflowed far below ε: ln δ finite, −MAX where it overflows
    assert_eq!(rdp_log_delta_one(1e-321, 1e-320f64.ln(), 1e-320), 0.0);
    assert_eq!(rdp_log_delta_one(1.0, -5000.0, 2e-323), -f64::MAX);
}

/// The double-double slope of the conversion (found 2026-11-28: the ~10 ulps of the double c
/// cost ρ·√(c·ln(1/δ)) ≈ 2.8e-9 relative in δ_B at c = 7.5e9). Against mpmath (60 digits):
/// the strongly convex example above (k = 79, x ≤ ½ form of ln M²) and k = 10 at
/// η = 0.3, β = 2, ρ = 1e-3, L = 3, σ = 0.5 (c = 6.525839779249608310072000052478), each
/// within its bound ρ ≤ 2^-80; and at k = 0, c = 2(L/σ)² = 7492089750.062877095368391867 whose
/// δ_B at ε = 7494770362.220244 is 7.358274706884692544e-105 (ln: −239.76...): within 1e-13.
#[test]
#[allow(clippy::excessive_precision)]
fn rdp_slope_double_double() {
    use super::rdp_comparison::{rdp_log_delta_s, rdp_slope_dd, Slope};
    use crate::dd::Dd;
    let chk = |cd: (Dd, f64), hi: f64, lo: f64| {
        let (c, rho) = cd;
        assert!(rho < 2f64.powi(-80), "{rho:e}");
        let err = (c - Dd::new(hi, lo)).to_f64() / hi;
        assert!(err.abs() < 1e-28, "{err:e}");
    };
    let ex = step_contraction(
        0.479_205_791_304_832_65,
        Some(2.317_021_061_480_099),
        1.856_551_203_901_308,
    )
    .unwrap();
    let cd = rdp_slope_dd(100.0, 0.01, &RdpM::new(&ex), 79.0).unwrap();
    // 1.099632308480152375536853213855684617625e-143 as hi + lo
    chk(cd, 1.099_632_308_480_152_3e-143, 7.777_713_778_892_635e-160);
    let m = step_contraction(0.3, Some(2.0), 1e-3).unwrap();
    let cd = rdp_slope_dd(3.0, 0.5, &RdpM::new(&m), 10.0).unwrap();
    chk(cd, 6.525_839_779_249_608, -3.108_863_773_972_179e-17);
    // k = 0 (the hunt's case; σ, L as given, M irrelevant)
    let (l, s) = (84.068_694_523_147_57, 0.001_373_560_571_078_571_8);
    let m0 = step_contraction(0.001_917_857_931_192_532_4, Some(521.4), 521.4).unwrap();
    let cm = RdpM::new(&m0);
    let slope = Slope {
        lc: rdp_log_slope(l, s, &cm, 0.0),
        c: rdp_slope(l, s, &cm, 0.0),
        dd: rdp_slope_dd(l, s, &cm, 0.0),
    };
    let v = prob_up(rdp_log_delta_s(7_494_770_362.220_244, &slope));
    let exact = 7.358_274_706_884_692_5e-105;
    assert!(v >= exact && v / exact - 1.0 < 1e-13, "{v:e}");
}
