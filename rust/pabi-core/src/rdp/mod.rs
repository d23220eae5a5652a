//! Rényi-DP bounds, one concept per file (the derivations: docs/derivations/rdp.md).
//!
//! | file | what it holds |
//! | --- | --- |
//! | `sampled_gaussian.rs` | sampled Gaussian RDP at integer orders, the fractional dispatch (Thudi et al. Thm 3.2) |
//! | `fractional.rs`, `fractional_quadrature.rs` | fractional orders: Mironov–Talwar–Zhang 2019 §3.3 series, and a quadrature |
//! | `holder.rs` | the Hölder order map g_p, its exact ceilings, choosing p, the Monte-Carlo sample size |
//! | `per_instance.rs` | per-instance DP-SGD composition (Thudi et al. Thm 3.3), L_p per-instance (ε, δ) (Cor. 3.1) |
//! | `composition.rs` | generic Hölder composition, summing terms, composing RDP curves |
//! | `conversion.rs` | RDP → (ε, δ) both ways, privacy profile → RDP |
//! | `gaussian_mechanism.rs` | Gaussian mechanism: (ε, δ) constant, amplification by sampling, its RDP |
//! | `general_update.rs` | general update rules (Thudi et al. Thm 3.6) |
//! | `unlearning.rs` | weak triangle inequality and the unlearning keep-rule |
//! | `last_iterate.rs` | last iterate of cyclic DP-SGD (Kong–Ribero) |
//! | `erm.rs` | ERM with output perturbation (Chen–Lee–Kifer 2019) |
//! | `logexp.rs`, `scalar.rs` | shared log-mean-exp primitives, rounding and NaN-free products |
//! | `checks.rs` | the argument checks, one per kind of parameter |
//!
//! The scalar bounds of the last seven rows are also reachable as `rdp::extra::*` (the path
//! the Python binding uses); the others are re-exported here.

// `!(x > 0.0)`-style checks are deliberate: they also reject NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod extra;

mod checks;
mod composition;
mod conversion;
pub(crate) mod conversion_prob;
mod erm;
mod fractional;
mod fractional_quadrature;
mod gaussian_mechanism;
mod general_update;
mod holder;
mod last_iterate;
mod last_iterate_scaled;
mod logexp;
mod per_instance;
mod sampled_gaussian;
mod scalar;
mod unlearning;

mod epochs;
pub use epochs::*;

pub use composition::{holder_composition_terms, rdp_compose, sum_terms_up};
pub use conversion::{
    profile_to_rdp, profile_to_rdp_curve, rdp_to_dp_delta, rdp_to_dp_delta_many, rdp_to_dp_epsilon,
    rdp_to_dp_epsilon_many, rdp_to_dp_epsilon_rows, Conversion,
};
pub use holder::{holder_orders, OrderMap, MAX_LEN};
pub use per_instance::{
    dpsgd_per_instance_terms, CompositionOptions, MAX_COMPOSITION_ORDER, MAX_TABLE_ENTRIES,
};
pub use sampled_gaussian::{
    sampled_gaussian_rdp, sampled_gaussian_rdp_at, sampled_gaussian_rdp_batch, Fractional,
    MAX_ORDER,
};

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_extra;
#[cfg(test)]
mod tests_fractional;
