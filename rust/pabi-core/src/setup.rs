//! The training setup shared by the PNSGD bounds ([`crate::pnsgd`]), the noise schedules and
//! online noise ([`crate::schedules`]), defined once: the noise family [`Noise`], the scalar
//! setup [`Setup`] (L, η, D, β, ρ) with its validation and step contraction, its broadcast slice
//! form [`SetupArgs`], and one validator per parameter with one wording for both families.
//!
//! The model (Sordello–Bu–Dong §1–§2, Thm 1; Asoodeh–Diaz–Calmon §IV, Lemma 4; derivations in
//! `docs/derivations/pnsgd.md`): an L-Lipschitz loss, learning rate η, a constraint set of
//! diameter D, optional smoothness β and strong convexity ρ giving the contraction M of a
//! gradient step ([`crate::gd::step_contraction`]).
//!
//! # The domains, and where the two families differ
//!
//! | parameter | allowed |
//! |---|---|
//! | `max_grad_norm` | finite and >= 0 |
//! | `lr` | finite and > 0 (and <= 2/(β + ρ) when β is given: [`crate::gd::step_contraction`]) |
//! | `diameter` | finite and >= 0; the schedules also need D > 0 ([`diameter_schedule`]) |
//! | `smoothness` | finite and > 0 (optional) |
//! | `strong_convexity` | finite and >= 0 (0 unless β is given, <= β) |
//! | `eps` | finite and >= 0 |
//! | `n` | PNSGD: an integer in [1, 2^53) ([`n_pnsgd`]); schedules: any integer >= 1 ([`count`]) |
//! | `index` | an integer in 1..=steps (steps = …) ([`index`]) |
//!
//! Two deliberate differences, kept:
//! * **D > 0 for the schedules.** A schedule sets its noise proportional to M·D
//!   (σ(n) = M·D/(2η·sqrt(W0(z_n))), v(n) = M·D/(2η·ln z_n)) and its A through
//!   κ = 2ηL/(M·D), which divides by D: with D = 0 there is no noise to schedule. PNSGD with a
//!   given noise allows D = 0 (r_B = 0, B = 0: the bound is A alone for the last record).
//!   [`diameter_schedule`] runs the common validator first, then this rule with its reason.
//! * **The range of n.** PNSGD forms n − i exactly in f64 (the exponent of B^{n−i}), so n and
//!   the index stay below 2^53 ([`crate::pnsgd::N_MAX`]). The schedules evaluate at n as a real
//!   number (W0(n²/(2πC1²) + C2), n/C1 + C2, the geometric average G(u, n)) and accept every
//!   integer-valued double ≥ 1 (each double ≥ 2^53 is an integer), up to 1e300 and beyond.

#![allow(clippy::neg_cmp_op_on_partial_ord)] // `!(x > 0.0)`-style checks also catch NaN

use crate::batch::check;
use crate::error::{PabiError, Result};
use crate::gd::{step_contraction, StepContraction};

/// The noise added to the gradient, for PNSGD, the schedules and online noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noise {
    /// N(0, σ² I_d); the noise parameter is the standard deviation σ.
    Gaussian,
    /// Lap(0, v) in d = 1; the noise parameter is the scale v, `diameter` = b − a.
    Laplace,
}

