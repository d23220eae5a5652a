//! The contraction factor of one projected gradient step (SPEC_pabi.md §1.7).
//!
//! For a β-smooth, ρ-strongly convex loss the step w ↦ w − η∇ℓ(w) is M-Lipschitz with
//! M = sqrt(1 − 2ηβρ/(β + ρ)) (Asoodeh–Diaz–Calmon Lemma 4, eq. (14); Sordello–Bu–Dong Thm 1),
//! **valid only for 0 < η ≤ 2/(β + ρ)**: beyond it M is not a Lipschitz constant and every bound
//! built on it is false (SPEC §9 T10, check C07). With ρ = 0, M = 1 (convex case; the caller is
//! then responsible for η ≤ 2/β, checked when β is given).

use crate::dd::{add_dd, mul_dd, two_prod, two_sum};
use crate::error::{PabiError, Result};
use crate::num::INFLATE;

/// M and x = 1 − M² = 2ηβρ/(β+ρ) (x exact to rounding, never formed as 1 − M²).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepContraction {
    /// The Lipschitz factor M ∈ [0, 1], rounded up (a larger M is the conservative side).
    pub m: f64,
    /// 1 − M², rounded to nearest (for downstream stable formulas, SPEC §3.5).
    pub one_minus_m2: f64,
}

/// Validate (lr, smoothness, strong_convexity) and return the contraction factor.
///
/// * `lr` > 0 finite; `smoothness` (β) > 0 finite when given; `strong_convexity` (ρ) ≥ 0 finite;
/// * ρ > 0 requires β, and ρ ≤ β;
/// * when β is given, lr ≤ 2/(β + ρ).
pub fn step_contraction(
    lr: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
) -> Result<StepContraction> {
    if !(lr > 0.0 && lr.is_finite()) {
        return Err(PabiError::domain("lr", "finite and > 0", lr));
    }
    if !(strong_convexity >= 0.0 && strong_convexity.is_finite()) {
        return Err(PabiError::domain(
            "strong_convexity",
            "finite and >= 0",
            strong_convexity,
        ));
    }
    let Some(beta) = smoothness else {
        if strong_convexity > 0.0 {
            return Err(PabiError::domain(
                "strong_convexity",
                "0 unless smoothness is given (M = sqrt(1 - 2 lr b r/(b + r)) needs the smoothness b)",
                strong_convexity,
            ));
        }
        return Ok(StepContraction {
            m: 1.0,
            one_minus_m2: 0.0,
        });
    };
    if !(beta > 0.0 && beta.is_finite()) {
        return Err(PabiError::domain("smoothness", "finite and > 0", beta));
    }
    let rho = strong_convexity;
    if rho > beta {
        return Err(PabiError::domain(
            "strong_convexity",
            format!("<= smoothness ({beta})"),
            rho,
        ));
    }
    let lr_max = 2.0 / (beta + rho);
    if lr > lr_max {
        return Err(PabiError::domain(
            "lr",
            format!(
                "<= 2/(smoothness + strong_convexity) = {lr_max} (beyond it M is not a Lipschitz constant of the gradient step and the bound is false)"
            ),
            lr,
        ));
    }
    let x = (2.0 * lr * beta * rho / (beta + rho)).clamp(0.0, 1.0);
    // M must be rounded up without losing accuracy: 1 − x = (β + ρ − 2ηβρ)/(β + ρ) with the
    // numerator as an exact double-double (no cancellation even for β ≈ ρ, η ≈ 1/β), so
    // M² is known to a few ulp and INFLATE covers it.
    let (p, pe) = two_prod(2.0 * lr, beta);
    let (q, qe) = mul_dd(p, pe, rho, 0.0);
    let (s, se) = two_sum(beta, rho);
    let (nh, nl) = add_dd(s, se, -q, -qe);
    let one_minus_x = ((nh + nl) / (s + se)).clamp(0.0, 1.0);
    let m = (one_minus_x.sqrt() * (1.0 + INFLATE)).min(1.0);
    Ok(StepContraction { m, one_minus_m2: x })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_validation() {
        let c = step_contraction(0.1, Some(1.0), 0.0).unwrap();
        assert_eq!((c.m, c.one_minus_m2), (1.0, 0.0));
        // beta = rho = 1, lr = 1: M = 0 (SPEC §1.7)
        let c = step_contraction(1.0, Some(1.0), 1.0).unwrap();
        assert!(c.m < 1e-7 && c.one_minus_m2 == 1.0);
        // lr = 2/(beta + rho): M = (beta - rho)/(beta + rho)
        let c = step_contraction(2.0 / 5.0, Some(4.0), 1.0).unwrap();
        assert!(c.m >= 0.6 && c.m - 0.6 < 1e-13);
        assert!(step_contraction(0.5, Some(4.0), 1.0).is_err()); // lr > 2/(b + r): T10
        assert!(step_contraction(0.1, None, 0.5).is_err());
        assert!(step_contraction(0.1, Some(1.0), 2.0).is_err());
        assert!(step_contraction(0.0, None, 0.0).is_err());
        assert!(step_contraction(f64::NAN, None, 0.0).is_err());
        assert!(step_contraction(0.1, Some(-1.0), 0.0).is_err());
    }
}
