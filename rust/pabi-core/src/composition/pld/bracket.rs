//! The result of [`compose`](super::compose): the composed PLD on its window with the terms of
//! its error budget, and the certified (lower, estimate, upper) queries δ(ε) and ε(δ) (the
//! lower value by the Azuma–Hoeffding coupling of the module doc of `pld`). Derivation:
//! `docs/derivations/composition.md`.

use super::Pld;
use crate::num::round::U;
use crate::num::up;

/// The composed PLD on a window of the grid, with the terms of its error budget.
#[derive(Clone, Debug)]
pub struct Composition {
    pub h: f64,
    /// grid index of `pmf[0]`
    pub k_lo: i64,
    /// composed finite masses on the window (negative round-off clipped to 0); not changed after
    /// composing: the suffix sums are formed from it when first read
    pub(in crate::composition) pmf: Vec<f64>,
    /// composed mass at +∞: 1 − Π(1 − inf_i)^{T_i}
    pub inf: f64,
    /// Σ T_i·bad_i (truncated mass, for the lower value)
    pub bad: f64,
    /// composed genuine +∞ mass 1 − Π(1 − inf_exact_i)^{T_i} (counted in the lower value)
    pub inf_exact: f64,
    /// Chernoff bound on the finite mass above / below the window
    pub tail_hi: f64,
    pub tail_lo: f64,
    /// estimated FFT round-off on Σ_k pmf_k φ(ℓ_k)
    pub fft_err: f64,
    /// Σ T_i (number of composed steps) — for the lower value's Hoeffding term
    pub steps: f64,
    /// suffix sums for fast queries: s0[k] = Σ_{j≥k} pmf_j, s1[k] = Σ_{j≥k} pmf_j e^{ℓ_k − ℓ_j}
    /// ([`Self::sums`])
    pub(super) suffix: super::suffix::Suffix,
}

impl Drop for Composition {
    /// The window's buffers go back to the composition's pool (`buffers.rs`) for the next
    /// composition.
    fn drop(&mut self) {
        super::buffers::give(std::mem::take(&mut self.pmf));
    }
}

/// Queries from which [`Composition::ready_for`] forms every suffix sum up front.
const MANY: usize = 4;

/// (lower, estimate, upper) triple.
pub type Bracket = (f64, f64, f64);

/// The +∞ mass of a composition as its upper values count it (a relative margin for its
/// rounding).
#[inline]
pub(super) fn inf_up(inf: f64) -> f64 {
    inf * (1.0 + 1e-10)
}

/// The +∞ mass of the composition of `parts`: each part keeps its finite losses with
/// probability 1 − (its +∞ mass), independently, T times (ln-space product; the value
/// `compose` reports).
pub(super) fn composed_inf(parts: &[(&Pld, u64)]) -> f64 {
    let keep_log = parts
        .iter()
        .fold(0.0, |l, (p, t)| l + *t as f64 * (-p.inf).ln_1p());
    -keep_log.exp_m1()
}

impl Composition {
    /// (s0[k], s1[k]) for window point k ≤ W (0 at W).
    #[inline]
    fn sums(&self, k: usize) -> (f64, f64) {
        self.suffix.at(&self.pmf, k)
    }

    /// Ready for `queries` queries: from [`MANY`] on, every suffix sum is formed now, on the
    /// pool (fewer queries form the chunks they read, one by one, on the calling thread; the
    /// values are the same either way).
    pub(in crate::composition) fn ready_for(&self, queries: usize) {
        if queries >= MANY {
            self.suffix.fill(&self.pmf);
        }
    }

    fn loss(&self, i: usize) -> f64 {
        (self.k_lo + i as i64) as f64 * self.h
    }

    /// First window index k with ℓ_k > ε (w if none).
    pub(super) fn first_above(&self, eps: f64) -> usize {
        let w = self.pmf.len();
        let r = eps / self.h - self.k_lo as f64;
        if r < 0.0 {
            0
        } else if r < w as f64 {
            r.floor() as usize + 1 // r in [0, w): no saturation, no overflow
        } else {
            w // also ε = +∞ (and NaN, which the callers reject)
        }
    }

    /// Σ_{ℓ_j > ε} pmf_j (1 − e^{ε − ℓ_j}) (the finite part of δ(ε)).
    pub fn finite_delta(&self, eps: f64) -> f64 {
        if eps.is_nan() {
            return f64::NAN;
        }
        let k = self.first_above(eps);
        if k >= self.pmf.len() {
            return 0.0;
        }
        let (s0, s1) = self.sums(k);
        let v = s0 - (eps - self.loss(k)).exp() * s1;
        v.max(0.0)
    }

    /// Bound on the rounding error of [`Self::finite_delta`] at ε: the suffix sums of W
    /// non-negative terms carry ≤ (3W + 10)u relative error (Kahan for s0; for s1 the
    /// recursion s1 = pmf + e^{−h}·s1 accumulates ≤ 2u per step plus the rounding of e^{−h}),
    /// the exponential factor ≤ 2u(|ε| + |ℓ_k| + 2).
    fn query_err(&self, eps: f64) -> f64 {
        let k = self.first_above(eps);
        if k >= self.pmf.len() {
            return 0.0;
        }
        let c = (3.0 * self.pmf.len() as f64 + 10.0) * U
            + 2.0 * U * (eps.abs() + self.loss(k).abs() + 2.0);
        let (s0, s1) = self.sums(k);
        c * (s0 + s1) * (1.0 + 1e-9)
    }

