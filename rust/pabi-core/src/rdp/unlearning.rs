//! Unlearning: the weak triangle inequality of Rényi divergences (Mironov 2017 Prop. 11,
//! Hölder form) and the keep-rule of noisy per-instance unlearning (Thudi et al., *Gradients
//! look alike*, §5.4) with the corrected coefficient (docs/errata.md#r-t8).
//! Derivations: docs/derivations/rdp.md.

use super::checks::{check_alpha, nonneg};
use crate::error::{PabiError, Result};
use crate::num::round::up_inflate;
use crate::num::round::up_signed;

/// Weak triangle inequality (Mironov Prop. 11, Hölder-p form):
/// D_α(P‖R) ≤ (α − 1/p)/(α − 1)·D_{pα}(P‖Q) + D_{g_p(α)}(Q‖R).
pub fn weak_triangle_bound(alpha: f64, p: f64, d_pa: f64, d_gpa: f64) -> Result<f64> {
    check_alpha(alpha, f64::MAX)?;
    if !(p > 1.0) {
        return Err(PabiError::domain("holder_exponent", "> 1", p));
    }
    nonneg("divergence_pq", d_pa)?;
    nonneg("divergence_qr", d_gpa)?;
    Ok(up_signed((alpha - 1.0 / p) / (alpha - 1.0) * d_pa + d_gpa))
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
