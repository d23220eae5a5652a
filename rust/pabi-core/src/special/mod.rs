//! The special functions of the privacy bounds, one per file:
//!
//! - [`tail`]: the Gaussian tail Q(t) = P(N(0,1) > t) and ln Q(t).
//! - [`theta`]: the Gaussian hockey-stick divergence θ_{e^ε}(r), its logarithm and complement
//!   (scalar and block kernels); it re-exports the Laplace analogue (`laplace.rs`) and the tight
//!   logarithms of the factors for long products (`theta_tight.rs`), kept in sibling files.
//! - [`theta_dd`]: ln θ and the Laplace log-factor in double-double (~30 digits) for a radius
//!   given as a double-double: the slow, precise path of the fixed-order PNSGD bound at large
//!   condition numbers.
//! - [`lambertw`]: Lambert W (principal branch) and the Wright omega function W0(e^x).
//!
//! Each function is computed to a few ulp and rounded in the direction stated on it (the
//! margins of [`crate::num::round`]). The crate root re-exports these modules at their former
//! paths (`crate::theta`, `crate::tail`, `crate::lambertw`, `crate::theta_dd`). The engine's
//! array functions over them (validation, SIMD dispatch, the parallel driver) are in
//! [`crate::batch`], which stays at the crate root: its validation helpers (`first_bad`,
//! `check`, `check_len`) and the pool re-exports are used by every family, not only here.

pub mod lambertw;
mod laplace;
pub mod tail;
pub mod theta;
pub mod theta_dd;
mod theta_tight;