    fn drift(&self) -> f64 {
        self.steps * self.h * self.h / 4.0
    }

    fn hoeffding(&self, eta: f64) -> f64 {
        self.h * (self.steps * (1.0 / eta).ln() / 2.0).sqrt()
    }

    fn add_up(&self) -> f64 {
        // mass below the window only matters for the upper value if it can have positive loss
        let lo_part = if self.k_lo > 0 { self.tail_lo } else { 0.0 };
        inf_up(self.inf) + self.tail_hi + lo_part + self.fft_err
    }

    /// Whether the +∞ mass `inf` of a composition alone makes its certified upper ε at
    /// `delta` +∞ ([`Self::epsilon`]), whatever its other terms: `add_up` adds non-negative
    /// terms to [`inf_up`]`(inf)`, each addition rounded to nearest (monotone), so it is at least
    /// that, and then δ − `add_up` ≤ 0. Lets a caller that only wants that ε skip the FFT.
    pub(super) fn upper_epsilon_infinite(inf: f64, delta: f64) -> bool {
        inf_up(inf) >= delta
    }

    fn sub_low(&self) -> f64 {
        self.bad + self.tail_hi + self.tail_lo + self.fft_err
    }

    /// δ(ε) as (lower bound, estimate, upper bound).
    pub fn delta(&self, eps: f64) -> Bracket {
        let d = self.finite_delta(eps);
        let upper = up(d + self.query_err(eps) + self.add_up()).min(1.0);
        let est = (d + self.inf).min(1.0);
        let eta = (1e-3 * d).max(1e-300);
        let c = self.drift() + self.hoeffding(eta);
        let lower = (self.finite_delta(eps + c) * (1.0 - 1e-12) - self.query_err(eps + c)
            + self.inf_exact
            - self.sub_low()
            - eta)
            .max(0.0);
        (lower, est, upper)
    }

    /// Smallest ε ≥ 0 with finite_delta(ε) ≤ target (+∞ if none, 0 if already at ε = 0).
    fn solve(&self, target: f64) -> f64 {
        if target <= 0.0 {
            return f64::INFINITY;
        }
        if self.finite_delta(0.0) <= target {
            return 0.0;
        }
        // D(ℓ_{k−1}) = s0[k] − e^{−h} s1[k]; find the first k with D(ℓ_k) ≤ target
        let w = self.pmf.len();
        let dk = |k: usize| -> f64 {
            // D at ε = ℓ_k: terms j ≥ k+1
            if k + 1 >= w {
                0.0
            } else {
                let (s0, s1) = self.sums(k + 1);
                s0 - (-self.h).exp() * s1
            }
        };
        let (mut lo, mut hi) = (0usize, w - 1);
        if dk(0) <= target {
            // ε below the window start: D is linear-exponential there with all mass above
            let (s0, s1) = self.sums(0);
            let e = (s0 - target) / s1;
            return (self.loss(0) + e.ln()).max(0.0);
        }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if dk(mid) <= target {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        // ε in [ℓ_lo, ℓ_hi]: D(ε) = s0[hi] − e^{ε − ℓ_hi} s1[hi]
        let (s0, s1) = self.sums(hi);
        let e = ((s0 - target) / s1).max(f64::MIN_POSITIVE);
        let eps = self.loss(hi) + e.ln();
        eps.clamp(self.loss(lo), self.loss(hi)).max(0.0)
    }

    /// The upper end of ε(`delta`) ([`Self::epsilon`]'s), and the mass it takes from δ before
    /// solving: `add_up` (the +∞ mass, the tails and the FFT round-off), plus the query
    /// round-off at the first solution where there is one. The upper end is +∞ where that
    /// mass reaches δ: a search for the least noise with a finite ε interpolates the mass
    /// across that edge (`profiles_composed_epsilon`).
    pub(super) fn upper_epsilon_and_mass(&self, delta: f64) -> (f64, f64) {
        let taken = self.add_up();
        let tu = delta - taken;
        if tu <= 0.0 {
            return (f64::INFINITY, taken);
        }
        // solve, then move the target down by the query round-off at the solution (s0 is
        // non-increasing, so the error at the second, larger solution is no larger)
        let e1 = self.solve(tu * (1.0 - 1e-12));
        if !e1.is_finite() {
            return (e1, taken);
        }
        let q = self.query_err(e1);
        let e = self.solve((tu - q) * (1.0 - 1e-12));
        let upper = if e == 0.0 {
            0.0
        } else {
            e + e.abs() * 1e-13 + 1e-13
        };
        (upper, taken + q)
    }

    /// ε(δ) as (lower bound, estimate, upper bound); +∞ where δ cannot be certified.
    pub fn epsilon(&self, delta: f64) -> Bracket {
        self.suffix.prepare_search(&self.pmf);
        let upper = self.upper_epsilon_and_mass(delta).0;
        let est = self.solve(delta - self.inf);
        let eta = 1e-3 * delta;
        let c = self.drift() + self.hoeffding(eta);
        let tl = (delta + eta + self.sub_low() - self.inf_exact) / (1.0 - 1e-12);
        let tl = tl + self.query_err(self.solve(tl));
        let lower = (self.solve(tl) - c).max(0.0);
        (lower, est, upper)
    }
}
