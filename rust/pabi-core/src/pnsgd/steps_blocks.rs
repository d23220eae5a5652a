//! The block path of the per-step PNSGD bounds (`steps.rs`): beyond [`BLOCK`] pieces the
//! pieces are cut into blocks of [`BLOCK`] (fixed boundaries: the same for any thread count),
//! each block's contribution (a [`Part`]) is computed on its own — in parallel on the pool for
//! an array, chunk by chunk for a source (`steps_source.rs`) — and the parts are combined in a
//! fixed order by a [`Fold`]. The result therefore depends neither on the number of threads nor
//! on whether the steps came as an array or from a source.
//!
//! The parts, in the notation of `docs/derivations/pnsgd.md#per-step` (block b of steps
//! s..e, products and sums over its steps only):
//! * fixed, record i: Σ ln B_t (with ln A_i in the block holding i): logarithms add
//!   ([`UpSum::merge`], compensated);
//! * random stop at i: (ln A_i, ln S within the block, ln ∏ B): forwards,
//!   S ← S + P·S_b, P ← P·P_b;
//! * shuffled: (ln Σ_{i in b} A_i ∏_{t>i in b} B_t, ln ∏ B): backwards, T ← T + T_b·P,
//!   P ← P·P_b (P the product after the block);
//! * random stop, worst index: the block's maximum needs ln(B_{e+1}·S_{e+1}) entering it from
//!   the right, an affine function x ↦ α_b + β_b·x of the same quantity entering the next
//!   block (α_b = Σ_{T in b} ∏_{t=s}^T B_t, β_b = ∏_{t in b} B_t): first the maps (in
//!   parallel), then the entering values backwards (ln(α_b + β_b·x) kept as a compensated
//!   [`LogSum`], shifted by ln β_b), then each block's maximum given its entering value (in
//!   parallel); the maximum over the blocks is exact.
//!
//! Every combination rounds up (the quantities are increasing in every part), so the block
//! path is an upper bound like the one-span path; it differs from it by a few ulps of ln δ.

use rayon::prelude::*;

use crate::error::Result;
use crate::num::round::add_up;

use super::params::Order;
use super::steps::{finish, AtPart, GeoPart, Span, Steps};
use super::steps_sums::{LogSum, UpSum};

/// Pieces per block (and steps per chunk of a source). Schedules of at most this many pieces
/// are evaluated in one span.
pub(super) const BLOCK: usize = 1 << 16;

/// One block's contribution (see the module docs); `Map` is the map (ln α, ln β) of the worst
/// case.
#[derive(Debug, Clone, Copy)]
pub(super) enum Part {
    Fixed(UpSum),
    At(AtPart),
    Shuf(GeoPart),
    Map(GeoPart),
}

/// Which bound a fold computes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Fixed(f64),
    At(f64),
    Shuf,
    Worst,
}

/// The parts combined in their fixed order (forwards for the fixed order and the random stop
/// at an index, backwards otherwise).
#[derive(Debug, Clone, Copy)]
pub(super) struct Fold {
    kind: Kind,
    fixed: UpSum,
    at: Option<AtPart>,
    shuf: Option<GeoPart>,
    /// worst case: ln(B·S) entering the block to come (from the right)
    lr: LogSum,
    best: f64,
}

impl Fold {
    pub(super) fn new(order: Order, index: Option<f64>) -> Fold {
        let kind = match (order, index) {
            (Order::Fixed, Some(i)) => Kind::Fixed(i),
            (Order::Shuffled, _) => Kind::Shuf,
            (_, Some(i)) => Kind::At(i),
            (_, None) => Kind::Worst,
        };
        Fold {
            kind,
            fixed: UpSum::default(),
            at: None,
            shuf: None,
            lr: LogSum::new(f64::NEG_INFINITY),
            best: f64::NEG_INFINITY,
        }
    }

    /// Whether the blocks are combined last first.
    pub(super) fn backward(&self) -> bool {
        matches!(self.kind, Kind::Shuf | Kind::Worst)
    }

    /// Whether each block also needs [`Fold::feed_best`] (the worst case).
    pub(super) fn worst(&self) -> bool {
        matches!(self.kind, Kind::Worst)
    }

    /// The part of one block (its map for the worst case).
    pub(super) fn part(&self, st: &Steps, eps: f64, sp: Span) -> Result<Part> {
        part_simd(st, self.kind, eps, sp)
    }

    /// Worst case: ln(B·S) entering the next block to be combined (rounded up).
    pub(super) fn lr_in(&self) -> f64 {
        self.lr.upper()
    }

