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
//! The factors are those of the constant bound ([`factors_one`]): A and ln A rounded up (ln A
//! also as ln of the rounded-up A where that is tighter), u rounded down (G decreases in u),
//! ln B rounded up (towards 0; from the double-double ln B where |m·ln B| is large, as in the
//! fixed order of the constant bound). Everything else is in log space with the operations of
//! [`crate::num::round`]: m·ln B exact ([`two_prod`]), the sums of logs in an [`UpSum`] (the
//! TwoSum errors kept, their own rounding bounded and added: ~2 ulp whatever the number of
//! runs), the log-sums ln Σ e^x in a [`LogSum`] (each correction ln(1 + e^{−d}) rounded up with d
//! rounded down, added to an [`UpSum`]), ln(m·G) by [`ln_up`] of an upward product, and − ln n by
//! [`ln_dn`]. Measured against the 50-digit reference: ≲ 1e-13 relative for a few pieces; with
//! 3000 distinct steps, ln δ within 4e-14 (shuffled, random stop) and, for the fixed order,
//! within ~6e-15·Σ|ln B_t| (the per-step factors' own rounding: 3e-12 at Σ|ln B_t| = 519).
//! Consecutive pieces with equal parameters are merged into one run (their factors computed
//! once). A constant schedule is dispatched to the constant bound ([`super::delta`]), bit for
//! bit; the general path agrees with it to ~1e-13.

use multiversion::multiversion;

use crate::dd::{two_prod, two_sum};
use crate::error::{PabiError, Result};
use crate::gd::Radii;
use crate::num::bisect::first_ok;
use crate::num::geometric_average;
use crate::num::round::{add_dn, add_up, exp_up, ln_dn, ln_up, mul_up, up, U};
use crate::setup::{check_broadcast, SetupArgs, N_MAX};
use crate::vmath;

use super::ab_factors::{factors_one, Fac};
use super::at;
use super::fixed_precise::{precise_lb, wants_precise, Geo};
use super::params::{check_eps, check_sigma, check_target, Model, Noise, Order, Params};

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

/// Validated per-step arguments: the number of pieces and of steps.
struct Steps<'a> {
    p: StepParams<'a>,
    pieces: usize,
    n: f64,
}

