//! Online PNSGD with decaying noise (Sordello–Bu–Dong §6, Thms 6, 7, eqs. (11)–(15));
//! derivations, the corrected eqs. (13), (15) and the rounding directions in
//! `docs/derivations/schedules.md`.
//!
//! δ_n(i) = A_i·∏_{t=i+1}^n B_t (003 eq. (11)), evaluated as ln A_i + Σ_t ln B_t.
//!
//! * Any per-step noise array: [`online_delta_all`] (every index: the per-step factor logs by
//!   the engine's block kernels, then an O(n) Neumaier-compensated suffix scan, chunk by chunk
//!   from the last, the chunks in parallel by `driver::scan_rev`) and [`online_log_delta_at`].
//! * The online schedules v_j (eq. (12)) and σ_j (eq. (14)) ([`OnlineSchedule`]): δ_n(i) for n up
//!   to 1e15 and beyond (direct sum of the first 2^18 factors, then a certified upper bound of
//!   the remaining finite sum, `limit.rs`); the exact limit δ_∞(i) = A_i·exp(Σ_{t>i} g(t)) (direct
//!   sum, then the Euler–Maclaurin tail Σ_{t≥a} g ≈ ∫_a^∞ g + g(a)/2 − g'(a)/12, an estimate
//!   with its error margin added); a certified upper bound of δ_∞(i) (`limit.rs`); and the paper's
//!   integral bounds eqs. (13), (15) (corrected, or as printed on request).
//!
//! The estimates (the exact limit, eqs. (13)/(15)) integrate ∫_X^∞ g by tanh–sinh
//! quadrature after x = X·s^{−1/(α−1)}, which maps the algebraic tail g(x) ~ −c·x^{−α} onto a
//! bounded integrand on (0, 1], with the usual (heuristic) error estimate |I_h − I_2h|.
//! All functions return natural logarithms (δ underflows long before its log does).
//!
//! Where things are:
//! * `suffix.rs` — any per-step noise array: [`online_delta_all`], [`online_log_delta_at`]
//!   (eq. (11) as a compensated suffix scan).
//! * this file — [`OnlineSchedule`]: the schedule's constants, its noise levels, A_i and the
//!   per-step log factor g(t) = ln B_t.
//! * `limit.rs` — δ_n(i) for large n, the limit δ_∞(i) and its bounds (direct sums, the
//!   Euler–Maclaurin tail, the certified sums, eqs. (13)/(15)).
//! * `inverse.rs` — ε(δ): [`online_epsilon_at`] (a per-step noise array) and
//!   [`online_schedule_epsilon`] (the schedules, on the Laplace bound's ε-dependent domain).
//! * `quadrature.rs` — ∫ g: the tanh–sinh estimate and the certified bracket, with the
//!   concavity and third-derivative conditions the certified sums rely on.
//! * `tests.rs` — unit tests.

mod inverse;
mod limit;
mod quadrature;
mod quantity;
mod suffix;
#[cfg(test)]
mod tests;

pub use inverse::{online_epsilon_at, online_schedule_epsilon};
pub use quantity::{online_delta_at, quantities_if_defined, OnlineQuantity};
pub use suffix::{online_delta_all, online_log_delta_all, online_log_delta_at};

use super::params::{check_c, check_decay, count, Noise, Problem};

use crate::error::{PabiError, Result};
use crate::num::logspace::Neumaier;
use crate::num::round::{rel_dn, rel_up, EPS, EPS2, EPS4, EPS8};
use crate::{lambertw, theta, vmath};

/// Number of factors summed directly before the Euler–Maclaurin tail takes over.
pub const DIRECT_TERMS: f64 = 262_144.0;
/// Relative width asked of the certified quadrature in the certified limit (the width also has
/// a floor of ≈ 2e-13 from the rounding of the integrand's logarithm).
const CERT_TOL: f64 = 1e-13;

/// ln of the per-step factor h(ε, r) (θ or the Laplace factor), rounded up; r nudged up.
#[inline(always)]
fn log_factor(kind: Noise, eps: f64, r: f64) -> f64 {
    let r = rel_up(r, EPS2);
    match kind {
        Noise::Gaussian => theta::log_theta_tight(eps, r),
        Noise::Laplace => theta::log_laplace_theta(eps, r),
    }
}

