//! The lock-step inversions: the searches of `inverse.rs` for [`theta::BLOCK`] elements at
//! once, each lane returning exactly the result of its scalar search (the same bisection of the
//! same bracket; most of its midpoints decided by certificates instead of evaluations, see
//! "Certified skips" below). No new mathematics; see `docs/derivations/pnsgd.md` for the bounds
//! being inverted.

use crate::error::{PabiError, Result};
use crate::gd::{radii_lanes, Radii};
use crate::num::bisect::Certificates;
use crate::num::round::rel_dn;
use crate::theta;
use crate::vmath;

use super::ab_factors::factors_block;
use super::at;
use super::inverse::{meets_with, no_epsilon, no_sigma, LOG_TARGET};
use super::orders::finish_value;
use super::params::{Noise, Order};
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
//
// Certified skips. The bisection of a bracket of 2^53 ulps takes ~53 evaluations, and the
// lock-step search cost about as much as a numpy bisection over the vectorised δ. Most of those
// midpoints are far from the threshold, where the verdict is certain without evaluating it.
// Let δ*(x) be the exact formula at the doubles the kernel is given (ε, and the radii r_A, r_B
// rounded up from σ): it is non-increasing in ε and in σ (the rounded radii are non-increasing
// in σ, δ increases with both), and the computed δ satisfies δ* ≤ δ ≤ δ*·(1 + η). So one
// evaluated point x₁ with δ(x₁) > target·e^{2η} certifies that every x ≤ x₁ misses
// (δ(x) ≥ δ*(x) ≥ δ*(x₁) ≥ δ(x₁)/(1 + η) > target), and one x₂ with δ(x₂) ≤ target·e^{−2η}
// that every x ≥ x₂ meets (δ(x) ≤ (1 + η)δ*(x) ≤ (1 + η)δ*(x₂) ≤ (1 + η)δ(x₂)
// ≤ target). Once a bracket is found, a few probes guided by ln(δ/target) (regula falsi in x,
// aimed 4η beyond the predicted threshold on either side, Illinois halving) look for such
// certificates close to the threshold; then the bisection of the bracket runs as before,
// midpoint by midpoint, evaluating only the midpoints that no certificate or earlier probe
// decides. The bisection's final ends are evaluated when a certificate decided
// them (so the result meets the target and the double below misses it whatever η), and if that
// check disagrees the plain bisection runs. Where η bounds the error the midpoints, their
// verdicts and hence the result are those of the plain bisection, to the bit, and two targets
// whose predicates are nested still give monotone results (see `num::bisect`). Because δ* is
// taken at the given doubles, η is the evaluation error only, not the conditioning in r:
// θ's outward margin 2^-46 (its kernel error is below 2.5e-15) and a few roundings of the
// orders' formulas (their condition in u = 1 − B is at most 1), ≲ 3e-14 in all; η = 1e-13.
// (The kernels' absolute floor, a few subnormal ulps where θ underflows, is covered by the
// margin target·η only for targets well inside the normal range: targets below
// [`GUIDE_MIN_TARGET`] are not guided.) Only Gaussian noise with the value orders is guided:
// the fixed order's precise path keeps the plain bisection, and so does
// Laplace noise, whose δ vanishes beyond ε = r_A (there the guided probes can only bisect; they
// saved a third of the evaluations but cost more than they saved on a cheap factor).

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
    /// Guided probes inside the bracket, looking for certificates (section doc).
    Guide,
    /// Bisection on the bit patterns (a, b], querying the midpoint `x` (midpoints decided by a
    /// certificate are skipped).
    Bisect,
    /// The bisection ended at a `b` (`a`) decided by a certificate: evaluating it.
    ConfirmB,
    ConfirmA,
}

