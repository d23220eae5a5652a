//! PNSGD with per-step parameters: the noise σ_t, the Lipschitz constant (clipping norm) L_t,
//! the learning rate η_t, the diameter D_t and the smoothness / strong convexity (β_t, ρ_t, hence
//! the contraction M_t of step t) given per step, either as arrays (one entry per step) or
//! piecewise constant (one entry per piece and the pieces' run lengths), so that a schedule of
//! 1e9 steps costs O(#pieces).
//!
//! The contraction argument (Asoodeh–Diaz–Calmon Lemma 3, eq. (13); Sordello–Bu–Dong eq. (11))
//! holds for any sequence of kernels: the record entering at step i gives
//! δ_n(i) = A_i·∏_{t>i} B_t, A_i = h(ε, 2L_i/σ_i), B_t = h(ε, M_t·D_t/(η_t·σ_t)), h = θ (Gaussian,
//! Sordello–Bu–Dong eq. (4)) or the Laplace divergence (eq. (5)). Then
//!
//! * fixed order, record i: δ_n(i);
//! * shuffled: (1/n)·Σ_i δ_n(i) (the differing record lands at each position with
//!   probability 1/n; joint convexity of E_γ, Sordello–Bu–Dong Thm 2);
//! * random stop, record i: (1/n)·Σ_{T=i}^n A_i·∏_{t=i+1}^T B_t = A_i·S_i/n, S_i the sum of the
//!   partial products; without an index the maximum over i.
//!
//! Over a run of m steps with the same factors (u = 1 − B, ln B) the sums are geometric:
//! Σ_{k<m} B^k = m·G(u, m) ([`geometric_average`]), and on a run S_j is monotone in j, so its
//! maximum is at an end of the run. The derivation, in this repository's words, is in
//! `docs/derivations/pnsgd.md#per-step`.
//!
//! # Numerics (every operation rounded in the direction that raises δ)
//! The factors are those of the constant bound ([`factors_one`]): A and ln A rounded up (ln A by
//! the one rule of `ab_factors::log_a_up`), u rounded down (G decreases in u),
//! ln B rounded up (towards 0; from the double-double ln B where |m·ln B| is large, as in the
//! fixed order of the constant bound). Everything else is in log space with the operations of
//! [`crate::num::round`]: m·ln B exact ([`two_prod`]), the sums of logs in an [`UpSum`] (the
//! TwoSum errors kept, their own rounding bounded and added: ~2 ulp whatever the number of
//! runs), the log-sums ln Σ e^x in a [`LogSum`] (each correction ln(1 + e^{−d}) rounded up with d
//! rounded down, added to an [`UpSum`]), ln(m·G) by [`crate::num::round::ln_up`] of an upward
//! product, and − ln n by
//! [`ln_dn`]. Measured against the 50-digit reference: ≲ 1e-13 relative for a few pieces; with
//! 3000 distinct steps, ln δ within 4e-14 (shuffled, random stop) and, for the fixed order,
//! within ~6e-15·Σ|ln B_t| (the per-step factors' own rounding: 3e-12 at Σ|ln B_t| = 519).
//! Consecutive pieces with equal parameters are merged into one run (their factors computed
//! once). A constant schedule is dispatched to the constant bound ([`super::delta`]), bit for
//! bit; the general path agrees with it to ~1e-13.
//!
//! # Spans and blocks
//! Each order's formula runs over a [`Span`] of pieces (its first step given), returning a
//! partial state (a sum of logs, a log-sum, ...). Up to [`BLOCK`] pieces the span is the whole
//! schedule (the values above); beyond, `steps_blocks` cuts the pieces into blocks of
//! [`BLOCK`], evaluates the spans in parallel and combines their states in a fixed order (the
//! same bits for any thread count), and `steps_source` feeds the same blocks from a
//! [`super::steps_source::StepSource`] one chunk at a time.

use crate::dd::two_prod;
use crate::error::{PabiError, Result};
use crate::gd::Radii;
use crate::num::bisect::first_ok;
use crate::num::round::{add_dn, add_up, exp_up, ln_dn};
use crate::setup::{check_broadcast, SetupArgs, N_MAX};