// ---------------------------------------------------------------------------------------------
// The online schedules (003 Thms 6, 7)

/// An online schedule v_j (Laplace, eq. (12)) or σ_j (Gaussian, eq. (14)) with its problem.
#[derive(Debug, Clone, Copy)]
pub struct OnlineSchedule {
    pub kind: Noise,
    pub p: Problem,
    pub c1: f64,
    pub c2: f64,
    pub decay: f64,
    ln_c1: f64,
    ln_c2: f64,
    /// Laplace: c = C1·e^{ε/2} (rounded down) and ln c; d = C1·C2.
    c: f64,
    ln_c: f64,
    d: f64,
}

/// ln(−log1p(−u)) from ln u (u ∈ (0, 1)).
#[inline(always)]
fn ln_neg_log1m(ln_u: f64) -> f64 {
    if ln_u > -20.0 {
        vmath::ln(-vmath::log1p(-vmath::exp(ln_u)))
    } else {
        let u = vmath::exp(ln_u);
        ln_u + u * (0.5 + u / 3.0)
    }
}

/// ln(−ln θ(ε, r)), −g of the Gaussian schedule at radius r: from ln(1 − θ) where θ ≥ 1/2,
/// else from ln θ directly (1 − θ would round to 1 where θ underflows, giving ∞).
#[inline(always)]
fn ln_neg_log_theta(eps: f64, r: f64) -> f64 {
    let lu = theta::log_theta_complement_tight(eps, r);
    if lu > -std::f64::consts::LN_2 {
        vmath::ln(-theta::log_theta_tight(eps, r))
    } else {
        ln_neg_log1m(lu)
    }
}

impl OnlineSchedule {
    pub fn new(kind: Noise, p: Problem, c1: f64, c2: f64, decay: f64) -> Result<Self> {
        check_c(c1, c2)?;
        check_decay(decay)?;
        let ln_c1 = vmath::ln(c1);
        let ln_c = ln_c1 + 0.5 * p.eps;
        let c = rel_dn(vmath::exp(ln_c), EPS4);
        Ok(OnlineSchedule {
            kind,
            p,
            c1,
            c2,
            decay,
            ln_c1,
            ln_c2: if c2 > 0.0 {
                vmath::ln(c2)
            } else {
                f64::NEG_INFINITY
            },
            c,
            ln_c,
            d: c1 * c2,
        })
    }

    /// ln(j^α/C1 + C2) (Laplace) or ln z_j = ln(j^{2α}/(2πC1²) + C2) (Gaussian).
    #[inline(always)]
    fn ln_arg(&self, lj: f64) -> f64 {
        match self.kind {
            Noise::Laplace => crate::num::log_add_exp(self.decay * lj - self.ln_c1, self.ln_c2),
            Noise::Gaussian => super::ln_gauss_arg(self.decay * 2.0 * lj, self.c1, self.c2),
        }
    }

    /// Domain of the index (1-based): integer ≥ 1 and, for Laplace, i^α + C1·C2 > C1·e^{ε/2}
    /// (every B_t > 0 from t = i on; 003 Thm 6).
    pub fn check_index(&self, name: &'static str, i: f64) -> Result<()> {
        count(name, i, 1.0)?;
        if !self.defined_at(i) {
            return Err(PabiError::domain(
                name,
                format!(
                    "such that {name}^decay + c1*c2 > c1*e^(eps/2) = {} (the schedule's B_t must be > 0)",
                    self.ln_c.exp()
                ),
                i,
            ));
        }
        Ok(())
    }

    /// Whether the bound is defined at the index `i` (an integer ≥ 1): always for the Gaussian
    /// schedule; for the Laplace schedule where i^α + C1·C2 > C1·e^{ε/2} (the second test of
    /// [`OnlineSchedule::check_index`]). Monotone in ε as computed: ln(C1·e^{ε/2}) is
    /// ln C1 + ε/2 rounded, never below ln C1 + 0 for ε ≥ 0, so an index defined at some ε is
    /// defined at ε = 0 (of the same C1, C2, α).
    pub fn defined_at(&self, i: f64) -> bool {
        if self.kind != Noise::Laplace {
            return true;
        }
        let lhs = crate::num::log_add_exp(self.decay * vmath::ln(i), vmath::ln(self.d));
        lhs.partial_cmp(&self.ln_c) == Some(std::cmp::Ordering::Greater)
    }

