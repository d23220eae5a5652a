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

// ---------------------------------------------------------------------------------------------
// The radii of the contraction factors (one place for the PNSGD bounds and the schedules)

/// The next double above a positive finite x.
#[inline(always)]
fn next_up(x: f64) -> f64 {
    if x > 0.0 && x.is_finite() {
        f64::from_bits(x.to_bits() + 1)
    } else {
        x
    }
}

/// a/b rounded up (a ≥ 0, b > 0): the fma residual q·b − a is exact, its sign tells whether
/// the rounded quotient is below the exact one.
#[inline(always)]
pub fn div_up(a: f64, b: f64) -> f64 {
    let q = a / b;
    if q.is_finite() && q > 0.0 && q.mul_add(b, -a) < 0.0 {
        next_up(q)
    } else {
        q
    }
}

/// a·b rounded up (a, b ≥ 0), exact residual by fma.
#[inline(always)]
pub fn mul_up(a: f64, b: f64) -> f64 {
    let p = a * b;
    if p.is_finite() && p > 0.0 && a.mul_add(b, -p) > 0.0 {
        next_up(p)
    } else {
        p
    }
}

/// Radii in (0, 1e-300) are raised to 1e-300 (θ increases with r, so this only loosens the
/// bound, by < 1e-300 absolute): the engine's θ(ε > 0, r) is wrong (1 instead of ≈ 0) when ε/r
/// overflows, i.e. for subnormal r.
#[inline(always)]
fn floor_radius(r: f64) -> f64 {
    if r > 0.0 && r < 1e-300 {
        1e-300
    } else {
        r
    }
}

/// The noise-free numerators of the two radii of PNSGD's contraction factors (SPEC_pabi.md §2):
/// A = h(ε, r_A), B = h(ε, r_B) with r_A = 2L/s, r_B = M·D/(η·s) for noise scale s (Gaussian
/// std σ or Laplace scale v). Every bound of `pnsgd` and `schedules` forms its radii here.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Radii {
    /// 2L (exact).
    pub two_l: f64,
    /// M·D/η, rounded up (h increases with r).
    pub mdl: f64,
}

impl Radii {
    /// From the Lipschitz constant L, the contraction factor M (rounded up), the diameter D and
    /// the learning rate η (validated by the caller).
    #[inline(always)]
    pub fn new(lipschitz: f64, m: f64, diameter: f64, lr: f64) -> Radii {
        Radii {
            two_l: 2.0 * lipschitz,
            mdl: div_up(mul_up(m, diameter), lr),
        }
    }

    /// (r_A, r_B) = (2L/s, M·D/(η·s)) for noise scale s > 0, rounded up (radii below 1e-300
    /// raised to 1e-300, see the engine's θ for subnormal r).
    #[inline(always)]
    pub fn at(&self, s: f64) -> (f64, f64) {
        (
            floor_radius(div_up(self.two_l, s)),
            floor_radius(div_up(self.mdl, s)),
        )
    }

    /// κ = r_A/r_B = 2ηL/(M·D) (independent of the noise), rounded up; +∞ when M·D = 0.
    #[inline(always)]
    pub fn kappa(lipschitz: f64, m: f64, diameter: f64, lr: f64) -> f64 {
        let md = m * diameter;
        // 2ηL/(MD) with three roundings (≤ 1.5 ulp): moved up by 4 ulp.
        let k = (2.0 * lr * lipschitz) / md;
        k * (1.0 + 4.0 * f64::EPSILON)
    }
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

    #[test]
    fn radii_rounded_up() {
        let r = Radii::new(1.0, 1.0, 1.0, 3.0);
        // 1/3 rounds down to nearest; rounded up it is the next double: 3·mdl ≥ 1 exactly
        assert!(r.mdl.mul_add(3.0, -1.0) >= 0.0 && r.mdl - 1.0 / 3.0 <= f64::EPSILON);
        let (ra, rb) = r.at(3.0);
        assert_eq!(ra, div_up(2.0, 3.0));
        assert!(rb.mul_add(3.0, -r.mdl) >= 0.0);
        assert_eq!(Radii::new(1.0, 1.0, 1.0, 1.0).at(1e301), (1e-300, 1e-300));
        assert!(Radii::kappa(1.0, 1.0, 3.0, 0.3) >= 0.2);
    }
}
