//! Privacy amplification by iteration for projected noisy SGD (PNSGD): the (ε, δ) bounds for a
//! record processed at a fixed position, under shuffling and under random stopping; their
//! inverses (ε for a target δ, the smallest noise for a target (ε, δ)); and the RDP-based
//! comparison bound of Asoodeh–Diaz–Calmon Proposition 1.
//!
//! Sources, abbreviated below: ADC = Asoodeh, Diaz, Calmon, *Privacy amplification of iterative
//! algorithms via contraction coefficients* (ISIT 2020, arXiv 2001.06546); SBD = Sordello, Bu,
//! Dong, *Privacy amplification via iteration for shuffled and online PNSGD*. The derivations,
//! in this repository's words, are in `docs/derivations/pnsgd.md`.
//!
//! # Where things are (one file per concept, in `pnsgd/`)
//! * `params`: [`Noise`], [`Order`], [`Params`] (and [`Model`], the same without σ, for the
//!   calibration; [`FactorParams`], the factors' arguments), [`RdpParams`] and every validator.
//! * `prepared`: the validated arguments and one element's data (radii numerators, M).
//! * `ab_factors`: the factors A, B, 1 − B, ln A, ln B (one element or a block of lanes).
//! * `orders`: the formula of each order (fixed, shuffled, random stop) from the factors.
//! * `fixed_precise`: the double-double path of the fixed order at large |k·ln B|.
//! * `delta`: δ(ε), ln δ(ε) and the factors over arrays.
//! * `inverse`, `inverse_lanes`: ε for a target δ, σ for a target (ε, δ); the lock-step
//!   array form of the same searches.
//! * `rdp_comparison`: the RDP comparison bound (ADC Prop. 1) and its inverse.
//! * `steps`: per-step (or piecewise-constant) σ_t, L_t, η_t, D_t, β_t, ρ_t: δ_n(i) =
//!   A_i·∏_{t>i} B_t and its fixed, shuffled and random-stop forms; ε(δ) by an exact search.
//!   `steps_blocks`: beyond 2^16 pieces, the same by blocks (parallel, the same bits for any
//!   thread count); `steps_source`: the per-step values read chunk by chunk from a
//!   [`StepSource`] (a callable of the step), the same bits as the array; `steps_sums`: the
//!   compensated log-space sums.
//! * the array drivers: [`crate::driver`] (chunking, the thread pool), with this family's
//!   chunk sizes and thresholds below ([`PAR_DELTA`], [`PAR_SOLVE`]).
//!
//! # Formulas
//! With noise scale s (Gaussian standard deviation σ, or Laplace scale v, d = 1), Lipschitz
//! constant L, learning rate η, diameter D of the constraint set and M the contraction factor of
//! a gradient step ([`crate::gd::step_contraction`]):
//!
//! * r_A = 2L/s, r_B = M·D/(η·s); A = h(ε, r_A), B = h(ε, r_B), h = θ (Gaussian, SBD eq. (4)) or
//!   the Laplace divergence max(0, 1 − e^{(ε−r)/2}) (SBD eq. (5): A = (1 − e^{ε/2 − L/v})_+,
//!   B = (1 − e^{ε/2 − M(b−a)/(2ηv)})_+).
//! * fixed order, record i (SBD Thm 1 = ADC Thms 3, 4): δ_i = A·B^{n−i}.
//! * shuffled (SBD Thm 2): δ = A(1 − B^n)/(n(1 − B)) = A·G(1 − B, n).
//! * random stop, refined (SBD §1): δ_i = A(1 − B^{n−i+1})/(n(1 − B)) = A·(m/n)·G(1 − B, m),
//!   m = n − i + 1; its maximum over i (i = 1) is the shuffled value exactly
//!   (`docs/errata.md#p-t12`).
//! * random stop as published (ADC eq. (16)): A/(n(1 − B)), clamped to 1 (often vacuous).
//! * RDP comparison (ADC Prop. 1): c_i = (2L²/σ²)·x(1−x)^{k}/(1 − (1−x)^{k+1}),
//!   x = 1 − M², k = n − i; δ_B = exp(−(ε − c_i)²/(4c_i)) for ε > c_i, else 1.
//!
//! # Numerics
//! 1 − B is never formed by subtraction: u = 1 − B comes from the engine's complement (rounded
//! down), ln B = log1p(−u) when u ≤ 7/8 and ln of θ (rounded up) otherwise, and
//! B^k = exp(k·ln B) with the product k·ln B kept exact (fma residual) (`docs/errata.md#p-c08`:
//! `pow` on a rounded B loses up to 4e-2 relative at 1 − B ≈ 1e-15, n − i ≈ 1e15).
//! The geometric sums use [`crate::num::geometric_average`]. Radii are rounded up (θ increases
//! with r, [`crate::gd::Radii`]), M is rounded up (within 2 ulp of the double-double M of
//! [`crate::gd::step_contraction`]), and every δ is moved outward by [`crate::num::INFLATE`]: each
//! returned δ is an upper bound of the formula evaluated at the exact (double) inputs.
//!
//! Accuracy of the fixed order: δ = A·B^k has condition number |k·ln B| with respect to the
//! relative error of ln B. The engine's ln B (outward rounding of 1 − θ by 2^-49, r_B rounded up
//! to a double — a relative error of ≈ (r²/4)·ulp in 1 − B, more with M < 1 rounded up — and the
//! log1p) gives δ within ≈ 1.5e-14 + 3.6e-15·|k·ln B| (up to 2e-10 at |k·ln B| ≈ 270 measured
//! on main before the precise path). So where |k·ln B|·w > 20 (w = 1 + r_B²/64 Gaussian,
//! 1 + r_B/32 Laplace: the sensitivity to the radius' rounding) a precise path recomputes ln B
//! from the inputs (`fixed_precise`): r_B = M·D/(η·s) with M = sqrt(1 − x) in double-double,
//! ln θ(ε, r_B) (or the Laplace ln(1 − e^{(ε−r)/2})) in double-double by [`crate::theta_dd`]
//! (~30 digits, with a run-time error estimate), moved up by that estimate plus 2^-55 relative;
//! then k·ln B = t_hi + t_lo and δ = A·e^{t_hi}(1 + t_lo) rounded up (ln δ: ln A + t summed
//! exactly, rounded up), and the smaller of the fast and precise values (both upper bounds) is
//! returned. A (linear in δ) stays the engine's. Measured against the 50-digit reference
//! (tests/test_pnsgd_fixed_precise.py; B near 1 with n − i up to 1e15 and B ∈ [1e-3, ½], both
//! noises, convex and strongly convex): relative error ≤ 5e-14 for every |k·ln B| up to ~708
//! (δ normal), ≤ 2.1e-13 below the threshold; ln δ within 2.3e-13 absolute (≈ 2 ulp) at
//! conditions up to 1e12. Subnormal δ (|k·ln B| up to 745) is an upper bound within 6 subnormal
//! ulps. The precise path costs a few µs per lane (once per call when ε and the radii are
//! scalars); the fast path below the threshold is bitwise unchanged. The inversions evaluate it
//! only near their decision (`inverse`). Other orders: ≤ 1e-12 (geometric sums are well
//! conditioned).
//!
//! # Speed
//! Array arguments are processed in blocks of [`crate::theta::BLOCK`] lanes: the Gaussian factors
//! by the engine's block kernels (bitwise equal to the scalar path), the order's formula in a loop
//! per order; what does not vary (M, the radii numerators, the radii, the factors) is computed
//! once; long arrays are split across the thread pool.

