//! Shared numerics: directed (outward) rounding, log-space sums, the stable geometric average.
//!
//! One place for the helpers every bound uses, so that the rounding policy is uniform:
//! a δ or ε is moved **up** by [`INFLATE`] relative after being computed to a few ulp, a
//! contraction gap 1 − B or any quantity whose decrease loosens the bound is moved **down**.

use crate::vmath;

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

/// Round a non-negative value down by [`INFLATE_TIGHT`] (never below 0).
#[inline(always)]
pub fn down_tight(v: f64) -> f64 {
    (v * (1.0 - INFLATE_TIGHT) - TINY).max(0.0)
}

/// Round a non-negative value up by [`INFLATE`] (and a few subnormal ulps).
///
/// v·(1 + 2^-46 + 2^-52) rounded to nearest is ≥ v(1 + 2^-46) for normal v, and the separate
/// addition of [`TINY`] covers zero and subnormal v. A product and an addition, not one FMA:
/// an FMA with the subnormal addend `TINY` takes a microcode assist (~10–25 ns per element on
/// this project's x86 machines, measured), a plain addition does not.
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

/// Neumaier-compensated sum of a sequence (error ~ 2 ulp of the result, independent of n).
pub fn neumaier_sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut s = 0.0_f64;
    let mut c = 0.0_f64;
    for x in xs {
        let t = s + x;
        if s.abs() >= x.abs() {
            c += (s - t) + x;
        } else {
            c += (x - t) + s;
        }
        s = t;
    }
    // an overflowed partial sum makes the compensation ±inf − ±inf = NaN: the sum is ±inf
    if s.is_infinite() {
        return s;
    }
    s + c
}

/// ln(e^a + e^b) without overflow.
#[inline(always)]
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m.is_infinite() {
        // −∞: both terms are 0; +∞: inf − inf below would be NaN
        return m;
    }
    m + vmath::log1p(vmath::exp(-(a - b).abs()))
}

/// ln Σ e^{x_i} without overflow (−inf for an empty slice).
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    m + vmath::ln(neumaier_sum(xs.iter().map(|&x| vmath::exp(x - m))))
}

/// ln(1 − e^{x}) for x ≤ 0, accurate near 0 and for very negative x (Mächler's rule).
#[inline(always)]
pub fn log1mexp(x: f64) -> f64 {
    if x > -std::f64::consts::LN_2 {
        vmath::ln(-vmath::expm1(x))
    } else {
        vmath::log1p(-vmath::exp(x))
    }
}

/// G(u, m) = (1/m)·Σ_{j<m} (1−u)^j = (1 − (1−u)^m)/(m·u) = −expm1(m·log1p(−u))/(m·u)
/// (SPEC_pabi.md §3.2), for u ∈ [0, 1], m ≥ 1; G(0, m) = 1, G(1, m) = 1/m. No cancellation for
/// any u (relative error ~ 3 ulp, including u ≪ 2^-53 and m up to 1e15). Round to nearest:
/// callers apply the direction they need (G is decreasing in u).
#[inline(always)]
pub fn geometric_average(u: f64, m: f64) -> f64 {
    let g = -vmath::expm1(m * vmath::log1p(-u)) / (m * u);
    if u > 0.0 {
        g
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infinities_are_not_nan() {
        // found by the RDP hardening: inf − inf inside gave NaN
        assert_eq!(log_add_exp(f64::INFINITY, f64::INFINITY), f64::INFINITY);
        assert_eq!(log_add_exp(f64::INFINITY, 0.0), f64::INFINITY);
        assert_eq!(
            log_add_exp(f64::NEG_INFINITY, f64::NEG_INFINITY),
            f64::NEG_INFINITY
        );
        assert_eq!(neumaier_sum([1e308, 1e308]), f64::INFINITY);
        assert_eq!(neumaier_sum([-1e308, -1e308]), f64::NEG_INFINITY);
        assert_eq!(neumaier_sum([1.0, 1e100, 1.0, -1e100]), 2.0);
    }

    #[test]
    #[allow(clippy::excessive_precision)]
    fn geometric_average_limits_and_small_u() {
        assert_eq!(geometric_average(0.0, 1e15), 1.0);
        assert!((geometric_average(1.0, 4.0) - 0.25).abs() < 1e-16);
        // mpmath at 40 digits (naive (1 - (1-u)^m)/(m u) has relerr ~1e-5 at the first point)
        assert!((geometric_average(1e-13, 1e12) / 0.951_625_819_640_449_508_8 - 1.0).abs() < 1e-15);
        assert!(
            (geometric_average(1e-3, 1e15) / 9.999_999_999_999_999_791_8e-13 - 1.0).abs() < 1e-15
        );
        // m = 1 gives 1 for every u
        for &u in &[1e-300, 1e-10, 0.3, 0.999] {
            assert!((geometric_average(u, 1.0) - 1.0).abs() < 4e-16);
        }
    }

    #[test]
    fn log_space_helpers() {
        assert!((log_add_exp(1000.0, 1000.0) - (1000.0 + std::f64::consts::LN_2)).abs() < 1e-12);
        assert_eq!(log_sum_exp(&[]), f64::NEG_INFINITY);
        assert!((log_sum_exp(&[-1e4, -1e4 + 1.0_f64.ln()]) - (-1e4 + 2.0_f64.ln())).abs() < 1e-11);
        assert!((log1mexp(-1e-20) - (1e-20_f64).ln()).abs() < 1e-15);
        assert!((log1mexp(-50.0) + (-50.0_f64).exp()).abs() < 1e-30);
        let xs: Vec<f64> = (0..1000)
            .map(|i| if i % 2 == 0 { 1e16 } else { 1.0 })
            .collect();
        assert_eq!(
            neumaier_sum(xs.iter().copied().chain([-500.0 * 1e16])),
            500.0
        );
    }
}
