//! The Gaussian hockey-stick divergence θ_{e^ε}(r) = E_{e^ε}(N(r,1) ‖ N(0,1)), its logarithm and
//! complement, and the Laplace analogue: Asoodeh, Diaz, Calmon, *Privacy amplification of
//! iterative algorithms via contraction coefficients* (ISIT 2020), Lemma 2 and Def. 1 (Lemma 1
//! for Laplace); Sordello, Bu, Dong, *Privacy amplification via iteration for shuffled and online
//! PNSGD*, eq. (3) (eq. (5) for Laplace). Derivation: `docs/derivations/theta.md`.
//!
//! # Derivation of the kernel (differs from the usual three-branch evaluation; see below why)
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
//! log θ = −a²/2 + ln((c−1)·(−DD)·r/((a+c)(b+c))),
//!
//! which is accurate for every r (no cancellation as r → 0, no underflow in the log form as
//! ε/r → ∞) and needs one polynomial pass and one exp: branch-free, so the array kernel
//! vectorizes. For a < −1, θ > 0.68 and θ = 1 − C with the complement
//! C = ½·e^{−a²/2}·[erfcx(−a/√2) + erfcx(b/√2)] (a sum of positive terms). Both erfcx values
//! come from the same polynomial pass: those lanes do not need DD(s_a, s_b), so the pass runs at
//! (x, y) = (s(−a), s_b) and gives P(y) and DD(x, y), whence ½[P(x) + P(y)] = P(y) + ½(x − y)·DD
//! with x − y = −4(c−1)q/((c−a)(b+c)), q = ε/r, formed without cancellation. This holds while
//! −a ≤ 8 (beyond, the rounding of s costs accuracy and `erfcx_pos` is used), which covers
//! every complement lane of θ and log θ with r ≲ 16 at the cost of one division instead of two
//! erfcx. It is good to ~6 ulp, inside θ's margin but not the complements' tighter one, so
//! 1 − θ and ln(1 − θ) keep `erfcx_pos` (gathered lanes) for every a < 0. The usual
//! asymptotic-series branch and Gauss–Legendre fallback are not needed: the divided difference
//! covers both regimes (it was measured more accurate than that three-branch sketch, see the
//! table).
//!
//! a, b and a² are carried as double-doubles ([`crate::dd`]): θ has relative condition ≈ a² in
//! a, so rounding a to a double would already cost up to ~1e-12.
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
//!
//! # Speed: no arithmetic on subnormal numbers
//! On x86 a multiplication or FMA with a subnormal operand or an underflowing result takes a
//! microcode assist (~100 cycles; in a vector register one such lane stalls the whole
//! instruction). For ε ~ U[0, 10], r ~ 10^U[−2, 1] a third of the lanes have a > 38.6 where
//! e^{−a²/2} underflows, and `num::up` adds the subnormal TINY inside an FMA: together they
//! cost more than all the rest of the kernel. So e^{−a²/2}·x is formed as z = θ·2^200 (normal),
//! rounded outward in that scale, and brought back by integer operations on the bit pattern
//! (exact where θ is normal, truncated towards 0 where it is subnormal, the final ± TINY covering
//! the truncation: an addition, which takes no assist). Upper bounds that underflow are still
//! TINY = 4·2^-1074, as before. Lanes that do not use a branch feed it harmless values
//! (log1p(−0) rather than log1p of a subnormal). Rare inputs (r < ~1e-40, |a| < ~1e-150) can
//! still meet subnormals: only slower, the results are the same.

use crate::dd::{fast_two_sum, mul_dd, two_sum, FRAC_1_SQRT_2_HI};
use crate::num::{shift_log, HALF_ULP_ONE, INFLATE, INFLATE_TIGHT, TINY};
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

