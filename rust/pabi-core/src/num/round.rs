//! Directed rounding: the one place for the margins and the rounded operations of every bound.
//!
//! In the style of OpenDP's `InfAdd`/`InfMul` traits, each operation is named by its direction
//! (`_up`: the result is ≥ the exact value; `_dn`/`_down`: ≤), and its error bound is stated
//! once, here, not at its call sites. Which direction a caller needs is decided by the sign of
//! the dependency of the *final* result on that intermediate (see the module docs of each bound);
//! these functions only promise the direction they are named after.
//!
//! # Margins
//!
//! | name | value | meaning |
//! |---|---|---|
//! | [`INFLATE`] | 2^-46 ≈ 1.42e-14 | relative outward margin of a δ or ε computed to a few ulp |
//! | [`INFLATE_TIGHT`] | 2^-49 ≈ 1.8e-15 | margin of quantities whose error is a few ulp by construction (1 − θ, gaps 1 − B) |
//! | [`HALF_ULP_ONE`] | 2^-53 | one ulp just below 1; an exact one-ulp step on [0.5, 1) |
//! | [`TINY`] | 4·2^-1074 | a few subnormal ulps: keeps an underflowing upper bound an upper bound |
//! | [`U`], [`EPS`], [`EPS2`], [`EPS3`], [`EPS4`], [`EPS8`], [`EPS48`] | k·2^-52 | the `k·f64::EPSILON` margins of hand-derived error bounds (exact multiples: `EPS4 * x` is bit-identical to `4.0 * f64::EPSILON * x`) |
//! | [`LOG_REL`] | 2^-51 | relative margin of a logarithm computed to a few ulp |
//!
//! # Operations and their bounds (stated once)
//!
//! * Relative margins, for non-negative v: [`up`] returns ≥ v·(1 + 2^-46) (one product with
//!   1 + 2^-46 + 2^-52, then + [`TINY`]: rounding to nearest of the product cannot fall below
//!   v·(1 + 2^-46) for normal v, and the absolute `TINY` covers zero and subnormal v);
//!   [`down`] returns ≤ v·(1 − 2^-46 + 2^-53) (one product rounded to nearest, then − TINY;
//!   never below 0), so strictly below v for v > 0; [`down_tight`] the same with 2^-49.
//!   [`up_inflate`] is v·(1 + 2^-46) + TINY (the product rounded to nearest: ≥ v·(1 + 2^-46)
//!   − ½ulp, i.e. at least v·(1 + 2^-46 − 2^-53)); [`up_signed`] moves any sign up by 2^-46
//!   relative and keeps an exact 0; [`up_order`] inflates by 2^-46·(1 + log2 α).
//! * [`shift_log`] moves a logarithm up or down by INFLATE·scale (result ≤ 0);
//!   [`log_up_rel`] moves a negative logarithm up by [`LOG_REL`] relative (≥ 1.5 ulp after
//!   rounding: above the exact value when the log was faithful); [`ln_down_2u`] is
//!   ln δ − 2u|ln δ| − 1e-300 (≤ the exact ln δ when the libm `ln` is faithful).
//! * Exact-residual operations (error-free transformations): [`add_up`], [`add_dn`],
//!   [`mul_up`], [`mul_dn`], [`div_up`], [`div_dn`], [`sqrt_up`], [`sqrt_dn`] return the
//!   correctly rounded result or its neighbour in the named direction, decided by the exact
//!   sign of the rounding residual (TwoSum, or an FMA, which is exact for these residuals):
//!   the tightest directed result (≤ 1 ulp from the exact value) whenever no underflow occurs.
//!   [`mul_up`]/[`mul_dn`]/[`div_up`]/[`div_dn`] take non-negative operands. Below
//!   [`RESIDUAL_EXACT`] = 2^-969 the exact residual can have bits under 2^-1074 and its fma
//!   value may flush to 0, so there the operands are scaled by 2^600 (exactly) and the sign of
//!   the scaled residual decides the direction exactly: the result is the correctly directed
//!   value (never a second step), hence monotone. An upward product or quotient of positive
//!   numbers is therefore never 0, and a downward one never above the exact value.
//!   Exact zeros (a zero operand) and infinite or NaN results are returned as is.
//! * Library functions: [`ln_up`], [`ln_dn`], [`exp_up`], [`exp_dn`] step two doubles away
//!   from std's `ln`/`exp` (faithful, error < 1 ulp, on every supported platform: two steps
//!   cover the half-size step below a power of two). [`exp_up_unit`] and [`exp_down`] are the
//!   margin-based forms (`up(e^l)` capped at 1, `down(e^l)`).
//! * Neighbours: [`f64::next_up`] and [`f64::next_down`] (stable since Rust 1.86, the crate's
//!   MSRV); the former private copies (`gd::next_up`, `gdp::next_up`) return the same bits on
//!   every argument they are called with.
//! * Moved here from the bounds: [`rel_err`] (c·ε, the relative error of a hand-derived count of
//!   c ulps), [`rel_up`] / [`rel_dn`] (v ± m·|v|, the `k·ε` margins), [`exp_prod_up`] and [`one_minus_exp_prod`] (e^y, 1 − e^y at a rounded product y = x·l,
//!   margin (|y| + 3)·2ε), [`prob_up`] (a probability from its log with the vectorizable exp).

