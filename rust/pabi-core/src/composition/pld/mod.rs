//! Privacy-loss distributions (PLD) on the loss grid ℓ_k = k·h, composed by FFT with certified
//! error bars (Koskela et al., the FFT accountant; Doroshenko et al., "connect the dots";
//! composition of trade-off functions: Dong–Roth–Su Thm 3.2). Derivation:
//! `docs/derivations/composition.md`.
//!
//! Where things are:
//! - here: the [`Pld`] type, [`Neighbour`], the size caps and the grid-span checks;
//! - `discretise.rs`: PLDs of mechanisms on the grid (Poisson-subsampled Gaussian,
//!   (ε0, δ0)-DP, finitely many atoms);
//! - `replace_one.rs`: the Poisson-subsampled Gaussian under replace-one neighbours;
//! - `symmetrise.rs`: the symmetrised PLD of a pair (sampling without replacement);
//! - `profile.rs`: the PLD dominating a sampled symmetric privacy profile;
//! - `compose.rs`: the window (Chernoff bounds) and the FFT composition [`compose`];
//! - `fft.rs`: FFT lengths, plans, direct DFT bins and the round-off bound coefficients;
//! - `fft_split.rs`: the real FFT of long compositions, split to run on every core;
//! - `suffix.rs`: the suffix sums behind the queries, in chunks on the pool;
//! - `bracket.rs`: the [`Composition`] result and its (lower, estimate, upper) queries;
//! - `buffers.rs`: the recycled working memory of the composition;
//! - `cache.rs`: the cache of single-step subsampled-Gaussian PLDs (DP-SGD queries);
//! - `tests.rs`: unit tests.
//!
//! The KOV and DP-SGD items of the former single file `pld.rs` are re-exported here (below), so
//! that the paths `pabi_core::pld::X` keep working.
//!
//! # Discretisation (why the upper value is a valid bound)
//! A PLD is the law of the privacy loss L = ln(dP/dQ)(X), X ~ P, with an atom at +∞. For any
//! ε, δ(ε) = E[φ_ε(e^{−L})] with φ_ε(y) = (1 − e^ε y)_+, a **convex, non-increasing** function of
//! y = e^{−L}; for a composition, y is the product of the per-step y's, and φ_ε stays convex and
//! non-increasing in each factor. Hence a per-step replacement L → L' that is (i) a
//! mean-preserving spread of y, or (ii) moves loss up, can only increase every composed δ(ε).
//! The grid here is ℓ_k = k·h; the mass of every cell [a, b] = [kh, (k+1)h] is split between a
//! and b so that E[e^{−L'}] = E[e^{−L}] on the cell ("connect the dots", (i)); the tail above the
//! grid goes to +∞ and the tail below to the lowest grid point ((ii)). So the composed δ of the
//! discretised PLD is an upper bound for every ε, with an error O(h²) per step instead of O(h).
//!
//! # Lower bound
//! The split couples L' with L so that, given L, L' − L lies in an interval of length h with
//! conditional mean in [0, h²/4]. Over T steps, S' − S ≤ T·h²/4 + t except with probability
//! η = exp(−2t²/(T h²)) (Azuma–Hoeffding). Since φ is non-decreasing in the loss,
//! δ_true(ε) ≥ δ'(ε + T h²/4 + t) − η − (truncated mass). This is the `lower` value.
//!
//! # Resource limits
//! Every length is decided in floating point (finite, |index| ≤ 2^53, at most the cap) before
//! it is converted to an integer or anything is allocated, and a violation is a `DomainError`:
//! a single-step PLD has at most [`MAX_GRID`] = 2^21 grid points (16 MiB; a profile for
//! [`Pld::from_profile`] at most 2^20 samples, its PLD being reflected) and a composed window /
//! FFT length at most [`MAX_WINDOW`] = 2^22 points (a few hundred MB of buffers in all). The
//! error names `h` (with the coarsest step that fits) when a coarser grid step ≤ 0.1 would fit,
//! and otherwise the mechanism's parameter (`sigma`, `eps0`, `losses`, or `steps` for a window
//! whose indices leave ±2^53). Multiplicities are at most 2^53 and supports are summed in i128
//! with checked arithmetic. The DP-SGD accountant takes h ∈ [1e-6, 0.1] and coarsens it by
//! powers of two (≤ 18 rounds, the single-step size found without allocating) until both caps
//! hold, else names `sigma`; its calibration takes ε ∈ (0, 100], rtol ∈ [1e-12, 0.1) and has a
//! bound on every loop fixed up front ([`dpsgd_calibrate_sigma`]).

mod bracket;
mod buffers;
mod cache;
mod compose;
mod discretise;
mod fft;
mod fft_split;
mod profile;
mod queries;
mod replace_one;
mod suffix;
mod symmetrise;
#[cfg(test)]
mod tests;

