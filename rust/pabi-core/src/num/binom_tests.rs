//! Tests of [`super`] (Loader's binomial).

use super::*;

/// The two tables differ only at n = 14 (one ulp), and the two `stirlerr` agree elsewhere.
#[test]
fn tables_and_stirlerr_agree_bitwise() {
    for (n, (a, b)) in STIRLERR_ENTRY14_UP
        .iter()
        .zip(STIRLERR_NEAREST.iter())
        .enumerate()
    {
        if n == 14 {
            assert_eq!(a.to_bits(), b.to_bits() + 1); // one ulp up
        } else {
            assert_eq!(a.to_bits(), b.to_bits(), "{n}");
        }
    }
    for n in (0..2000u64).chain([10_000, 1 << 40]) {
        if n != 14 {
            assert_eq!(
                stirlerr_u64(n).to_bits(),
                stirlerr_f64(n as f64).to_bits(),
                "{n}"
            );
        }
    }
    // mpmath (40 digits): stirlerr(14) = 0.005951370112758847735624416
    assert_eq!(STIRLERR_NEAREST[14], 0.005_951_370_112_758_847_5);
}

/// Both variants against the exact pmf of small cases (integer arithmetic: C(n, k) and
/// dyadic q make q^k (1 − q)^(n−k) C(n, k) an exact rational), within a few ulp.
#[test]
fn both_variants_match_exact_small_cases() {
    fn choose(n: u64, k: u64) -> f64 {
        let mut c = 1u128;
        for i in 0..k as u128 {
            c = c * (n as u128 - i) / (i + 1);
        }
        c as f64
    }
    for &(n, q) in &[(10u64, 0.25), (40, 0.5), (60, 0.125), (30, 0.75)] {
        let (lq, l1q) = (f64::ln(q), f64::ln_1p(-q));
        for k in 0..=n {
            let exact = choose(n, k).ln() + k as f64 * lq + (n - k) as f64 * l1q;
            let a = log_binom_pmf_int(k, n, q, lq, l1q);
            let d = k as f64 - n as f64 * q; // exact: dyadic q, small n
            let b = log_binom_pmf_dev(k as f64, n as f64, q, 1.0 - q, lq, l1q, d);
            let tol = 64.0 * f64::EPSILON * exact.abs().max(1.0);
            assert!((a - exact).abs() <= tol, "int {n} {k} {a} {exact}");
            assert!((b - exact).abs() <= tol, "dev {n} {k} {b} {exact}");
        }
    }
}
