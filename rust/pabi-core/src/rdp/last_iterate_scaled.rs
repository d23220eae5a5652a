//! Scaled (mantissa·2^exponent) and exact helpers of the last-iterate bounds
//! (`last_iterate.rs`): θ_L(s) and L as upper bounds that neither underflow nor overflow, their
//! products and sums, and the exact step-size limit of Cor. C.2.
//!
//! θ_L(ℓ) ~ 1e-1047 (L = 0.3, ℓ = 1000) underflowed to the subnormal TINY of `theta_l_u`, and the
//! bound α/(2σ²)(Lτ + s̄)²θ_L(ℓ) then multiplied that TINY by (Lτ + s̄)² ~ 1e600: a bound of
//! 2.6e304 where the exact value is 2e-274. Here θ is carried as m·2^e from ln θ.

use super::scalar::{frexp, ldexp_once};
use crate::num::dd::{two_prod, two_sum};
use crate::num::round::{exact_sum_sign, exp_up, EPS, EPS2};

/// A non-negative number m·2^e, m ∈ [1/2, 1) (m = 0 for 0): no over- or underflow.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sc {
    m: f64,
    e: i64,
}

impl Sc {
    pub(super) const ZERO: Sc = Sc { m: 0.0, e: 0 };

    /// A finite x ≥ 0, exactly.
    pub(super) fn of(x: f64) -> Sc {
        if x == 0.0 {
            return Sc::ZERO;
        }
        let (m, e) = frexp(x);
        Sc { m, e }
    }

    fn norm(m: f64, e: i64) -> Sc {
        if m == 0.0 {
            return Sc::ZERO;
        }
        let (mm, k) = frexp(m);
        Sc { m: mm, e: e + k }
    }

    pub(super) fn is_zero(self) -> bool {
        self.m == 0.0
    }

    /// The product, to nearest (one rounding: the mantissas' product is in [1/4, 1)).
    pub(super) fn mul(self, o: Sc) -> Sc {
        Sc::norm(self.m * o.m, self.e + o.e)
    }

    /// The quotient, to nearest (one rounding); `o` non-zero.
    pub(super) fn div(self, o: Sc) -> Sc {
        Sc::norm(self.m / o.m, self.e - o.e)
    }

    /// The sum, to nearest: one rounding, plus the smaller term dropped where it is below
    /// 2^-1100 of the larger (relative 2^-1099, far inside the callers' INFLATE).
    pub(super) fn add(self, o: Sc) -> Sc {
        if self.is_zero() {
            return o;
        }
        if o.is_zero() {
            return self;
        }
        let (a, b) = if self.e >= o.e { (self, o) } else { (o, self) };
        let d = b.e - a.e;
        let t = if d < -1100 { 0.0 } else { ldexp_once(b.m, d) };
        Sc::norm(a.m + t, a.e)
    }

    /// The nearest double (one rounding; +inf beyond the range, 0 far below it).
    pub(super) fn to_f64(self) -> f64 {
        if self.is_zero() {
            0.0
        } else {
            ldexp_once(self.m, self.e)
        }
    }
}

/// An upper bound of e^y for every y ≤ hi + lo + err, as m·2^k (no overflow or underflow):
/// k = ⌊(hi + lo)/ln 2⌋, r = ((hi − k·ln2_hi) − k·ln2_lo) + lo with k·ln2_hi exact (TwoProd) and
/// ln 2 = ln2_hi + ln2_lo to 2^-106: each of the ≤ 5 roundings is ≤ u of a partial result
/// bounded by |hi − k·ln2_hi| + |lo| + 2, plus 1e-30|k| for the constant; `exp_up` is ≥ e^r.
pub(super) fn exp_scaled_up(hi: f64, lo: f64, err: f64) -> Sc {
    if hi == f64::NEG_INFINITY {
        return Sc::ZERO;
    }
    let ln2 = std::f64::consts::LN_2;
    let k = ((hi + lo) / ln2).floor();
    let (kh, kl) = two_prod(k, ln2);
    let d = hi - kh;
    let r = ((d - kl) + lo) - k * LN2_LO;
    let r = r + (EPS * (d.abs() + lo.abs() + 4.0) + 1e-30 * k.abs() + err);
    Sc::norm(exp_up(r), k as i64)
}

/// ln 2 − fl(ln 2).
const LN2_LO: f64 = 2.319_046_813_846_299_6e-17;