pub use bracket::{Bracket, Composition};
pub use compose::{compose, DEFAULT_TAIL};
pub(super) use compose::{compose_in, window};
pub(super) use discretise::sg_loss_range;
pub use profile::profiles_composed_epsilon;
pub(super) use replace_one::ro_loss_range;

// the former flat namespace `pabi_core::pld` (the binding and the integration tests use it)
pub use super::dpsgd::{
    dpsgd_calibrate_sigma, dpsgd_calibrate_sigma_with, dpsgd_compositions, dpsgd_compositions_with,
    dpsgd_delta, dpsgd_delta_upper_all, dpsgd_delta_upper_all_with, dpsgd_delta_with,
    dpsgd_epsilon, dpsgd_epsilon_with, Accounting, Relation, Sampling, CALIBRATE_EPS_MAX,
    CALIBRATE_RTOL_MIN, DPSGD_H, DPSGD_H_MIN,
};
pub use super::kov::{
    approx_dp_composition_delta, approx_dp_composition_epsilon, single_point_composed_epsilon,
    tradeoff_eps_delta, KOV_K_MAX,
};

use crate::error::{PabiError, Result};

/// Neighbouring relation for the Poisson-subsampled Gaussian (as dp-accounting):
/// `Remove`: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²); `Add`: P = N(0,σ²), Q = the mixture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Neighbour {
    Remove,
    Add,
}

/// A discretised (pessimistic, connect-the-dots) privacy-loss distribution.
#[derive(Clone, Debug)]
pub struct Pld {
    /// grid step of the loss
    pub h: f64,
    /// grid index of `pmf[0]` (loss lo·h)
    pub lo: i64,
    /// masses on the grid
    pub pmf: Vec<f64>,
    /// mass at +∞ (upper truncation; counted as +∞ in the upper value)
    pub inf: f64,
    /// mass moved by truncation (below the grid moved up, tail moved to +∞): subtracted in the
    /// lower value
    pub bad: f64,
    /// the part of `inf` that is a genuine atom at +∞ of the mechanism (e.g. δ0 of f_{ε0,δ0})
    pub inf_exact: f64,
}

/// Largest single-step grid (points): 2^21, 16 MiB of masses. Every PLD built here can be
/// composed: the FFT length is at least twice the longest part and at most [`MAX_WINDOW`].
pub const MAX_GRID: usize = 1 << 21;
/// Largest composed window (FFT length): 2^22 points, a few hundred MB of working memory.
pub const MAX_WINDOW: usize = 1 << 22;
/// Largest number of profile samples of [`Pld::from_profile`] (its grid has 2J − 1 points).
pub const MAX_PROFILE: usize = MAX_GRID.div_ceil(2);
/// Number of λ whose moment-generating recursions [`Pld::log_mgf`] runs in one pass.
const MGF_LANES: usize = 16;
/// Largest |grid index| (2^53): exact in f64, and index arithmetic cannot overflow i64.
pub(super) const MAX_INDEX: f64 = 9_007_199_254_740_992.0;
/// Coarsest loss grid step accepted.
pub const H_MAX: f64 = 0.1;
/// Largest multiplicity of a part in [`compose`] (2^53, exact in f64).
pub const MAX_TIMES: u64 = 1 << 53;

fn check_h(h: f64) -> Result<()> {
    if !(h > 0.0 && h <= H_MAX) {
        return Err(PabiError::domain("grid_step", "in (0, 0.1]", h));
    }
    Ok(())
}

/// Grid indices [klo, khi] = [⌊lmin/h⌋, ⌈lmax/h⌉] if that grid has at most `cap` points and
/// indices within ±2^53; `None` otherwise (also for non-finite bounds). Decided in floating
/// point (exact: ⌊·⌋, ⌈·⌉ and the difference of integers below 2^53) before any conversion.
pub(super) fn grid_span(lmin: f64, lmax: f64, h: f64, cap: usize) -> Option<(i64, i64)> {
    let a = (lmin / h).floor();
    let b = (lmax / h).ceil();
    let ok = a.is_finite()
        && b.is_finite()
        && a.abs() <= MAX_INDEX
        && b.abs() <= MAX_INDEX
        && b >= a
        && b - a + 1.0 <= cap as f64;
    // converted only once checked
    if ok {
        Some((a as i64, b as i64))
    } else {
        None
    }
}

