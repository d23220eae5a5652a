//! A probability e^l (l ≤ 0) rounded up to (almost always) the least double above it: the
//! last step of the RDP → (ε, δ) conversions and of the PNSGD RDP comparison bound.
//!
//! Near δ = 1 a double δ has spacing 2^-53 while 1 − δ may be as small as 2^-53: every ulp
//! of looseness in the certified δ moves ln(1/δ) by 100 % there, and the inversions (the
//! least ε whose certified δ meets a target) pay it through dε/dδ. With the exact value
//! rounded up, "certified δ(ε) ≤ target" is exactly "exact δ(ε) ≤ target" (target a double),
//! so the inversion loses nothing to the conditioning near 1.

use crate::num::dd::fast_two_sum;
use crate::num::round::exp_up_1ulp;

/// Below this l the result is [`exp_up_1ulp`] (≤ 2 doubles above e^l); from it on
/// e^l > 0.7505, |expm1(l)| < ¼.
const NEAR_ONE: f64 = -0.287;

/// e^l for l ∈ [NEAR_ONE, 0]: 1 + expm1(l) with its rounding error recovered. m = expm1(l)
/// (std, error < 1 ulp(m) ≤ |m|·2^-52 =: e_m); s + r = 1 + m exactly (FastTwoSum, |m| < 1);
/// so e^l ≤ s + r + e_m. If r + e_m ≤ 0, s is an upper bound; else the next double up is:
/// s ∈ [½, 1] has spacing 2^-53 above (2^-52 above 1), |r| ≤ 2^-54 (half the spacing) and
/// e_m ≤ 2^-54 (|m| ≤ ¼), so s + r + e_m ≤ s + 2^-53. Non-decreasing in m
/// (for m₁ < m₂ ≤ 0 with the same s, r + e_m grows by (m₂ − m₁)(1 − 2^-52) > 0).
#[inline]
fn exp_near_one_up(l: f64) -> f64 {
    let m = l.exp_m1();
    let (s, r) = fast_two_sum(1.0, m);
    if r + m.abs() * f64::EPSILON <= 0.0 {
        s
    } else {
        s.next_up()
    }
}

/// An upper bound of e^l for l ≤ 0 (NaN and l ≥ 0 give 1, −∞ gives 0), ≤ 1, non-decreasing
/// in l, never 0 for a finite l (an underflow gives 2^-1074 or 2^-1073). On [−0.287, 0] the
/// least double ≥ e^l except where e^l lies within |e^l − 1|·2^-52 of a double (then one
/// more); below, [`exp_up_1ulp`] (≤ 2 doubles above). Monotone across the switch: just below
/// it the value is capped by the (larger) value at the switch point, itself ≥ e^l there.
#[inline]
pub(crate) fn exp_prob_up(l: f64) -> f64 {
    if l == f64::NEG_INFINITY {
        return 0.0;
    }
    if !(l < 0.0) {
        return 1.0;
    }
    if l >= NEAR_ONE {
        return exp_near_one_up(l).min(1.0);
    }
    let v = exp_up_1ulp(l);
    if l >= NEAR_ONE - 1e-12 {
        v.min(exp_near_one_up(NEAR_ONE))
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dd::{exp_dd, Dd};

    /// Above e^l (exp_dd), at most one double above the least double above it on the
    /// near-one branch, monotone over a walk across the switch point and up to 0.
    #[test]
    fn exp_prob_up_is_tight_sound_and_monotone() {
        let mut l = -0.4;
        let mut prev = 0.0;
        while l < 0.0 {
            let v = exp_prob_up(l);
            let e = exp_dd(Dd::from_f64(l));
            assert!((Dd::from_f64(v) - e).hi >= 0.0, "{l}");
            assert!(v >= prev, "{l}");
            if l >= NEAR_ONE {
                // the least double ≥ e^l, or the one above it
                let below = v.next_down().next_down();
                assert!((Dd::from_f64(below) - e).hi < 0.0, "{l}");
            }
            prev = v;
            l += 1.234_567e-5;
        }
        let mut l = NEAR_ONE - 1e-14;
        prev = 0.0;
        for _ in 0..200 {
            let v = exp_prob_up(l);
            assert!(v >= prev && (Dd::from_f64(v) - exp_dd(Dd::from_f64(l))).hi >= 0.0);
            prev = v;
            l = l.next_up();
        }
        assert_eq!(exp_prob_up(0.0), 1.0);
        assert_eq!(exp_prob_up(-1e-300), 1.0);
        assert_eq!(exp_prob_up(f64::NEG_INFINITY), 0.0);
        assert!(exp_prob_up(-800.0) > 0.0);
        // one double below 1: e^l ≤ 1 − 2^-53 iff l ≤ ln(1 − 2^-53) = −2^-53 − 2^-107 − ...
        assert_eq!(exp_prob_up(-1.2e-16), 1.0f64.next_down());
        assert_eq!(exp_prob_up(-1.0e-16), 1.0);
    }
}