/// θ_L(s) rounded up as m·2^e (u = ln L², s = 0 or ≥ 1 as `theta_l_u` checks). Where the double
/// θ ([`super::last_iterate::theta_l_u`], rounded up, plus TINY) is at least 1e-270 it stands;
/// below (only u < 0 gets there: for u > 0, θ ≥ 1/s), ln θ = (s − 1)u + ln(expm1(u)/expm1(su))
/// with (s − 1)u = P + p exactly (TwoProd; s − 1 exact below 2^53) and the logarithm of the
/// quotient to ≤ 4ε + ε|ln q| (expm1 of su to ≤ 1 ulp relative as |su|e^{su}/|expm1(su)| ≤ 1,
/// expm1(u), the quotient, ln), doubled; from 2^53 on, (s − 1)u rounded (ε|(s − 1)u| more).
pub(super) fn theta_scaled_up(u: f64, s: f64, v: f64) -> Sc {
    if v >= TINY_NORMAL || v == 0.0 || s < 1.0 || !(u < 0.0) {
        return Sc::of(v);
    }
    if u == f64::NEG_INFINITY {
        return Sc::ZERO; // (θ_0(s) = 0 for s > 1; s = 1 gave v = 1 above)
    }
    let lq = (u.exp_m1() / (s * u).exp_m1()).ln();
    let (pp, pl, perr) = if s < 9_007_199_254_740_992.0 {
        let (a, b) = two_prod(s - 1.0, u);
        (a, b, 0.0)
    } else {
        let p = (s - 1.0) * u; // s − 1 and the product rounded: ≤ 2u|p|
        (p, 0.0, EPS * p.abs())
    };
    exp_scaled_up(
        pp,
        pl + lq,
        EPS2 * (lq.abs() + 4.0) + EPS * (pl + lq).abs() + perr,
    )
}

/// Below this a double θ is recomputed from its logarithm ([`theta_scaled_up`]); above it the
/// TINY of the double θ is < 2e-53 of it.
const TINY_NORMAL: f64 = 1e-270;

/// L = e^{u/2} rounded up as m·2^e: the double e^{u/2}·(1 + 2ε) where that is a normal double
/// (the same number as before), else from its logarithm (L = 5e-324 underflowed to 0 and the
/// bound to an exact 0; a huge L overflowed).
pub(super) fn lip_scaled_up(u: f64) -> Sc {
    if u == f64::NEG_INFINITY {
        return Sc::ZERO;
    }
    let l = crate::num::round::rel_up((0.5 * u).exp(), EPS2);
    if l >= f64::MIN_POSITIVE && l.is_finite() {
        return Sc::of(l);
    }
    exp_scaled_up(0.5 * u, 0.0, 0.0) // u/2 exact
}

/// Whether 2λ(a + b) ≤ 1 exactly (a, b ≥ 0, a + b a normal double below 2^1021 so that λ ~
/// 1/(2(a + b)) is normal). a + b = s + e exactly (TwoSum); λs = p + q exactly (TwoProd: λs ≈
/// 1/2, so q is normal) and λe = g + h (TwoProd); p − 1/2 is exact (Sterbenz, p ∈ [1/4, 1]).
/// The sign of (p − 1/2) + q + g + h is exact, but h may have underflowed: that matters only
/// when (p − 1/2) + q (a multiple of 2^-107) is 0, where then the sign is g's, or e's when g
/// underflowed too.
fn step_ok(lam: f64, a: f64, b: f64) -> bool {
    let (s, e) = two_sum(a, b);
    let (p, q) = two_prod(lam, s);
    let (g, h) = two_prod(lam, e);
    let mut sign = exact_sum_sign([p - 0.5, q, g, h]);
    if sign == 0 && g == 0.0 && e != 0.0 {
        sign = if e > 0.0 { 1 } else { -1 };
    }
    sign <= 0
}

/// The greatest double λ with λ ≤ 1/(2(a + b)) exactly (a, b ≥ 0, 0 < a + b ≤ 2^1021): from
/// the rounded 1/(2 fl(a + b)), within 2 ulp of it, moved by ulps with the exact test
/// [`step_ok`]. The rounded quotient alone was one ulp above the exact limit in about half of
/// the cases (an inadmissible step size for Kong–Ribero Cor. C.2).
pub(super) fn step_limit_down(a: f64, b: f64) -> f64 {
    let mut lam = 0.5 / (a + b);
    for _ in 0..8 {
        if step_ok(lam, a, b) {
            break;
        }
        lam = lam.next_down();
    }
    for _ in 0..8 {
        let up = lam.next_up();
        if step_ok(up, a, b) {
            lam = up;
        } else {
            break;
        }
    }
    lam
}
