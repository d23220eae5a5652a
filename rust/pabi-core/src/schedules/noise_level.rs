//! The noise level of the fixed-horizon schedule of a noise family: the Laplace scale v(n)
//! (Sordello–Bu–Dong Thm 3, eq. (7)) or the Gaussian σ(n) (Thm 4); one entry for the callers
//! that carry the family as a value. Derivations in `docs/derivations/schedules.md`.

use super::{gauss_schedule_sigma, laplace_schedule_scale, Noise};
use crate::error::Result;

/// [`laplace_schedule_scale`] or [`gauss_schedule_sigma`], as `kind` says.
#[allow(clippy::too_many_arguments)]
pub fn schedule_noise(
    kind: Noise,
    n: f64,
    c1: f64,
    c2: f64,
    lr: f64,
    diameter: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
) -> Result<f64> {
    let f = match kind {
        Noise::Laplace => laplace_schedule_scale,
        Noise::Gaussian => gauss_schedule_sigma,
    };
    f(n, c1, c2, lr, diameter, smoothness, strong_convexity)
}