#[cfg(test)]
thread_local! {
    /// Evaluations made by the lock-step solvers on this thread (unit tests: the certified
    /// skips' effect).
    pub(super) static EVALS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Guided probes allowed per search (section doc "Certified skips").
const GUIDE_PROBES: u32 = 8;

/// Targets from which the search is guided (section doc): target·η ≥ 1e-303, far above the
/// kernels' absolute floor of a few subnormal ulps.
const GUIDE_MIN_TARGET: f64 = 1e-290;

/// The certificates and guided probes of one lane's bisection (section doc).
#[derive(Debug, Clone, Copy)]
struct Certs {
    /// The bracket as found (bits), for the bisection after the guided probes.
    lo: u64,
    hi: u64,
    /// The certified misses and meets (bits).
    proof: Certificates,
    /// The guided probes' bracket (bits) and ln(δ/target) at its ends.
    ga: u64,
    gb: u64,
    va: f64,
    vb: f64,
    /// Which end the last guided probe moved (+1 b, −1 a), for the Illinois halving.
    side: i8,
    left: u32,
    /// Whether the current a, b of the bisection were evaluated (not decided by a certificate).
    a_ev: bool,
    b_ev: bool,
}

impl Certs {
    const NONE: Certs = Certs {
        lo: 0,
        hi: 0,
        proof: Certificates::NONE,
        ga: 0,
        gb: 0,
        va: f64::NAN,
        vb: f64::NAN,
        side: 0,
        left: 0,
        a_ev: true,
        b_ev: true,
    };
}

/// Whether a lane's search is guided (section doc): Gaussian noise, the value orders, normal
/// targets. There [`meets_with`]'s verdict is δ ≤ target with δ = [`finish_value`] (no log
/// space, no precise fixed-order path), so the solver forms δ once for both.
#[inline(always)]
fn guided(l: &Lane) -> bool {
    l.e.order != Order::Fixed && l.e.noise != Noise::Laplace && l.t >= GUIDE_MIN_TARGET
}

// (guided targets are never log-space targets)
const _: () = assert!(GUIDE_MIN_TARGET >= LOG_TARGET);

/// ln(δ/target) at a guided lane's query, of its δ `d`, and the certificate margin 2η: see the
/// section doc.
#[inline(always)]
fn guide_value(l: &Lane, d: f64) -> (f64, f64) {
    // the evaluation error at the given doubles (section doc): θ's outward margin 2^-46 and
    // the orders' few roundings
    const ETA: f64 = 1e-13;
    (vmath::ln(d) - vmath::ln(l.t), 2.0 * ETA)
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
    /// ln(δ/target) and the certificate margin at the last evaluated point (NaN: not guided).
    v: f64,
    mu: f64,
    /// ln(δ/target) at the point evaluated before it.
    v_prev: f64,
    c: Certs,
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
            v: f64::NAN,
            mu: f64::NAN,
            v_prev: f64::NAN,
            c: Certs::NONE,
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

    /// [`bisect_bits`](super::inverse::bisect_bits) on (lo, hi] with ln(δ/target) `va`, `vb`
    /// at its ends (NaN: none): the guided probes first where both ends have values (section
    /// doc), then the bisection. Its first query, or its result.
    #[inline(always)]
    fn bisect(&mut self, lo: f64, hi: f64, va: f64, vb: f64) -> Next {
        let (lo, hi) = (lo.to_bits(), hi.to_bits());
        let mu = self.mu;
        self.c = Certs {
            lo,
            hi,
            ga: lo,
            gb: hi,
            va,
            vb,
            left: GUIDE_PROBES,
            ..Certs::NONE
        };
        // guided only with consistent finite values at both ends (va > 0 missed, vb ≤ 0 met)
        if mu.is_finite() && va > 0.0 && vb <= 0.0 && va.is_finite() && vb.is_finite() {
            if va > mu {
                self.c.proof.add_miss(lo);
            }
            if vb <= -mu {
                self.c.proof.add_meet(hi);
            }
            if let Some(x) = self.guide_probe() {
                self.phase = Phase::Guide;
                self.x = x;
                return None;
            }
        }
        self.replay()
    }

    /// The next guided probe (section doc), or None when the guided probes are over.
    #[inline(always)]
    fn guide_probe(&self) -> Option<f64> {
        let c = &self.c;
        let w = c.gb - c.ga;
        // (the values stay finite: a probe with a non-finite value ends the guidance)
        if c.left == 0 || w <= 2 || !(c.va > 0.0 && c.vb <= 0.0) {
            return None;
        }
        let (xa, xb) = (f64::from_bits(c.ga), f64::from_bits(c.gb));
        // ln(δ/target) is interpolated linearly in the value x (the bit pattern, ≈ ln x, is
        // far from linear on brackets that start at 0)
        let slope = (c.va - c.vb) / (xb - xa);
        // the predicted width of the certified gap: 2·mu over the slope, in ulps of xb
        let ulp = f64::from_bits(c.gb + 1) - xb;
        let gap = 2.0 * self.mu / slope / ulp;
        if let (Some(m), Some(o)) = (c.proof.miss, c.proof.meet) {
            if ((o - m) as f64) <= 4.0 * gap.max(1.0) {
                return None;
            }
        }
        // aim 2·mu beyond the predicted threshold, on the side without a certificate first,
        // then alternating
        let miss_side = match (c.proof.miss, c.proof.meet) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            _ => c.side >= 0,
        };
        let aim = if miss_side {
            2.0 * self.mu
        } else {
            -2.0 * self.mu
        };
        let x = xa + (c.va - aim) / slope;
        if !x.is_finite() {
            return None;
        }
        let b = x.to_bits().clamp(c.ga + 1, c.gb - 1);
        Some(f64::from_bits(b))
    }

    /// One guided probe's verdict `ok` and value `self.v`.
    #[inline(always)]
    fn guide(&mut self, ok: bool) -> Next {
        let (x, v, mu) = (self.x.to_bits(), self.v, self.mu);
        let c = &mut self.c;
        c.left -= 1;
        if ok != (v <= 0.0) || !v.is_finite() {
            // a value that contradicts its verdict, or none: no more guidance
            c.left = 0;
        } else if ok {
            if v <= -mu {
                c.proof.add_meet(x);
            }
            if c.side > 0 {
                c.va *= 0.5; // Illinois: the end kept twice in a row
            }
            (c.gb, c.vb, c.side) = (x, v, 1);
        } else {
            if v > mu {
                c.proof.add_miss(x);
            }
            if c.side < 0 {
                c.vb *= 0.5;
            }
            (c.ga, c.va, c.side) = (x, v, -1);
        }
        match self.guide_probe() {
            Some(x) => {
                self.x = x;
                None
            }
            None => self.replay(),
        }
    }

    /// The bisection of the bracket as found, from its start.
    #[inline(always)]
    fn replay(&mut self) -> Next {
        self.phase = Phase::Bisect;
        (self.a, self.b) = (self.c.lo, self.c.hi);
        (self.c.a_ev, self.c.b_ev) = (true, true);
        self.mid()
    }

    /// The next midpoint that no certificate decides, or the end of the bisection.
    #[inline(always)]
    fn mid(&mut self) -> Next {
        while self.b - self.a > 1 {
            let m = self.a + (self.b - self.a) / 2;
            match self.c.proof.decided(m) {
                Some(false) => (self.a, self.c.a_ev) = (m, false),
                Some(true) => (self.b, self.c.b_ev) = (m, false),
                None => {
                    self.x = f64::from_bits(m);
                    return None;
                }
            }
        }
        self.finish()
    }

    /// The end of the bisection: its ends evaluated where a certificate decided them.
    #[inline(always)]
    fn finish(&mut self) -> Next {
        if !self.c.b_ev {
            self.query(Phase::ConfirmB, f64::from_bits(self.b))
        } else if !self.c.a_ev {
            self.query(Phase::ConfirmA, f64::from_bits(self.a))
        } else {
            Some(Ok(f64::from_bits(self.b)))
        }
    }

    /// A confirmation's verdict: as certified, or (η was not a bound here) the plain bisection.
    #[inline(always)]
    fn confirm(&mut self, as_certified: bool, b_end: bool) -> Next {
        if as_certified {
            if b_end {
                self.c.b_ev = true;
            } else {
                self.c.a_ev = true;
            }
            self.finish()
        } else {
            self.c.proof = Certificates::NONE;
            self.replay()
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
            (Phase::Down, _) => self.bisect(self.x, self.x * 4.0, self.v, self.v_prev),
            (Phase::Up, Solve::Epsilon) if ok => {
                let lo = if self.steps == 0 { 0.0 } else { self.x / 4.0 };
                self.bisect(lo, self.x, self.v_prev, self.v)
            }
            (Phase::Up, Solve::Sigma) if ok => {
                self.bisect(self.x / 4.0, self.x, self.v_prev, self.v)
            }
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
            (Phase::Guide, _) => self.guide(ok),
            (Phase::Bisect, _) => {
                if ok {
                    (self.b, self.c.b_ev) = (self.x.to_bits(), true);
                } else {
                    (self.a, self.c.a_ev) = (self.x.to_bits(), true);
                }
                self.mid()
            }
            (Phase::ConfirmB, _) => self.confirm(ok, true),
            (Phase::ConfirmA, _) => self.confirm(!ok, false),
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
    let mut tb = theta::ThetaBlocks::default();
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
        let f = factors_block(&mut tb, p.noise, p.order, log, &x[..w], &ra[..w], &rb[..w]);
        for k in 0..w {
            if let Some(l) = &mut slot[k] {
                let fk = f.get(k);
                #[cfg(test)]
                EVALS.with(|c| c.set(c.get() + 1));
                let g = guided(l);
                let (ok, d) = if g {
                    let d = finish_value(&l.e, &fk);
                    (d <= l.t, d)
                } else {
                    (
                        meets_with(&l.e, &fk, x[k], s[k], rb[k], l.t, l.lt),
                        f64::NAN,
                    )
                };
                if matches!(
                    l.phase,
                    Phase::Start | Phase::One | Phase::Down | Phase::Up | Phase::Guide
                ) {
                    // (the bisection needs no values)
                    l.v_prev = l.v;
                    (l.v, l.mu) = if g {
                        guide_value(l, d)
                    } else {
                        (f64::NAN, f64::NAN)
                    };
                }
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
