//! The numerical primitives of pabi-core, one concept per file:
//!
//! - [`round`]: directed rounding — the margins ([`INFLATE`], [`INFLATE_TIGHT`],
//!   [`HALF_ULP_ONE`], [`TINY`], the `k·ε` constants) and every rounded operation, each error
//!   bound stated once.
//! - [`dd`]: double-double (error-free) arithmetic used to carry arguments exactly.
//! - [`vmath`]: branch-free, auto-vectorizable `exp`, `expm1`, `ln`, `log1p`, `erfcx` kernels.
//! - [`logspace`]: ln(e^a + e^b), ln Σ e^x, ln(1 − e^x), softplus, the Neumaier sum.
//! - [`binom`]: Loader's saddle-point binomial log-pmf (both variants the bounds use).
//! - [`consts`]: shared mathematical constants (ln 2π).
//! - here: the stable geometric average G(u, m).
//!
//! The rounding policy is uniform: a δ or ε is moved **up** by [`INFLATE`] relative after
//! being computed to a few ulp, a contraction gap 1 − B or any quantity whose decrease loosens
//! the bound is moved **down**. The old paths (`crate::num::up`, `crate::num::log_add_exp`, ...)
//! are re-exported here.

pub mod binom;
pub mod bisect;
pub mod consts;
pub mod dd;
pub mod logspace;
pub mod round;
#[cfg(test)]
pub(crate) mod test_rng;
pub mod vmath;

pub use logspace::{log1mexp, log_add_exp, log_sum_exp, neumaier_sum};
pub use round::{
    down, down_tight, exp_down, exp_up_unit, shift_log, up, HALF_ULP_ONE, INFLATE, INFLATE_TIGHT,
    TINY,
};

/// G(u, m) = (1/m)·Σ_{j<m} (1−u)^j = (1 − (1−u)^m)/(m·u) = −expm1(m·log1p(−u))/(m·u)
/// (the noise-schedule products of Sordello–Bu–Dong §4; see docs/derivations/schedules.md), for u ∈ [0, 1], m ≥ 1; G(0, m) = 1, G(1, m) = 1/m. No cancellation for
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
}