    /// Worst case: the maximum of a block given its entering value [`Fold::lr_in`].
    pub(super) fn feed_best(&mut self, st: &Steps, eps: f64, sp: Span) -> Result<()> {
        let b = worst_simd(st, eps, sp, self.lr_in())?;
        self.best = self.best.max(b);
        Ok(())
    }

    /// Combine the next block's part (in the fold's order).
    pub(super) fn absorb(&mut self, part: Part) {
        match part {
            Part::Fixed(u) => self.fixed.merge(&u),
            Part::At(p) => match &mut self.at {
                None => {
                    if p.started {
                        self.at = Some(p);
                    }
                }
                Some(s) => {
                    s.ls.add(add_up(s.lp.upper(), p.ls.upper()));
                    s.lp.merge(&p.lp);
                }
            },
            Part::Shuf(p) => match &mut self.shuf {
                None => self.shuf = Some(p),
                Some(s) => {
                    s.tot.add(add_up(p.tot.upper(), s.lp.upper()));
                    s.lp.merge(&p.lp);
                }
            },
            Part::Map(m) => {
                self.lr.shift(&m.lp);
                self.lr.add(m.tot.upper());
            }
        }
    }

    /// The order's total (ln δ before the − ln n of the averaged orders).
    pub(super) fn total(&self) -> f64 {
        match self.kind {
            Kind::Fixed(_) => self.fixed.upper(),
            Kind::At(_) => self
                .at
                .map_or(f64::NEG_INFINITY, |a| add_up(a.la, a.ls.upper())),
            Kind::Shuf => self.shuf.map_or(f64::NEG_INFINITY, |s| s.tot.upper()),
            Kind::Worst => self.best,
        }
    }
}

simd! {
    /// A block's [`Part`], compiled for the best instruction set.
    fn part_simd(st: &Steps, kind: Kind, eps: f64, sp: Span) -> Result<Part> {
        Ok(match kind {
            Kind::Fixed(i) => Part::Fixed(st.fixed_part(eps, i, sp)?),
            Kind::At(i) => Part::At(st.at_part(eps, i, sp)?),
            Kind::Shuf => Part::Shuf(st.geo_part(eps, sp, true)?),
            Kind::Worst => Part::Map(st.geo_part(eps, sp, false)?),
        })
    }

    /// A block's worst-case maximum given its entering value.
    fn worst_simd(st: &Steps, eps: f64, sp: Span, lr: f64) -> Result<f64> {
        st.worst_part(eps, sp, lr)
    }
}

/// The blocks of [`BLOCK`] pieces of an array schedule, with their steps.
fn spans(st: &Steps) -> Vec<Span> {
    let mut v = Vec::with_capacity(st.pieces.div_ceil(BLOCK));
    let mut off = 0.0;
    for lo in (0..st.pieces).step_by(BLOCK) {
        let hi = (lo + BLOCK).min(st.pieces);
        let len = match st.p.run_lengths {
            None => (hi - lo) as f64,
            // integers with a total below 2^53: exact
            Some(r) => r[lo..hi].iter().sum(),
        };
        v.push(Span { lo, hi, off, len });
        off += len;
    }
    v
}

/// `f` of every block on the pool (an interrupt check before each), the results in block
/// order; the error of the first failing block.
fn par_blocks<T: Send>(n: usize, f: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    let run = || -> Vec<Result<T>> {
        (0..n)
            .into_par_iter()
            .map(|b| crate::interrupt::check().and_then(|_| f(b)))
            .collect()
    };
    let res = match crate::driver::pool() {
        Some(p) => p.install(run),
        None => run(),
    };
    res.into_iter().collect()
}

/// ln δ of an array schedule of more than [`BLOCK`] pieces by blocks (parallel; the same bits
/// for any thread count and as from a source of the same steps).
pub(super) fn log_delta_blocks(st: &Steps, eps: f64) -> Result<f64> {
    let sp = spans(st);
    let mut f = Fold::new(st.p.order, st.p.index);
    let parts = par_blocks(sp.len(), |b| f.part(st, eps, sp[b]))?;
    let order: Box<dyn Iterator<Item = usize>> = if f.backward() {
        Box::new((0..sp.len()).rev())
    } else {
        Box::new(0..sp.len())
    };
    if f.worst() {
        let mut lr = vec![f64::NEG_INFINITY; sp.len()];
        for b in order {
            lr[b] = f.lr_in();
            f.absorb(parts[b]);
        }
        let best = par_blocks(sp.len(), |b| worst_simd(st, eps, sp[b], lr[b]))?;
        f.best = best.into_iter().fold(f64::NEG_INFINITY, f64::max);
    } else {
        for b in order {
            f.absorb(parts[b]);
        }
    }
    Ok(finish(st.p.order, f.total(), st.n))
}
