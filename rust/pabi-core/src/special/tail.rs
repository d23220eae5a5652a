//! The standard Gaussian tail Q(t) = P(N(0,1) > t) = ½·erfc(t/√2) and its logarithm
//! (derivation: docs/derivations/theta.md).
//!
//! Q loses about t² ulp however good erfc is when t/√2 is rounded (~1,400 ulp at t ≈ 38), so
//! u = t/√2 is carried as a double-double (u_hi, u_lo) and erfc(u_hi + u_lo) is corrected to
//! first order: erfc(u_hi + u_lo) ≈ erfc(u_hi)·(1 − u_lo·(2/√π)/erfcx(u_hi)); erfc(u_hi) itself is
//! erfcx(u_hi)·e^{−u_hi²} with u_hi² exact as a double-double. For t < 0, Q(t) = 1 − Q(−t) (no
//! cancellation: Q(−t) ≤ ½) and log Q(t) = log1p(−Q(−t)). Branch-free: vectorizes.

use crate::dd::{two_prod, FRAC_1_SQRT_2_HI, FRAC_1_SQRT_2_LO};
use crate::vmath;

/// 2/√π.
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

/// erfc(|t|/√2) = e^{−p}·m with p = u_hi² (exact high part) and
/// m = erfcx(u_hi)·(1 − pe) − u_lo·2/√π (pe = low part of u², first-order corrections).
#[inline(always)]
fn erfc_parts(t_abs: f64) -> (f64, f64) {
    let u = t_abs * FRAC_1_SQRT_2_HI;
    let ul = t_abs.mul_add(FRAC_1_SQRT_2_HI, -u) + t_abs * FRAC_1_SQRT_2_LO;
    // u_hi² = p + pe exactly; the first-order effect of u_lo is the erfc-derivative term below
    // (it must not also enter through (u_hi + u_lo)²).
    let (p, pe) = two_prod(u, u);
    let ex = vmath::erfcx_pos(u);
    // erfc(u + ul) = e^{-p}·e^{-pe}·erfcx(u)·(1 − ul·(2/√π)/erfcx(u)) to first order.
    let m = ex.mul_add(-pe, ex) - ul * TWO_OVER_SQRT_PI;
    (p, m)
}

/// Q(t) = P(N(0,1) > t) for every real t (Q(−∞) = 1, Q(∞) = 0); a few ulp where Q is a normal
/// double (t ≤ 37.5), gradual underflow beyond, 0 from t ≈ 38.6.
#[inline(always)]
pub fn gaussian_tail(t: f64) -> f64 {
    // Beyond |t| = 40, Q underflows to 0 (or is 1): clamp so that nothing below overflows.
    let ta = t.abs().min(40.0);
    let (p, m) = erfc_parts(ta);
    let q = 0.5 * vmath::exp(-p) * m;
    if t >= 0.0 {
        q
    } else {
        1.0 - q
    }
}

/// ln Q(t) for every real t: a few ulp (relative) for t ≥ 0, finite for |t| < 1.896e154; for
/// larger finite t the exact value is below −f64::MAX and −f64::MAX is returned (the nearest
/// double not below it; −∞ only for t = +∞). Never NaN for a non-NaN t.
///
/// For t ≥ 0 in log space (u = u_hi + u_lo = t/√2, p + pe = u_hi² exactly):
/// ln Q = ln(½·erfcx(u_hi)·(1 + u_lo·g)) − p − (pe + 2u_hi·u_lo), g = erfcx'(u_hi)/erfcx(u_hi)
/// = 2u_hi − (2/√π)/erfcx(u_hi). The 2u_hi·u_lo part of (u_hi + u_lo)² stays in the exponent:
/// it grows like t²·2^-53 (≈ 1 at t = 1e8, 1e292 at t = 1e154), so the first-order form of
/// [`gaussian_tail`] (a factor 1 − u_lo·(2/√π)/erfcx(u_hi)) turned negative for large t and the
/// logarithm was NaN (t = 1.8e154, 1.2e146). |u_lo·g| ≤ 2^-53·u_hi|g| ≲ 2^-53, so
/// ln(1 + u_lo·g) = u_lo·g to ~2^-106; g is formed as the difference for u_hi ≤ 1e4 and as
/// its asymptote −1/u_hi beyond (the difference would cancel, and |g + 1/u_hi| ≤ 1/u_hi³).
#[inline(always)]
pub fn log_gaussian_tail(t: f64) -> f64 {
    // (a clamp that keeps u finite; from |t| ≈ 1.896e154 on, p = u² overflows and the exact
    // ln Q is below −f64::MAX)
    let ta = t.abs().min(1e300);
    let u = ta * FRAC_1_SQRT_2_HI;
    let ul = ta.mul_add(FRAC_1_SQRT_2_HI, -u) + ta * FRAC_1_SQRT_2_LO;
    let (p, pe) = two_prod(u, u);
    let ex = vmath::erfcx_pos(u);
    // g → −1/u (1 + O(u⁻²)); the difference form would cancel (abs. error ~u·2^-53)
    let g = if u <= 1e4 {
        2.0 * u - TWO_OVER_SQRT_PI / ex
    } else {
        -1.0 / u
    };
    let pos = (vmath::ln(0.5 * ex) + ul * g) - p - (pe + 2.0 * u * ul);
    let pos = if p == f64::INFINITY { -f64::MAX } else { pos };
    // t < 0: the tail at |t| is at most ½: log1p(−Q(|t|)) with Q(|t|) as in `gaussian_tail`
    // (0 from |t| ≈ 38.6 on, where the first-order factor is replaced by 0: it is not used).
    let mn = if ta <= 40.0 {
        ex.mul_add(-pe, ex) - ul * TWO_OVER_SQRT_PI
    } else {
        0.0
    };
    let neg = vmath::log1p(-0.5 * vmath::exp(-p) * mn);
    let v = if t >= 0.0 { pos } else { neg };
    if t == f64::INFINITY {
        f64::NEG_INFINITY
    } else {
        // a sum that rounded to −∞ (exact value at most a few ulp below −f64::MAX)
        if v < -f64::MAX {
            -f64::MAX
        } else {
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ln Q at large t: mpmath at 40 digits (`mp.log(mp.erfc(t / mp.sqrt(2)) / 2)`, t the
    /// exact double). t = 1.8e154 and 1.2359897213975080e146 returned NaN (the first-order
    /// factor of `gaussian_tail` turned negative); beyond ≈ 1.896e154 the exact value is below
    /// −f64::MAX and −f64::MAX is returned.
    #[test]
    #[allow(clippy::excessive_precision)]
    fn log_tail_large_t() {
        let cases = [
            (1e8, -5.000_000_000_000_019_34e15),
            (1.235989721397508e146, -7.638352957001448e291),
            (1e154, -5.000000000000000e307),
            (1.8e154, -1.62e308),
            (1.89e154, -1.78605e308),
        ];
        for (t, want) in cases {
            let v = log_gaussian_tail(t);
            assert!(
                ((v - want) / want).abs() < 1e-15,
                "t {t:e}: {v:e} vs {want:e}"
            );
        }
        for t in [1.8962e154, 1e155, 1e200, 1e308, f64::MAX] {
            assert_eq!(log_gaussian_tail(t), -f64::MAX, "t {t:e}");
        }
        assert_eq!(log_gaussian_tail(f64::INFINITY), f64::NEG_INFINITY);
        assert_eq!(log_gaussian_tail(-1e308), 0.0);
        assert_eq!(log_gaussian_tail(f64::NEG_INFINITY), 0.0);
    }
}