impl<'a> Steps<'a> {
    /// Every check before any work: lengths, domains (first bad index named), the step
    /// contraction of every piece, the run lengths and their total (< 2^53), the index.
    fn new(p: StepParams<'a>) -> Result<Steps<'a>> {
        let s = p.setup;
        let mut lens = s.lens();
        lens.push(("noise_scale", p.sigma.len()));
        let pieces = match p.run_lengths {
            Some(r) => r.len(),
            None => lens.iter().map(|l| l.1).max().unwrap_or(1),
        };
        let runs_len = p.run_lengths.map(|r| ("run_lengths", r.len()));
        if let Some((name, _)) = lens.iter().chain(runs_len.iter()).find(|l| l.1 == 0) {
            return Err(PabiError::Shape {
                message: format!("{name} is empty (the per-step arguments need at least one step)"),
            });
        }
        check_broadcast(pieces, &lens)?;
        check_sigma(p.sigma)?;
        s.check_ranges()?;
        if s.contraction_scalar() {
            s.at(0).contraction()?;
        } else {
            for j in 0..pieces {
                s.at(j).contraction().map_err(|e| e.at(j))?;
            }
        }
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
        match (p.order, p.index) {
            (Order::Fixed, None) => {
                return Err(PabiError::option(
                    "index",
                    "given with ordering='fixed' (the 1-based step of the differing record)",
                    "None",
                ))
            }
            (Order::Shuffled, Some(i)) => {
                return Err(PabiError::option(
                    "index",
                    "None with ordering='shuffled' (the bound is uniform in the index)",
                    i.to_string(),
                ))
            }
            (Order::RandomStopAsPublished, _) => {
                return Err(PabiError::option(
                    "variant",
                    "'corrected' (per-step parameters)",
                    "as_published",
                ))
            }
            _ => {}
        }
        if let Some(i) = p.index {
            crate::setup::index(i, n)?;
        }
        Ok(Steps { p, pieces, n })
    }

    #[inline(always)]
    fn run_len(&self, j: usize) -> f64 {
        self.p.run_lengths.map_or(1.0, |r| r[j])
    }

    /// Whether pieces j and k have the same parameters (then the same factors).
    #[inline(always)]
    fn same(&self, j: usize, k: usize) -> bool {
        let s = &self.p.setup;
        let eq = |x: &[f64]| x.len() == 1 || x[j] == x[k];
        eq(self.p.sigma)
            && eq(s.max_grad_norm)
            && eq(s.lr)
            && eq(s.diameter)
            && eq(s.strong_convexity)
            && s.smoothness.is_none_or(eq)
    }

    /// Every piece has the parameters of the first.
    fn constant(&self) -> bool {
        (1..self.pieces).all(|j| self.same(0, j))
    }

    /// The factors of piece j at ε (A, ln A rounded up; u = 1 − B rounded down; ln B rounded
    /// up), as in the constant bound, with the radius r_B and the piece.
    #[inline(always)]
    fn factors(&self, eps: f64, j: usize) -> Result<Run> {
        let s = self.p.setup.at(j);
        let m = s.contraction().map_err(|e| e.at(j))?.m;
        let (ra, rb) = Radii::new(s.max_grad_norm, m, s.diameter, s.lr).at(at(self.p.sigma, j));
        let mut f = factors_one(self.p.noise, Order::Fixed, true, eps, ra, rb);
        if f.a > 1e-300 {
            // ln of A (θ rounded up, 2^-46 relative) rounded up: tighter than the engine's ln θ
            // (~1e-14 relative of ln A) where A is a normal double; both are upper bounds
            f.la = f.la.min(ln_up(f.a));
        }
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

    /// The runs of equal consecutive pieces, in step order (or reversed).
    #[inline(always)]
    fn runs(&self, rev: bool) -> Runs<'_, 'a> {
        Runs {
            st: self,
            rev,
            k: 0,
            done: 0.0,
            count: 0,
        }
    }

    /// ln δ (upper bound, ≤ 0; −∞ where δ = 0) by the general per-run formulas.
    #[inline(always)]
    fn log_delta_general(&self, eps: f64) -> Result<f64> {
        let total = match (self.p.order, self.p.index) {
            (Order::Fixed, Some(i)) => self.fixed(eps, i)?,
            (Order::Shuffled, _) => self.shuffled(eps)?,
            (_, Some(i)) => self.random_stop_at(eps, i)?,
            (_, None) => self.random_stop_worst(eps)?,
        };
        Ok(if matches!(self.p.order, Order::Fixed) {
            total.min(0.0)
        } else {
            add_up(total, -ln_dn(self.n)).min(0.0)
        })
    }

    /// ln A_i + Σ_{t>i} ln B_t.
    #[inline(always)]
    fn fixed(&self, eps: f64, i: f64) -> Result<f64> {
        let mut acc = UpSum::default();
        for x in self.runs(false) {
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
        Ok(acc.upper())
    }

    /// ln A_i + ln S_i, S_i = Σ_{T=i}^n ∏_{t=i+1}^T B_t: the step i itself (1), then each
    /// later run of m steps adds P·B·m·G(u, m), P the product before it.
    #[inline(always)]
    fn random_stop_at(&self, eps: f64, i: f64) -> Result<f64> {
        let (mut la, mut ls, mut lp) = (f64::NEG_INFINITY, LogSum::new(0.0), UpSum::default());
        for x in self.runs(false) {
            let (j, s, m) = x?;
            let end = s + m - 1.0;
            if end < i {
                continue;
            }
            let r = self.factors(eps, j)?;
            let k = if s <= i {
                la = r.f.la;
                end - i
            } else {
                m
            };
            if k > 0.0 {
                ls.add(add_up(add_up(lp.upper(), r.f.lb), ln_mg_up(r.f.u, k)));
                lp.add_pair(self.k_lb(&r, k));
            }
            if lp.hi == f64::NEG_INFINITY {
                break;
            }
        }
        Ok(add_up(la, ls.upper()))
    }

    /// ln Σ_i A_i·∏_{t>i} B_t, backwards: a run of m steps with the product P after it adds
    /// A·P·m·G(u, m).
    #[inline(always)]
    fn shuffled(&self, eps: f64) -> Result<f64> {
        let (mut tot, mut lp) = (LogSum::new(f64::NEG_INFINITY), UpSum::default());
        for x in self.runs(true) {
            let (j, _, m) = x?;
            let r = self.factors(eps, j)?;
            tot.add(add_up(add_up(r.f.la, lp.upper()), ln_mg_up(r.f.u, m)));
            lp.add_pair(self.k_lb(&r, m));
            if lp.hi == f64::NEG_INFINITY {
                break;
            }
        }
        Ok(tot.upper())
    }

    /// max_i ln(A_i·S_i), backwards: on a run [s, e] of factor B, S_e = 1 + B_{e+1}·S_{e+1}
    /// (B_{e+1}, S_{e+1} those of the next run's first step) and
    /// S_s = (m − 1)·G(u, m − 1) + B^{m−1}·S_e; S_j is monotone on the run, so its maximum is
    /// max(S_s, S_e).
    #[inline(always)]
    fn random_stop_worst(&self, eps: f64) -> Result<f64> {
        let mut best = f64::NEG_INFINITY;
        // ln(B_{e+1}·S_{e+1}) of the run after the current one (−∞: none)
        let mut lr = f64::NEG_INFINITY;
        for x in self.runs(true) {
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
}

/// The runs of equal consecutive pieces of [`Steps`]: (a piece of the run, its first step,
/// its number of steps), forwards or backwards; the interrupt flag is polled every 4096 runs.
struct Runs<'s, 'a> {
    st: &'s Steps<'a>,
    rev: bool,
    k: usize,
    done: f64,
    count: u32,
}

impl Iterator for Runs<'_, '_> {
    type Item = Result<(usize, f64, f64)>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let (st, p) = (self.st, self.st.pieces);
        if self.k >= p {
            return None;
        }
        let idx = |k: usize| if self.rev { p - 1 - k } else { k };
        let j0 = idx(self.k);
        let mut m = st.run_len(j0);
        let mut k1 = self.k + 1;
        while k1 < p && st.same(j0, idx(k1)) {
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
            st.n - self.done - m + 1.0
        } else {
            self.done + 1.0
        };
        self.done += m;
        self.k = k1;
        Some(Ok((j0, first, m)))
    }
}

/// A sum of logarithms (terms ≤ 0 or −∞) with an upward-certified value: each addition keeps its
/// exact rounding error (TwoSum) in `lo`; `lo` itself is summed with error ≤ n·u·Σ|e| (recursive
/// summation, Higham §4.2), which [`UpSum::upper`] adds. The error of the result is then ~2 ulp
/// of the sum and n·u² of the terms, whatever the number n of terms (a directed addition per
/// term would add up to n ulp).
#[derive(Debug, Clone, Copy, Default)]
struct UpSum {
    hi: f64,
    lo: f64,
    /// Σ|e| (to nearest)
    mag: f64,
    n: f64,
}

impl UpSum {
    #[inline(always)]
    fn add(&mut self, x: f64) {
        if x == f64::NEG_INFINITY || self.hi == f64::NEG_INFINITY {
            self.hi = f64::NEG_INFINITY;
            return;
        }
        let (s, e) = two_sum(self.hi, x);
        self.hi = s;
        self.lo += e;
        self.mag += e.abs();
        self.n += 1.0;
    }

    #[inline(always)]
    fn add_pair(&mut self, (hi, lo): (f64, f64)) {
        self.add(hi);
        if lo != 0.0 {
            self.add(lo);
        }
    }

    /// The sum rounded up: hi + lo rounded up, plus the bound (1 + 2^-46)·n·u·Σ|e| on the
    /// rounding of lo (+∞ partial sums cannot occur: every term is ≤ 0; an overflow to −∞ of
    /// finite terms is returned as −f64::MAX, its upward rounding).
    #[inline(always)]
    fn upper(&self) -> f64 {
        if self.hi == f64::NEG_INFINITY {
            return f64::NEG_INFINITY;
        }
        if !self.hi.is_finite() {
            return -f64::MAX;
        }
        add_up(add_up(self.hi, self.lo), up(self.n * U * self.mag))
    }
}

impl UpSum {
    /// The sum rounded down (the mirror of [`UpSum::upper`]).
    #[inline(always)]
    fn lower(&self) -> f64 {
        if !self.hi.is_finite() {
            return f64::NEG_INFINITY;
        }
        add_dn(add_dn(self.hi, self.lo), -up(self.n * U * self.mag))
    }
}

/// ln Σ e^{x_k} accumulated term by term with a certified upper value: the running total is an
/// [`UpSum`] to which each term adds its correction ln(1 + e^{−d}) (rounded up, d rounded down
/// from the total's lower value: the correction decreases in d), so the total's rounding does not
/// accumulate; a term above the total restarts it from the term (d from the total's upper value).
#[derive(Debug, Clone, Copy)]
struct LogSum {
    acc: UpSum,
    empty: bool,
}

impl LogSum {
    /// ln e^{x0} (the empty sum when x0 = −∞).
    #[inline(always)]
    fn new(x0: f64) -> LogSum {
        let mut acc = UpSum::default();
        acc.add(x0);
        LogSum {
            acc,
            empty: x0 == f64::NEG_INFINITY,
        }
    }

    #[inline(always)]
    fn add(&mut self, x: f64) {
        if x == f64::NEG_INFINITY {
            return;
        }
        if self.empty {
            *self = LogSum::new(x);
            return;
        }
        let lo = self.acc.lower();
        if x <= lo {
            self.acc.add(corr_up(add_dn(lo, -x)));
        } else {
            let c = corr_up(add_dn(x, -self.acc.upper()));
            *self = LogSum::new(x);
            self.acc.add(c);
        }
    }

    #[inline(always)]
    fn upper(&self) -> f64 {
        if self.empty {
            f64::NEG_INFINITY
        } else {
            self.acc.upper()
        }
    }
}

/// ln(1 + e^{−d}) for d ≥ 0 (d rounded down by the caller), rounded up: `vmath` to a few ulp,
/// moved up by [`up`].
#[inline(always)]
fn corr_up(d: f64) -> f64 {
    up(vmath::log1p(vmath::exp(-d.max(0.0))))
}

/// ln(m·G(u, m)) = ln Σ_{k<m} (1 − u)^k rounded up (u rounded down by the caller: G decreases
/// in u): G to ~3 ulp ([`geometric_average`]) moved up by [`up`], the product and the log
/// rounded up; exactly 0 for m = 1.
#[inline(always)]
fn ln_mg_up(u: f64, m: f64) -> f64 {
    if m == 1.0 {
        return 0.0;
    }
    ln_up(mul_up(m, up(geometric_average(u, m))))
}

/// ln(e^a + e^b) rounded up: the gap d = |a − b| rounded down, ln(1 + e^{−d}) (decreasing in d;
/// `vmath` to a few ulp) moved up by [`up`], added to the larger by [`add_up`].
#[inline(always)]
fn lse_up(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    add_up(hi, corr_up(add_dn(hi, -lo)))
}

simd! {
    /// [`Steps::log_delta_general`] compiled for the best instruction set (the fma of the
    /// directed operations, the engine's kernels inlined).
    fn log_delta_simd(st: &Steps, eps: f64) -> Result<f64> {
        st.log_delta_general(eps)
    }
}

/// δ from its log (upper bound, ≤ 1; 0 where ln δ = −∞).
#[inline(always)]
fn value(l: f64) -> f64 {
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
fn constant_delta(st: &Steps, eps: f64, log: bool) -> Result<f64> {
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
    check_broadcast(out.len(), &[("eps", eps.len())])?;
    check_eps(eps)?;
    let st = Steps::new(p)?;
    let constant = dispatch && st.constant();
    for (j, o) in out.iter_mut().enumerate() {
        let e = at(eps, j);
        *o = if constant {
            constant_delta(&st, e, log)?
        } else {
            let l = log_delta_simd(&st, e)?;
            if log {
                l
            } else {
                value(l)
            }
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
    check_broadcast(out.len(), &[("delta", delta.len())])?;
    check_target(delta)?;
    let st = Steps::new(p)?;
    if dispatch && st.constant() {
        return constant_epsilon(&st, delta, out);
    }
    for (j, o) in out.iter_mut().enumerate() {
        let t = at(delta, j);
        let err = std::cell::Cell::new(None);
        let ok = |e: f64| match log_delta_simd(&st, e) {
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
fn constant_epsilon(st: &Steps, delta: &[f64], out: &mut [f64]) -> Result<()> {
    with_constant(st, |p| super::epsilon(delta, p, out))
}
