//! The lock-step inversions: the searches of `inverse.rs` for [`theta::BLOCK`] elements at
//! once, each lane taking exactly the steps of its scalar search (same query points, hence the
//! same result and the same error). No new mathematics; see `docs/derivations/pnsgd.md` for the
//! bounds being inverted.

use crate::error::{PabiError, Result};
use crate::gd::{radii_lanes, Radii};
use crate::num::round::rel_dn;
use crate::theta;
use crate::vmath;

use super::ab_factors::factors_block;
use super::at;
use super::inverse::{meets_with, no_epsilon, no_sigma, LOG_TARGET};
use super::prepared::{Elem, Prepared};
use super::LOG_REL;

// ---------------------------------------------------------------------------------------------
// Lock-step inversions
//
// [`solve_epsilon`] / [`solve_sigma`] evaluate [`meets`] ~60–100 times per element, each
// evaluation waiting for the previous one: latency-bound (~700 ns per Gaussian evaluation
// against ~50 ns of throughput in the block kernels). The array path runs the same searches for
// [`theta::BLOCK`] elements at once: every round evaluates the query point of every live lane
// through [`factors_block`] (bitwise equal to [`factors_one`]) and [`meets_with`], and each lane
// takes the step its scalar search would take. A lane that finishes is refilled with the next
// element of the chunk. The sequence of query points of an element, hence its result and its
// error, is exactly the scalar one (unit test `lock_step_solvers_equal_scalar`).

/// Chunks shorter than this use the scalar solvers.
pub(super) const SOLVE_LANES_MIN: usize = 4;

/// Which inversion a lane runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Solve {
    /// The smallest ε ([`solve_epsilon`](super::inverse::solve_epsilon)).
    Epsilon,
    /// The smallest σ ([`solve_sigma`](super::inverse::solve_sigma)).
    Sigma,
}

/// Where a lane is in the search of [`solve_epsilon`](super::inverse::solve_epsilon) /
/// [`solve_sigma`](super::inverse::solve_sigma).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Querying ε = 0 (σ = f64::MIN_POSITIVE): met → 0.
    Start,
    /// σ only: querying σ = 1.
    One,
    /// σ only, σ = 1 met: querying 1/4, 1/16, … until one fails.
    Down,
    /// Querying 1, 4, 16, … (σ: from 4) until one meets.
    Up,
    /// Bisection on the bit patterns (a, b], querying the midpoint `x`.
    Bisect,
}

/// One element's search state.
#[derive(Debug, Clone, Copy)]
struct Lane {
    j: usize,
    e: Elem,
    /// σ (ε solver) or ε (σ solver): the coordinate that does not move.
    fixed: f64,
    t: f64,
    lt: f64,
    phase: Phase,
    /// The query point.
    x: f64,
    steps: u32,
    a: u64,
    b: u64,
}

/// A lane's next query (`None`) or its result.
type Next = Option<Result<f64>>;

impl Lane {
    /// A lane for element j, or its result where no query is needed (σ with L = 0).
    #[inline(always)]
    fn new(
        prep: &Prepared,
        kind: Solve,
        eps: &[f64],
        target: &[f64],
        j: usize,
    ) -> std::result::Result<Lane, Result<f64>> {
        let e = prep.elem(j).map_err(Err)?;
        let t = at(target, j);
        let (fixed, x) = match kind {
            Solve::Epsilon => (at(prep.sigma(), j), 0.0),
            Solve::Sigma => {
                if e.rad.two_l == 0.0 {
                    return Err(Ok(0.0));
                }
                (at(eps, j), f64::MIN_POSITIVE)
            }
        };
        Ok(Lane {
            j,
            e,
            fixed,
            t,
            lt: rel_dn(vmath::ln(t), LOG_REL),
            phase: Phase::Start,
            x,
            steps: 0,
            a: 0,
            b: 0,
        })
    }

    /// (ε, σ) of the query.
    #[inline(always)]
    fn point(&self, kind: Solve) -> (f64, f64) {
        match kind {
            Solve::Epsilon => (self.x, self.fixed),
            Solve::Sigma => (self.fixed, self.x),
        }
    }

    /// [`bisect_bits`](super::inverse::bisect_bits) on (lo, hi]: its first midpoint, or its result.
    #[inline(always)]
    fn bisect(&mut self, lo: f64, hi: f64) -> Next {
        self.phase = Phase::Bisect;
        self.a = lo.to_bits();
        self.b = hi.to_bits();
        self.mid()
    }

    #[inline(always)]
    fn mid(&mut self) -> Next {
        if self.b - self.a > 1 {
            self.x = f64::from_bits(self.a + (self.b - self.a) / 2);
            None
        } else {
            Some(Ok(f64::from_bits(self.b)))
        }
    }

