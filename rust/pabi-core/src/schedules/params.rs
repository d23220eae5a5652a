//! The parameters of this family and their validation, in one place: the noise family
//! [`Noise`], the problem constants [`Problem`] (ε, L, η, D and the step contraction M of
//! Sordello–Bu–Dong §2, eqs. (4), (5), with M from [`gd::step_contraction`]), the broadcast
//! arrays of the fixed-horizon schedules [`ScheduleArgs`], and the domain checks of the
//! schedules' constants (C1, C2, the step n, the decay α, a per-step noise array). The
//! schedules themselves are in `laplace.rs`, `gauss.rs` and `online/`; the derivations in
//! `docs/derivations/schedules.md`.

use crate::error::{PabiError, Result};
use crate::gd;
use crate::setup::{self, at, check_broadcast, Setup, SetupArgs};

/// The noise family (defined once, with the setup).
pub use crate::setup::Noise;

/// The problem constants shared by every bound: ε, L, η, D and the step contraction M.
#[derive(Debug, Clone, Copy)]
pub struct Problem {
    pub eps: f64,
    pub max_grad_norm: f64,
    pub lr: f64,
    pub diameter: f64,
    /// M rounded up: the radius r_B = M·D/(η·s) of a given noise s ([`Problem::radii`]).
    pub m: f64,
    /// M rounded down: κ = 2ηL/(M·D) ([`Problem::kappa`]), which decreases with M. Under a
    /// schedule the noise is proportional to M, so r_B = M·D/(η·s) does not depend on M and
    /// M enters δ only through r_A = κ·r_B: rounding M up there would make A too small.
    pub m_dn: f64,
    /// M to nearest: the noise levels σ(n), v(n) (returned to nearest).
    pub m_near: f64,
}

/// The validators of this family's own constants and steps (one home: [`crate::setup`]).
pub(crate) use crate::setup::{count, finite_nonneg, finite_pos};

impl Problem {
    /// Validate ε, then the setup (L, D > 0, η, ρ, β: [`Setup::validate_schedule`]) and
    /// compute M.
    #[inline(always)]
    pub fn new(
        eps: f64,
        max_grad_norm: f64,
        lr: f64,
        diameter: f64,
        smoothness: Option<f64>,
        strong_convexity: f64,
    ) -> Result<Self> {
        let s = Setup {
            max_grad_norm,
            lr,
            diameter,
            smoothness,
            strong_convexity,
        };
        Self::from_setup(eps, &s)
    }

    /// [`Problem::new`] from a [`Setup`].
    #[inline(always)]
    pub fn from_setup(eps: f64, s: &Setup) -> Result<Self> {
        setup::eps(eps)?;
        let c = s.validate_schedule()?;
        Ok(Problem {
            eps,
            max_grad_norm: s.max_grad_norm,
            lr: s.lr,
            diameter: s.diameter,
            m: c.m,
            m_dn: c.m_dn,
            m_near: c.m_near,
        })
    }

    /// The problem of a noise level: η, D, β, ρ validated and M (as [`Problem::new`]). ε and L
    /// play no part in a noise level (σ(n), v(n), σ_j, v_j: they enter δ only), so the caller
    /// gives neither; they are held at 0 (in the domain: validation passes on them).
    #[inline(always)]
    pub fn for_noise(
        lr: f64,
        diameter: f64,
        smoothness: Option<f64>,
        strong_convexity: f64,
    ) -> Result<Self> {
        Self::new(0.0, 0.0, lr, diameter, smoothness, strong_convexity)
    }

    /// The problem of an inversion, whose ε is searched: the setup validated (as
    /// [`Problem::from_setup`]) at ε = 0, the point where every search of ε starts; each
    /// evaluation of δ takes a copy at its own ε.
    #[inline(always)]
    pub fn for_search(s: &Setup) -> Result<Self> {
        Self::from_setup(0.0, s)
    }

    /// The numerators of the radii r_A = 2L/s, r_B = M·D/(η s) ([`gd::Radii`], rounded up).
    #[inline(always)]
    pub fn radii(&self) -> gd::Radii {
        gd::Radii::new(self.max_grad_norm, self.m, self.diameter, self.lr)
    }