impl Noise {
    /// `"gaussian"` or `"laplace"`.
    pub fn parse(s: &str) -> Result<Noise> {
        match s {
            "gaussian" => Ok(Noise::Gaussian),
            "laplace" => Ok(Noise::Laplace),
            _ => Err(PabiError::option("noise", "'gaussian' or 'laplace'", s)),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// One validator per parameter

const NONNEG: &str = "finite and >= 0";
const POS: &str = "finite and > 0";

#[inline(always)]
fn is_nonneg(x: f64) -> bool {
    x >= 0.0 && x.is_finite()
}

#[inline(always)]
fn is_pos(x: f64) -> bool {
    x > 0.0 && x.is_finite()
}

/// A finite value > 0 (`name` as the user spells it).
#[inline(always)]
pub fn finite_pos(name: &'static str, x: f64) -> Result<()> {
    if is_pos(x) {
        Ok(())
    } else {
        Err(PabiError::domain(name, POS, x))
    }
}

/// A finite value >= 0.
#[inline(always)]
pub fn finite_nonneg(name: &'static str, x: f64) -> Result<()> {
    if is_nonneg(x) {
        Ok(())
    } else {
        Err(PabiError::domain(name, NONNEG, x))
    }
}

/// ε: finite and >= 0.
#[inline(always)]
pub fn eps(x: f64) -> Result<()> {
    finite_nonneg("eps", x)
}

/// L: finite and >= 0.
#[inline(always)]
pub fn max_grad_norm(x: f64) -> Result<()> {
    finite_nonneg("max_grad_norm", x)
}

/// η: finite and > 0 (its upper limit 2/(β + ρ) is checked with the contraction).
#[inline(always)]
pub fn lr(x: f64) -> Result<()> {
    finite_pos("lr", x)
}

/// D: finite and >= 0.
#[inline(always)]
pub fn diameter(x: f64) -> Result<()> {
    finite_nonneg("diameter", x)
}

/// D of a schedule: [`diameter`], then D > 0 (module docs: the schedule's noise is
/// proportional to M·D and κ = 2ηL/(M·D) divides by D).
#[inline(always)]
pub fn diameter_schedule(x: f64) -> Result<()> {
    diameter(x)?;
    if x > 0.0 {
        Ok(())
    } else {
        Err(PabiError::domain(
            "diameter",
            "> 0 for the schedules and online noise (a schedule's noise is proportional to M*diameter, and kappa = 2*lr*L/(M*diameter) divides by it)",
            x,
        ))
    }
}

/// β: finite and > 0.
#[inline(always)]
pub fn smoothness(x: f64) -> Result<()> {
    finite_pos("smoothness", x)
}

/// ρ: finite and >= 0 (its relations to β are checked with the contraction).
#[inline(always)]
pub fn strong_convexity(x: f64) -> Result<()> {
    finite_nonneg("strong_convexity", x)
}

/// An integer-valued count ≥ `lo` (every double ≥ 2^53 is an integer): the schedules' n and
/// step indices.
#[inline(always)]
pub fn count(name: &'static str, x: f64, lo: f64) -> Result<()> {
    if x >= lo && x.is_finite() && x == x.floor() {
        Ok(())
    } else {
        Err(PabiError::domain(
            name,
            format!("an integer >= {lo} (finite)"),
            x,
        ))
    }
}

/// 2^53: PNSGD's n and index stay below it, so that n − i is exact in f64.
pub const N_MAX: f64 = 9_007_199_254_740_992.0;

/// An integer in [1, 2^53) (the cast is exact below 2^53, and cheaper than `fract`, a libm call
/// without SSE4.1).
#[inline(always)]
pub fn is_count_pnsgd(x: f64) -> bool {
    (1.0..N_MAX).contains(&x) && (x as u64) as f64 == x
}

/// PNSGD's n over an array: an integer in [1, 2^53), the first bad index named.
pub fn n_pnsgd(n: &[f64]) -> Result<()> {
    check(n, "steps", "an integer in [1, 2^53)", is_count_pnsgd)
}

/// The 1-based index `i` of the differing record, an integer in 1..=n.
#[inline(always)]
pub fn index(i: f64, n: f64) -> Result<()> {
    if i >= 1.0 && i <= n && i == i.floor() {
        Ok(())
    } else {
        Err(PabiError::domain(
            "index",
            format!("an integer in 1..=steps (steps = {n})"),
            i,
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// The setup

/// The scalar training setup: L, η, D, β (optional), ρ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Setup {
    pub max_grad_norm: f64,
    pub lr: f64,
    pub diameter: f64,
    pub smoothness: Option<f64>,
    pub strong_convexity: f64,
}

impl Setup {
    /// Validate (L, then D, then η, ρ, β and their relations in
    /// [`crate::gd::step_contraction`]) and return the step contraction M.
    #[inline]
    pub fn validate(&self) -> Result<StepContraction> {
        max_grad_norm(self.max_grad_norm)?;
        diameter(self.diameter)?;
        self.contraction()
    }

    /// [`Setup::validate`] with the schedules' D > 0 ([`diameter_schedule`]).
    #[inline]
    pub fn validate_schedule(&self) -> Result<StepContraction> {
        max_grad_norm(self.max_grad_norm)?;
        diameter_schedule(self.diameter)?;
        self.contraction()
    }

    /// The step contraction alone (η, ρ, β validated there; L and D not looked at).
    #[inline(always)]
    pub fn contraction(&self) -> Result<StepContraction> {
        step_contraction(self.lr, self.smoothness, self.strong_convexity)
    }
}

/// Element j of a broadcast argument (length 1: the same value for every element), the
/// driver's [`crate::driver::at`], re-exported for the setup's callers.
pub use crate::driver::at;

/// Every `(name, length)` is 1 (broadcast) or `len`; the first that is not gives a
/// [`PabiError::Shape`] naming it.
pub fn check_broadcast(len: usize, lens: &[(&'static str, usize)]) -> Result<()> {
    for &(name, m) in lens {
        if m != 1 && m != len {
            return Err(PabiError::Shape {
                message: format!("{name} has length {m}, expected 1 or {len}"),
            });
        }
    }
    Ok(())
}

/// The setup as broadcast slices (each of length 1 or the output length).
#[derive(Debug, Clone, Copy)]
pub struct SetupArgs<'a> {
    pub max_grad_norm: &'a [f64],
    pub lr: &'a [f64],
    pub diameter: &'a [f64],
    /// None: no smoothness (convex case, M = 1).
    pub smoothness: Option<&'a [f64]>,
    pub strong_convexity: &'a [f64],
}

impl<'a> SetupArgs<'a> {
    /// The (name, length) of every slice, in the order of the checks.
    pub fn lens(&self) -> Vec<(&'static str, usize)> {
        let mut v = vec![
            ("max_grad_norm", self.max_grad_norm.len()),
            ("lr", self.lr.len()),
            ("diameter", self.diameter.len()),
            ("strong_convexity", self.strong_convexity.len()),
        ];
        if let Some(b) = self.smoothness {
            v.push(("smoothness", b.len()));
        }
        v
    }

    /// Each range over the whole array (max_grad_norm, lr, diameter, smoothness,
    /// strong_convexity), naming the first bad index; the relations between η, β and ρ are
    /// checked per element by [`Setup::contraction`].
    pub fn check_ranges(&self) -> Result<()> {
        check(self.max_grad_norm, "max_grad_norm", NONNEG, is_nonneg)?;
        check(self.lr, "lr", POS, is_pos)?;
        check(self.diameter, "diameter", NONNEG, is_nonneg)?;
        if let Some(b) = self.smoothness {
            check(b, "smoothness", POS, is_pos)?;
        }
        check(self.strong_convexity, "strong_convexity", NONNEG, is_nonneg)
    }

    /// Lengths (1 or `len`), then each range ([`SetupArgs::check_ranges`]).
    pub fn check(&self, len: usize) -> Result<()> {
        check_broadcast(len, &self.lens())?;
        self.check_ranges()
    }

    /// Every slice a broadcast scalar.
    pub fn scalar(&self) -> bool {
        [
            self.max_grad_norm,
            self.lr,
            self.diameter,
            self.strong_convexity,
        ]
        .iter()
        .all(|s| s.len() == 1)
            && self.smoothness.is_none_or(|b| b.len() == 1)
    }

    /// Whether the contraction M is the same for every element (η, β, ρ scalars).
    pub fn contraction_scalar(&self) -> bool {
        self.lr.len() == 1
            && self.strong_convexity.len() == 1
            && self.smoothness.is_none_or(|b| b.len() == 1)
    }

    /// The setup of element j.
    #[inline(always)]
    pub fn at(&self, j: usize) -> Setup {
        Setup {
            max_grad_norm: at(self.max_grad_norm, j),
            lr: at(self.lr, j),
            diameter: at(self.diameter, j),
            smoothness: self.smoothness.map(|b| at(b, j)),
            strong_convexity: at(self.strong_convexity, j),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_wording() {
        assert_eq!(
            lr(0.0).unwrap_err().to_string(),
            "lr must be finite and > 0, got 0"
        );
        assert_eq!(
            diameter_schedule(-1.0).unwrap_err().to_string(),
            "diameter must be finite and >= 0, got -1"
        );
        assert!(diameter_schedule(0.0)
            .unwrap_err()
            .to_string()
            .starts_with("diameter must be > 0 for the schedules and online noise"));
        assert!(diameter(0.0).is_ok());
        assert_eq!(
            index(11.0, 10.0).unwrap_err().to_string(),
            "index must be an integer in 1..=steps (steps = 10), got 11"
        );
        assert!(index(1.5, 10.0).is_err() && index(10.0, 10.0).is_ok());
        assert_eq!(
            Noise::parse("gauss").unwrap_err().to_string(),
            "noise must be 'gaussian' or 'laplace', got \"gauss\""
        );
        assert!(matches!(
            Noise::parse("gauss"),
            Err(PabiError::Option { param: "noise", .. })
        ));
        let a = SetupArgs {
            max_grad_norm: &[1.0, 1.0, -1.0],
            lr: &[0.1],
            diameter: &[1.0],
            smoothness: None,
            strong_convexity: &[0.0],
        };
        assert_eq!(
            a.check(3).unwrap_err().to_string(),
            "max_grad_norm must be finite and >= 0, got -1 at index 2"
        );
        assert!(matches!(a.check(4), Err(PabiError::Shape { .. })));
        assert_eq!(a.at(1).max_grad_norm, 1.0);
        let s = a.at(0);
        assert_eq!(s.validate().unwrap().m, 1.0);
    }
}
