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
    let (p, e) = mantissa_product((1.0, 0), num, den);
    ldexp_once(p, e)
}

/// q·2^e with one rounding, for q in [1/2, 1.01): two exact scalings by powers of two in
/// [2^-551, 2^513], the first of which keeps the value normal (the one finisher of the
/// mantissa/exponent forms: [`prod_div`] and the multi-epoch sensitivity).
pub(super) fn ldexp_once(q: f64, e: i64) -> f64 {
    if e > 1025 {
        return f64::INFINITY;
    }
    if e < -1100 {
        return 0.0; // q·2^e < 2^-1099: rounds to 0 (callers bounding from above add TINY)
    }
    let pow2 = |k: i64| f64::from_bits(((1023 + k) as u64) << 52);
    let e1 = e / 2;
    q * pow2(e1) * pow2(e - e1)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// q·2^e correctly rounded (to nearest, ties to even), from the integer mantissa: an
    /// independent model of [`ldexp_once`] for q ∈ [1/2, 1).
    fn model(q: f64, e: i64) -> f64 {
        let m = (q * 9_007_199_254_740_992.0) as u64; // q·2^53: exact, in [2^52, 2^53)
        let exp = e - 53; // value = m·2^exp
        if exp + 52 > 1023 {
            return f64::INFINITY;
        }
        if exp >= -1074 {
            return m as f64 * f64::from_bits(((1023 + exp.max(-1022)) as u64) << 52)
                / if exp < -1022 {
                    2f64.powi((-1022 - exp) as i32)
                } else {
                    1.0
                };
        }
        let k = (-1074 - exp) as u32; // value = (m / 2^k)·2^-1074
        if k >= 64 {
            return 0.0;
        }
        let (int, rem) = (m >> k, m & ((1u64 << k) - 1));
        let half = 1u64 << (k - 1);
        let r = if rem > half || (rem == half && int & 1 == 1) {
            int + 1
        } else {
            int
        };
        r as f64 * f64::from_bits(1)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// The one finisher rounds once: the correctly rounded q·2^e over the whole range,
        /// subnormal results and overflow included (prod_div's own loop of 2^±1000 steps and
        /// `powi`, which it replaced, agreed with the model too).
        #[test]
        fn ldexp_once_rounds_once(q in 0.5f64..1.0, e in -1130i64..1100) {
            let got = ldexp_once(q, e);
            let want = model(q, e);
            proptest::prop_assert_eq!(got.to_bits(), want.to_bits(), "q {} e {}", q, e);
        }
    }

    #[test]
    fn ldexp_once_edges() {
        let below = 0.5 + f64::EPSILON; // just above a tie at the subnormal boundary
        assert_eq!(ldexp_once(0.5, -1073), f64::from_bits(1));
        assert_eq!(ldexp_once(0.5, -1074), 0.0); // 2^-1075: the tie rounds to even (0)
        assert_eq!(ldexp_once(below, -1074), f64::from_bits(1));
        assert_eq!(ldexp_once(0.75, -1074), f64::from_bits(1)); // 1.5·2^-1075 → 2^-1074
        assert_eq!(ldexp_once(1.0 - f64::EPSILON / 2.0, 1024), f64::MAX);
        assert_eq!(ldexp_once(0.5, 1025), f64::INFINITY);
        assert_eq!(prod_div(&[1e-300, 1e-30], &[]), 0.0); // 1e-330: below 2^-1075
        assert_eq!(prod_div(&[1e-300, 1e-20], &[1e3]), 1e-323); // one rounding of 1e-323
    }
}
