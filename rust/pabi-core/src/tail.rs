//! The standard Gaussian tail Q(t) = P(N(0,1) > t) = ½·erfc(t/√2) and its logarithm
//! (SPEC_pabi.md §1.1; shared/DEPENDENCIES.md, "Numerical traps").
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

/// ln Q(t) for every real t; finite for |t| < 1.8e154 (ln Q(1e4) ≈ −5.0e7).
#[inline(always)]
pub fn log_gaussian_tail(t: f64) -> f64 {
    let ta = t.abs().min(1.8e154);
    let (p, m) = erfc_parts(ta);
    // ln(½·e^{−p}·m) for t ≥ 0; for t < 0 the tail at |t| is at most ½: log1p(−Q(|t|)).
    let pos = vmath::ln(0.5 * m) - p;
    let neg = vmath::log1p(-0.5 * vmath::exp(-p) * m);
    let v = if t >= 0.0 { pos } else { neg };
    if t == f64::INFINITY {
        f64::NEG_INFINITY
    } else {
        v
    }
}
