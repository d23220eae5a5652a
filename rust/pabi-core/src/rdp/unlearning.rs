//! Unlearning: the weak triangle inequality of Rényi divergences (Mironov 2017 Prop. 11,
//! Hölder form) and the keep-rule of noisy per-instance unlearning (Thudi et al., *Gradients
//! look alike*, §5.4) with the corrected coefficient (docs/errata.md#r-t8).
//! Derivations: docs/derivations/rdp.md.

use super::checks::{check_alpha, nonneg};
use crate::error::{PabiError, Result};
use crate::num::round::up_inflate;
use crate::num::round::up_signed;
use crate::num::round::{INFLATE, TINY};

/// Weak triangle inequality (Mironov Prop. 11, Hölder-p form):
/// D_α(P‖R) ≤ (α − 1/p)/(α − 1)·D_{pα}(P‖Q) + D_{g_p(α)}(Q‖R).
pub fn weak_triangle_bound(alpha: f64, p: f64, d_pa: f64, d_gpa: f64) -> Result<f64> {
    check_alpha(alpha, f64::MAX)?;
    if !(p > 1.0) {
        return Err(PabiError::domain("holder_exponent", "> 1", p));
    }
    nonneg("divergence_pq", d_pa)?;
    nonneg("divergence_qr", d_gpa)?;
    let c = if p >= 1.125 {
        // α − 1/p ≥ (p − 1)/p: the rounding of 1/p costs ≤ u/(p − 1) ≤ 8u relative, the rest
        // ≤ 4u; kept (the same bits as before) where that is under the 2^-46 margin
        (alpha - 1.0 / p) / (alpha - 1.0)
    } else {
        weak_triangle_coefficient(alpha, p)
    };
    let v = c * d_pa + d_gpa;
    if v >= TRIANGLE_SCALED_BELOW || v.is_nan() {
        return Ok(up_signed(v));
    }
    // a result near or below the subnormal range: the relative errors of c and of the sum
    // would be absolute roundings of up to ~7 half subnormal ulps, next to the 8 of `TINY`;
    // formed scaled by 2^600 (exact: both divergences are < 2^-1000 here, c ≤ 2^53), the
    // margin applied in the normal range, then one rounding back (≤ 2^-1075) and `TINY`
    if v == 0.0 {
        return Ok(0.0); // both divergences exactly 0
    }
    let s = (c * (d_pa * SCALE) + d_gpa * SCALE) * (1.0 + INFLATE);
    Ok(s * UNSCALE + TINY)
}

/// Below this (rounded) value [`weak_triangle_bound`] is formed scaled by 2^600.
const TRIANGLE_SCALED_BELOW: f64 = 9.332_636_185_032_189e-302; // 2^-1000
/// 2^600 and 2^-600 (exact powers of two).
const SCALE: f64 = 4.149_515_568_880_993e180;
const UNSCALE: f64 = 2.409_919_865_102_884e-181;

/// (α − 1/p)/(α − 1) = 1 + ((p − 1)/p)/(α − 1), without the cancellation of α − 1/p: with α
/// and p near 1 the rounding of 1/p (≤ u absolute) was amplified by 1/(α − 1/p) (α − 1 =
/// 7.2e-12, p − 1 = 6.5e-8: 7.7e-10 relative below the exact value). α − 1 is exact for
/// α ≤ 2 (Sterbenz) and within u relative beyond, p − 1 likewise, the quotients add 2u, and
/// the final 1 + t (t ≥ 0) u: relative error ≤ 5u in all, under the caller's 2^-46 margin (the
/// terms of c·D_pq + D_qr are non-negative, so the errors do not cancel-amplify).
fn weak_triangle_coefficient(alpha: f64, p: f64) -> f64 {
    1.0 + ((p - 1.0) / p) / (alpha - 1.0)
}

/// Unlearning keep-rule (Thudi et al. §5.4, NPIU): keep iff
/// c(α)·D_{2α}(prev‖A(D^{t−1})) + D_{2α−1}(A(D^{t−1})‖A(D^t)) ≤ β with the corrected
/// c(α) = (α − ½)/(α − 1) (Mironov Cor. 4, p = 2). `as_published` uses the printed
/// (α − 1)/(α − 2): undefined at α = 2, negative and UNSOUND for α ∈ (1, 2) (docs/errata.md#r-t8).
pub fn unlearning_keep(
    alpha: f64,
    beta: f64,
    d_2a_prev: f64,
    d_2a1_step: f64,
    as_published: bool,
) -> Result<bool> {
    check_alpha(alpha, f64::MAX)?;
    nonneg("threshold", beta)?;
    nonneg("divergence_previous", d_2a_prev)?;
    nonneg("divergence_step", d_2a1_step)?;
    let c = if as_published {
        if alpha == 2.0 {
            return Err(PabiError::domain(
                "order",
                "!= 2 (the published coefficient (alpha-1)/(alpha-2) is undefined)",
                alpha,
            ));
        }
        (alpha - 1.0) / (alpha - 2.0)
    } else {
        (alpha - 0.5) / (alpha - 1.0)
    };
    let lhs = c * d_2a_prev + d_2a1_step;
    Ok(up_inflate(lhs) <= beta)
}

#[cfg(test)]
mod tests {
    use super::weak_triangle_bound;

    /// Bug hunt: α − 1 and p − 1 both small. Exact values by
    /// `pabi.reference.weak_triangle_bound` (exact rationals, rounded at dps 50; confirmed at
    /// 80). Before: 9.169933718566499e-157 (−7.7e-10 relative) and 1000.9111900533002 (+1e-9).
    #[test]
    fn weak_triangle_alpha_and_p_near_one() {
        for (a, p, d1, d2, exact) in [
            (
                1.000_000_000_007_204,
                1.000_000_064_568_934_4,
                1.022_983_836_754_199_6e-160,
                4.321_376_760_136_557_6e-194,
                9.169_933_725_623_93e-157,
            ),
            (
                1.000_000_000_001,
                1.000_000_001,
                1.0,
                0.0,
                1_000.911_189_053_374_7,
            ),
        ] {
            let v = weak_triangle_bound(a, p, d1, d2).unwrap();
            assert!(
                v >= exact && v <= exact * (1.0 + 1e-13),
                "{v:e} vs {exact:e}"
            );
        }
    }

    /// Subnormal divergences: the result is formed scaled, ≥ the exact value and within a few
    /// subnormal steps (exact by the rational formula: (α − 1/p)/(α − 1) = 2 at α = 1.5, p = 2:
    /// 2·D_pq + D_qr = (2·1001 + 77)·2^-1074 = 2079 subnormal steps).
    #[test]
    fn weak_triangle_subnormal_divergences() {
        let s = 5e-324;
        let v = weak_triangle_bound(1.5, 2.0, 1001.0 * s, 77.0 * s).unwrap();
        assert!(v >= 2079.0 * s && v <= 2085.0 * s, "{}", v / s);
        assert_eq!(weak_triangle_bound(1.5, 2.0, 0.0, 0.0).unwrap(), 0.0);
        let v = weak_triangle_bound(1.5, 2.0, 0.0, s).unwrap();
        assert!(v >= s && v <= 6.0 * s);
    }
}
