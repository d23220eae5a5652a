//! Per-step PNSGD arguments read from a source, chunk by chunk (in Python: a vectorised
//! callable of the step), for schedules of up to 2^53 steps in O(1) extra memory: chunks of
//! [`BLOCK`] steps, each validated (the first bad step named by its global index) and folded
//! into a resumable [`Fold`] per ε — the same blocks, parts and order of combination as an
//! array of the same steps (`steps_blocks.rs`), so a source and the array give the same bits.
//! A schedule of at most [`BLOCK`] steps is read in one chunk and evaluated as that array.
//!
//! The fold runs forwards (fixed order, random stop at an index) or backwards (shuffled, the
//! random stop's worst index) over the chunks; a backward pass that meets a bad chunk reads
//! the earlier chunks again (validation only) so that the error names the first bad step. A
//! constant schedule (every step equal to step 1) goes, with `dispatch`, to the constant bound
//! like the array. ε(δ) searches as for an array, each evaluation of δ one pass over the
//! source ([`SEARCH_PASSES`] per target).

use std::cell::RefCell;

use crate::error::{PabiError, Result};
use crate::setup::{SetupArgs, N_MAX};

use super::at;
use super::params::{Noise, Order};
use super::steps::{
    check_lead, check_lengths, check_options, check_values, constant_epsilon, fill_delta, finish,
    search, stepwise_delta, stepwise_epsilon, Span, StepParams, Steps, SEARCH_PASSES,
};
use super::steps_blocks::{Fold, BLOCK};

/// The values of a chunk of steps: each vector holds one value per step of the chunk, or one
/// value for all of them; `smoothness` None: no smoothness assumed.
#[derive(Debug, Clone, Default)]
pub struct StepChunk {
    pub sigma: Vec<f64>,
    pub max_grad_norm: Vec<f64>,
    pub lr: Vec<f64>,
    pub diameter: Vec<f64>,
    pub smoothness: Option<Vec<f64>>,
    pub strong_convexity: Vec<f64>,
}

/// Per-step values on demand.
pub trait StepSource: Send {
    /// Fill `c` with the values of the steps `start + 1 ..= start + len` (1-based; any order
    /// of calls). An error stops the computation and is returned as is.
    fn fill(&mut self, start: usize, len: usize, c: &mut StepChunk) -> Result<()>;
}

/// The options of a sourced schedule: the noise, the order, the number of steps n (an integer
/// in [1, 2^53)) and the 1-based index of the differing record (as [`StepParams::index`]).
#[derive(Debug, Clone, Copy)]
pub struct SourceParams {
    pub noise: Noise,
    pub order: Order,
    pub steps: f64,
    pub index: Option<f64>,
}

impl SourceParams {
    /// The per-step arguments of chunk `c` (no run lengths: one entry per step).
    fn params<'c>(&self, c: &'c StepChunk) -> StepParams<'c> {
        StepParams {
            noise: self.noise,
            order: self.order,
            sigma: &c.sigma,
            setup: SetupArgs {
                max_grad_norm: &c.max_grad_norm,
                lr: &c.lr,
                diameter: &c.diameter,
                smoothness: c.smoothness.as_deref(),
                strong_convexity: &c.strong_convexity,
            },
            run_lengths: None,
            index: self.index,
        }
    }

    /// The checks before any work: n, the options, the index.
    fn check(&self) -> Result<usize> {
        let n = self.steps;
        if !((1.0..N_MAX).contains(&n) && n == n.floor()) {
            return Err(PabiError::domain("steps", "an integer in [1, 2^53)", n));
        }
        check_options(self.order, self.index, n)?;
        Ok(n as usize)
    }
}

/// Largest number of step reads of the callables in one ε(δ) call (2^40, ~1e12: tens of
/// minutes of a vectorised callable), checked before any work.
const MAX_SOURCE_READS: f64 = 1_099_511_627_776.0;

/// The same error at `off` + its index (a chunk's local index made global).
fn shifted(e: PabiError, off: usize) -> PabiError {
    if let PabiError::Domain { index: Some(i), .. } = e {
        e.at(i + off)
    } else {
        e
    }
}