use super::dd::{two_sum, Dd};

/// Relative outward rounding applied to directed results: 2^-46 ≈ 1.42e-14, several times the
/// largest computational error measured against `pabi.reference` (see the golden tests).
pub const INFLATE: f64 = 1.0 / 70_368_744_177_664.0;
/// A few subnormal ulps: added so that an underflowing upper bound stays an upper bound.
pub const TINY: f64 = 4.0 * 5e-324;
/// 2^-53: one ulp just below 1, and an exact one-ulp step for values in [0.5, 1).
pub const HALF_ULP_ONE: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Smaller outward rounding (2^-49 ≈ 1.8e-15) for quantities whose error is a few ulp by
/// construction: the complement 1 − θ = e^{−a²/2}·½[erfcx(−a/√2) + erfcx(b/√2)] (a product of
/// three ≤ 1-ulp kernels; measured ≤ 1.4 ulp). Contraction gaps 1 − B enter long products
/// B^(n−i) with condition (n−i)·(1 − B), so their margin matters: 2^-46 would cap the relative
/// accuracy of δ at ~1.4e-14 × condition.
pub const INFLATE_TIGHT: f64 = 1.0 / 562_949_953_421_312.0;

/// f64::EPSILON = 2^-52 (one ulp of 1).
pub const EPS: f64 = f64::EPSILON;
/// The unit roundoff u = 2^-53 = ε/2.
pub const U: f64 = f64::EPSILON / 2.0;
/// 2ε = 2^-51.
pub const EPS2: f64 = 2.0 * f64::EPSILON;
/// 3ε.
pub const EPS3: f64 = 3.0 * f64::EPSILON;
/// 4ε = 2^-50.
pub const EPS4: f64 = 4.0 * f64::EPSILON;
/// 8ε = 2^-49.
pub const EPS8: f64 = 8.0 * f64::EPSILON;
/// 48ε.
pub const EPS48: f64 = 48.0 * f64::EPSILON;
/// Relative margin (2^-51 = 4 ulp of ½) of a logarithm computed to a few ulp (`pnsgd`'s
/// `LOG_REL`).
pub const LOG_REL: f64 = 4.0 / 9_007_199_254_740_992.0;

/// Round a non-negative value down by [`INFLATE_TIGHT`] (never below 0).
#[inline(always)]
pub fn down_tight(v: f64) -> f64 {
    (v * (1.0 - INFLATE_TIGHT) - TINY).max(0.0)
}