/// The error for a loss range [lmin, lmax] whose grid at step h exceeds `cap` points: names
/// `h` (with the coarsest step that fits) when some h ≤ 0.1 fits, else the mechanism's own
/// parameter `param` = `value`.
pub(super) fn grid_error(
    lmin: f64,
    lmax: f64,
    h: f64,
    cap: usize,
    param: &'static str,
    value: f64,
) -> PabiError {
    // (the caps used are MAX_GRID and MAX_GRID − 2, for grids padded by one point each side)
    let need = (lmax - lmin) / h;
    let need = if need.is_finite() {
        format!("about {need:.3e}")
    } else {
        "more points than any f64 counts".to_string()
    };
    if grid_span(lmin, lmax, H_MAX, cap).is_some() {
        let hmin = ((lmax - lmin) / (cap as f64 - 3.0) * 1.001).min(H_MAX);
        PabiError::domain(
            "grid_step",
            format!(
                "large enough for the loss grid to fit its cap of 2^21 points \
                 (this grid_step needs {need}; use grid_step >= {hmin:.3e})"
            ),
            h,
        )
    } else {
        PabiError::domain(
            param,
            format!(
                "such that the loss grid fits its cap of 2^21 points even at the \
                 coarsest grid_step = 0.1 (the loss range [{lmin:.3e}, {lmax:.3e}] does not)"
            ),
            value,
        )
    }
}

impl Pld {
    /// The loss of grid point `i` (`pmf[i]`): ℓ = (lo + i)·h, the integer exact (|lo + i| ≤
    /// 2^53) and the product rounded to nearest. This double is the grid point itself, not a
    /// bound: the masses sit at these points and every use of the grid (the moment-generating
    /// function here, the composition's queries) evaluates the same product.
    #[inline]
    pub fn loss(&self, i: usize) -> f64 {
        (self.lo + i as i64) as f64 * self.h
    }

    /// The loss grid of `pmf`: [`Pld::loss`] at every index.
    pub fn losses(&self) -> Vec<f64> {
        (0..self.pmf.len()).map(|i| self.loss(i)).collect()
    }

    /// ln Σ_k ω_k e^{λ ℓ_k} (finite part) for each λ in `lambdas`, by the exp-free recursion
    /// T_k = ω_k + e^{−|λ|h} T_{k±1} from the end where e^{λℓ} is largest (no overflow); a
    /// relative margin of 1e-9 covers the accumulated rounding.
    ///
    /// The recursions of up to [`MGF_LANES`] λ of one sign run in lock-step over the masses (one
    /// pass, independent chains the compiler vectorises); each chain performs exactly the
    /// operations of its own scalar recursion, so the values do not depend on the grouping.
    fn log_mgf(&self, lambdas: &[f64]) -> Vec<f64> {
        let first = self.pmf.iter().position(|&w| w > 0.0);
        let last = self.pmf.iter().rposition(|&w| w > 0.0);
        let (Some(f), Some(l)) = (first, last) else {
            return vec![f64::NEG_INFINITY; lambdas.len()];
        };
        let w = &self.pmf[f..=l];
        let (l_top, l_bot) = (self.loss(l), self.loss(f));
        let mut out = vec![0.0; lambdas.len()];
        for positive in [true, false] {
            let idx: Vec<usize> = (0..lambdas.len())
                .filter(|&i| (lambdas[i] > 0.0) == positive)
                .collect();
            for group in idx.chunks(MGF_LANES) {
                let mut r = [0.0f64; MGF_LANES];
                for (rj, &i) in r.iter_mut().zip(group) {
                    *rj = (-lambdas[i].abs() * self.h).exp();
                }
                let mut t = [0.0f64; MGF_LANES];
                let mut step = |x: f64| {
                    for (tj, &rj) in t.iter_mut().zip(r.iter()) {
                        *tj = x + rj * *tj;
                    }
                };
                if positive {
                    w.iter().for_each(|&x| step(x));
                } else {
                    w.iter().rev().for_each(|&x| step(x));
                }
                for (j, &i) in group.iter().enumerate() {
                    let lam = lambdas[i];
                    let edge = if positive { l_top } else { l_bot };
                    out[i] = lam * edge + t[j].ln() + 1e-9;
                }
            }
        }
        out
    }

    /// Add the mass missing from the total (round-off of the cell masses) to the +∞ atom.
    fn close_mass(mut self) -> Self {
        // masses below 1e-250 go to +∞ (pessimistic; keeps the FFT out of subnormals)
        let mut moved = 0.0;
        for w in self.pmf.iter_mut() {
            if *w < 1e-250 {
                moved += *w;
                *w = 0.0;
            }
        }
        self.inf += moved;
        self.bad += moved;
        let miss = self.missing_mass();
        if miss > 0.0 {
            self.inf += miss;
            self.bad += miss;
        }
        self
    }

    /// 1 − (Σ pmf + the +∞ atom), the mass the grid points do not carry (to nearest; a few ε).
    pub(super) fn missing_mass(&self) -> f64 {
        1.0 - (crate::num::neumaier_sum(self.pmf.iter().copied()) + self.inf)
    }
}