    /// M·D/η to nearest (≤ 1.5 ulp): the numerator of the schedules' noise levels
    /// σ = M·D/(2η·sqrt(W)), v = M·D/(2η·ln z) (not a bound: the user applies that noise).
    #[inline(always)]
    pub(crate) fn mdl_near(&self) -> f64 {
        self.m_near * self.diameter / self.lr
    }

    /// κ = r_A/r_B = 2ηL/(M D) (κ_L for Laplace, κ_G for Gaussian; Sordello–Bu–Dong §4), rounded up: from
    /// M rounded down (κ decreases with M).
    #[inline(always)]
    pub(crate) fn kappa(&self) -> f64 {
        gd::Radii::kappa(self.max_grad_norm, self.m_dn, self.diameter, self.lr)
    }
}

#[inline(always)]
pub(super) fn check_c(c1: f64, c2: f64) -> Result<()> {
    finite_pos("c1", c1)?;
    finite_nonneg("c2", c2)
}

/// C1, C2 and the step n ≥ 1 (an integer) of a fixed-horizon schedule.
#[inline(always)]
pub(super) fn check_step(n: f64, c1: f64, c2: f64) -> Result<()> {
    check_c(c1, c2)?;
    count("steps", n, 1.0)
}

/// The decay α > 1 (finite) of an online schedule (Sordello–Bu–Dong eqs. (12), (14)).
#[inline(always)]
pub(super) fn check_decay(decay: f64) -> Result<()> {
    if !(decay > 1.0 && decay.is_finite()) {
        return Err(PabiError::domain("decay", "finite and > 1", decay));
    }
    Ok(())
}

/// A per-step noise array of the online product (non-empty, every level finite and > 0).
pub(super) fn check_noise(noise: &[f64]) -> Result<()> {
    if noise.is_empty() {
        return Err(PabiError::Shape {
            message: "noise_scale must be a non-empty array of per-step noise levels".into(),
        });
    }
    // a branch-free test (no short-circuit), so that first_bad's block fold vectorizes
    if let Some(i) = crate::batch::first_bad(noise, |x| (x > 0.0) & (x <= f64::MAX)) {
        return Err(PabiError::domain("noise_scale", "finite and > 0", noise[i]).at(i));
    }
    Ok(())
}

/// Broadcast arguments of [`super::schedule_delta`]: each slice has length 1 or the output length.
#[derive(Debug, Clone, Copy)]
pub struct ScheduleArgs<'a> {
    pub eps: &'a [f64],
    pub max_grad_norm: &'a [f64],
    pub lr: &'a [f64],
    pub diameter: &'a [f64],
    pub n: &'a [f64],
    pub c1: &'a [f64],
    pub c2: &'a [f64],
    /// None: no smoothness (convex case, M = 1 unless validation fails).
    pub smoothness: Option<&'a [f64]>,
    pub strong_convexity: &'a [f64],
}

impl ScheduleArgs<'_> {
    /// The problem of element j (validated).
    #[inline(always)]
    pub(super) fn problem(&self, j: usize) -> Result<Problem> {
        Problem::from_setup(at(self.eps, j), &self.setup().at(j))
    }

    /// The training setup (L, η, D, β, ρ) as broadcast slices.
    #[inline(always)]
    pub(super) fn setup(&self) -> SetupArgs<'_> {
        SetupArgs {
            max_grad_norm: self.max_grad_norm,
            lr: self.lr,
            diameter: self.diameter,
            smoothness: self.smoothness,
            strong_convexity: self.strong_convexity,
        }
    }

    /// Lengths (1 or `len`: ε, the setup's, n, C1, C2), then the setup's ranges over the whole
    /// arrays ([`SetupArgs::check`]); ε, n, C1, C2, D > 0 and the relations of η, β, ρ are
    /// checked per element.
    pub(super) fn check_lengths(&self, len: usize) -> Result<()> {
        let s = self.setup();
        let mut all = vec![("eps", self.eps.len())];
        all.extend(s.lens());
        all.extend([
            ("steps", self.n.len()),
            ("c1", self.c1.len()),
            ("c2", self.c2.len()),
        ]);
        check_broadcast(len, &all)?;
        s.check_ranges()
    }

    /// Every problem argument a broadcast scalar.
    pub(super) fn problem_scalar(&self) -> bool {
        self.eps.len() == 1 && self.setup().scalar()
    }
}