use super::ab_factors::{factors_one, Fac};
use super::at;
use super::fixed_precise::{precise_lb, wants_precise, Geo};
use super::params::{
    check_eps, check_index_option, check_sigma, check_target, Model, Noise, Order, Params,
};
use super::steps_blocks::BLOCK;
use super::steps_sums::{ln_mg_up, lse_up, LogSum, UpSum};

/// The per-step (or per-piece) arguments. Every slice has length 1 (the same value for every
/// piece) or the number of pieces P; `run_lengths` (length P) gives the steps of each piece
/// (None: each piece is one step, P = the longest slice).
#[derive(Debug, Clone, Copy)]
pub struct StepParams<'a> {
    pub noise: Noise,
    /// [`Order::Fixed`], [`Order::Shuffled`] or [`Order::RandomStop`].
    pub order: Order,
    /// σ_t (Gaussian std) or v_t (Laplace scale), > 0.
    pub sigma: &'a [f64],
    /// (L_t, η_t, D_t, β_t, ρ_t).
    pub setup: SetupArgs<'a>,
    pub run_lengths: Option<&'a [f64]>,
    /// 1-based step of the differing record (fixed: required; shuffled: None; random stop:
    /// None = the worst case).
    pub index: Option<f64>,
}

/// The factors of one run, with what the precise ln B needs (r_B, a piece of the run, ε).
struct Run {
    f: Fac,
    rb: f64,
    j: usize,
    eps: f64,
}

/// Validated per-step arguments: the number of pieces and of steps (of the whole schedule: a
/// chunk of a [`super::steps_source::StepSource`] holds some of its steps).
pub(super) struct Steps<'a> {
    pub(super) p: StepParams<'a>,
    pub(super) pieces: usize,
    pub(super) n: f64,
}

/// A range of pieces `[lo, hi)` holding steps `off + 1 ..= off + len` (1-based): the whole
/// schedule, or one block of the block path (`steps_blocks`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Span {
    pub(super) lo: usize,
    pub(super) hi: usize,
    pub(super) off: f64,
    pub(super) len: f64,
}

/// The contribution of a span to the random-stop bound at index i (forwards): ln A_i (once
/// the run holding i is reached, `started`), ln of the sum of the partial products since i
/// (from 1 at i) and the log-product of the span's factors after i.
#[derive(Debug, Clone, Copy)]
pub(super) struct AtPart {
    pub(super) started: bool,
    pub(super) la: f64,
    pub(super) ls: LogSum,
    pub(super) lp: UpSum,
}

/// The geometric part of a span ([`Steps::geo_part`]): a log-sum and the log-product of the
/// span's factors. Backwards, the contribution of a span to the shuffled sum,
/// ln Σ_{i in span} A_i·∏_{t>i, t in span} B_t; forwards, the span's map of the random stop's
/// worst case, ln α = ln Σ_{T in span} ∏_{t=s}^T B_t (s its first step).
#[derive(Debug, Clone, Copy)]
pub(super) struct GeoPart {
    pub(super) tot: LogSum,
    pub(super) lp: UpSum,
}

/// The domain checks of per-step values (`pieces` entries or broadcast): σ, the setup's
/// ranges and the step contraction of every piece, the first bad index named.
pub(super) fn check_values(p: &StepParams, pieces: usize) -> Result<()> {
    let s = p.setup;
    check_sigma(p.sigma)?;
    s.check_ranges()?;
    if s.contraction_scalar() {
        s.at(0).contraction()?;
    } else {
        for j in 0..pieces {
            s.at(j).contraction().map_err(|e| e.at(j))?;
        }
    }
    Ok(())
}

/// The options' checks: `index` given with the fixed order, not with the shuffled one, the
/// corrected random stop; the index within 1..=n.
pub(super) fn check_options(order: Order, index: Option<f64>, n: f64) -> Result<()> {
    check_index_option(order, index.map(|i| move || i.to_string()))?;
    if order == Order::RandomStopAsPublished {
        return Err(PabiError::option(
            "variant",
            "'corrected' (per-step parameters)",
            "as_published",
        ));
    }
    if let Some(i) = index {
        crate::setup::index(i, n)?;
    }
    Ok(())
}