/// Round a non-negative value up by [`INFLATE`] (and a few subnormal ulps).
///
/// A product and an addition, not one FMA: an FMA with the subnormal addend `TINY` takes a
/// microcode assist (~10–25 ns per element on this project's x86 machines, measured), a plain
/// addition does not.
#[inline(always)]
pub fn up(v: f64) -> f64 {
    const C: f64 = 1.0 + INFLATE + 2.0 * HALF_ULP_ONE;
    v * C + TINY
}

/// Round a non-negative value down by [`INFLATE`] (never below 0).
#[inline(always)]
pub fn down(v: f64) -> f64 {
    (v * (1.0 - INFLATE) - TINY).max(0.0)
}

/// v·(1 + [`INFLATE`]) + [`TINY`] for a non-negative normal v (θ's finishing formulas; the
/// former private `theta::up`).
#[inline(always)]
pub fn up_inflate(v: f64) -> f64 {
    v * (1.0 + INFLATE) + TINY
}

/// Move a value of either sign up by [`INFLATE`] relative plus [`TINY`]; an exact 0 stays 0
/// (the former private `rdp::extra::up`).
#[inline(always)]
pub fn up_signed(v: f64) -> f64 {
    if v == 0.0 {
        0.0
    } else if v > 0.0 {
        v * (1.0 + INFLATE) + TINY
    } else {
        v * (1.0 - INFLATE) + TINY
    }
}

/// Round an RDP value up: relative INFLATE·(1 + log2 α) (the error of an O(α) sum grows
/// slowly with α), plus a few subnormal ulps; an exact 0 stays 0 (the former `rdp::up_order`).
#[inline(always)]
pub fn up_order(v: f64, order: f64) -> f64 {
    if v == 0.0 {
        return 0.0; // exact zeros (q = 0, r = 0) stay exact
    }
    v * (1.0 + INFLATE * (1.0 + order.log2().max(0.0))) + TINY
}

/// Move a logarithm up (`sign` = 1) or down (`sign` = −1) by [`INFLATE`]·`scale`, where `scale`
/// bounds the magnitude of the terms it was summed from (max(1, |v|) for sums of large logs,
/// |v| for a single `log1p`, whose error is relative). The result stays ≤ 0.
#[inline(always)]
pub fn shift_log(v: f64, sign: f64, scale: f64) -> f64 {
    let s = (sign * INFLATE).mul_add(scale, v).min(0.0);
    if v == f64::NEG_INFINITY {
        v
    } else {
        s
    }
}

/// ln of a value in (0, 1] computed to a few ulp (v ≤ 0), moved up (towards 0) by
/// [`LOG_REL`] relative (the former private `pnsgd::log_up`).
#[inline(always)]
pub fn log_up_rel(v: f64) -> f64 {
    v * (1.0 - LOG_REL)
}

/// ln δ rounded down: ln δ − 2u·|ln δ| − 1e-300 (the former private `gdp::ln_down`).
#[inline]
pub fn ln_down_2u(delta: f64) -> f64 {
    let l = delta.ln();
    l - 2.0 * U * l.abs() - 1e-300
}

/// A probability from its logarithm, rounded up and at most 1 (ln = −∞ gives 0).
#[inline]
pub fn exp_up_unit(log_value: f64) -> f64 {
    if log_value == f64::NEG_INFINITY {
        0.0
    } else {
        up(log_value.exp()).min(1.0)
    }
}

/// A non-negative value from its logarithm, rounded down.
#[inline]
pub fn exp_down(log_value: f64) -> f64 {
    down(log_value.exp())
}

// ---------------------------------------------------------------------------------------------
// Exact-residual operations

