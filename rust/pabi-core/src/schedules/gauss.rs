//! The Gaussian schedule of shuffled PNSGD: the noise σ(n) = M·D/(2η·sqrt(W0(z_n))),
//! z_n = n²/(2πC1²) + C2, and its bound δ(n) = θ(ε, κ_G r_B)·G(1 − θ(ε, r_B), n)
//! (Sordello–Bu–Dong §4, Thm 4, eq. (9)); derivation and rounding directions in
//! `docs/derivations/schedules.md`. Its limit δ* is in `delta_star.rs`; the online schedule
//! reuses [`ln_gauss_arg`].

use super::params::{check_step, Problem};
use super::shuffled_value;
use crate::error::Result;
use crate::num::consts::LN_2PI;
use crate::num::round::{rel_up, EPS2};
use crate::{lambertw, theta, vmath};

/// ln z_n = ln(n²/(2πC1²) + C2) for the Gaussian schedule, without forming n² (n up to 1e300).
#[inline(always)]
pub(crate) fn ln_gauss_arg(ln_n2: f64, c1: f64, c2: f64) -> f64 {
    let a = ln_n2 - LN_2PI - 2.0 * vmath::ln(c1);
    let b = if c2 > 0.0 {
        vmath::ln(c2)
    } else {
        f64::NEG_INFINITY
    };
    crate::num::log_add_exp(a, b)
}

/// W0(z_n) through `wright_omega(ln z_n)` (n may be as large as 1e300).
#[inline(always)]
fn gauss_w(n: f64, c1: f64, c2: f64) -> f64 {
    lambertw::wright_omega(ln_gauss_arg(2.0 * vmath::ln(n), c1, c2))
}

/// Gaussian noise σ(n) = M·D/(2η·sqrt(W0(n²/(2πC1²) + C2))) (003 eq. (9)), to nearest;
/// W0 through `wright_omega(ln z)` so n may be as large as 1e300. ε and L of `p` play no
/// part (from the setup alone: [`super::schedule_noise`]).
#[inline(always)]
pub fn gauss_schedule_sigma(p: &Problem, n: f64, c1: f64, c2: f64) -> Result<f64> {
    check_step(n, c1, c2)?;
    let w = gauss_w(n, c1, c2);
    Ok(p.mdl_near() / (2.0 * w.sqrt()))
}

/// The radii (r_A, r_B) = (κ_G·r_B, 2·sqrt(W0(z_n))) of the Gaussian schedule (rounded up).
#[inline(always)]
pub(super) fn gauss_schedule_radii(p: &Problem, n: f64, c1: f64, c2: f64) -> Result<(f64, f64)> {
    check_step(n, c1, c2)?;
    let w = gauss_w(n, c1, c2);
    let rb = rel_up(2.0 * w.sqrt(), EPS2);
    Ok((rel_up(p.kappa() * rb, EPS2), rb))
}

simd! {
    /// δ(n) = θ(ε, κ_G r_B)·G(1 − θ(ε, r_B), n), r_B = 2·sqrt(W0(z_n)) (003 Thm 4).
    pub fn gauss_schedule_delta(p: &Problem, n: f64, c1: f64, c2: f64) -> Result<f64> {
        let (ra, rb) = gauss_schedule_radii(p, n, c1, c2)?;
        let a = theta::theta(p.eps, ra);
        let u = theta::theta_complement(p.eps, rb);
        Ok(shuffled_value(a, u, n))
    }
}
