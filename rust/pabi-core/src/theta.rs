//! The Gaussian hockey-stick divergence θ_{e^ε}(r) = E_{e^ε}(N(r,1) ‖ N(0,1)), its logarithm and
//! complement, and the Laplace analogue. SPEC_pabi.md §1.3–§1.5, §8.1; papers 000 (Lemma 2,
//! Def. 1) and 003 (eq. (3)).
//!
//! # Derivation of the kernel (differs from the SPEC's three-branch sketch; see below why)
//!
//! With a = ε/r − r/2, b = ε/r + r/2 = a + r, the identity b² − a² = 2ε gives e^ε·φ(b) = φ(a), so
//!
//! θ = Q(a) − e^ε Q(b) = φ(a)·[R(a) − R(b)] = ½·e^{−a²/2}·[erfcx(a/√2) − erfcx(b/√2)],
//!
//! with R the Mills ratio. Write F(s) = erfcx(a(s)/√2) under the change of variable
//! s(a) = 1 − 2(c−1)/(a + c), c = 4, which maps a ∈ [−1, ∞) onto s ∈ [−1, 1). F is analytic on
//! [−1, 1] and a single degree-34 polynomial P (Chebyshev interpolation at 60 digits,
//! `tools/gen_theta_coeffs.py`) reproduces it to ~1e-19. The difference of the two Mills ratios is
//! then formed **without subtraction**:
//!
//! F(s_a) − F(s_b) = (s_b − s_a)·(−DD),  s_b − s_a = 2(c−1)·r / ((a+c)(b+c)),
//!
//! where DD = (P(s_a) − P(s_b))/(s_a − s_b) comes from a Horner-like recurrence. Hence, for a ≥ −1,
//!
//! θ = e^{−a²/2} · (c−1)·r·(−DD) / ((a+c)(b+c)),
//! log θ = −a²/2 + ln((c−1)·r·(−DD)) − ln(a+c) − ln(b+c),
//!
//! which is accurate for every r (no cancellation as r → 0, no underflow in the log form as
//! ε/r → ∞) and needs one polynomial pass and one exp: branch-free, so the array kernel
//! vectorizes. For a < −1, θ > 0.68 and θ = 1 − C with the complement
//! C = ½·e^{−a²/2}·[erfcx(−a/√2) + erfcx(b/√2)] (a sum of positive terms). The SPEC's
//! asymptotic-series branch and Gauss–Legendre fallback are not needed: the divided difference
//! covers both regimes (it was measured more accurate than the SPEC sketch, see the table).
//!
//! a, b and a² are carried as double-doubles ([`crate::dd`]): θ has relative condition ≈ a² in
//! a, so rounding a to a double would already cost up to ~1e-12 (shared/DEPENDENCIES.md).
//!
//! Accuracy of the polynomial part (relative, mpmath at 90 digits, random points):
//! worst relative error of (R(a)-R(b))·φ-free part, a in [-1,0): 6.585e-16
//! worst relative error of (R(a)-R(b))·φ-free part, a in [0,12): 9.179e-16
//! worst relative error of (R(a)-R(b))·φ-free part, a in [12,1e3): 2.259e-15
//! worst relative error of (R(a)-R(b))·φ-free part, a in [1e3,1e9): 2.448e-15
//!
//! # Directed rounding (a privacy bound may be loose, never optimistic)
//! Values are computed to a few ulp and then moved outward by [`crate::num::INFLATE`] = 2^-46 ≈ 1.4e-14
//! relative (several times the largest error measured against `pabi.reference`): θ and log θ are
//! never below the exact value; 1 − θ and log(1 − θ) are never above it (1 − B appears in
//! denominators and in B^n, where a smaller complement is the conservative side). Where a value
//! is 1 − (a directed quantity) ≥ ½, only the subtraction's rounding remains and one ulp
//! (2^-53) suffices, so e.g. 1 − θ for tiny θ is 1 − 2^-53 rather than 1 − 1.4e-14.

use crate::dd::{div_dd, fast_two_sum, sqr_dd, two_sum, FRAC_1_SQRT_2_HI};
use crate::num::{down, shift_log, up, HALF_ULP_ONE};
use crate::vmath;