/// a = ε/r − r/2 and b = ε/r + r/2 as double-doubles, and q = ε/r (high part).
///
/// For r < 2^-900 the quotient is formed from ε·2^600 and r·2^600 (exact scalings): 1/r would
/// overflow for r < 5.6e-309, and the radii were once raised to 1e-300 instead, which made θ(0,
/// 1e-310) ten orders too large and ln θ(0, 5e-324) 54 too large. (ε·2^600 may overflow; then
/// ε/r does too and the caller sees a = NaN → +∞, as for any overflowing quotient.)
#[inline(always)]
fn ab(eps: f64, r: f64) -> (f64, f64, f64, f64, f64) {
    // ≈ 2^-900 (1.0034·2^-900, kept as it was: only where the exact scaling starts)
    const TWO_M900: f64 = 1.187107086822892e-271;
    const TWO_600: f64 = 4.149515568880993e180; // 2^600
    let s = if r < TWO_M900 { TWO_600 } else { 1.0 };
    let (es, rs) = (eps * s, r * s);
    // q = ε/r as a double-double from one reciprocal: q_hi = ε·(1/r) need not be the correctly
    // rounded quotient, the exact remainder ε − q_hi·r (fma) carries the rest.
    let ir = 1.0 / rs;
    let q = es * ir;
    let ql = (-q).mul_add(rs, es) * ir;
    let h = 0.5 * r;
    let (a, ae) = two_sum(q, -h);
    let (a, al) = fast_two_sum(a, ae + ql);
    let (b, be) = two_sum(q, h);
    let (b, bl) = fast_two_sum(b, be + ql);
    (a, al, b, bl, q)
}

/// |a| from which ln θ (ln(1 − θ) in the complement lanes) is below −f64::MAX: the smallest
/// double with a²/2 ≥ f64::MAX (ln θ ≤ −a²/2 for a ≥ 0, ln(1 − θ) ≤ −a²/2 for a < 0). The log
/// kernels clamp |a| here; clamped lanes return −f64::MAX (ln θ, rounded up) or −∞
/// (ln(1 − θ), rounded down).
const LOG_A_MAX: f64 = 1.8961503816218355e154;

/// Divided difference (P(x) − P(y))/(x − y) of the kernel polynomial (x ≠ y or x = y), and
/// P(y) (the Horner value the recurrence carries along).
#[inline(always)]
fn poly_dd(x: f64, y: f64) -> (f64, f64) {
    let n = THETA_POLY.len();
    let mut u = THETA_POLY[n - 1];
    let mut v = 0.0_f64;
    let mut k = n - 1;
    while k > 0 {
        k -= 1;
        v = v.mul_add(x, u);
        u = u.mul_add(y, THETA_POLY[k]);
    }
    (v, u)
}

/// Per-lane quantities before the polynomial pass (everything but the divided difference).
#[derive(Clone, Copy)]
struct Pre {
    /// a = ε/r − r/2 (high part, clamped to ±`clamp_a`) and b = a + r (high part, ≤ 1e300).
    a: f64,
    b: f64,
    /// −a²/2 as a double-double (hi, lo).
    ha_hi: f64,
    ha_lo: f64,
    /// a + c, b + c and the polynomial arguments s_a, s_b.
    ac: f64,
    bc: f64,
    /// 1/((a+c)(b+c)); 1/((c−a)(b+c)) in the near complement lanes (see [`pre`]).
    inv: f64,
    sa: f64,
    sb: f64,
    /// Complement lanes of the polynomial form: ½(s(−a) − s_b) (0 in the other lanes).
    hd: f64,
    /// r (sanitized) and the exact θ of the special inputs (NaN otherwise).
    r: f64,
    fixed: f64,
}