/// The lengths of the per-step arguments: the number of pieces ([`StepParams::pieces`]), after
/// the empty and broadcast checks.
pub(super) fn check_lengths(p: &StepParams) -> Result<usize> {
    let lens = p.lens();
    let pieces = p.pieces();
    let runs_len = p.run_lengths.map(|r| ("run_lengths", r.len()));
    if let Some((name, _)) = lens.iter().chain(runs_len.iter()).find(|l| l.1 == 0) {
        return Err(PabiError::Shape {
            message: format!("{name} is empty (the per-step arguments need at least one step)"),
        });
    }
    check_broadcast(pieces, &lens)?;
    Ok(pieces)
}

/// Evaluations of δ in one target's exact search over the doubles ([`search`]: a bracket over
/// the exponents, then a bisection over the 63 bits of a non-negative double; about this many).
pub(super) const SEARCH_PASSES: usize = 130;

impl StepParams<'_> {
    /// The (name, length) of the setup's arrays and σ, in the order of the checks.
    fn lens(&self) -> Vec<(&'static str, usize)> {
        let mut lens = self.setup.lens();
        lens.push(("noise_scale", self.sigma.len()));
        lens
    }

    /// The number of pieces: the run lengths' length, or the longest argument (unchecked).
    fn pieces(&self) -> usize {
        match self.run_lengths {
            Some(r) => r.len(),
            None => self.lens().iter().map(|l| l.1).max().unwrap_or(1),
        }
    }

    /// The work of a call with `len` outputs, in piece evaluations (saturating): each output
    /// evaluates δ once over the pieces, or [`SEARCH_PASSES`] times for an inversion
    /// (`inverse`: ε(δ)). What the bindings compare with their threshold of a long
    /// (interruptible) call; no bound on the work (the pieces are given in memory).
    pub fn work(&self, len: usize, inverse: bool) -> usize {
        let evals = if inverse { SEARCH_PASSES } else { 1 };
        len.saturating_mul(evals).saturating_mul(self.pieces())
    }
}