// c = 4.0, degree 34; last Chebyshev coefficients: 5.7e-19, 8.8e-20, 2.6e-20, 1.6e-20
const THETA_C: f64 = 4.0;
const THETA_POLY: [f64; 35] = [
    0.3362040024463412,
    -0.7528593354610976,
    0.7816566958064588,
    -0.5800751733889304,
    0.283845636971905,
    -0.0651037843790651,
    -0.015313342456442173,
    0.012864030683287214,
    0.0008892544891538371,
    -0.0023638667871225144,
    -0.00021425898899840438,
    0.0004733417085306828,
    0.0001092607861134918,
    -8.908830449913535e-05,
    -4.6276552742169156e-05,
    9.901480342487733e-06,
    1.4950037746242154e-05,
    2.42312731706451e-06,
    -3.198075085349699e-06,
    -1.962458549664729e-06,
    7.779372260415353e-08,
    6.095851357804136e-07,
    2.733486848954367e-07,
    -4.199896828127266e-08,
    -1.1349795493863924e-07,
    -5.743700595509157e-08,
    1.1133495734277652e-08,
    3.2842344811203355e-08,
    9.959525580640467e-09,
    -9.477276360856791e-09,
    -5.567031590403512e-09,
    1.5433193801242667e-09,
    1.3349117843125934e-09,
    -1.1276714706061381e-10,
    -1.3479975101997903e-10,
];

/// a = ε/r − r/2 and b = ε/r + r/2 as double-doubles.
#[inline(always)]
fn ab(eps: f64, r: f64) -> (f64, f64, f64, f64) {
    let (q, ql) = div_dd(eps, r);
    let h = 0.5 * r;
    let (a, ae) = two_sum(q, -h);
    let (a, al) = fast_two_sum(a, ae + ql);
    let (b, be) = two_sum(q, h);
    let (b, bl) = fast_two_sum(b, be + ql);
    (a, al, b, bl)
}

/// Divided difference (P(x) − P(y))/(x − y) of the kernel polynomial (x ≠ y or x = y).
#[inline(always)]
fn poly_dd(x: f64, y: f64) -> f64 {
    let n = THETA_POLY.len();
    let mut u = THETA_POLY[n - 1];
    let mut v = 0.0_f64;
    let mut k = n - 1;
    while k > 0 {
        k -= 1;
        v = v.mul_add(x, u);
        u = u.mul_add(y, THETA_POLY[k]);
    }
    v
}

/// The pieces shared by the four θ functions for one (ε, r) lane.
struct Lane {
    /// a = ε/r − r/2 (high part, clamped).
    a: f64,
    /// −a²/2 as a double-double (hi, lo).
    ha_hi: f64,
    ha_lo: f64,
    /// (c−1)·r·(−DD) and the two denominators a + c, b + c of the divided-difference form,
    /// θ = e^{−a²/2}·num/(ac·bc), valid for a ≥ −1.
    num: f64,
    ac: f64,
    bc: f64,
    /// (1 − θ)/e^{−a²/2} = ½[erfcx(−a/√2) + erfcx(b/√2)], valid for a < 0.
    y: f64,
}

/// `clamp_a` bounds |a| so that a² and the exponentials stay finite: value callers pass 40
/// (e^{−800} = 0), log callers 1e154 (a² ≤ 1e308; beyond, the returned log is still an upper
/// bound).
#[inline(always)]
fn lane(eps: f64, r: f64, clamp_a: f64) -> Lane {
    let (a, al, b, _) = ab(eps, r);
    let big = a.abs() > clamp_a || a.is_nan();
    let a = if big { clamp_a.copysign(a) } else { a };
    let al = if big { 0.0 } else { al };
    let b = b.min(1e300);
    let (a2, a2l) = sqr_dd(a, al);
    let c = THETA_C;
    let ac = a + c;
    let bc = b + c;
    let sa = 1.0 - 2.0 * (c - 1.0) / ac;
    let sb = 1.0 - 2.0 * (c - 1.0) / bc;
    let num = (c - 1.0) * r * (-poly_dd(sa, sb));
    let y =
        0.5 * (vmath::erfcx_pos(-a * FRAC_1_SQRT_2_HI) + vmath::erfcx_pos(b * FRAC_1_SQRT_2_HI));
    Lane {
        a,
        ha_hi: -0.5 * a2,
        ha_lo: -0.5 * a2l,
        num,
        ac,
        bc,
        y,
    }
}

/// Replace the special inputs r ∈ {0, ∞} and ε = ∞ by harmless finite ones; returns the
/// sanitized pair and the exact θ for the special cases (NaN when not special).
#[inline(always)]
fn special(eps: f64, r: f64) -> (f64, f64, f64) {
    let zero = r == 0.0 || (eps == f64::INFINITY && r < f64::INFINITY);
    let one = r == f64::INFINITY && eps < f64::INFINITY;
    let fixed = if zero {
        0.0
    } else if one {
        1.0
    } else {
        f64::NAN
    };
    let sp = zero || one;
    (if sp { 1.0 } else { eps }, if sp { 1.0 } else { r }, fixed)
}

/// e^{hi + lo} for |lo| ≤ 1e-12 (the low part of a double-double exponent).
#[inline(always)]
fn exp_dd(hi: f64, lo: f64) -> f64 {
    vmath::exp(hi) * (1.0 + lo)
}

