//! Double-double ("error-free transformation") arithmetic.
//!
//! A value is carried as `hi + lo` with `|lo| <= ulp(hi)/2`. All helpers are
//! `#[inline(always)]` and branch-free so they vectorize inside the array kernels.
//! `two_prod` relies on a fused multiply-add; in the FMA-enabled clones of the
//! kernels `mul_add` is one instruction, elsewhere it is the (exact, slower) libm fma.
//!
//! Why this module exists: θ_{e^ε}(r) has a relative condition number ≈ a² in
//! a = ε/r − r/2 (up to ~1,400 where θ is still a normal double). Rounding `a` to a
//! double already costs up to 7.6e-13 relative (docs/derivations/theta.md), so `a`, `b`
//! and `a²` are carried exactly as double-doubles into φ(a) and the Mills ratios.

use std::ops::{Add, Div, Mul, Neg, Sub};

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

// ---------------------------------------------------------------------------------------------
// A double-double value type with the arithmetic and elementary functions needed by the slow,
// precise paths (`theta_dd`, the fixed-order PNSGD bound at large condition numbers). These are
// scalar and branchy (not for the vectorized kernels); relative error ~2^-100 per operation
// unless stated.

/// A double-double number `hi + lo`, `|lo| <= ulp(hi)/2` after every operation.
/// The operators (+, −, ×, ÷, unary −) are implemented on it; `.add(..)` style calls need the
/// `std::ops` traits in scope.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Dd {
    pub hi: f64,
    pub lo: f64,
}

/// ln 2 as a double-double.
pub const LN2_DD: Dd = Dd::new(std::f64::consts::LN_2, 2.319_046_813_846_299_6e-17);

impl Dd {
    #[inline(always)]
    pub const fn new(hi: f64, lo: f64) -> Dd {
        Dd { hi, lo }
    }

    #[inline(always)]
    pub const fn from_f64(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// `hi + lo` rounded to a double.
    #[inline(always)]
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }

    #[inline(always)]
    pub fn add_f(self, b: f64) -> Dd {
        let (s, e) = two_sum(self.hi, b);
        let (s, e) = fast_two_sum(s, e + self.lo);
        Dd::new(s, e)
    }

    #[inline(always)]
    pub fn mul_f(self, b: f64) -> Dd {
        let (p, e) = two_prod(self.hi, b);
        let (h, l) = fast_two_sum(p, e + self.lo * b);
        Dd::new(h, l)
    }

    #[inline(always)]
    pub fn sqr(self) -> Dd {
        let (h, l) = sqr_dd(self.hi, self.lo);
        Dd::new(h, l)
    }

    #[inline(always)]
    pub fn div_f(self, b: f64) -> Dd {
        let q1 = self.hi / b;
        let (p, e) = two_prod(q1, b);
        let r = ((self.hi - p) - e) + self.lo;
        let (h, l) = fast_two_sum(q1, r / b);
        Dd::new(h, l)
    }

    /// Square root of a non-negative value.
    #[inline(always)]
    pub fn sqrt(self) -> Dd {
        if self.hi <= 0.0 {
            return Dd::from_f64(0.0);
        }
        let s = self.hi.sqrt();
        let (p, e) = two_prod(s, s);
        let c = (((self.hi - p) - e) + self.lo) / (2.0 * s);
        let (h, l) = fast_two_sum(s, c);
        Dd::new(h, l)
    }

    /// `self · 2^k` (exact while the result is normal).
    #[inline(always)]
    pub fn ldexp(self, k: i32) -> Dd {
        let f = pow2(k);
        Dd::new(self.hi * f, self.lo * f)
    }
}

impl Neg for Dd {
    type Output = Dd;
    #[inline(always)]
    fn neg(self) -> Dd {
        Dd::new(-self.hi, -self.lo)
    }
}

/// Sum with a relative error ~2^-104 of the result even under cancellation ("IEEE" add).
impl Add for Dd {
    type Output = Dd;
    #[inline(always)]
    fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = fast_two_sum(s, e + t);
        let (s, e) = fast_two_sum(s, e + f);
        Dd::new(s, e)
    }
}

impl Sub for Dd {
    type Output = Dd;
    #[inline(always)]
    fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }
}

impl Mul for Dd {
    type Output = Dd;
    #[inline(always)]
    fn mul(self, o: Dd) -> Dd {
        let (h, l) = mul_dd(self.hi, self.lo, o.hi, o.lo);
        Dd::new(h, l)
    }
}

/// Quotient (two correction steps: relative error ~2^-103).
impl Div for Dd {
    type Output = Dd;
    #[inline(always)]
    fn div(self, o: Dd) -> Dd {
        let q1 = self.hi / o.hi;
        let r = self.sub(o.mul_f(q1));
        let q2 = r.hi / o.hi;
        let r = r.sub(o.mul_f(q2));
        let q3 = r.hi / o.hi;
        let (h, l) = fast_two_sum(q1, q2);
        Dd::new(h, l).add_f(q3)
    }
}

