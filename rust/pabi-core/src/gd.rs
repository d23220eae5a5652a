//! The contraction factor of one projected gradient step (derivation: docs/derivations/pnsgd.md).
//!
//! For a β-smooth, ρ-strongly convex loss the step w ↦ w − η∇ℓ(w) is M-Lipschitz with
//! M = sqrt(1 − 2ηβρ/(β + ρ)) (Asoodeh–Diaz–Calmon Lemma 4, eq. (14); Sordello–Bu–Dong Thm 1;
//! a hair above 2/(β + ρ), the constant ηβ − 1 valid for every η: see [`contraction_dd`]),
//! **valid only for 0 < η ≤ 2/(β + ρ)**: beyond it M is not a Lipschitz constant and every bound
//! built on it is false (Sordello–Bu–Dong state Thm 1 without this condition; for η = 1.9/β
//! the exact Lipschitz constant of a quadratic exceeds M). With ρ = 0, M = 1 (convex case; the caller is
//! then responsible for η ≤ 2/β, checked when β is given).

// `!(x > 0.0)`-style checks are deliberate: they also catch NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::dd::{two_prod, two_sum, Dd};
use crate::error::{PabiError, Result};
/// The directed operations the radii use, re-exported from their home [`crate::num::round`]
/// (`gd::div_up` etc. keep working).
pub use crate::num::round::{div_up, mul_dn, mul_up};
use crate::num::round::{expansion, expansion_dd};
use crate::setup;

/// M and x = 1 − M² = 2ηβρ/(β+ρ) (x exact to rounding, never formed as 1 − M²).
///
/// M enters the bounds in roles of opposite direction, so it is carried rounded both ways:
/// r_B = M·D/(η·s) (PNSGD, general online noise) grows with M and takes [`m`](Self::m) (rounded
/// up); the schedules' κ = 2ηL/(M·D) = r_A/r_B shrinks as M grows and takes
/// [`m_dn`](Self::m_dn) (rounded down); the noise levels σ(n), v(n) a user applies are to
/// nearest ([`m_near`](Self::m_near)). All three come from one double-double M (below), so
/// `m_dn ≤ M ≤ m` with `m − m_dn` ≤ 2 ulp.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepContraction {
    /// The Lipschitz factor M, rounded up (r_B, hence B, increases with M): in [0, 1] except
    /// for an η accepted a hair above 2/(β+ρ), where M = ηβ − 1 may exceed 1 by ≤ ~2^-52.
    pub m: f64,
    /// M rounded down (κ = 2ηL/(M·D) of the schedules decreases with M).
    pub m_dn: f64,
    /// M to nearest (the noise levels of the schedules).
    pub m_near: f64,
    /// 1 − M², rounded to nearest (for downstream stable formulas, e.g. the RDP comparison
    /// bound of Feldman et al. / Balle et al., docs/derivations/pnsgd.md): ≤ 1, and negative
    /// (≥ −2^-51) where M > 1. It was clamped at 0 there, and the RDP slope took the M = 1
    /// limit, below the exact value (found 2026-11-28: c 4.3e-15 below it for η = 1.6,
    /// β = 1.25, ρ = 1.25e-18, k = 47; δ_B 2.3e-12 below it at ε = 30).
    pub one_minus_m2: f64,
    /// x = 1 − M² and M² = 1 − x as double-doubles (each relative error ≲ 2^-100: x =
    /// 2ηβρ/(β + ρ) from the exact 2ηβ, M² = (β + ρ − 2ηβρ)/(β + ρ) with the numerator an exact
    /// expansion, never as 1 − x). (0, 1) when ρ = 0.
    pub x_dd: Dd,
    pub m2_dd: Dd,
    /// Relative error bound of `m2_dd`: 2^-100 (both forms of [`contraction_dd`] carry no
    /// cancellation), 0 where M² is exact (1, or 0).
    pub m2_rel_err: f64,
}

/// 2^-100: the relative error unit of the double-double M² and M.
const TWO_M100: f64 = 7.888_609_052_210_118e-31;