    #[inline(always)]
    fn query(&mut self, phase: Phase, x: f64) -> Next {
        self.phase = phase;
        self.x = x;
        None
    }

    /// The step of the scalar search after `ok` = meets(query).
    #[inline(always)]
    fn advance(&mut self, kind: Solve, ok: bool) -> Next {
        match (self.phase, kind) {
            (Phase::Start, _) if ok => Some(Ok(0.0)),
            (Phase::Start, Solve::Epsilon) => self.query(Phase::Up, 1.0),
            (Phase::Start, Solve::Sigma) => self.query(Phase::One, 1.0),
            (Phase::One, _) if ok => self.query(Phase::Down, 0.25),
            (Phase::One, _) => {
                // ok(1) failed: [`solve_sigma`]'s loop goes to 4 (its repeated query of 1 is
                // skipped: same answer)
                self.steps = 1;
                self.query(Phase::Up, 4.0)
            }
            (Phase::Down, _) if ok => self.query(Phase::Down, self.x * 0.25),
            (Phase::Down, _) => self.bisect(self.x, self.x * 4.0),
            (Phase::Up, Solve::Epsilon) if ok => {
                let lo = if self.steps == 0 { 0.0 } else { self.x / 4.0 };
                self.bisect(lo, self.x)
            }
            (Phase::Up, Solve::Sigma) if ok => self.bisect(self.x / 4.0, self.x),
            (Phase::Up, Solve::Epsilon) => {
                self.x *= 4.0;
                self.steps += 1;
                if self.steps > 520 || !self.x.is_finite() {
                    return Some(Err(no_epsilon(&self.e, self.fixed, self.t, self.j)));
                }
                None
            }
            (Phase::Up, Solve::Sigma) => {
                self.x *= 4.0;
                self.steps += 1;
                if self.steps > 500 {
                    return Some(Err(no_sigma(self.fixed, self.t, self.j)));
                }
                None
            }
            (Phase::Bisect, _) => {
                if ok {
                    self.b = self.x.to_bits();
                } else {
                    self.a = self.x.to_bits();
                }
                self.mid()
            }
        }
    }
}

/// The inversions of the chunk `j0..j0 + out.len()` in lock-step (section doc); the error of the
/// smallest failing element, as the scalar loop would return it.
#[inline(always)]
pub(super) fn solve_lanes(
    prep: &Prepared,
    kind: Solve,
    eps: &[f64],
    target: &[f64],
    j0: usize,
    out: &mut [f64],
) -> Result<()> {
    const B: usize = theta::BLOCK;
    let p = &prep.p;
    let len = out.len();
    let w = len.min(B);
    let mut slot: [Option<Lane>; B] = [None; B];
    let mut next = 0usize;
    let mut first_err: Option<(usize, PabiError)> = None;
    let mut done = |j: usize, r: Result<f64>, out: &mut [f64]| match r {
        Ok(v) => out[j - j0] = v,
        Err(e) => {
            if first_err.as_ref().is_none_or(|(i, _)| *i >= j) {
                first_err = Some((j, e));
            }
        }
    };
    loop {
        let mut live = false;
        let mut log = false;
        let (mut x, mut s, mut ra, mut rb) = ([1.0; B], [1.0; B], [1.0; B], [1.0; B]);
        // empty slots: numerators 1 at s = 1 (radii 1, as before; ignored)
        let mut rad = [Radii {
            two_l: 1.0,
            mdl: 1.0,
        }; B];
        for k in 0..w {
            while slot[k].is_none() && next < len {
                let j = j0 + next;
                next += 1;
                match Lane::new(prep, kind, eps, target, j) {
                    Ok(l) => slot[k] = Some(l),
                    Err(r) => done(j, r, out),
                }
            }
            if let Some(l) = &slot[k] {
                live = true;
                log |= l.t < LOG_TARGET;
                (x[k], s[k]) = l.point(kind);
                rad[k] = l.e.rad;
            }
        }
        if !live {
            break;
        }
        radii_lanes(|k| rad[k], &s[..w], &mut ra, &mut rb);
        let f = factors_block(p.noise, p.order, log, &x[..w], &ra[..w], &rb[..w]);
        for k in 0..w {
            if let Some(l) = &mut slot[k] {
                let ok = meets_with(&l.e, &f.get(k), x[k], s[k], rb[k], l.t, l.lt);
                if let Some(r) = l.advance(kind, ok) {
                    let j = l.j;
                    slot[k] = None;
                    done(j, r, out);
                }
            }
        }
    }
    match first_err {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}
