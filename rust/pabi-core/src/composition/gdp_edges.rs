//! Directed bounds of θ_{e^ε}(μ) and ln θ that stay tight as θ → 1, for the GDP inversions
//! (`gdp.rs`). Near θ = 1 the inverse problems are ill-conditioned in θ: at ε = 0,
//! θ = 1 − 2Q(μ/2), so a relative error η of θ moves μ by ≈ 2η/φ(μ/2)·… ≈ η/(1 − θ) relative
//! to the scale of μ. The engine's θ (rounded up by INFLATE = 2^-46 relative) and its lower
//! bound of ln θ (3·INFLATE absolute below |ln θ| = 1) therefore cost up to 6e-3 relative in
//! gdp_mu(0, 1 − 2^-53) and +∞ in gdp_mu_dominating at δ ≥ 1 − 4e-14. The complement
//! c = 1 − θ (`theta_complement`, rounded down, error a few ulp plus INFLATE_TIGHT = 2^-49
//! relative where a = ε/μ − μ/2 < 0) is accurate relative to c, so 1 − c and ln(1 − c) are
//! accurate to a few ulp of 1 − θ.
//!
//! In use: [`log_theta_lo`] (`gdp_mu_dominating`, `gdp_dominating_pair`). Not in the library
//! (measured 2026-11-28): an upper bound θ̂ = 1 − (complement rounded down), rounded up, for
//! `gdp_mu` (tight to ~1e-16 at δ → 1, where it is 5.8e-3 low at gdp_mu(0, 1 − 2^-53)) and a
//! double-double last stage for `gdp_epsilon` (ε → 0: 1.4e-14/k relative → ~6e-22/k at
//! δ = θ(0, μ)(1 − k)). Both break the documented round trip gdp_delta(gdp_mu(ε, δ)) ≤ δ
//! while gdp_delta is the engine's θ (INFLATE-loose near 1): they need gdp_delta := θ̂ (a
//! kernel of its own) or a θ tight near 1 in the engine.

use crate::num::round::{EPS2, INFLATE, TINY};
use crate::theta::{log_theta, theta_complement};

/// Whether θ(ε, μ) is taken from its complement: μ² > 2ε, i.e. a = ε/μ − μ/2 < 0, where the
/// complement kernel is the relative-accuracy one (θ > ½ − O(μ) there).
#[inline(always)]
fn from_complement(eps: f64, mu: f64) -> bool {
    mu * mu > 2.0 * eps
}

/// A lower bound of ln θ_{e^ε}(μ), tight near θ = 1: where μ² > 2ε and 1 − θ ≤ ¼ (complement
/// rounded down c̃ ≥ (1 − 1e-14)·c, its error being a few ulp plus INFLATE_TIGHT), ln(1 − c↑)
/// with c↑ = c̃·(1 + 3·INFLATE) + TINY ≥ c and log1p's ≤ 1 ulp error covered by 2ε relative
/// (downwards: the value is negative); else the engine's `log_theta` (rounded up, error a few
/// ulp + INFLATE·|ln θ|) moved down by 3·INFLATE·max(1, |ln θ|). The second element is the
/// value the Newton derivatives use (the engine's ln θ, or the lower bound in the first case).
#[inline(always)]
pub(super) fn log_theta_lo(eps: f64, mu: f64) -> (f64, f64) {
    if from_complement(eps, mu) {
        let c = theta_complement(eps, mu);
        if c <= 0.25 {
            let cu = c * (1.0 + 3.0 * INFLATE) + TINY;
            let l = (-cu).ln_1p();
            let l = l + EPS2 * l;
            return (l, l);
        }
    }
    let v = log_theta(eps, mu);
    (v - 3.0 * INFLATE * v.abs().max(1.0), v)
}