/// 2^k for k in [-1022, 1023] (exact), by the bit pattern.
#[inline(always)]
fn pow2(k: i32) -> f64 {
    let k = k.clamp(-1022, 1023);
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// e^x − 1 with a relative error ~2^-100 (|x| ≤ 700): Taylor series on x/2^s, |x/2^s| ≤ 2^-10,
/// then s doublings e ← e(e + 2).
pub fn expm1_dd(x: Dd) -> Dd {
    let ax = x.hi.abs();
    if ax == 0.0 {
        return x;
    }
    let s = if ax > 2f64.powi(-10) {
        (ax.log2().ceil() as i32 + 10).max(0)
    } else {
        0
    };
    let y = x.ldexp(-s);
    // y + y²/2 + ... + y^9/9!  (|y| ≤ 2^-10: the next term is < 2^-111·|y|)
    let mut term = y;
    let mut sum = y;
    for k in 2..=9 {
        term = term.mul(y).div_f(k as f64);
        sum = sum.add(term);
    }
    let mut e = sum;
    for _ in 0..s {
        e = e.mul(e.add_f(2.0));
    }
    e
}

/// e^x for x in [-708, 709] (range reduction by ln 2). The relative error grows with |x|: the
/// reduced argument x − k·ln 2 carries an absolute error of about |x|·2^-104 (the double-double
/// product k·ln 2 and the subtraction), so it is ~2^-100 for |x| ≲ 10 and up to ~2^-95 at
/// |x| = 700 (measured 2^-96.4 at x = 593.78); callers that need a bound use (|x| + 8)·2^-104
/// (see `divergence.rs`).
pub fn exp_dd(x: Dd) -> Dd {
    let k = (x.hi / std::f64::consts::LN_2).round();
    let r = x.sub(LN2_DD.mul_f(k));
    expm1_dd(r).add_f(1.0).ldexp(k as i32)
}

/// Natural logarithm of x > 0 (relative error ~2^-100 away from x = 1, absolute ~2^-104 near
/// it): x = 2^e·f, one Newton step y ← y + f·e^{−y} − 1 from the double logarithm of f.
pub fn ln_dd(x: Dd) -> Dd {
    let e = x.hi.log2().floor() as i32;
    let f = x.ldexp(-e);
    let y0 = f.hi.ln();
    let c = f.mul(exp_dd(Dd::from_f64(-y0))).add_f(-1.0);
    LN2_DD.mul_f(e as f64).add(c.add_f(y0))
}

/// ln(1 + v) for v > −1 with a relative error ~2^-100: for |v| ≤ ½ one Newton step on
/// (1 + v)·e^{−y} − 1 = v + E + v·E, E = expm1(−y) (no cancellation against 1).
pub fn log1p_dd(v: Dd) -> Dd {
    if v.hi.abs() > 0.5 {
        return ln_dd(v.add_f(1.0));
    }
    if v.hi == 0.0 {
        return v;
    }
    let y0 = v.hi.ln_1p();
    let e = expm1_dd(Dd::from_f64(-y0));
    let c = v.add(e).add(v.mul(e));
    c.add_f(y0)
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

    #[test]
    fn dd_elementary_functions() {
        // golden values: mpmath at 40 digits, split into (hi, lo) = (float(v), float(v - hi)):
        //   import mpmath as mp; mp.mp.dps = 40
        //   for v in [mp.exp(mp.mpf(-37.25)), mp.expm1(mp.mpf(1e-5)), mp.log(mp.mpf(3)),
        //             mp.log1p(mp.mpf(-0.125)), mp.sqrt(mp.mpf(2)), mp.mpf(1)/3]: ...
        let rel = |x: Dd, h: f64, l: f64| {
            let d = x.sub(Dd::new(h, l));
            (d.hi / h).abs()
        };
        assert!(
            rel(
                exp_dd(Dd::from_f64(-37.25)),
                6.64554417291507e-17,
                -5.891784267265031e-34
            ) < 1e-30
        );
        assert!(
            rel(
                expm1_dd(Dd::from_f64(1e-5)),
                1.0000050000166668e-05,
                -3.111926571619883e-22
            ) < 1e-30
        );
        assert!(
            rel(
                ln_dd(Dd::from_f64(3.0)),
                1.0986122886681098,
                -9.07129723500153e-17
            ) < 1e-30
        );
        assert!(
            rel(
                log1p_dd(Dd::from_f64(-0.125)),
                -0.13353139262452263,
                3.664457663660085e-18
            ) < 1e-30
        );
        assert!(
            rel(
                Dd::from_f64(2.0).sqrt(),
                std::f64::consts::SQRT_2,
                -9.667293313452913e-17
            ) < 1e-30
        );
        assert!(
            rel(
                Dd::from_f64(1.0).div(Dd::from_f64(3.0)),
                0.3333333333333333,
                1.850371707708594e-17
            ) < 1e-30
        );
    }
}