/// θ_{e^ε}(r) = Q(ε/r − r/2) − e^ε·Q(ε/r + r/2), rounded up (never below the exact value).
///
/// Domain (validated by the callers in [`crate::batch`]): ε ∈ [0, ∞], r ∈ [0, ∞], not both
/// infinite. θ(ε, 0) = 0, θ(ε, ∞) = 1, θ(∞, r) = 0.
#[inline(always)]
pub fn theta(eps: f64, r: f64) -> f64 {
    let (e, rr, fixed) = special(eps, r);
    let l = lane(e, rr, 40.0);
    let w = exp_dd(l.ha_hi, l.ha_lo);
    // a ≥ −1: θ = e^{−a²/2}·x; a < −1: θ = 1 − C ≥ 0.68, one ulp up from 1 − (C rounded down).
    let v = if l.a >= -1.0 {
        up(w * (l.num / (l.ac * l.bc)))
    } else {
        (1.0 - down(w * l.y)) + HALF_ULP_ONE
    };
    let v = v.min(1.0);
    if !fixed.is_nan() {
        fixed
    } else {
        v
    }
}

/// ln θ_{e^ε}(r), rounded up; finite wherever θ > 0 even when θ underflows
/// (ε = 1, r = 1e-3 gives ≈ −5.0e5).
#[inline(always)]
pub fn log_theta(eps: f64, r: f64) -> f64 {
    let (e, rr, fixed) = special(eps, r);
    let l = lane(e, rr, 1e154);
    let ld = l.ha_hi + ((l.ha_lo + vmath::ln(l.num)) - vmath::ln(l.ac) - vmath::ln(l.bc));
    let lc = vmath::log1p(-down(exp_dd(l.ha_hi, l.ha_lo) * l.y));
    let v = if l.a >= -1.0 {
        shift_log(ld, 1.0, ld.abs().max(1.0))
    } else {
        shift_log(lc, 1.0, lc.abs())
    };
    if !fixed.is_nan() {
        vmath::ln(fixed)
    } else {
        v
    }
}

/// 1 − θ_{e^ε}(r), rounded down (never above the exact value); accurate when θ is within
/// 1e-300 of 1 (large r), where 1 − θ computed by subtraction would be 0.
#[inline(always)]
pub fn theta_complement(eps: f64, r: f64) -> f64 {
    let (e, rr, fixed) = special(eps, r);
    let l = lane(e, rr, 40.0);
    let w = exp_dd(l.ha_hi, l.ha_lo);
    // a ≥ 0: θ ≤ ½, so 1 − (θ rounded up) ≥ ½ and one ulp down makes it a lower bound.
    let v = if l.a >= 0.0 {
        (1.0 - up(w * (l.num / (l.ac * l.bc)))) - HALF_ULP_ONE
    } else {
        down(w * l.y)
    };
    let v = v.max(0.0);
    if !fixed.is_nan() {
        1.0 - fixed
    } else {
        v
    }
}

/// ln(1 − θ_{e^ε}(r)), rounded down; finite wherever θ < 1 (e.g. r = 1e3).
#[inline(always)]
pub fn log_theta_complement(eps: f64, r: f64) -> f64 {
    let (e, rr, fixed) = special(eps, r);
    let l = lane(e, rr, 1e154);
    let th = up(exp_dd(l.ha_hi, l.ha_lo) * (l.num / (l.ac * l.bc)));
    let pos = vmath::log1p(-th);
    let neg = l.ha_hi + (l.ha_lo + vmath::ln(l.y));
    let v = if l.a >= 0.0 {
        shift_log(pos, -1.0, pos.abs())
    } else {
        shift_log(neg, -1.0, neg.abs().max(1.0))
    };
    if !fixed.is_nan() {
        vmath::ln(1.0 - fixed)
    } else {
        v
    }
}

/// E_{e^ε}(Lap(r,1) ‖ Lap(0,1)) = max(0, 1 − e^{(ε−r)/2}) (000 Lemma 1, 003 eq. (5); SPEC §1.5),
/// rounded up. r is the shift in units of the Laplace scale. Domain: ε ≥ 0, r ≥ 0
/// (ε = ∞ gives 0, r = ∞ gives 1).
#[inline(always)]
pub fn laplace_theta(eps: f64, r: f64) -> f64 {
    let x = 0.5 * (eps - r);
    let v = if x < 0.0 {
        up(-vmath::expm1(x)).min(1.0)
    } else {
        0.0
    };
    if r == f64::INFINITY && eps < f64::INFINITY {
        1.0
    } else {
        v
    }
}

/// 1 − laplace_theta = min(1, e^{(ε−r)/2}), rounded down.
#[inline(always)]
pub fn laplace_theta_complement(eps: f64, r: f64) -> f64 {
    let x = 0.5 * (eps - r);
    let v = if x < 0.0 { down(vmath::exp(x)) } else { 1.0 };
    if r == f64::INFINITY && eps < f64::INFINITY {
        0.0
    } else {
        v
    }
}