impl<'a> Steps<'a> {
    /// Every check before any work: lengths, domains (first bad index named), the step
    /// contraction of every piece, the run lengths and their total (< 2^53), the index.
    fn new(p: StepParams<'a>) -> Result<Steps<'a>> {
        let pieces = check_lengths(&p)?;
        check_values(&p, pieces)?;
        let n = match p.run_lengths {
            None => pieces as f64,
            Some(r) => {
                let mut n = 0.0;
                for (j, &m) in r.iter().enumerate() {
                    let ok = (1.0..N_MAX).contains(&m) && m == m.floor();
                    if !ok || n + m >= N_MAX {
                        let allowed = if ok {
                            "integers >= 1 whose total is below 2^53"
                        } else {
                            "an integer in [1, 2^53)"
                        };
                        return Err(PabiError::domain("run_lengths", allowed, m).at(j));
                    }
                    n += m;
                }
                n
            }
        };
        check_options(p.order, p.index, n)?;
        Ok(Steps { p, pieces, n })
    }

    /// Every piece (all the steps).
    #[inline(always)]
    pub(super) fn full(&self) -> Span {
        Span {
            lo: 0,
            hi: self.pieces,
            off: 0.0,
            len: self.n,
        }
    }

    #[inline(always)]
    pub(super) fn run_len(&self, j: usize) -> f64 {
        self.p.run_lengths.map_or(1.0, |r| r[j])
    }

    /// Whether piece j of this chunk and piece k of `o` (this chunk, or another chunk of the same
    /// schedule) have the same parameters (then the same factors).
    #[inline(always)]
    pub(super) fn same(&self, j: usize, o: &Steps, k: usize) -> bool {
        let (s, t) = (&self.p.setup, &o.p.setup);
        let eq = |x: &[f64], y: &[f64]| at(x, j) == at(y, k);
        eq(self.p.sigma, o.p.sigma)
            && eq(s.max_grad_norm, t.max_grad_norm)
            && eq(s.lr, t.lr)
            && eq(s.diameter, t.diameter)
            && eq(s.strong_convexity, t.strong_convexity)
            && match (s.smoothness, t.smoothness) {
                (Some(x), Some(y)) => eq(x, y),
                (None, None) => true,
                _ => false,
            }
    }

    /// Every piece has the parameters of the first.
    pub(super) fn constant(&self) -> bool {
        (1..self.pieces).all(|j| self.same(0, self, j))
    }

    /// The factors of piece j at ε (A, ln A rounded up; u = 1 − B rounded down; ln B rounded
    /// up), as in the constant bound, with the radius r_B and the piece.
    #[inline(always)]
    fn factors(&self, eps: f64, j: usize) -> Result<Run> {
        let s = self.p.setup.at(j);
        let m = s.contraction().map_err(|e| e.at(j))?.m;
        let (ra, rb) = Radii::new(s.max_grad_norm, m, s.diameter, s.lr).at(at(self.p.sigma, j));
        let f = factors_one(self.p.noise, Order::Fixed, true, eps, ra, rb);
        Ok(Run { f, rb, j, eps })
    }

    /// k·ln B of a run as an unevaluated pair (hi, lo): exact (fma residual) for the fast ln B
    /// (rounded up); where |k·ln B| makes the fast ln B too coarse (the rule of the constant
    /// bound's fixed order, `fixed_precise`), from the double-double ln B (rounded up), whichever
    /// is smaller.
    #[inline(always)]
    fn k_lb(&self, r: &Run, k: f64) -> (f64, f64) {
        let lb = r.f.lb;
        if k == 0.0 {
            return (0.0, 0.0);
        }
        if lb == f64::NEG_INFINITY {
            return (lb, 0.0);
        }
        let (p, e) = two_prod(k, lb);
        if !wants_precise(self.p.noise, p, r.rb, 1.0) {
            return (p, e);
        }
        let g = Geo::at(&self.p.setup, r.j);
        match precise_lb(self.p.noise, &g, r.eps, at(self.p.sigma, r.j)) {
            Some(lb) => {
                let t = lb.mul_f(k);
                if add_up(t.hi, t.lo) < add_dn(p, e) {
                    (t.hi, t.lo)
                } else {
                    (p, e)
                }
            }
            None => (p, e),
        }
    }

    /// The runs of equal consecutive pieces of the span, in step order (or reversed).
    #[inline(always)]
    fn runs(&self, sp: Span, rev: bool) -> Runs<'_, 'a> {
        Runs {
            st: self,
            sp,
            rev,
            k: 0,
            done: 0.0,
            count: 0,
        }
    }

    /// ln δ (upper bound, ≤ 0; −∞ where δ = 0) by the general per-run formulas: over the whole
    /// schedule in one span, or in blocks (`steps_blocks`) beyond [`BLOCK`] pieces.
    #[inline(always)]
    fn log_delta_general(&self, eps: f64) -> Result<f64> {
        if self.pieces > BLOCK {
            return super::steps_blocks::log_delta_blocks(self, eps);
        }
        let sp = self.full();
        let total = match (self.p.order, self.p.index) {
            (Order::Fixed, Some(i)) => self.fixed_part(eps, i, sp)?.upper(),
            (Order::Shuffled, _) => self.geo_part(eps, sp, true)?.tot.upper(),
            (_, Some(i)) => {
                let a = self.at_part(eps, i, sp)?;
                add_up(a.la, a.ls.upper())
            }
            (_, None) => self.worst_part(eps, sp, f64::NEG_INFINITY)?,
        };
        Ok(finish(self.p.order, total, self.n))
    }

    /// ln A_i + Σ_{t>i} ln B_t over the span (its steps from i on).
    #[inline(always)]
    pub(super) fn fixed_part(&self, eps: f64, i: f64, sp: Span) -> Result<UpSum> {
        let mut acc = UpSum::default();
        for x in self.runs(sp, false) {
            let (j, s, m) = x?;
            let end = s + m - 1.0;
            if end < i {
                continue;
            }
            let r = self.factors(eps, j)?;
            if s <= i {
                acc.add(r.f.la);
                acc.add_pair(self.k_lb(&r, end - i));
            } else {
                acc.add_pair(self.k_lb(&r, m));
            }
            if acc.hi == f64::NEG_INFINITY {
                break;
            }
        }
        Ok(acc)
    }

    /// ln A_i + ln S_i, S_i = Σ_{T=i}^n ∏_{t=i+1}^T B_t, over the span: the step i itself (1),
    /// then each later run of m steps adds P·B·m·G(u, m), P the product before it.
    #[inline(always)]
    pub(super) fn at_part(&self, eps: f64, i: f64, sp: Span) -> Result<AtPart> {
        let mut a = AtPart {
            started: false,
            la: f64::NEG_INFINITY,
            ls: LogSum::new(f64::NEG_INFINITY),
            lp: UpSum::default(),
        };
        for x in self.runs(sp, false) {
            let (j, s, m) = x?;
            let end = s + m - 1.0;
            if end < i {
                continue;
            }
            let r = self.factors(eps, j)?;
            let k = if s <= i {
                a.started = true;
                a.la = r.f.la;
                a.ls = LogSum::new(0.0);
                end - i
            } else {
                m
            };
            if k > 0.0 {
                a.ls.add(add_up(add_up(a.lp.upper(), r.f.lb), ln_mg_up(r.f.u, k)));
                a.lp.add_pair(self.k_lb(&r, k));
            }
            if a.lp.hi == f64::NEG_INFINITY {
                break;
            }
        }
        Ok(a)
    }

    /// max_i ln(A_i·S_i) over the span, backwards, given `lr` = ln(B_{e+1}·S_{e+1}) of the step
    /// after the span (−∞: none): on a run [s, e] of factor B, S_e = 1 + B_{e+1}·S_{e+1}
    /// (B_{e+1}, S_{e+1} those of the next run's first step) and
    /// S_s = (m − 1)·G(u, m − 1) + B^{m−1}·S_e; S_j is monotone on the run, so its maximum is
    /// max(S_s, S_e).
    #[inline(always)]
    pub(super) fn worst_part(&self, eps: f64, sp: Span, mut lr: f64) -> Result<f64> {
        let mut best = f64::NEG_INFINITY;
        for x in self.runs(sp, true) {
            let (j, _, m) = x?;
            let r = self.factors(eps, j)?;
            let lse = lse_up(0.0, lr);
            let lss = if m > 1.0 {
                let mut t = UpSum::default();
                t.add_pair(self.k_lb(&r, m - 1.0));
                t.add(lse);
                lse_up(ln_mg_up(r.f.u, m - 1.0), t.upper())
            } else {
                lse
            };
            best = best.max(add_up(r.f.la, lss.max(lse)));
            lr = add_up(r.f.lb, lss);
        }
        Ok(best)
    }

    /// The geometric part of the span ([`GeoPart`]), ln Σ_runs X·P·m·G(u, m) and
    /// ln ∏_{t in span} B_t, each run of m steps weighted by the product P of the runs already
    /// passed. Backwards (`rev`) with X = A: the shuffled sum Σ_i A_i·∏_{t>i} B_t. Forwards with
    /// X = B: the span's map x ↦ α + β·x from B_{e+1}·S_{e+1} after the span to B_s·S_s at its
    /// first step s (random stop, worst case), α = Σ_{T in span} ∏_{t=s}^T B_t, β the product.
    /// Every term rounded up (the sums, and S, increase in A, B and G).
    #[inline(always)]
    pub(super) fn geo_part(&self, eps: f64, sp: Span, rev: bool) -> Result<GeoPart> {
        let (mut tot, mut lp) = (LogSum::new(f64::NEG_INFINITY), UpSum::default());
        for x in self.runs(sp, rev) {
            let (j, _, m) = x?;
            let r = self.factors(eps, j)?;
            let lead = if rev { r.f.la } else { r.f.lb };
            // add_up is symmetric (the TwoSum residual of a + b is that of b + a)
            tot.add(add_up(add_up(lead, lp.upper()), ln_mg_up(r.f.u, m)));
            lp.add_pair(self.k_lb(&r, m));
            if lp.hi == f64::NEG_INFINITY {
                break;
            }
        }
        Ok(GeoPart { tot, lp })
    }
}

/// ln δ from the order's total: as is for the fixed order, − ln n (rounded up) for the
/// averaged ones; at most 0.
pub(super) fn finish(order: Order, total: f64, n: f64) -> f64 {
    if matches!(order, Order::Fixed) {
        total.min(0.0)
    } else {
        add_up(total, -ln_dn(n)).min(0.0)
    }
}

/// The runs of equal consecutive pieces of a [`Span`] of [`Steps`]: (a piece of the run, its
/// first step, its number of steps), forwards or backwards; the interrupt flag is polled every
/// 4096 runs.
struct Runs<'s, 'a> {
    st: &'s Steps<'a>,
    sp: Span,
    rev: bool,
    k: usize,
    done: f64,
    count: u32,
}

impl Iterator for Runs<'_, '_> {
    type Item = Result<(usize, f64, f64)>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let (st, sp) = (self.st, self.sp);
        let p = sp.hi - sp.lo;
        if self.k >= p {
            return None;
        }
        let idx = |k: usize| if self.rev { sp.hi - 1 - k } else { sp.lo + k };
        let j0 = idx(self.k);
        let mut m = st.run_len(j0);
        let mut k1 = self.k + 1;
        while k1 < p && st.same(j0, st, idx(k1)) {
            m += st.run_len(idx(k1));
            k1 += 1;
        }
        self.count = self.count.wrapping_add(1);
        if self.count & 0xfff == 0 {
            if let Err(e) = crate::interrupt::check() {
                self.k = p;
                return Some(Err(e));
            }
        }
        let first = if self.rev {
            sp.off + (sp.len - self.done - m + 1.0)
        } else {
            sp.off + (self.done + 1.0)
        };
        self.done += m;
        self.k = k1;
        Some(Ok((j0, first, m)))
    }
}