/// a + b rounded up (the TwoSum residual decides; a non-finite sum is returned as is).
#[inline(always)]
pub fn add_up(a: f64, b: f64) -> f64 {
    let (s, e) = two_sum(a, b);
    if s.is_finite() && e > 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// a + b rounded down.
#[inline(always)]
pub fn add_dn(a: f64, b: f64) -> f64 {
    let (s, e) = two_sum(a, b);
    if s.is_finite() && e < 0.0 {
        s.next_down()
    } else {
        s
    }
}

/// The terms' sum as non-overlapping components in increasing magnitude (Shewchuk's
/// expansion sum: exact; zero components may remain). Its most significant non-zero component
/// has the sign of the sum, and the top two carry it to ~2^-104 relative. The one expansion
/// of the crate: fixed-length sums here, any length by [`exact_sum_up`] / [`exact_sum_sign`].
pub fn expansion<const N: usize>(terms: [f64; N]) -> [f64; N] {
    let mut e = [0.0f64; N];
    for (n, t) in terms.into_iter().enumerate() {
        let mut q = t;
        for c in e.iter_mut().take(n) {
            let (s, r) = two_sum(q, *c);
            *c = r;
            q = s;
        }
        e[n] = q;
    }
    e
}

/// The sum of an [`expansion`] as a double-double (its top two non-zero components), 0 if
/// it is exactly 0.
pub fn expansion_dd<const N: usize>(e: [f64; N]) -> Dd {
    let mut top = e.iter().rev().copied().filter(|&c| c != 0.0);
    match (top.next(), top.next()) {
        (None, _) => Dd::from_f64(0.0),
        (Some(h), None) => Dd::from_f64(h),
        (Some(h), Some(l)) => {
            let (hi, lo) = two_sum(h, l);
            Dd::new(hi, lo)
        }
    }
}

/// [`expansion`] of any length: `x` added to the expansion `h` (zero components dropped, so
/// at most ~40 remain: one per 53 bits of the exponent range).
fn grow(h: &mut Vec<f64>, x: f64) {
    let mut q = x;
    let mut out = Vec::with_capacity(h.len() + 1);
    for &c in h.iter() {
        let (s, e) = two_sum(q, c);
        if e != 0.0 {
            out.push(e);
        }
        q = s;
    }
    if q != 0.0 {
        out.push(q);
    }
    *h = out;
}

/// The exact sum of `xs` (finite doubles) as an expansion ([`grow`], O(40·n) work).
fn exact_sum(xs: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut h: Vec<f64> = Vec::new();
    for x in xs {
        grow(&mut h, x);
    }
    h
}

/// The sign (−1, 0, 1) of the exact sum of `xs` (finite doubles): that of the expansion's
/// largest component.
pub fn exact_sum_sign(xs: impl IntoIterator<Item = f64>) -> i32 {
    match exact_sum(xs).last() {
        Some(&c) if c > 0.0 => 1,
        Some(_) => -1,
        None => 0,
    }
}

/// The exact sum of `xs` (finite doubles) rounded up: s = the expansion's rounded sum, then
/// the exact sign of the residual decides s or the next double up. Exact ties and
/// cancellations (weights summing to exactly 1, Σ w − 1 = 1e-33) are decided exactly.
pub fn exact_sum_up(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut h = exact_sum(xs);
    let s: f64 = h.iter().sum();
    grow(&mut h, -s);
    match h.last() {
        Some(&r) if r > 0.0 => s.next_up(),
        _ => s,
    }
}

/// Results below this (2^-969 = 2^53·2^-1022) may have a residual that flushes to zero: the
/// exact residual of a·b (or of q·b − a) has its lowest bit at ≥ 2^(e − 105) for a result of
/// exponent e, which is a representable (non-flushing) double only for e ≥ −969.
pub const RESIDUAL_EXACT: f64 = f64::MIN_POSITIVE * 9_007_199_254_740_992.0;

/// The sign of p − a·b (exactly) for a product p = fl(a·b) below [`RESIDUAL_EXACT`] of a, b > 0,
/// where the fma residual may flush: the smaller factor is scaled by 2^600 (exact), so the
/// scaled product and its residual are normal and exact. A zero p (a·b < 2^-1075) is below.
#[inline(never)]
fn tiny_product_cmp(a: f64, b: f64, p: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if p == 0.0 {
        return Ordering::Less;
    }
    const SCALE: f64 = 4.149515568880993e180; // 2^600
    let (s, o) = if a <= b { (a, b) } else { (b, a) };
    let big_p = (s * SCALE) * o; // ≥ 2^-475: normal, with an exact fma residual
    let r = (s * SCALE).mul_add(o, -big_p);
    let q = p * SCALE; // exact (p ≥ 2^-1074)
    match q.partial_cmp(&big_p) {
        Some(Ordering::Equal) => 0.0f64.partial_cmp(&r).unwrap_or(Ordering::Equal),
        Some(o) => o,
        None => Ordering::Equal,
    }
}

/// The sign of q − a/b (exactly) for a quotient q = fl(a/b) below [`RESIDUAL_EXACT`] of a, b > 0
/// (b finite), where the fma residual q·b − a may flush: q and a are scaled by 2^600 (both
/// exact: q·b ≈ a < 2^-969·2^1024, so a·2^600 < 2^656), so the scaled residual is a multiple of
/// lsb(q)·lsb(b)·2^600 ≥ 2^-1074·2^-158·2^600 (a ≥ 2^-1074 forces b ≳ 2^-105 when q < 2^-969) and at most
/// ulp(q)·b·2^600 in size: exactly representable, its sign exact. Same role as
/// [`tiny_product_cmp`] for [`div_up`]/[`div_dn`] (issue 13: no second rounding step).
#[inline(never)]
fn tiny_quotient_cmp(a: f64, b: f64, q: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    const SCALE: f64 = 4.149515568880993e180; // 2^600
    let r = (q * SCALE).mul_add(b, -(a * SCALE)); // (q − a/b)·b·2^600, exact
    r.partial_cmp(&0.0).unwrap_or(Ordering::Equal)
}

/// a·b rounded up (a, b ≥ 0), exact residual by fma (a zero or non-finite product as is).
/// Below [`RESIDUAL_EXACT`] the direction is decided exactly by [`tiny_product_cmp`], so the
/// result is the correctly rounded-up product there too (monotone in a and b).
#[inline(always)]
pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if p < RESIDUAL_EXACT && a > 0.0 && b > 0.0 {
        return if tiny_product_cmp(a, b, p) == std::cmp::Ordering::Less {
            p.next_up()
        } else {
            p
        };
    }
    if p.is_finite() && p > 0.0 && a.mul_add(b, -p) > 0.0 {
        p.next_up()
    } else {
        p
    }
}

