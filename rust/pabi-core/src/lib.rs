//! pabi-core: pure-Rust numerics for pabi (privacy amplification by iteration and Rényi-DP bounds).
//!
//! No Python here. Every public function validates its arguments and returns a
//! [`PabiError`] instead of panicking or producing NaN.
//!
//! Module map:
//! - [`dd`]: double-double (error-free) arithmetic used to carry arguments exactly.
//! - [`vmath`]: branch-free, auto-vectorizable `exp`, `expm1`, `ln`, `log1p`, `erfcx` kernels.
//! - [`num`]: directed rounding, log-space sums, the stable geometric average.
//! - [`tail`]: the Gaussian tail Q(t) and log Q(t).
//! - [`theta`]: the Gaussian hockey-stick divergence θ_{e^ε}(r), its log and complement;
//!   the Laplace analogue.
//! - [`gd`]: the contraction factor M of a gradient step.
//! - [`pnsgd`]: PNSGD amplification bounds (fixed, shuffled, randomly stopped order), inversion.
//! - [`schedules`]: noise schedules, online decaying noise and their limits δ*.
//! - [`rdp`]: Rényi-DP bounds (sampled Gaussian, per-instance, last iterate, ERM, conversions).
//! - [`pld`]: f-DP, GDP, privacy-loss distributions and FFT composition, DP-SGD accountant.
//! - [`lambertw`]: Lambert W (principal branch) and the Wright omega function W0(e^x).
//! - [`interrupt`]: cooperative cancellation (Ctrl-C) checked between chunks of long loops.
//! - [`batch`]: array drivers (validation with first bad index, SIMD dispatch, rayon).

pub mod batch;
pub mod composition;
pub mod dd;
pub mod error;
pub mod gd;
pub mod interrupt;
pub mod lambertw;
pub mod num;
pub use composition::{gdp, pld};
pub mod pnsgd;
pub mod rdp;
pub mod schedules;
pub mod tail;
pub mod theta;
pub mod theta_dd;
pub mod vmath;

pub use error::{PabiError, Result};