/// (x, M², relative error bound of M²) with x = 1 − M², as double-doubles (no validation;
/// ρ = 0 or no β gives (0, 1, 0)).
///
/// For η ≤ 2/(β+ρ), decided exactly (η·β + η·ρ − 2 ≤ 0 in exact arithmetic):
/// x = 2ηβρ/(β+ρ) and M² = (β + ρ − 2ηβρ)/(β + ρ) (ADC20 Lemma 4). The validators accept η up to
/// 2/(β+ρ) *rounded to nearest*, which can lie a hair above the exact limit, where Lemma 4's M²
/// falls below the Lipschitz constant of the step (to 0 or below when β = ρ). There the
/// constant max(|1 − ηρ|, |1 − ηβ|), valid for every η, is used; above the limit it is
/// ηβ − 1 (> 1 − ηρ), equal to Lemma 4's M at η = 2/(β+ρ): M² = (ηβ − 1)² and
/// x = ηβ·(2 − ηβ), from the exact double-double ηβ (no cancellation: error 2^-100).
#[inline]
pub fn contraction_dd(lr: f64, beta: Option<f64>, rho: f64) -> (Dd, Dd, f64) {
    let beta = match beta {
        Some(b) if rho > 0.0 => b,
        _ => return (Dd::from_f64(0.0), Dd::from_f64(1.0), 0.0),
    };
    let (bh, bl) = two_prod(lr, beta);
    let (rh, rl) = two_prod(lr, rho);
    if expansion_dd(expansion([bh, bl, rh, rl, -2.0])).hi > 0.0 {
        let t = Dd::new(bh, bl);
        return (t * (-t).add_f(2.0), t.add_f(-1.0).sqr(), TWO_M100);
    }
    let (p, pe) = two_prod(2.0 * lr, beta);
    let q = Dd::new(p, pe).mul_f(rho);
    let (sh, sl) = two_sum(beta, rho);
    let s = Dd::new(sh, sl);
    let x = q / s;
    // the numerator β + ρ − 2ηβρ: the double-double difference carries the ≤ 2^-104 of q
    // relative to q, i.e. 2^-104·q/num of itself, within 2^-100 in all (with the ~2^-104 of
    // each further operation) while q ≤ 8·num (M² ≥ 1/9, no heavy cancellation) ...
    let num = s - q;
    if num.hi >= 0.125 * q.hi {
        return (x, num / s, TWO_M100);
    }
    // ... else formed as an exact expansion (2ηβ = p + pe exact, each product with ρ split
    // exactly), whose double-double carries ~2^-104 relative however much β + ρ and 2ηβρ
    // cancel; ≥ 0 for η ≤ 2/(β+ρ), 0 exactly iff M = 0
    let (a, b) = two_prod(p, rho);
    let (c, d) = two_prod(pe, rho);
    let num = expansion_dd(expansion([beta, rho, -a, -b, -c, -d]));
    if !(num.hi > 0.0) {
        return (x, Dd::from_f64(0.0), 0.0);
    }
    (x, num / s, TWO_M100)
}

/// (M rounded down, to nearest, rounded up) from the double-double M² of [`contraction_dd`]:
/// M = sqrt(M²) in double-double (relative error ≤ half that of M², plus ~2^-104), rounded to
/// the nearest double v; the sign of the remainder (M − v) decides which neighbour is the other
/// bound when it exceeds the error bound, else both neighbours are taken. The upper bound is
/// capped at 1 only where M² ≤ 1: an η accepted a hair above 2/(β+ρ) has M = ηβ − 1 > 1 by up
/// to ~2^-52 (e.g. η = 1.6, β = 1.25: ηβ = 2 + 2^-53 exactly, M = 1 + 2^-53), and capping its
/// upper bound at 1 rounded M down (r_B too small: a fixed-order δ 3.1e-14 below the exact
/// value at ε = 2, D = 1, n = 50; found 2026-11-28).
fn m_bounds(m2: Dd, m2_rel_err: f64) -> (f64, f64, f64) {
    if !(m2.hi > 0.0) {
        return (0.0, 0.0, 0.0);
    }
    let m = m2.sqrt();
    let v = m.hi + m.lo;
    let rem = (m.hi - v) + m.lo; // exact: v + rem = m.hi + m.lo
    let tol = v * (0.5 * m2_rel_err + TWO_M100);
    let (dn, up) = if tol > v * 1e-17 {
        // an error bound above the double's resolution: widen by it (not reached by
        // contraction_dd's 2^-100; kept so that a looser M² stays bracketed)
        let w = 2.0 * tol;
        ((v - w).next_down(), (v + w).next_up())
    } else if rem > tol {
        (v, v.next_up())
    } else if rem < -tol {
        (v.next_down(), v)
    } else {
        (v.next_down(), v.next_up())
    };
    let above_one = m2.hi > 1.0 || (m2.hi == 1.0 && m2.lo > 0.0);
    (dn.max(0.0), v, if above_one { up } else { up.min(1.0) })
}