/// a·b rounded down (a, b ≥ 0), exact residual by fma.
#[inline(always)]
pub fn mul_dn(a: f64, b: f64) -> f64 {
    let p = a * b;
    if p < RESIDUAL_EXACT && a > 0.0 && b > 0.0 {
        return if tiny_product_cmp(a, b, p) == std::cmp::Ordering::Greater {
            p.next_down().max(0.0)
        } else {
            p
        };
    }
    if p.is_finite() && p > 0.0 && a.mul_add(b, -p) < 0.0 {
        p.next_down()
    } else {
        p
    }
}

/// a/b rounded up (a ≥ 0, b > 0): [`div_up_lanes`] (the fma residual q·b − a is exact, its
/// sign tells whether the rounded quotient is below the exact one), and below
/// [`RESIDUAL_EXACT`] the scaled residual of `tiny_quotient_cmp`. A zero, infinite or NaN
/// operand gives the quotient as is.
#[inline(always)]
pub fn div_up(a: f64, b: f64) -> f64 {
    let (up, general) = div_up_lanes(a, b);
    if general {
        return up;
    }
    let q = a / b;
    if a > 0.0 && b > 0.0 && b.is_finite() && tiny_quotient_cmp(a, b, q) == std::cmp::Ordering::Less
    {
        q.next_up()
    } else {
        q
    }
}

/// The general case of [`div_up`] without branches, for blocks of lanes that vectorize: a/b
/// with one ulp up where the exact fma residual q·b − a is negative (a ≥ 0, b > 0), and
/// whether that is [`div_up`]'s value (the quotient is at least [`RESIDUAL_EXACT`], or +∞);
/// the other lanes (tiny quotients, NaN) must go through [`div_up`] itself.
#[inline(always)]
pub fn div_up_lanes(a: f64, b: f64) -> (f64, bool) {
    let q = a / b;
    let bump = q.is_finite() & (q.mul_add(b, -a) < 0.0);
    (
        f64::from_bits(q.to_bits().wrapping_add(bump as u64)),
        q >= RESIDUAL_EXACT,
    )
}

