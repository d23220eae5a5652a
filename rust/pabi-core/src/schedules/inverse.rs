//! ε(δ) of the fixed-horizon noise schedules (Sordello–Bu–Dong Thms 3–4): the inversion of the
//! certified δ(n) of [`super::laplace_schedule_delta`] / [`super::gauss_schedule_delta`].
//!
//! The returned ε is the smallest double with δ_up(ε) ≤ δ, found by [`first_ok`] (an exact
//! search over the bit patterns of doubles from ε = 1, at most ~2·64 evaluations of δ). It is
//! certified by construction: the certified upper bound δ_up at the returned ε is ≤ the target,
//! so the run is (ε, δ)-DP for the returned ε, whatever the ulp-level behaviour of δ_up. The
//! true δ(ε) is non-increasing in ε (A_n = θ(ε, r_A) falls with ε, 1 − B_n grows and
//! G(u, n) = (1 − (1 − u)^n)/(n·u) falls with u), and tends to 0, so every δ ∈ (0, 1) has a
//! finite ε; a target at or above δ(0) gives ε = 0.

use super::params::{Noise, Problem, ScheduleArgs};
use super::{gauss_schedule_delta, laplace_schedule_delta};
use crate::error::{PabiError, Result};
use crate::num::bisect::first_ok;
use crate::setup::at;

/// Elements per chunk of the parallel driver (each costs ~130 evaluations of δ).
const CHUNK: usize = 16;
/// Parallel from this many elements.
const PAR_MIN: usize = 64;

/// The smallest double ε ≥ 0 below `undefined_from` with `delta_up(ε)` ≤ `delta` (the exact
/// search of [`first_ok`] from ε = 1), or +∞ when no such ε meets it. `undefined_from` is the
/// smallest ε at which the bound is no longer defined (+∞: defined for every ε); from there on
/// the predicate is taken as met, which keeps it monotone, and a search that ends there means
/// that no ε of the bound's domain certifies `delta`. The first error of `delta_up` met during
/// the search is returned. Shared by every ε(δ) inversion of the schedules (the fixed-horizon
/// ones here, the online ones in `online/inverse.rs`).
pub(crate) fn least_epsilon(
    delta_up: &dyn Fn(f64) -> Result<f64>,
    delta: f64,
    undefined_from: f64,
) -> Result<f64> {
    let err = std::cell::Cell::new(None);
    let ok = |eps: f64| {
        eps >= undefined_from
            || match delta_up(eps) {
                Ok(d) => d <= delta,
                Err(e) => {
                    // keep the first error (an error ends the search: taken as met)
                    let first = err.take();
                    err.set(first.or(Some(e)));
                    true
                }
            }
    };
    let eps = first_ok(&ok, 1.0);
    match err.take() {
        Some(e) => Err(e),
        None if eps >= undefined_from => Ok(f64::INFINITY),
        None => Ok(eps),
    }
}

/// ε(δ) of one element: `p` carries the setup (its ε is replaced at each evaluation).
fn epsilon_one(kind: Noise, p: Problem, delta: f64, n: f64, c1: f64, c2: f64) -> Result<f64> {
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    let eval = |eps: f64| -> Result<f64> {
        let q = Problem { eps, ..p };
        match kind {
            Noise::Laplace => laplace_schedule_delta(&q, n, c1, c2),
            Noise::Gaussian => gauss_schedule_delta(&q, n, c1, c2),
        }
    };
    eval(1.0)?; // validates n, C1, C2 before the search (an error there is the caller's)
    least_epsilon(&eval, delta, f64::INFINITY)
}

/// ε(δ) of the Laplace or Gaussian schedule (`kind`) elementwise with broadcasting: `a.eps`
/// holds the targets δ ∈ (0, 1) (errors name `delta`), the other slices the setup as in
/// [`super::schedule_delta`] (length 1 or `out.len()`); errors are located at the first failing
/// index.
pub fn schedule_epsilon(kind: Noise, a: ScheduleArgs, out: &mut [f64]) -> Result<()> {
    let len = out.len();
    a.check_lengths(len)
        .map_err(|e| e.renamed(|n| if n == "eps" { "delta" } else { n }))?;
    crate::driver::for_chunks([out], PAR_MIN, CHUNK, |j0, [o]| {
        for (t, ot) in o.iter_mut().enumerate() {
            let j = j0 + t;
            // the setup of element j, validated with a placeholder ε (replaced in the search)
            let mut q = a;
            let one = [0.0];
            q.eps = &one;
            let p = q.problem(j).map_err(|e| e.at(j))?;
            *ot = epsilon_one(kind, p, at(a.eps, j), at(a.n, j), at(a.c1, j), at(a.c2, j))
                .map_err(|e| e.at(j))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decreasing(e: f64) -> Result<f64> {
        Ok(1.0 / (1.0 + e))
    }

    #[test]
    fn least_epsilon_is_exact_and_domain_aware() {
        let e = least_epsilon(&decreasing, 0.4, f64::INFINITY).unwrap();
        assert!(decreasing(e).unwrap() <= 0.4 && decreasing(e.next_down()).unwrap() > 0.4);
        // a domain ending at 5: a target met inside it, one met only beyond it (+inf)
        assert_eq!(least_epsilon(&decreasing, 0.4, 5.0).unwrap(), e);
        assert_eq!(least_epsilon(&decreasing, 0.1, 5.0).unwrap(), f64::INFINITY);
        // a target met inside a short domain
        let z = least_epsilon(&decreasing, 0.99, 0.5).unwrap();
        assert!(z < 0.5 && z == least_epsilon(&decreasing, 0.99, f64::INFINITY).unwrap());
    }

    /// Every error met by the search is reported (the first one): an even number of failing
    /// evaluations used to cancel out and return a value whose evaluation had failed (with the
    /// failures from 2.5 on and δ = 0.05 the search meets 52 of them and returned 2.5).
    #[test]
    fn least_epsilon_keeps_the_first_error() {
        for limit in [2.0, 2.5, 3.0, 3.5] {
            let fails = |e: f64| {
                if e >= limit {
                    Err(PabiError::domain("eps", "small", e))
                } else {
                    decreasing(e)
                }
            };
            let r = least_epsilon(&fails, 0.05, f64::INFINITY);
            assert!(matches!(r, Err(PabiError::Domain { .. })), "{limit}: {r:?}");
        }
    }
}
