//! Shared plumbing of the scalar RDP bounds (the `extra` API): directed rounding ([`up_pos`];
//! the signed [`up_signed`] is `crate::num::round`'s) and NaN-free products ([`mul0`],
//! [`prod_div`]). The argument checks are in `checks.rs`.

use crate::num::round::up_signed;
use crate::num::TINY;

/// [`up_signed`] of a value known to be positive (`positive`): an underflowed 0 becomes the smallest
/// positive bound, not an exact 0 below the exact value.
pub(super) fn up_pos(v: f64, positive: bool) -> f64 {
    if v == 0.0 && positive {
        TINY
    } else {
        up_signed(v)
    }
}

/// a·b where an exact zero factor wins over an overflowed one (0·inf is 0 here, not NaN: the
/// infinite factor stands for a finite number too large for a double).
#[inline]
pub(super) fn mul0(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 {
        0.0
    } else {
        a * b
    }
}

/// Π num / Π den for non-negative factors (den > 0), without NaN, spurious overflow or
/// spurious underflow: 0 if a numerator factor is 0, +inf if one is +inf; otherwise the product
/// of the factors' mantissas with their binary exponents summed apart (exact scalings), so the
/// result carries the ≤ 16 roundings of the plain product (covered by the callers' [`up_signed`]) and,
/// below the normal range, one final rounding (covered by the [`TINY`] of `up_signed`). The closed
/// forms αT(λC/σ)² and kin overflowed to inf·0 = NaN, or underflowed to 0, in their
/// intermediates for extreme but valid inputs (α = 1e300 with C = 0, σ = 1e-170).
pub(super) fn prod_div(num: &[f64], den: &[f64]) -> f64 {
    if num.contains(&0.0) {
        return 0.0;
    }
    if num.iter().any(|x| x.is_infinite()) {
        return f64::INFINITY;
    }
    if den.iter().any(|x| x.is_infinite()) {
        return 0.0; // (callers pass finite divisors; their own factors, never a product)
    }
    let (mut p, mut e) = mantissa_product((1.0, 0), num, den);
    // p·2^e: exact steps of 2^±1000 while p stays normal, one final (possibly subnormal) rounding
    while e > 1000 {
        p *= f64::from_bits(((1023 + 1000) as u64) << 52);
        e -= 1000;
        if p.is_infinite() {
            return p;
        }
    }
    while e < -1000 {
        if p < 1e-300 {
            break;
        }
        p *= f64::from_bits(((1023 - 1000) as u64) << 52);
        e += 1000;
    }
    p * 2f64.powi(e.clamp(-1100, 1100) as i32)
}

/// p·2^e·Π num/Π den as (mantissa in [1/2, 1), exponent): each factor's mantissa multiplied
/// (or divided) in and the running value renormalised, its binary exponent summed apart, so no
/// intermediate over- or underflows (one rounding per factor). Finite non-zero factors.
pub(super) fn mantissa_product((mut p, mut e): (f64, i64), num: &[f64], den: &[f64]) -> (f64, i64) {
    for (&x, inv) in num
        .iter()
        .map(|x| (x, false))
        .chain(den.iter().map(|x| (x, true)))
    {
        let (m, k) = frexp(x);
        if inv {
            p /= m;
            e -= k;
        } else {
            p *= m;
            e += k;
        }
        let (pm, pk) = frexp(p); // keep p in [1/2, 1): no intermediate over- or underflow
        p = pm;
        e += pk;
    }
    (p, e)
}

/// (m, k) with x = m·2^k and m ∈ [1/2, 1), for finite x > 0 (subnormals included).
pub(super) fn frexp(x: f64) -> (f64, i64) {
    let (x, shift) = if x < f64::MIN_POSITIVE {
        (x * 18_446_744_073_709_551_616.0, -64) // × 2^64: normal
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    let be = ((bits >> 52) & 0x7ff) as i64;
    let m = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, be - 1022 + shift)
}