/// `clamp_a` bounds |a| so that a² and the exponentials stay finite: value callers pass 40
/// (e^{−800} = 0), log callers [`LOG_A_MAX`] (a²/2 ≤ f64::MAX below it). Lanes with a < `comp_below` use the complement form (see [`comp_lane`]).
#[inline(always)]
fn pre(eps: f64, r: f64, clamp_a: f64, comp_below: f64) -> Pre {
    let (eps, r, fixed) = special(eps, r);
    let (a, al, b, _, q) = ab(eps, r);
    // ε/r overflows (ε > 0, r tiny or subnormal): the dd steps give NaN, but a = +∞.
    let a = if a.is_nan() { f64::INFINITY } else { a };
    let big = a.abs() > clamp_a;
    let a = if big { clamp_a.copysign(a) } else { a };
    let al = if big { 0.0 } else { al };
    let b = b.min(1e300);
    // −a²/2 = (−a/2)·a: no overflow of a² for |a| < LOG_A_MAX
    let (ha_hi, ha_lo) = mul_dd(-0.5 * a, -0.5 * al, a, al);
    // |a| = LOG_A_MAX (clamped lanes) may overflow to −∞ (and a NaN low part): those lanes
    // return constants (see `fin_log_theta`), the rest of the kernel only needs finite values
    let (ha_hi, ha_lo) = if ha_hi >= -f64::MAX {
        (ha_hi, ha_lo)
    } else {
        (-f64::MAX, 0.0)
    };
    let c = THETA_C;
    let ac = a + c;
    // b + c capped at 1e150 + c so that (a+c)(b+c) stays finite: only reached where a is huge
    // too (θ ≈ e^{−a²/2}) or in the complement form (a < −1), and a smaller b + c only raises θ.
    let bc = b.min(1e150) + c;
    // Complement lanes near the origin: the polynomial pass evaluates the divided difference
    // at (s(−a), s_b) instead of (s_a, s_b) (those lanes do not use the latter), and
    // s(−a) − s_b = 2(c−1)·(1/(b+c) − 1/(c−a)) = −2(c−1)(a+b)/((c−a)(b+c)), a + b = 2q, is
    // formed without cancellation.
    let near = comp_near(a, b, comp_below);
    // 1/(b + c) = den·inv with den = a + c, or c − a in the near complement lanes: there
    // a ∈ [−8, −1) and a + c vanishes at a = −c (θ(10, 10) came out as 1 through 0·∞), while
    // c − a ∈ (5, 12]. The lanes that read `inv` itself (a ≥ −1) have den = a + c ≥ 3.
    let den = if near { c - a } else { ac };
    let inv = 1.0 / (den * bc);
    let ib = den * inv; // 1/(b + c)
    let w = 1.0 / (c - if near { a } else { 0.0 });
    Pre {
        a,
        b,
        ha_hi,
        ha_lo,
        ac,
        bc,
        inv,
        sa: if near {
            1.0 - 2.0 * (c - 1.0) * w
        } else {
            1.0 - 2.0 * (c - 1.0) * (bc * inv)
        },
        sb: 1.0 - 2.0 * (c - 1.0) * ib,
        hd: if near {
            -2.0 * (c - 1.0) * (q * w * ib)
        } else {
            0.0
        },
        r,
        fixed,
    }
}

/// −a up to which the complement form is evaluated with the kernel polynomial (beyond,
/// [`comp_y_far`]); b must also stay below the cap of `bc`.
const POLY_COMP_MAX: f64 = 8.0;

/// Does the lane use the complement form through the polynomial pass? Only θ and log θ
/// (`comp_below` = −1) do: the polynomial factor is good to ~6 ulp (the rounding of s(−a) and
/// s_b, test `complement_factor_near_equals_far`), well inside θ's outward margin INFLATE (64
/// ulp) but not inside the complements' INFLATE_TIGHT (8 ulp), which keep `erfcx_pos` (≤ 1 ulp).
#[inline(always)]
fn comp_near(a: f64, b: f64, comp_below: f64) -> bool {
    (comp_below < 0.0) & (a < comp_below) & (-a <= POLY_COMP_MAX) & (b <= 1e149)
}

/// (c−1)·(−DD): θ = e^{−a²/2}·r·num/((a+c)(b+c)) in the divided-difference form (a ≥ −1).
/// r is kept apart so that the log form stays finite when r·num underflows (subnormal r).
#[inline(always)]
fn num(dd: f64) -> f64 {
    (THETA_C - 1.0) * (-dd)
}