simd! {
    /// [`Steps::log_delta_general`] compiled for the best instruction set (the fma of the
    /// directed operations, the engine's kernels inlined).
    pub(super) fn log_delta_simd(st: &Steps, eps: f64) -> Result<f64> {
        st.log_delta_general(eps)
    }
}

/// δ from its log (upper bound, ≤ 1; 0 where ln δ = −∞).
#[inline(always)]
pub(super) fn value(l: f64) -> f64 {
    if l == f64::NEG_INFINITY {
        0.0
    } else {
        exp_up(l).min(1.0)
    }
}

/// `f` on the constant bound's arguments for a constant schedule (the first piece, n steps).
fn with_constant<R>(st: &Steps, f: impl FnOnce(Params) -> Result<R>) -> Result<R> {
    let s = st.p.setup;
    let (l, lr, d, rho) = (
        [s.max_grad_norm[0]],
        [s.lr[0]],
        [s.diameter[0]],
        [s.strong_convexity[0]],
    );
    let beta = s.smoothness.map(|b| [b[0]]);
    let (n, ix, sg) = ([st.n], st.p.index.map(|i| [i]), [st.p.sigma[0]]);
    let p = Params {
        model: Model {
            noise: st.p.noise,
            order: st.p.order,
            setup: SetupArgs {
                max_grad_norm: &l,
                lr: &lr,
                diameter: &d,
                smoothness: beta.as_ref().map(|b| &b[..]),
                strong_convexity: &rho,
            },
            n: &n,
            index: ix.as_ref().map(|i| &i[..]),
        },
        sigma: &sg,
    };
    f(p)
}

