//! The noise level of the fixed-horizon schedule of a noise family: the Laplace scale v(n)
//! (Sordello–Bu–Dong Thm 3, eq. (7)) or the Gaussian σ(n) (Thm 4); the one entry that takes
//! the setup's numbers and checks them (the setup, then C1, C2 and n, in that order).
//! Derivations in `docs/derivations/schedules.md`.

use super::{gauss_schedule_sigma, laplace_schedule_scale, Noise, Problem};
use crate::error::Result;

simd! {
    /// [`laplace_schedule_scale`] or [`gauss_schedule_sigma`], as `kind` says, of the setup (η, D,
    /// β, ρ: ε and L play no part in a noise level).
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
        let p = Problem::for_noise(lr, diameter, smoothness, strong_convexity)?;
        match kind {
            Noise::Laplace => laplace_schedule_scale(&p, n, c1, c2),
            Noise::Gaussian => gauss_schedule_sigma(&p, n, c1, c2),
        }
    }
}