/// a/b rounded down (a ≥ 0, b > 0).
#[inline(always)]
pub fn div_dn(a: f64, b: f64) -> f64 {
    let q = a / b;
    if q < RESIDUAL_EXACT && a > 0.0 && b > 0.0 && b.is_finite() {
        return if tiny_quotient_cmp(a, b, q) == std::cmp::Ordering::Greater {
            q.next_down().max(0.0)
        } else {
            q
        };
    }
    if q.is_finite() && q > 0.0 && q.mul_add(b, -a) > 0.0 {
        q.next_down()
    } else {
        q
    }
}

/// √a rounded up (a ≥ 0): r² − a is exact by fma for the correctly rounded r.
#[inline(always)]
pub fn sqrt_up(a: f64) -> f64 {
    let r = a.sqrt();
    if r.is_finite() && r > 0.0 && r.mul_add(r, -a) < 0.0 {
        r.next_up()
    } else {
        r
    }
}

/// √a rounded down (a ≥ 0).
#[inline(always)]
pub fn sqrt_dn(a: f64) -> f64 {
    let r = a.sqrt();
    if r.is_finite() && r > 0.0 && r.mul_add(r, -a) > 0.0 {
        r.next_down()
    } else {
        r
    }
}

// ---------------------------------------------------------------------------------------------
// Library functions (faithful): two neighbours outward

/// ln x rounded up (x ≥ 0; ln 0 = −∞ becomes −f64::MAX).
#[inline]
pub fn ln_up(x: f64) -> f64 {
    x.ln().next_up().next_up()
}

/// ln x rounded down (x ≥ 0).
#[inline]
pub fn ln_dn(x: f64) -> f64 {
    x.ln().next_down().next_down()
}

/// e^x rounded up (an underflow to 0 becomes 2^-1073).
#[inline]
pub fn exp_up(x: f64) -> f64 {
    x.exp().next_up().next_up()
}

/// e^x rounded down (never below 0).
#[inline]
pub fn exp_dn(x: f64) -> f64 {
    x.exp().next_down().next_down().max(0.0)
}

// ---------------------------------------------------------------------------------------------
// Moved here from the bounds (each was a local helper or margin)

/// The relative error bound c·ε (ε = 2^-52) of a value computed with at most c ulps of error
/// (c counting the ulp of each rounding, amplified by the condition of the steps after it,
/// including the caller's safety factor). Exact (a scaling by a power of two) unless c·ε
/// underflows; a radius `rel_err(c)·|v|` is then exact or rounded once.
#[inline(always)]
pub fn rel_err(c: f64) -> f64 {
    c * EPS
}

/// v moved up by the relative margin m (one of the `k·ε` constants, or a [`rel_err`]):
/// v + m·|v|, for either sign. m·|v| is exact for a power-of-two m (barring underflow) and the
/// sum is rounded to nearest, so the result is ≥ v + (m − u(1 + m))·|v|: above every value
/// within (m − u)·|v| of v (u = 2^-53). For v ≥ 0 and a power-of-two m, the same double as
/// v·(1 + m).
#[inline(always)]
pub fn rel_up(v: f64, m: f64) -> f64 {
    v + m * v.abs()
}

/// v moved down by the relative margin m: v − m·|v|, ≤ v − (m − u(1 + m))·|v| (as
/// [`rel_up`]); for v ≥ 0 and a power-of-two m, the same double as v·(1 − m).
#[inline(always)]
pub fn rel_dn(v: f64, m: f64) -> f64 {
    v - m * v.abs()
}