    /// The noise of step j: v_j (eq. (12)) or σ_j (eq. (14)), to nearest.
    pub fn noise(&self, j: f64) -> Result<f64> {
        count("index", j, 1.0)?;
        let la = self.ln_arg(vmath::ln(j));
        match self.kind {
            Noise::Laplace => {
                if la.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                    return Err(PabiError::domain(
                        "index",
                        "such that index^decay/c1 + c2 > 1 (positive scale)",
                        j,
                    ));
                }
                // ln(j^α/C1 + C2) near 0: recompute with log1p.
                let q = (self.decay * vmath::ln(j) - self.ln_c1).exp();
                let la = if q + self.c2 < 2.0 {
                    vmath::log1p(q + (self.c2 - 1.0))
                } else {
                    la
                };
                Ok(self.p.mdl_near() / (2.0 * la))
            }
            Noise::Gaussian => Ok(self.p.mdl_near() / (2.0 * lambertw::wright_omega(la).sqrt())),
        }
    }

    /// ln A_i rounded up; `as_published` uses eq. (13)'s printed e^{−ε/2} (Laplace only).
    pub fn log_a(&self, i: f64, as_published: bool) -> f64 {
        let lj = vmath::ln(i);
        let la = self.ln_arg(lj);
        match self.kind {
            Noise::Laplace => {
                // r_A = 2L/v_i = 2κ ln(i^α/C1 + C2); printed: exponent −ε/2 − κ ln(...)
                let r = 2.0 * self.p.kappa() * la;
                if as_published {
                    log_factor(Noise::Laplace, 0.0, r + self.p.eps)
                } else {
                    log_factor(Noise::Laplace, self.p.eps, r)
                }
            }
            Noise::Gaussian => {
                let rb = 2.0 * lambertw::wright_omega(la).sqrt();
                log_factor(Noise::Gaussian, self.p.eps, self.p.kappa() * rb)
            }
        }
    }

    /// r_A = 2L/σ_i (Gaussian), used by the printed eq. (15).
    fn r_a(&self, i: f64) -> f64 {
        self.p.kappa() * self.gauss_rb(i)
    }

    /// g(t) = ln B_t, rounded up.
    #[inline(always)]
    pub fn g(&self, t: f64) -> f64 {
        match self.kind {
            Noise::Laplace => {
                // c is rounded down; c/y and log1p add ≤ 5 ulp (relative): move 8 ulp up.
                let y = t.powf(self.decay) + self.d;
                let v = vmath::log1p(-self.c / y);
                rel_up(v, EPS8)
            }
            Noise::Gaussian => log_factor(Noise::Gaussian, self.p.eps, self.gauss_rb(t)),
        }
    }

    /// r_B = 2·sqrt(W0(z_t)) of step t (Gaussian schedule), to nearest.
    #[inline(always)]
    fn gauss_rb(&self, t: f64) -> f64 {
        self.gauss_rb_log(vmath::ln(t))
    }

    /// r_B = 2·sqrt(W0(z_x)) at x = e^{lx} (Gaussian schedule), to nearest.
    #[inline(always)]
    fn gauss_rb_log(&self, lx: f64) -> f64 {
        2.0 * lambertw::wright_omega(self.ln_arg(lx)).sqrt()
    }

    /// ln(−g(e^{lx})), for the quadrature (no overflow for any lx).
    #[inline(always)]
    fn ln_neg_g(&self, lx: f64) -> f64 {
        match self.kind {
            Noise::Laplace => ln_neg_log1m(
                self.ln_c - crate::num::log_add_exp(self.decay * lx, vmath::ln(self.d)),
            ),
            Noise::Gaussian => ln_neg_log_theta(self.p.eps, rel_up(self.gauss_rb_log(lx), EPS2)),
        }
    }
}
