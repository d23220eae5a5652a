//! Double-double ("error-free transformation") arithmetic.
//!
//! A value is carried as `hi + lo` with `|lo| <= ulp(hi)/2`. All helpers are
//! `#[inline(always)]` and branch-free so they vectorize inside the array kernels.
//! `two_prod` relies on a fused multiply-add; in the FMA-enabled clones of the
//! kernels `mul_add` is one instruction, elsewhere it is the (exact, slower) libm fma.
//!
//! Why this module exists: θ_{e^ε}(r) has a relative condition number ≈ a² in
//! a = ε/r − r/2 (up to ~1,400 where θ is still a normal double). Rounding `a` to a
//! double already costs up to 7.6e-13 relative (shared/DEPENDENCIES.md), so `a`, `b`
//! and `a²` are carried exactly as double-doubles into φ(a) and the Mills ratios.

/// 1/√2 as a double-double.
pub const FRAC_1_SQRT_2_HI: f64 = std::f64::consts::FRAC_1_SQRT_2;
pub const FRAC_1_SQRT_2_LO: f64 = -4.833_646_656_726_457e-17;

/// `s + e = a + b` exactly (Knuth's TwoSum).
#[inline(always)]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// `p + e = a * b` exactly (needs a true fused multiply-add).
#[inline(always)]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let e = a.mul_add(b, -p);
    (p, e)
}

/// Renormalise `hi + lo` so that `|lo| <= ulp(hi)/2` (FastTwoSum, needs |hi| >= |lo|).
#[inline(always)]
pub fn fast_two_sum(hi: f64, lo: f64) -> (f64, f64) {
    let s = hi + lo;
    let e = lo - (s - hi);
    (s, e)
}

/// `q = x / y` as a double-double (`q_hi = fl(x/y)`, `q_lo` = the exact remainder / y).
#[inline(always)]
pub fn div_dd(x: f64, y: f64) -> (f64, f64) {
    let q = x / y;
    let rem = (-q).mul_add(y, x);
    (q, rem / y)
}

/// `(a_hi + a_lo)²` as a double-double (relative error ~2^-104).
#[inline(always)]
pub fn sqr_dd(a_hi: f64, a_lo: f64) -> (f64, f64) {
    let (p, e) = two_prod(a_hi, a_hi);
    let e = e + 2.0 * a_hi * a_lo;
    fast_two_sum(p, e)
}

/// `(a_hi + a_lo) * (b_hi + b_lo)` as a double-double.
#[inline(always)]
pub fn mul_dd(a_hi: f64, a_lo: f64, b_hi: f64, b_lo: f64) -> (f64, f64) {
    let (p, e) = two_prod(a_hi, b_hi);
    let e = e + (a_hi * b_lo + a_lo * b_hi);
    fast_two_sum(p, e)
}

/// `(a_hi + a_lo) + (b_hi + b_lo)` as a double-double.
#[inline(always)]
pub fn add_dd(a_hi: f64, a_lo: f64, b_hi: f64, b_lo: f64) -> (f64, f64) {
    let (s, e) = two_sum(a_hi, b_hi);
    fast_two_sum(s, e + (a_lo + b_lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frac_1_sqrt_2_is_a_double_double() {
        // (hi + lo)^2 = 1/2 to ~2^-106: the square's error term must vanish at double precision.
        let (p, e) = sqr_dd(FRAC_1_SQRT_2_HI, FRAC_1_SQRT_2_LO);
        assert_eq!(p, 0.5);
        assert!(e.abs() < 1e-31, "e = {e}");
    }

    #[test]
    fn error_free_transformations_are_exact() {
        // 0.1 + 0.2: the rounding error is exactly recoverable.
        let (s, e) = two_sum(0.1, 0.2);
        assert_eq!(s, 0.30000000000000004);
        assert_eq!(e, -2.7755575615628914e-17);
        // (1 + 2^-30)^2 = 1 + 2^-29 + 2^-60: the last term is the exact product error.
        let x = 1.0 + 2f64.powi(-30);
        let (p, e) = two_prod(x, x);
        assert_eq!(p, 1.0 + 2f64.powi(-29));
        assert_eq!(e, 2f64.powi(-60));
        // 1/3 with its remainder: 3 * (q + q_lo) = 1 to ~2^-106.
        let (q, ql) = div_dd(1.0, 3.0);
        let (p, e) = two_prod(q, 3.0);
        assert!((p - 1.0 + e + 3.0 * ql).abs() < 1e-32);
    }
}