/// Validate (lr, smoothness, strong_convexity) and return the contraction factor (the ranges
/// by the validators of [`crate::setup`], one wording for every family).
///
/// * `lr` > 0 finite; `smoothness` (β) > 0 finite when given; `strong_convexity` (ρ) ≥ 0 finite;
/// * ρ > 0 requires β, and ρ ≤ β;
/// * when β is given, lr ≤ 2/(β + ρ).
pub fn step_contraction(
    lr: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
) -> Result<StepContraction> {
    setup::lr(lr)?;
    setup::strong_convexity(strong_convexity)?;
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
            m_dn: 1.0,
            m_near: 1.0,
            one_minus_m2: 0.0,
            x_dd: Dd::from_f64(0.0),
            m2_dd: Dd::from_f64(1.0),
            m2_rel_err: 0.0,
        });
    };
    setup::smoothness(beta)?;
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
    // 1 − x = (β + ρ − 2ηβρ)/(β + ρ) with the numerator as an exact double-double (no
    // cancellation even for β ≈ ρ, η ≈ 1/β): M is known to ~2^-100 and rounded both ways.
    let (x_dd, m2_dd, m2_rel_err) = contraction_dd(lr, Some(beta), rho);
    let (m_dn, m_near, m) = m_bounds(m2_dd, m2_rel_err);
    let x = x_dd.to_f64().min(1.0);
    Ok(StepContraction {
        m,
        m_dn,
        m_near,
        one_minus_m2: x,
        x_dd,
        m2_dd,
        m2_rel_err,
    })
}

// ---------------------------------------------------------------------------------------------
// The radii of the contraction factors (one place for the PNSGD bounds and the schedules)

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

/// The noise-free numerators of the two radii of PNSGD's contraction factors (Sordello–Bu–Dong
/// eqs. (4)–(5), docs/derivations/pnsgd.md):
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

    /// [`Radii::at`] of every lane of a block (bitwise equal): see [`radii_lanes`].
    #[inline(always)]
    pub fn at_block<const B: usize>(&self, s: &[f64], ra: &mut [f64; B], rb: &mut [f64; B]) {
        radii_lanes(|_| *self, s, ra, rb);
    }

    /// κ = r_A/r_B = 2ηL/(M·D) (independent of the noise), rounded up; +∞ when M·D = 0.
    /// κ decreases with M: `m` must be M rounded **down** ([`StepContraction::m_dn`]).
    /// Each operation is rounded in its direction (2ηL up, M·D down, the quotient up).
    #[inline(always)]
    pub fn kappa(lipschitz: f64, m: f64, diameter: f64, lr: f64) -> f64 {
        let md = mul_dn(m, diameter);
        if md == 0.0 {
            return if lipschitz == 0.0 { 0.0 } else { f64::INFINITY };
        }
        div_up(mul_up(2.0 * lr, lipschitz), md)
    }
}