// The relative outward shift of logarithms computed to ≤ 2 ulp (4 ulp) and the broadcast
// element: their one homes.
use crate::num::round::LOG_REL;
use crate::setup::at;

mod ab_factors;
mod delta;
mod fixed_precise;
mod inverse;
mod inverse_lanes;
mod orders;
mod params;
mod prepared;
mod rdp_comparison;
mod steps;
mod steps_blocks;
mod steps_source;
mod steps_sums;
#[cfg(test)]
mod steps_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_rdp;

pub(crate) use ab_factors::{log_a_gauss_block, log_a_up, log_b_gauss_block};
pub use delta::{delta, factors, log_delta};
pub use inverse::{calibrate_sigma, epsilon};
pub use params::{FactorParams, Model, Noise, Order, Params, RdpParams, N_MAX};
pub use rdp_comparison::{
    rdp_delta, rdp_epsilon, rdp_log_slope, rdp_slope, rdp_slope_values, RdpM,
};
pub use steps::{stepwise_delta, stepwise_delta_factors, stepwise_epsilon, StepParams};
pub use steps_source::{
    stepwise_delta_source, stepwise_epsilon_source, SourceParams, StepChunk, StepSource,
};

/// Arrays at least this long are split across the thread pool (δ evaluation).
pub(crate) const PAR_DELTA: usize = 1 << 14;
/// Inversions cost ~100 evaluations per element: parallelize from this length.
pub(crate) const PAR_SOLVE: usize = 64;

/// Run the chunk kernel `k(j0, out_chunk)` of a forward bound over `out` with
/// [`crate::driver::for_chunks`]: chunks of 2048 elements (1 when `par_min` < 1024), in
/// parallel from `par_min`; the error of the smallest failing chunk.
#[inline]
fn drive(
    out: &mut [f64],
    par_min: usize,
    k: impl Fn(usize, &mut [f64]) -> crate::Result<()> + Sync,
) -> crate::Result<()> {
    let chunk = if par_min < 1024 { 1 } else { 1 << 11 };
    crate::driver::for_chunks([out], par_min, chunk, |j0, [o]| k(j0, o))
}

/// [`drive`] for the solvers: chunks of a multiple of [`crate::theta::BLOCK`] elements (at
/// least 16 chunks where the array allows it, at most 1024 elements), in parallel from
/// [`PAR_SOLVE`].
#[inline]
fn drive_solve(
    out: &mut [f64],
    k: impl Fn(usize, &mut [f64]) -> crate::Result<()> + Sync,
) -> crate::Result<()> {
    const B: usize = crate::theta::BLOCK;
    let chunk = (out.len() / 16 / B).clamp(1, 32) * B;
    crate::driver::for_chunks([out], PAR_SOLVE, chunk, |j0, [o]| k(j0, o))
}
