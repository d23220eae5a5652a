//! pabi-core: pure-Rust numerics for pabi (privacy amplification by iteration and Rényi-DP bounds).
//!
//! No Python here. Every public function validates its arguments and returns a
//! [`PabiError`] instead of panicking or producing NaN.
//!
//! Module map:
//! - [`num`]: the numerical primitives, one concept per file: [`num::round`] (directed
//!   rounding, the margins), [`num::dd`] (double-double arithmetic, re-exported as [`dd`]),
//!   [`num::vmath`] (branch-free `exp`, `expm1`, `ln`, `log1p`, `erfcx` kernels, re-exported
//!   as [`vmath`]), [`num::logspace`] (log-space sums), [`num::binom`] (Loader's binomial).
//! - [`tail`]: the Gaussian tail Q(t) and log Q(t).
//! - [`theta`]: the Gaussian hockey-stick divergence θ_{e^ε}(r), its log and complement;
//!   the Laplace analogue.
//! - [`gd`]: the contraction factor M of a gradient step.
//! - [`pnsgd`]: PNSGD amplification bounds (fixed, shuffled, randomly stopped order), inversion.
//! - [`schedules`]: noise schedules, online decaying noise and their limits δ*.
//! - [`rdp`]: Rényi-DP bounds (sampled Gaussian, per-instance, last iterate, ERM, conversions).
//! - [`composition`]: approximate-DP (Kairouz–Oh–Viswanath) and GDP composition, privacy-loss
//!   distributions and FFT composition, the DP-SGD accountant (old paths [`pld`], [`gdp`]).
//! - [`divergence`]: E_γ(P‖Q) of given discrete distributions and the contraction coefficient
//!   η_γ(K) of a given finite kernel.
//! - [`lambertw`]: Lambert W (principal branch) and the Wright omega function W0(e^x).
//! - [`interrupt`]: cooperative cancellation (Ctrl-C) checked between chunks of long loops.
//! - [`driver`]: the one array driver (equal lengths, first bad index, interrupts, the shared
//!   thread pool, chunked parallel map independent of the thread count).
//! - [`batch`]: the engine's array functions (validation with first bad index, SIMD dispatch).

/// Compile each kernel for the listed instruction sets, dispatched at run time (AVX-512 and
/// AVX2 with FMA, NEON; the one list of targets of the crate).
macro_rules! simd {
    ($($item:item)*) => {
        $(
            #[::multiversion::multiversion(targets(
                "x86_64+avx512f+avx512vl+avx512dq+avx2+fma",
                "x86_64+avx2+fma",
                "aarch64+neon"
            ))]
            $item
        )*
    };
}

pub mod batch;
pub mod composition;
pub mod divergence;
pub mod driver;
pub mod error;
pub mod gd;
pub mod interrupt;
pub mod num;
pub use composition::{gdp, pld};
pub mod pnsgd;
pub mod rdp;
pub mod schedules;
pub mod setup;
pub mod special;
/// The old paths `crate::theta`, `crate::tail`, `crate::lambertw`, `crate::theta_dd`.
pub use special::{lambertw, tail, theta, theta_dd};

pub use error::{PabiError, Result};
/// The old paths `crate::dd` / `crate::vmath` (used by the binding and by the bounds' modules).
pub use num::{dd, vmath};