/// Read and check steps `start + 1 ..= start + len` into `c`: one value per step (or one for
/// all), in their domains.
fn load(
    q: &SourceParams,
    src: &mut dyn StepSource,
    start: usize,
    len: usize,
    c: &mut StepChunk,
) -> Result<()> {
    src.fill(start, len, c)?;
    check_chunk(q, start, len, c)
}

/// The checks of a chunk read by [`load`]: its lengths and its values (indices from `start`).
fn check_chunk(q: &SourceParams, start: usize, len: usize, c: &StepChunk) -> Result<()> {
    let p = q.params(c);
    let pieces = check_lengths(&p)?;
    if pieces != len {
        return Err(PabiError::Shape {
            message: format!(
                "the source gave {pieces} values for the {len} steps from step {}",
                start + 1
            ),
        });
    }
    check_values(&p, len).map_err(|e| shifted(e, start))
}

/// Step 1 of a chunk (one value of each argument).
fn first_step(c: &StepChunk) -> StepChunk {
    StepChunk {
        sigma: vec![c.sigma[0]],
        max_grad_norm: vec![c.max_grad_norm[0]],
        lr: vec![c.lr[0]],
        diameter: vec![c.diameter[0]],
        smoothness: c.smoothness.as_ref().map(|b| vec![b[0]]),
        strong_convexity: vec![c.strong_convexity[0]],
    }
}

/// One pass over the n > [`BLOCK`] steps of the source in chunks of [`BLOCK`] (backwards with
/// `backward`): each chunk loaded, checked and given to `visit` with its span; returns step 1
/// when every step equals it (a constant schedule).
fn pass(
    q: &SourceParams,
    src: &mut dyn StepSource,
    n: usize,
    backward: bool,
    visit: &mut dyn FnMut(&Steps, Span) -> Result<()>,
) -> Result<Option<StepChunk>> {
    let nb = n.div_ceil(BLOCK);
    let mut c = StepChunk::default();
    let (mut prev, mut first): (Option<StepChunk>, Option<StepChunk>) = (None, None);
    let mut constant = true;
    for k in 0..nb {
        let b = if backward { nb - 1 - k } else { k };
        let (start, len) = (b * BLOCK, BLOCK.min(n - b * BLOCK));
        crate::interrupt::check()?;
        // a failure of the source itself (the callable raised) is returned as is
        src.fill(start, len, &mut c)?;
        if let Err(e) = check_chunk(q, start, len, &c) {
            // a forward pass has checked every earlier chunk already; a backward pass reads
            // them again (checks only) so that the first bad step is the one named
            return Err(if backward {
                first_error(q, src, b, e, &mut c)
            } else {
                e
            });
        }
        let st = Steps {
            p: q.params(&c),
            pieces: len,
            n: n as f64,
        };
        if constant {
            constant = st.constant() && prev.as_ref().is_none_or(|p| st.same(0, &one(q, p, n), 0));
            prev = Some(first_step(&c));
        }
        if b == 0 {
            first = Some(first_step(&c));
        }
        visit(
            &st,
            Span {
                lo: 0,
                hi: len,
                off: start as f64,
                len: len as f64,
            },
        )?;
    }
    Ok(if constant { first } else { None })
}

/// The one-step [`Steps`] of `c` (a step of an n-step schedule).
fn one<'c>(q: &SourceParams, c: &'c StepChunk, n: usize) -> Steps<'c> {
    Steps {
        p: q.params(c),
        pieces: 1,
        n: n as f64,
    }
}

/// The error of the first bad chunk before chunk `b` (read again, checks only), else `e`.
fn first_error(
    q: &SourceParams,
    src: &mut dyn StepSource,
    b: usize,
    e: PabiError,
    c: &mut StepChunk,
) -> PabiError {
    if !matches!(e, PabiError::Domain { .. } | PabiError::Shape { .. }) {
        return e;
    }
    let n = q.steps as usize;
    for k in 0..b {
        let (start, len) = (k * BLOCK, BLOCK.min(n - k * BLOCK));
        if let Err(x) = crate::interrupt::check().and_then(|()| load(q, src, start, len, c)) {
            return x;
        }
    }
    e
}