/// δ of a constant schedule through the constant bound (bit for bit).
pub(super) fn constant_delta(st: &Steps, eps: f64, log: bool) -> Result<f64> {
    with_constant(st, |p| {
        let mut out = [0.0];
        super::delta::run_delta(&[eps], p, &mut out, log)?;
        Ok(out[0])
    })
}

/// δ(ε) (or ln δ with `log`) of PNSGD with per-step parameters, for each ε of `eps` (upper
/// bounds). With `dispatch`, a constant schedule is evaluated by the constant bound
/// ([`super::delta`], bit for bit); otherwise (and always for a varying schedule) by the
/// per-run formulas.
pub fn stepwise_delta(
    eps: &[f64],
    p: StepParams,
    out: &mut [f64],
    log: bool,
    dispatch: bool,
) -> Result<()> {
    check_lead(eps, out.len(), false)?;
    let st = Steps::new(p)?;
    let constant = (dispatch && st.constant()).then_some(&st);
    fill_delta(eps, out, log, constant, |_, e| log_delta_simd(&st, e))
}

/// [`stepwise_delta`] for many candidate noise sequences at once (a calibration's probes):
/// element j is δ(`eps[j]`) of the schedule `p` whose noise is `factor[j]`·σ_t (each product
/// rounded to nearest, as numpy's `multiply`), bit for bit the one-schedule call with that
/// noise, or that call's own error (e.g. a product that overflows to +inf). `eps` and
/// `factor` have one length (checked before any work); the elements run in parallel
/// ([`crate::driver::each`]), each allocating its one noise sequence. The outer error is a
/// stop request only.
pub fn stepwise_delta_factors(
    eps: &[f64],
    factor: &[f64],
    p: StepParams,
    dispatch: bool,
) -> Result<Vec<Result<f64>>> {
    if eps.len() != factor.len() {
        return Err(PabiError::Shape {
            message: "eps and the noise factors must have one length".into(),
        });
    }
    let items: Vec<(f64, f64)> = eps.iter().copied().zip(factor.iter().copied()).collect();
    let out = crate::driver::each(items, |(e, c)| {
        let sigma: Vec<f64> = p.sigma.iter().map(|s| c * s).collect();
        let q = StepParams { sigma: &sigma, ..p };
        let mut o = [0.0];
        stepwise_delta(&[e], q, &mut o, false, dispatch).map(|()| o[0])
    });
    crate::driver::unless_interrupted(out)
}

