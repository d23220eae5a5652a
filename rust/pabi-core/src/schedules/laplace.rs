//! The Laplace schedule of shuffled PNSGD: the scale v(n) = M(b−a)/(2η·ln(n/C1 + C2)) and
//! its bound δ(n) = A_n·G(u_n, n) (Sordello–Bu–Dong §4, Thm 3, eq. (7)); derivation and
//! rounding directions in `docs/derivations/schedules.md`. Its limit δ* is in `delta_star.rs`.

use super::params::{check_step, Problem};
use super::{exact, shuffled_value};
use crate::error::{PabiError, Result};
use crate::num::down;
use crate::num::round::{rel_up, EPS2, EPS4};
use crate::{theta, vmath};

/// ln(n/C1 + C2) for the Laplace schedule, accurate (≤ 1.5 ulp) also when the argument is
/// next to 1; requires n/C1 + C2 > 1, decided exactly.
///
/// Below 2 the logarithm is log1p(s) of s = n/C1 + C2 − 1. With C2 ≥ 1 both terms of
/// s = n/C1 + (C2 − 1) are ≥ 0 (no cancellation; s > 0). With C2 < 1 they cancel and rounding
/// n/C1 alone could cost all digits of s (e.g. n = 52, C1 = 519.9999999999994, C2 = 0.9:
/// s ≈ 1.1e-16 while n/C1 rounds by 1.4e-17), so s = (n + C1·C2 − C1)/C1 is formed from the
/// exact expansion of the numerator (its sign decides the domain exactly), in double-double.
#[inline(always)]
fn ln_laplace_arg(n: f64, c1: f64, c2: f64, name: &'static str) -> Result<f64> {
    let q = n / c1;
    let z = q + c2;
    let bad = || {
        PabiError::domain(
            name,
            format!("such that {name}/c1 + c2 > 1 (c1 = {c1}, c2 = {c2})"),
            n,
        )
    };
    if !z.is_finite() {
        return Err(bad());
    }
    if z >= 2.0 {
        return Ok(vmath::ln(z));
    }
    if c2 >= 1.0 {
        // q > 0 (n ≥ 1, C1 finite): s > 0
        return Ok(vmath::log1p(q + (c2 - 1.0)));
    }
    let (num, sign) = exact::laplace_gap_times_c1(n, c1, c2);
    if sign <= 0 {
        return Err(bad());
    }
    Ok(vmath::log1p(num.div_f(c1).to_f64()))
}

/// Laplace scale v(n) = M(b−a)/(2η·ln(n/C1 + C2)) (003 eq. (7)), to nearest. ε and L of `p`
/// play no part (from the setup alone: [`super::schedule_noise`]).
#[inline(always)]
pub fn laplace_schedule_scale(p: &Problem, n: f64, c1: f64, c2: f64) -> Result<f64> {
    check_step(n, c1, c2)?;
    let lz = ln_laplace_arg(n, c1, c2, "steps")?;
    Ok(p.mdl_near() / (2.0 * lz))
}

simd! {
    /// δ(n) = A_n·G(u_n, n) for the Laplace schedule (003 Thm 3): u_n = e^{ε/2}/(n/C1+C2)
    /// exactly, A_n = (1 − e^{ε/2}(n/C1 + C2)^{−κ_L})_+. Upper bound, ≤ 1e-13 relative.
    pub fn laplace_schedule_delta(p: &Problem, n: f64, c1: f64, c2: f64) -> Result<f64> {
        check_step(n, c1, c2)?;
        let lz = ln_laplace_arg(n, c1, c2, "steps")?;
        // A = laplace_theta(ε, r_A) with r_A = 2L/v = 2κ·ln z, nudged up (A increases with r).
        let a = theta::laplace_theta(p.eps, rel_up(2.0 * p.kappa() * lz, EPS2));
        // u = e^{ε/2 − ln z}, exponent moved down by its rounding error.
        let e = 0.5 * p.eps - lz;
        let e_dn = e - EPS4 * (0.5 * p.eps + lz);
        let u = down(vmath::exp(e_dn)).min(1.0);
        Ok(shuffled_value(a, u, n))
    }
}