/// [`Radii::at`] of every lane of a block, lane t with the numerators `rad(t)` at the noise
/// scale s[t] (bitwise equal to `rad(t).at(s[t])`; lanes past `s.len()` are left as they are):
/// the quotients by [`crate::num::round::div_up_lanes`], branch-free so that the loop
/// vectorizes (a radius ≥ 2^-969 is above the 1e-300 floor of `at`); where a lane is not
/// covered by it (a quotient below 2^-969, NaN) the whole block is recomputed by `at`. (`at` per
/// lane is two scalar divisions with branches: a third of the time of the online kernel.)
#[inline(always)]
pub fn radii_lanes<const B: usize>(
    rad: impl Fn(usize) -> Radii,
    s: &[f64],
    ra: &mut [f64; B],
    rb: &mut [f64; B],
) {
    let n = s.len().min(B);
    let mut odd = false;
    for t in 0..n {
        let r = rad(t);
        let (x, okx) = crate::num::round::div_up_lanes(r.two_l, s[t]);
        let (y, oky) = crate::num::round::div_up_lanes(r.mdl, s[t]);
        (ra[t], rb[t]) = (x, y);
        odd |= !(okx & oky);
    }
    if odd {
        for t in 0..n {
            (ra[t], rb[t]) = rad(t).at(s[t]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_validation() {
        let c = step_contraction(0.1, Some(1.0), 0.0).unwrap();
        assert_eq!((c.m, c.one_minus_m2), (1.0, 0.0));
        // beta = rho = 1, lr = 1: M = 0
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

    /// M rounded both ways brackets the exact M (checked with the exact rational M² of small
    /// dyadic inputs: m_dn² ≤ M² ≤ m² in exact arithmetic via fma residuals), within 2 ulp;
    /// κ from m_dn is ≥ the exact 2ηL/(M·D).
    #[test]
    fn m_rounded_both_ways() {
        let mut rng = crate::num::test_rng::XorShift::new();
        let mut rnd = move || rng.next_f64();
        for _ in 0..20_000 {
            let beta = 10f64.powf(2.0 * rnd() - 1.0);
            let rho = beta * rnd();
            let lr = 2.0 / (beta + rho) * rnd().max(1e-6);
            let Ok(c) = step_contraction(lr, Some(beta), rho) else {
                continue;
            };
            assert!(c.m_dn <= c.m_near && c.m_near <= c.m);
            assert!(
                c.m.to_bits() - c.m_dn.to_bits() <= 2,
                "{lr} {beta} {rho} {c:?}"
            );
            // M² = (β + ρ − 2ηβρ)/(β + ρ): compare m² (β + ρ) with β + ρ − 2ηβρ in double-double
            let m2 = c.m2_dd;
            if m2.hi < 1e-20 {
                continue;
            }
            let up2 = Dd::from_f64(c.m).sqr();
            let dn2 = Dd::from_f64(c.m_dn).sqr();
            assert!(
                (up2 - m2).hi >= 0.0 && (m2 - dn2).hi >= 0.0,
                "{lr} {beta} {rho} {c:?}"
            );
        }
        // the example: M = sqrt(1 − 0.1·2·0.5/1.5)
        let c = step_contraction(0.1, Some(1.0), 0.5).unwrap();
        let exact = (1.0f64 - 0.1 / 1.5).sqrt();
        assert!(c.m_dn <= exact * (1.0 + 2e-16) && c.m >= exact * (1.0 - 2e-16));
        assert!(Radii::kappa(0.5, c.m_dn, 1.0, 0.1) >= 0.1 / c.m_near);
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

#[cfg(test)]
mod tests_over {
    use super::*;

    /// η accepted a hair above 2/(β+ρ): 1.6·1.25 = 2 + 2^-53 exactly, so M = ηβ − 1 = 1 + 2^-53;
    /// its upper bound must not be capped at 1, and x = 1 − M² < 0 is kept in the double-double.
    #[test]
    fn m_above_one_is_bounded_above() {
        let c = step_contraction(1.6, Some(1.25), 1.25e-18).unwrap();
        assert_eq!(c.m, 1.0 + f64::EPSILON); // the next double above 1 + 2^-53
        assert_eq!(c.m_dn, 1.0);
        assert!(c.x_dd.hi < 0.0 && c.one_minus_m2 == c.x_dd.to_f64());
        // within Lemma 4's range the cap holds: M ≤ 1
        let c = step_contraction(1.5999999999999999, Some(1.25), 1.25e-18).unwrap();
        assert!(c.m <= 1.0 && c.x_dd.hi >= 0.0);
    }
}