/// The checks of a stepwise call's lead argument, before the steps' (the same for an array
/// and a source): its length (1 or the output's), then its domain: ε ≥ 0 ([`check_eps`]) or,
/// for an inversion, the targets δ in (0, 1) ([`check_target`]).
pub(super) fn check_lead(x: &[f64], len: usize, inverse: bool) -> Result<()> {
    if inverse {
        check_broadcast(len, &[("delta", x.len())])?;
        check_target(x)
    } else {
        check_broadcast(len, &[("eps", x.len())])?;
        check_eps(x)
    }
}

/// δ (ln δ with `log`) at each ε of `eps` into `out`: by the constant bound where the schedule
/// is `constant` (its steps; bit for bit), else from ln δ = `ld(j, ε)` of element j.
pub(super) fn fill_delta(
    eps: &[f64],
    out: &mut [f64],
    log: bool,
    constant: Option<&Steps>,
    ld: impl Fn(usize, f64) -> Result<f64>,
) -> Result<()> {
    for (j, o) in out.iter_mut().enumerate() {
        let e = at(eps, j);
        *o = match constant {
            Some(st) => constant_delta(st, e, log)?,
            None if log => ld(j, e)?,
            None => value(ld(j, e)?),
        };
    }
    Ok(())
}

/// The smallest ε with δ(ε) ≤ target for each target of `delta` in (0, 1): an exact search
/// over the bit patterns of ε ([`first_ok`]) on the certified δ (the value returned by
/// [`stepwise_delta`]), so the returned ε is never below the exact inverse. A constant schedule (with
/// `dispatch`) goes to the constant bound's inverse ([`super::epsilon`]).
pub fn stepwise_epsilon(
    delta: &[f64],
    p: StepParams,
    out: &mut [f64],
    dispatch: bool,
) -> Result<()> {
    check_lead(delta, out.len(), true)?;
    let st = Steps::new(p)?;
    if dispatch && st.constant() {
        return constant_epsilon(&st, delta, out);
    }
    search(delta, out, &|e| log_delta_simd(&st, e))
}

/// For each target t of `delta`, the smallest ε with δ(ε) ≤ t, δ from its log `ld(ε)` (an
/// exact search over the bit patterns of ε, [`first_ok`]); the first error of `ld` stops it.
pub(super) fn search(
    delta: &[f64],
    out: &mut [f64],
    ld: &dyn Fn(f64) -> Result<f64>,
) -> Result<()> {
    for (j, o) in out.iter_mut().enumerate() {
        let t = at(delta, j);
        let err = std::cell::Cell::new(None);
        let ok = |e: f64| match ld(e) {
            Ok(l) => value(l) <= t,
            Err(x) => {
                err.set(Some(x));
                true
            }
        };
        let v = first_ok(&ok, 1.0);
        if let Some(x) = err.take() {
            return Err(x);
        }
        if !v.is_finite() {
            return Err(PabiError::domain("delta", "a value reached by some finite eps", t).at(j));
        }
        *o = v;
    }
    Ok(())
}

/// ε of a constant schedule through the constant inverse (bit for bit).
pub(super) fn constant_epsilon(st: &Steps, delta: &[f64], out: &mut [f64]) -> Result<()> {
    with_constant(st, |p| super::epsilon(delta, p, out))
}