/// (1 − θ)/e^{−a²/2} = ½[erfcx(−a/√2) + erfcx(b/√2)], the complement form (a < 0).
///
/// Both arguments lie in the polynomial's range (−a > 0, b ≥ 0). For −a ≤ [`POLY_COMP_MAX`]
/// the polynomial pass was run at x = s(−a), y = s_b, giving DD = (P(x) − P(y))/(x − y) and
/// u = P(y), so ½[P(x) + P(y)] = u + ½(x − y)·DD: a sum of non-negative terms (P decreases,
/// x ≤ y), with x − y from [`pre`] (no cancellation). Beyond (r ≳ 16, where the rounding of s
/// would cost accuracy) `erfcx_pos` is used for both terms ([`comp_y_far`], gathered in the
/// block kernels).
#[inline(always)]
fn comp_y_near(hd: f64, dd: f64, u: f64) -> f64 {
    u + hd * dd
}

/// [`comp_y_near`]'s value for −a > [`POLY_COMP_MAX`], from `erfcx_pos`.
#[inline(always)]
fn comp_y_far(a: f64, b: f64) -> f64 {
    0.5 * (vmath::erfcx_pos(-a * FRAC_1_SQRT_2_HI) + vmath::erfcx_pos(b * FRAC_1_SQRT_2_HI))
}