/// e^y rounded up, for y = x·l rounded to nearest (|y − x·l| ≤ u·|y|) and std's faithful
/// `exp`: e^y·(1 + [`rel_err`](2(|y| + 3))). The error of y moves e^y by ≤ |y|·u relative,
/// `exp` by < 2u, the two final roundings by 2u: (|y| + 4)·u ≤ (|y| + 3)·4u, the margin.
/// (0 for y = −∞; for x·l not exactly a double the exact value is e^{x·l}.)
#[inline(always)]
pub fn exp_prod_up(y: f64) -> f64 {
    y.exp() * (1.0 + rel_err((y.abs() + 3.0) * 2.0))
}

/// 1 − e^y = −expm1(y) for y = x·l ≤ 0 rounded to nearest, moved up (`sign` = 1) or down
/// (`sign` = −1) by the relative margin of [`exp_prod_up`]: the error of y moves 1 − e^y by
/// ≤ |y|·u·e^y/(1 − e^y) ≤ u relative (as |y| ≤ e^{|y|} − 1), `expm1` by < 2u, the final
/// roundings by 2u. (1 for y = −∞.)
#[inline(always)]
pub fn one_minus_exp_prod(y: f64, sign: f64) -> f64 {
    if y == f64::NEG_INFINITY {
        return 1.0;
    }
    -y.exp_m1() * (1.0 + sign * rel_err((y.abs() + 3.0) * 2.0))
}

/// A probability from its logarithm with the vectorizable exp ([`super::vmath::exp`], within
/// 1 ulp), rounded up, in [0, 1]: [`up`] of the exp (≥ e^v as 2^-46 exceeds the exp's error),
/// capped at 1; 0 at −∞; [`TINY`] below −746, where e^v < 2^-1075 rounds to 0 and `up(0)` =
/// TINY (the constant: no arithmetic on subnormals, which is slow). 1 at v = 0 exactly.
///
/// Written as selects, not branches, so that loops over it vectorize (the cap at 1 changes
/// nothing below v = −708, where e^v < 1e-307; a NaN gives 1, as `f64::min` does).
#[inline(always)]
pub fn prob_up(v: f64) -> f64 {
    let u = up(super::vmath::exp(v)).min(1.0);
    let u = if v < -746.0 { TINY } else { u };
    if v == f64::NEG_INFINITY {
        0.0
    } else {
        u
    }
}

// ---------------------------------------------------------------------------------------------
// Logarithm of a probability

/// ln p rounded up for a probability p ∈ [0, 1] given by the user (a privacy profile's δ):
/// ln 0 = −∞ exactly (no constraint), ln 1 = 0 exactly, otherwise [`ln_up`] capped at 0
/// (the exact ln p ≤ 0). Error bound: that of [`ln_up`], at most two doubles above the
/// faithful `ln`, i.e. ≤ 3 ulp of ln p above the exact value (and never below it). Outside
/// [0, 1] it returns `ln`'s own value moved up (positive above 1, NaN below 0 or for NaN), for
/// the consumer's domain check to reject.
#[inline]
pub fn ln_prob_up(p: f64) -> f64 {
    if p == 0.0 {
        f64::NEG_INFINITY
    } else if p > 0.0 && p <= 1.0 {
        ln_up(p).min(0.0)
    } else {
        ln_up(p)
    }
}

/// e^x rounded up by the fewest steps that are safe for std's `exp` (error < 1 ulp of the
/// exact value): one double up, two where the next double up is a power of two (the one place
/// the spacing grows, so an exact value just above it is within 1 ulp of a result just below
/// it). Tighter than [`exp_up`] by one double almost everywhere; ≥ e^x, non-decreasing in x,
/// and never 0 (an underflow to 0 becomes 2^-1074, the exact value being below it).
#[inline]
pub fn exp_up_1ulp(x: f64) -> f64 {
    let u = x.exp().next_up();
    if u.to_bits() & ((1u64 << 52) - 1) == 0 {
        u.next_up()
    } else {
        u
    }
}

#[cfg(test)]
#[path = "round_tests.rs"]
mod tests;
