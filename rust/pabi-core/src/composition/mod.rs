//! Composition of privacy guarantees: one guarantee for many mechanisms (or epochs) run on the
//! same data. Derivations: `docs/derivations/composition.md`; the multi-epoch routes are those of
//! Sordello–Bu–Dong §5 (one epoch's (ε, δ) profile converted to f-DP, GDP or a PLD, composed over
//! the epochs, converted back).
//!
//! - [`kov`]: the exact (optimal) composition of k copies of an (ε0, δ0)-DP mechanism
//!   (Kairouz–Oh–Viswanath), its inverse, the single-point multi-epoch route, and the trade-off
//!   function f_{ε,δ} (Dong–Roth–Su).
//! - [`gdp`]: Gaussian DP (Dong–Roth–Su): ε ↔ μ inversions, composition of μ's, the dominating μ
//!   of a privacy profile, the GDP multi-epoch route.
//! - [`pld`]: privacy-loss distributions on a grid and their FFT composition with certified
//!   error bars.
//! - [`dpsgd`]: the DP-SGD accountant (Poisson-subsampled Gaussian), built on [`pld`], and the
//!   noise std of an iterate, lr·z·C/b rounded down ([`dpsgd::iterate_noise_std`]).
//! - [`sampled`]: a privacy profile sampled at points (δ or ln δ): its dominating GDP level and
//!   its trade-off curve.
//!
//! The crate root re-exports [`pld`] and [`gdp`] as `pabi_core::pld` / `pabi_core::gdp` (the
//! paths of the former single files); `pld` also re-exports the KOV and DP-SGD items.

pub mod dpsgd;
pub mod gdp;
mod gdp_edges;
pub mod kov;
pub mod pld;
pub mod sampled;

/// The parameter named by a `DomainError` (unit tests of this family).
#[cfg(test)]
fn param_of<T: std::fmt::Debug>(r: crate::Result<T>) -> &'static str {
    match r {
        Err(crate::PabiError::Domain { param, .. }) => param,
        other => panic!("expected a DomainError, got {other:?}"),
    }
}