/// The complement factor of one lane (1 where the lane does not read it).
#[inline(always)]
fn comp_lane(p: &Pre, comp_below: f64, dd: f64, u: f64) -> f64 {
    if comp_near(p.a, p.b, comp_below) {
        comp_y_near(p.hd, dd, u)
    } else if p.a < comp_below {
        comp_y_far(p.a, p.b)
    } else {
        1.0
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

// ---------------------------------------------------------------------------------------------
// e^{−a²/2}·x with directed rounding and no floating-point operation on subnormal numbers.
//
// On x86 a multiplication (or FMA) with a subnormal operand or an underflowing result takes a
// microcode assist of ~100 cycles, and in a vector register one such lane stalls all of them.
// With ε ~ U[0, 10], r ~ 10^U[−2, 1] a third of the lanes have a > 38.6, where e^{−a²/2}
// underflows, and `num::up` adds the subnormal TINY inside an FMA on every lane. So the product
// is formed as z = θ·2^SCALE (normal for θ ≥ 2^−1200), moved outward in that scale, and brought
// back by integer operations on the bit pattern (exact in the normal range, truncated towards 0 in
// the subnormal range); the final ± TINY is an addition (no assist) that covers the truncation
// and keeps an underflowing upper bound positive. Same results, up to one rounding, as
// `up_inflate(e^{hi}(1 + lo)·x)` / `down(…)`.

/// Exponent offset of the scaled products: z = θ·2^SCALE (normal for θ ≥ 2^−1222).
const SCALE: u64 = 200;

/// e^{hi + lo} as m·2^(k − SCALE), m ≈ e^{hi − k ln 2}·(1 + lo) ∈ [0.7, 1.42], for hi ≤ 0 and
/// |lo| ≤ 1e-12 (the low part of a double-double exponent). Returns (m, 2^max(k + SCALE, −880)):
/// for k < −1080 the scale is clamped, harmless since m·x·2^−1080 (x ≤ 2) truncates to 0 anyway,
/// and it keeps z = m·x·2^kz normal down to x ≈ 1e-43 (no underflow in the scaled product).
#[inline(always)]
fn exp_scaled(hi: f64, lo: f64) -> (f64, f64) {
    // e^{hi} ≪ 2^-1222 (z truncates to 0) from hi = −1500 on; there lo (the low part of a huge
    // −a²/2, up to ~1e292 in the log kernels) is dropped: m·(1 + lo) had turned negative and
    // ln(1 − θ) came out as 0, above the exact value (a ≳ 1e8, e.g. ε = 1, r = 1e-9)
    let lo = if hi < -1500.0 { 0.0 } else { lo };
    let (m, k) = vmath::exp_parts(hi);
    let kz = (k + SCALE as f64).max(-880.0);
    (m * (1.0 + lo), vmath::exp2i(kz))
}

/// z·2^−SCALE for z ≥ 0 by integer operations: exact where the result is normal, truncated
/// towards 0 where it is subnormal (0 for a subnormal z).
#[inline(always)]
fn unscale(z: f64) -> f64 {
    let zb = z.to_bits();
    let ez = zb >> 52;
    let normal = zb.wrapping_sub(SCALE << 52);
    let mant = (zb & ((1u64 << 52) - 1)) | (1u64 << 52);
    let sh = (SCALE + 1).wrapping_sub(ez).min(63);
    let sub = mant >> sh;
    f64::from_bits(if ez > SCALE { normal } else { sub })
}

/// e^{hi + lo}·x rounded up by INFLATE relative (+ TINY absolute), x ≥ 0 normal.
#[inline(always)]
fn exp_mul_up(e: (f64, f64), x: f64) -> f64 {
    unscale((e.0 * (x * (1.0 + INFLATE))) * e.1) + TINY
}

/// e^{hi + lo}·x rounded down by `rel` relative (− TINY absolute, never below 0).
#[inline(always)]
fn exp_mul_down(e: (f64, f64), x: f64, rel: f64) -> f64 {
    (unscale((e.0 * (x * (1.0 - rel))) * e.1) - TINY).max(0.0)
}

// ---------------------------------------------------------------------------------------------
// Finishing formulas, one per function, shared by the scalar and the block paths.
// `x` = num/((a+c)(b+c)) or its pieces, `y` = complement factor (only read where needed).

#[inline(always)]
fn fin_theta(p: &Pre, num: f64, y: f64) -> f64 {
    let e = exp_scaled(p.ha_hi, p.ha_lo);
    // a ≥ −1: θ = e^{−a²/2}·x; a < −1: θ = 1 − C ≥ 0.68, one ulp up from 1 − (C rounded down).
    let pos = exp_mul_up(e, p.r * num * p.inv);
    let neg = (1.0 - exp_mul_down(e, y, INFLATE)) + HALF_ULP_ONE;
    let v = if p.a >= -1.0 { pos } else { neg };
    let v = v.min(1.0);
    if !p.fixed.is_nan() {
        p.fixed
    } else {
        v
    }
}

/// ln θ in the divided-difference form (a ≥ −1), rounded up; `num` as in [`fin_theta`].
///
/// ln θ = −a²/2 + ln x with x = num·inv·r and inv = 1/((a+c)(b+c)) (formed for θ already): one
/// logarithm where x is a positive normal double ([`log_theta_pos_one`]: every lane of typical
/// inputs), else two ([`log_theta_pos_two`]: r or inv tiny). Four logarithms before 2026-11-27
/// (ln num + ln r − ln(a+c) − ln(b+c)), a sixth of the kernel's time each.
#[inline(always)]
fn log_theta_pos(p: &Pre, num: f64) -> f64 {
    let x = pos_arg(p, num);
    if x >= f64::MIN_POSITIVE {
        log_theta_pos_one(p, x)
    } else {
        log_theta_pos_two(p, num)
    }
}

/// The argument x = num·inv·r of [`log_theta_pos`]'s one-logarithm form.
#[inline(always)]
fn pos_arg(p: &Pre, num: f64) -> f64 {
    num * p.inv * p.r
}

/// [`log_theta_pos`] for a positive normal x = num·inv·r: ln θ = −a²/2 + ln x. Error of x: its
/// four roundings (inv's two, the two products), 4u relative, 4.4e-16 absolute in the log; and ½
/// ulp of ln x, no more than the separate logarithms' half ulps since |ln x| ≤ |ln num| +
/// |ln inv| + |ln r| (less where ln inv and ln r cancel) — far inside the shift
/// INFLATE·max(|ln θ|, 1).
#[inline(always)]
fn log_theta_pos_one(p: &Pre, x: f64) -> f64 {
    let ld = p.ha_hi + (p.ha_lo + vmath::ln_pos_normal(x));
    shift_log(ld, 1.0, ld.abs().max(1.0))
}

/// [`log_theta_pos`] where num·inv·r is not a normal double (subnormal r, or inv tiny at huge
/// a): ln θ = −a²/2 + ln(num·inv) + ln r. num·inv is a positive normal double in these lanes:
/// num = (c−1)(−DD) ≥ 0.39 (|P′| ≥ √(2/π)/6 on [−1, 1]) and (a+c)(b+c) ≤ 1.9e304 (a clamped
/// at `LOG_A_MAX`, b + c at 1e150 + c), so num·inv ≥ 2e-305; r keeps its own logarithm. Error as
/// in [`log_theta_pos_one`] (three roundings of the quotient, two logarithms).
#[inline(always)]
fn log_theta_pos_two(p: &Pre, num: f64) -> f64 {
    let ld = p.ha_hi + ((p.ha_lo + vmath::ln_pos_normal(num * p.inv)) + vmath::ln(p.r));
    shift_log(ld, 1.0, ld.abs().max(1.0))
}

/// ln θ = log1p(−C) in the complement form (a < −1), C = 1 − θ rounded down, the result
/// rounded up; `y` as in [`fin_theta`].
#[inline(always)]
fn log_theta_neg(ha_hi: f64, ha_lo: f64, y: f64) -> f64 {
    let c = exp_mul_down(exp_scaled(ha_hi, ha_lo), y, INFLATE);
    let lc = vmath::log1p(-c);
    shift_log(lc, 1.0, lc.abs())
}

/// ln of the exact θ of the special inputs (θ ∈ {0, 1}): −∞ or 0, as `vmath::ln` gives them.
#[inline(always)]
fn ln_fixed(fixed: f64) -> f64 {
    if fixed == 0.0 {
        f64::NEG_INFINITY
    } else {
        0.0
    }
}

/// Whether ln θ takes the complement form ([`log_theta_neg`], a < −1) rather than the
/// divided-difference form ([`log_theta_pos`]): the one statement of [`fin_log_theta`]'s branch,
/// shared with its block form (`theta_block.rs`).
#[inline(always)]
fn log_theta_is_neg(p: &Pre) -> bool {
    p.a < -1.0 || p.a.is_nan()
}

/// ln θ of one lane from the value `v` of its form ([`log_theta_is_neg`]): −f64::MAX where
/// a ≥ LOG_A_MAX (ln θ ≤ −a²/2 ≤ −f64::MAX, whose upward rounding is −f64::MAX), the exact
/// −∞ or 0 of the special inputs. Shared with the block form.
#[inline(always)]
fn log_theta_finish(p: &Pre, v: f64) -> f64 {
    let v = if p.a >= LOG_A_MAX { -f64::MAX } else { v };
    if !p.fixed.is_nan() {
        ln_fixed(p.fixed)
    } else {
        v
    }
}

#[inline(always)]
fn fin_log_theta(p: &Pre, num: f64, y: f64) -> f64 {
    let v = if log_theta_is_neg(p) {
        log_theta_neg(p.ha_hi, p.ha_lo, y)
    } else {
        log_theta_pos(p, num)
    };
    log_theta_finish(p, v)
}

#[inline(always)]
fn fin_theta_complement(p: &Pre, num: f64, y: f64) -> f64 {
    let e = exp_scaled(p.ha_hi, p.ha_lo);
    // a ≥ 0: θ ≤ ½, so 1 − (θ rounded up) ≥ ½ and one ulp down makes it a lower bound.
    let pos = (1.0 - exp_mul_up(e, p.r * num * p.inv)) - HALF_ULP_ONE;
    let neg = exp_mul_down(e, y, INFLATE_TIGHT);
    let v = if p.a >= 0.0 { pos } else { neg };
    let v = v.max(0.0);
    if !p.fixed.is_nan() {
        1.0 - p.fixed
    } else {
        v
    }
}

#[inline(always)]
fn fin_log_theta_complement(p: &Pre, num: f64, y: f64) -> f64 {
    let th = exp_mul_up(exp_scaled(p.ha_hi, p.ha_lo), p.r * num * p.inv);
    // θ < 1e-250: ln(1 − θ) ≥ −θ(1 + θ) ≥ −(θ rounded up by INFLATE), no log1p of a subnormal.
    let small = th < 1e-250;
    let l = vmath::log1p(-(if small { 0.0 } else { th }));
    let pos = if small {
        -th
    } else {
        shift_log(l, -1.0, l.abs())
    };
    let neg = p.ha_hi + (p.ha_lo + vmath::ln(y));
    // a ∈ [−1, 0) with θ ≤ ½ (ε < r²/2, r ≲ 1.35) also takes log1p(−θ): the divided-difference θ
    // holds for a ≥ −1, and the complement form's ln y carries ~1e-16 absolute, which the
    // absolute INFLATE shift made 3.6e-11 relative at r = 1e-3 (3.6e-6 at r = 1e-8)
    let v = if p.a >= 0.0 || (p.a >= -1.0 && th <= 0.5) {
        pos
    } else if p.a > -LOG_A_MAX {
        shift_log(neg, -1.0, neg.abs().max(1.0))
    } else {
        // ln(1 − θ) ≤ −a²/2 ≤ −f64::MAX: rounded down, −∞
        f64::NEG_INFINITY
    };
    if !p.fixed.is_nan() {
        ln_fixed(1.0 - p.fixed)
    } else {
        v
    }
}

// ---------------------------------------------------------------------------------------------
// Scalar entry points (inlined into callers' loops).

/// θ_{e^ε}(r) = Q(ε/r − r/2) − e^ε·Q(ε/r + r/2), rounded up (never below the exact value).
///
/// Domain (validated by the callers in [`crate::batch`]): ε ∈ [0, ∞], r ∈ [0, ∞], not both
/// infinite. θ(ε, 0) = 0, θ(ε, ∞) = 1, θ(∞, r) = 0.
#[inline(always)]
pub fn theta(eps: f64, r: f64) -> f64 {
    let p = pre(eps, r, 40.0, -1.0);
    let (dd, u) = poly_dd(p.sa, p.sb);
    fin_theta(&p, num(dd), comp_lane(&p, -1.0, dd, u))
}

/// ln θ_{e^ε}(r), rounded up; finite wherever θ > 0 even when θ underflows
/// (ε = 1, r = 1e-3 gives ≈ −5.0e5).
#[inline(always)]
pub fn log_theta(eps: f64, r: f64) -> f64 {
    let p = pre(eps, r, LOG_A_MAX, -1.0);
    let (dd, u) = poly_dd(p.sa, p.sb);
    fin_log_theta(&p, num(dd), comp_lane(&p, -1.0, dd, u))
}

/// 1 − θ_{e^ε}(r), rounded down (never above the exact value); accurate when θ is within
/// 1e-300 of 1 (large r), where 1 − θ computed by subtraction would be 0.
#[inline(always)]
pub fn theta_complement(eps: f64, r: f64) -> f64 {
    let p = pre(eps, r, 40.0, 0.0);
    let (dd, u) = poly_dd(p.sa, p.sb);
    fin_theta_complement(&p, num(dd), comp_lane(&p, 0.0, dd, u))
}

/// ln(1 − θ_{e^ε}(r)), rounded down; finite wherever θ < 1 (e.g. r = 1e3).
#[inline(always)]
pub fn log_theta_complement(eps: f64, r: f64) -> f64 {
    let p = pre(eps, r, LOG_A_MAX, 0.0);
    let (dd, u) = poly_dd(p.sa, p.sb);
    fin_log_theta_complement(&p, num(dd), comp_lane(&p, 0.0, dd, u))
}

// ---------------------------------------------------------------------------------------------
// Block entry points for the array kernels (`theta_block.rs`).

#[path = "theta_block.rs"]
mod block;
pub use block::{in_domain, theta_many, ThetaBlocks, BLOCK};

// ---------------------------------------------------------------------------------------------
// The Laplace analogue and the tight logarithms live in sibling files; their old paths
// (`crate::theta::laplace_theta`, `crate::theta::log_theta_tight`, ...) are kept.

pub use super::laplace::{
    laplace_theta, laplace_theta_complement, log_laplace_theta, log_laplace_theta_complement,
};
pub use super::theta_tight::{log_theta_complement_tight, log_theta_tight, log_theta_tight_block};

#[cfg(test)]
#[path = "theta_tests.rs"]
mod tests;