/// ln δ at each ε of `eps` by one pass (a [`Fold`] per ε), and step 1 where the schedule is
/// constant.
fn pass_log_delta(
    q: &SourceParams,
    src: &mut dyn StepSource,
    n: usize,
    eps: &[f64],
    len: usize,
) -> Result<(Vec<f64>, Option<StepChunk>)> {
    let mut folds = vec![Fold::new(q.order, q.index); len];
    let backward = folds[0].backward();
    let first = pass(q, src, n, backward, &mut |st, sp| {
        for (j, f) in folds.iter_mut().enumerate() {
            let e = at(eps, j);
            if f.worst() {
                f.feed_best(st, e, sp)?;
            }
            f.absorb(f.part(st, e, sp)?);
        }
        Ok(())
    })?;
    let l = folds
        .iter()
        .map(|f| finish(q.order, f.total(), n as f64))
        .collect();
    Ok((l, first))
}

/// How a sourced call proceeds after its checks.
enum Begin {
    /// Nothing to compute (no ε or δ).
    Done,
    /// At most [`BLOCK`] steps: read in one chunk, evaluated as that array.
    One(StepChunk),
    /// More: passes over the n steps.
    Passes(usize),
}

/// The checks of n and the options, then [`Begin`].
fn begin(q: &SourceParams, src: &mut dyn StepSource, empty: bool) -> Result<Begin> {
    let n = q.check()?;
    if empty {
        return Ok(Begin::Done);
    }
    if n > BLOCK {
        return Ok(Begin::Passes(n));
    }
    let mut c = StepChunk::default();
    load(q, src, 0, n, &mut c)?;
    Ok(Begin::One(c))
}

/// [`stepwise_delta`] with the per-step values read from `src` (see the module docs): the
/// same bits as the array of the same steps.
pub fn stepwise_delta_source(
    eps: &[f64],
    q: SourceParams,
    src: &mut dyn StepSource,
    out: &mut [f64],
    log: bool,
    dispatch: bool,
) -> Result<()> {
    check_lead(eps, out.len(), false)?;
    let n = match begin(&q, src, out.is_empty())? {
        Begin::Done => return Ok(()),
        Begin::One(c) => return stepwise_delta(eps, q.params(&c), out, log, dispatch),
        Begin::Passes(n) => n,
    };
    let (l, first) = pass_log_delta(&q, src, n, eps, out.len())?;
    let first = first.filter(|_| dispatch);
    let constant = first.as_ref().map(|f| one(&q, f, n));
    fill_delta(eps, out, log, constant.as_ref(), |j, _| Ok(l[j]))
}

/// [`stepwise_epsilon`] with the per-step values read from `src`: a first pass checks the
/// steps (and finds a constant schedule), then each δ of the search is one pass.
pub fn stepwise_epsilon_source(
    delta: &[f64],
    q: SourceParams,
    src: &mut dyn StepSource,
    out: &mut [f64],
    dispatch: bool,
) -> Result<()> {
    check_lead(delta, out.len(), true)?;
    let n = match begin(&q, src, out.is_empty())? {
        Begin::Done => return Ok(()),
        Begin::One(c) => return stepwise_epsilon(delta, q.params(&c), out, dispatch),
        Begin::Passes(n) => n,
    };
    // beyond one chunk each target's search reads the steps once per evaluation of δ
    // (≤ SEARCH_PASSES): bounded here, before any read (`begin` reads nothing for `Passes`)
    let reads = out.len() as f64 * SEARCH_PASSES as f64 * q.steps;
    if reads > MAX_SOURCE_READS {
        return Err(PabiError::domain(
            "steps",
            format!(
                "such that len(delta) * {SEARCH_PASSES} passes * steps <= {MAX_SOURCE_READS:e} \
                 step reads of the callables (ε(δ) reads them once per evaluation of δ; pass \
                 arrays or run_lengths, or fewer targets)"
            ),
            q.steps,
        ));
    }
    let first = pass(&q, src, n, false, &mut |_, _| Ok(()))?;
    if let (Some(f), true) = (&first, dispatch) {
        return constant_epsilon(&one(&q, f, n), delta, out);
    }
    let src = RefCell::new(src);
    search(delta, out, &|e| {
        let mut s = src.borrow_mut();
        Ok(pass_log_delta(&q, &mut **s, n, &[e], 1)?.0[0])
    })
}
