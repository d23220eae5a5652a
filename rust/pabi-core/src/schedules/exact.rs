//! Exact signs and double-double values of short sums of doubles: the domain tests of the
//! schedules decided exactly (not in rounded doubles), and the small quantities next to a
//! cancellation (n/C1 + C2 − 1, i^α + C1·C2 − C1·e^{ε/2}) formed without the cancellation's
//! amplification of rounding errors. Derivations in `docs/derivations/schedules.md`.

use crate::num::dd::{two_prod, Dd};
use crate::num::round::expansion;

/// Σ xs (finite doubles, no intermediate overflow) as a double-double (relative error
/// ~2^-104: the partial sums of a nonoverlapping expansion, smallest first, never exceed
/// twice its largest component) and the exact sign of the sum (−1, 0, 1: the sign of the
/// largest nonzero component of the expansion).
#[inline(always)]
pub(crate) fn sum_dd<const K: usize>(xs: [f64; K]) -> (Dd, i32) {
    let e = expansion(xs);
    let mut acc = Dd::default();
    let mut sign = 0;
    for &c in e.iter() {
        acc = acc.add_f(c);
        if c != 0.0 {
            sign = if c > 0.0 { 1 } else { -1 };
        }
    }
    (acc, sign)
}

/// n + C1·C2 − C1 = C1·(n/C1 + C2 − 1) as a double-double with its exact sign (C1·C2 by an
/// exact two-product; exact when the product does not underflow below 2^-969).
#[inline(always)]
pub(crate) fn laplace_gap_times_c1(n: f64, c1: f64, c2: f64) -> (Dd, i32) {
    let (p, pe) = two_prod(c1, c2);
    sum_dd([n, -c1, p, pe])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_sign_of_a_cancelling_sum() {
        // 1 + 2^-60 − 1 − 2^-60 = 0; 1 + 2^-100 − 1 = 2^-100
        assert_eq!(sum_dd([1.0, 2f64.powi(-60), -1.0, -(2f64.powi(-60))]).1, 0);
        let (v, s) = sum_dd([1.0, 2f64.powi(-100), -1.0, 0.0]);
        assert_eq!((v.hi, s), (2f64.powi(-100), 1));
        let (v, s) = sum_dd([1e300, -1.0, -1e300, 0.5]);
        assert_eq!((v.hi, s), (-0.5, -1));
        // 52 + 519.9999999999994·0.9 − 519.9999999999994 > 0 (rounded doubles cancel to 0)
        let (v, s) = laplace_gap_times_c1(52.0, 519.9999999999994, 0.9);
        assert_eq!(s, 1);
        assert!(v.hi > 0.0 && v.hi < 1e-12);
    }
}
