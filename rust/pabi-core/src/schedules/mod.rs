//! Noise schedules of shuffled PNSGD, online decaying noise and their limits δ*
//! (Sordello–Bu–Dong, *Privacy amplification via iteration for shuffled and online PNSGD*,
//! "003" below: §4 Thms 3, 4 and §6 Thms 6, 7). Derivations, the corrections of the paper's
//! printed formulas and the rounding directions: `docs/derivations/schedules.md`.
//!
//! Conventions (003 §2, eqs. (4), (5)): A = h(ε, 2L/s), B = h(ε, M·D/(η·s)) with h = θ
//! (Gaussian noise of standard deviation s = σ) or the Laplace factor (scale s = v,
//! D = b − a), M from [`crate::gd::step_contraction`]. Every δ is an upper bound of the formula
//! it implements (inputs of the engine's θ are nudged outward by a few ulp, θ-type factors and
//! logs are rounded up, gaps 1 − B rounded down, the result moved up by
//! [`crate::num::INFLATE`]). Noise levels (σ, v) and the calibrated constant are returned to
//! nearest (a larger noise is *not* the conservative side of a schedule the user applies).
//!
//! Direction of M (strong convexity, M < 1). A schedule sets the noise proportional to M
//! (σ(n) = M·D/(2η·sqrt(W0(z_n))), v(n) = M·D/(2η·ln z_n)), so r_B = M·D/(η·s) = 2·sqrt(W0(z_n))
//! (resp. 2 ln z_n) is free of M, and M enters δ only through r_A = 2L/s = κ·r_B with
//! κ = 2ηL/(M·D), which *decreases* with M: κ is formed from M rounded down
//! ([`crate::gd::StepContraction::m_dn`]), each operation rounded up. (Rounding M up there, as
//! the PNSGD radius r_B = M·D/(η·s) of a *given* noise needs, made A too small: δ was up to
//! ~1e-11 below the exact value where A sits deep in its tail, e.g. 8.4e-12 for
//! `gauss_schedule_delta(5, 0.5, 0.1, 1, 100, 1e3, 2, β = 1, ρ = 0.5)`.) The general online
//! product [`online::online_delta_all`] with user-given noise takes M rounded up (r_B grows with
//! M); the noise levels take M to nearest.
//!
//! Arguments r of θ computed with a few roundings (r = 2·sqrt(W0) carries ≤ 3 ulp: W from
//! `wright_omega` ≤ 2 ulp, ln z ≤ 1 ulp relative to W) are nudged up by 2^-51 relative
//! ([`crate::num::round::EPS2`], 4 ulp), θ increasing with r.
//!
//! Where things are:
//! * `params.rs` — the parameters and their validation: [`Noise`], [`Problem`] (ε, L, η, D, M),
//!   [`ScheduleArgs`] (broadcast arrays) and the domain checks of C1, C2, n, the decay, a noise
//!   array.
//! * `laplace.rs` — [`laplace_schedule_scale`], [`laplace_schedule_delta`] (003 Thm 3).
//! * `gauss.rs` — [`gauss_schedule_sigma`], [`gauss_schedule_delta`] (003 Thm 4).
//! * `delta_star.rs` — their limit [`schedule_delta_star`] (003 eqs. (8), (10)) and its
//!   calibration [`schedule_c1_for_target`].
//! * `array.rs` — [`schedule_delta`] (δ(n) elementwise with broadcasting) and [`map_args`],
//!   the elementwise driver of the bindings.
//! * [`online`] — decaying noise: the general suffix product (eq. (11)) and the online
//!   schedules of 003 Thms 6, 7 with their exact limits and integral bounds.
//! * `tests.rs` — unit tests (the online ones in `online/tests.rs`).

mod array;
mod delta_star;
mod exact;
mod gauss;
mod inverse;
mod laplace;
mod noise_level;
pub mod online;
mod params;
#[cfg(test)]
mod tests;

pub use array::{map_args, opt, schedule_delta};
pub use delta_star::{schedule_c1_for_target, schedule_delta_star, x_for_delta_star};
pub use gauss::{gauss_schedule_delta, gauss_schedule_sigma};
pub use inverse::schedule_epsilon;
pub use laplace::{laplace_schedule_delta, laplace_schedule_scale};
pub use noise_level::schedule_noise;
pub use params::{Noise, Problem, ScheduleArgs};

pub(crate) use gauss::ln_gauss_arg;

use crate::num::geometric_average;

/// δ(n) = A·G(u, n) of both shuffled schedules (003 Thm 2 with the schedule's A and u),
/// rounded up (≤ A).
#[inline(always)]
fn shuffled_value(a: f64, u: f64, n: f64) -> f64 {
    crate::num::up(a * geometric_average(u, n)).min(a)
}
