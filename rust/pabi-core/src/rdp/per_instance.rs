//! Per-instance RDP of DP-SGD over a training run, and per-instance (ε, δ) via L_p norms.
//!
//! Thudi et al., *Gradients look alike* (USENIX Security 2024): Thm 3.3 (Hölder composition of
//! the per-step sampled Gaussian RDP of Thm 3.2, soft-max form, orders from `holder.rs`) and
//! Cor. 3.1 (the L_p-norm (ε, δ)). Derivation and the rounding of each term:
//! docs/derivations/rdp.md.

use super::checks::{check_alpha, check_p, check_q, check_sensitivities, gt1, unit_open};
use super::gaussian_mechanism::{amplify, gaussian_dp_constant};
use super::holder::{
    holder_ceil_order_of, holder_log_rho, holder_order, holder_order_at, holder_order_up,
    order_map_overflow, OrderMap,
};
use super::logexp::{log_mean_exp, LME_DIRECT_MAX};
use super::sampled_gaussian::{sgm_rdp_value_floor, Fractional, SgmTable};
use super::scalar::mul0;
use crate::error::{PabiError, Result};
use crate::num::dd::{div_dd, expm1_dd, ln_dd, log1p_dd, sqr_dd, Dd, LN2_DD};
use crate::num::logspace::{log_add_exp_std, log_expm1_std, Neumaier};
use crate::num::round::up_order;
use crate::num::round::up_signed;
use crate::num::{neumaier_sum, HALF_ULP_ONE, INFLATE, TINY};
use rayon::prelude::*;

/// Largest order the Hölder composition may require before reporting an order blow-up.
pub const MAX_COMPOSITION_ORDER: f64 = 1.0e5;

/// Largest total size Σ (order − 1) of the binomial tables one per-instance composition
/// builds (2^27 entries, 1 GiB): beyond it the composition is refused before allocating.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 27;

/// Steps per block of the search for runs of equal orders (a fixed size: the runs found do not
/// depend on the thread count).
const RUN_BLOCK: usize = 1 << 13;

/// 0 < q < 1: the tables hold entries (q = 0 and q = 1 need none).
fn interior_q(q: f64) -> bool {
    q > 0.0 && q < 1.0
}

/// Log-gap below the row maximum beyond which a sample is bounded by its chord value.
const SKIP_GAP: f64 = 45.0;

/// Options of the per-instance DP-SGD composition.
#[derive(Debug, Clone, Copy)]
pub struct CompositionOptions {
    pub map: OrderMap,
    /// Hoeffding upper-confidence mode: (failure probability J in (0, 1), max sensitivity,
    /// required in this mode: `None` is a domain error naming `max_sensitivity`).
    pub ucb: Option<(f64, Option<f64>)>,
    /// The per-step RDP at a fractional Hölder order β_i: [`Fractional::Exact`] (the exact
    /// divergence at β_i rounded up, never above the ceiling rule's) or [`Fractional::Ceil`]
    /// (the divergence at ⌈β_i⌉, the paper's integer-order form: faster, up to tens of per cent
    /// looser).
    pub fractional: Fractional,
}

/// Per-instance RDP of DP-SGD over a training run (002 Thm 3.3, soft-max form, §2.7).
///
/// `sens` is row-major (steps × samples): row j (0-based) holds the per-record sensitivities
/// observed at step j + 1 over independent runs. Returns the n per-step terms in training
/// order (term of step 1 first); the bound is their (compensated) sum.
#[allow(clippy::too_many_arguments)]
pub fn dpsgd_per_instance_terms(
    alpha: f64,
    q: f64,
    sigma: f64,
    sens: &[f64],
    steps: usize,
    samples: usize,
    p: f64,
    opts: CompositionOptions,
) -> Result<Vec<f64>> {
    check_alpha(alpha, MAX_COMPOSITION_ORDER)?;
    check_q(q)?;
    if !(sigma > 0.0) {
        return Err(PabiError::domain("noise_scale", "> 0 (not NaN)", sigma));
    }
    check_p(p)?;
    if steps == 0 || samples == 0 {
        return Err(PabiError::Shape {
            message: format!(
                "sensitivities must be a non-empty (steps, samples) array, got ({steps}, {samples})"
            ),
        });
    }
    if steps.checked_mul(samples) != Some(sens.len()) {
        return Err(PabiError::Shape {
            message: format!(
                "sensitivities has {} values, expected steps*samples = {steps}*{samples}",
                sens.len(),
            ),
        });
    }
    // the sensitivities' domain (>= 0 and finite) is checked row by row inside the parallel
    // pass below (a row is in cache there; a separate pass read the whole array once more,
    // about a tenth of a one-thread call), and by `check_sens` before any other error that
    // the old order reported after it
    let check_sens = || {
        crate::batch::check(sens, "sensitivities", ">= 0 and finite", |x| {
            x >= 0.0 && x.is_finite()
        })
    };
    let mut ln_ucb = f64::NEG_INFINITY;
    let mut cmax = 0.0;
    if let Some((conf, smax)) = opts.ucb {
        check_sens()?;
        if !(conf > 0.0 && conf < 1.0) {
            return Err(PabiError::domain("failure_prob", "in (0, 1)", conf));
        }
        let Some(smax) = smax else {
            return Err(PabiError::domain(
                "max_sensitivity",
                ">= 0 and finite (required with failure_prob)",
                f64::NAN,
            ));
        };
        if !(smax >= 0.0 && smax.is_finite()) {
            return Err(PabiError::domain(
                "max_sensitivity",
                ">= 0 and finite",
                smax,
            ));
        }
        crate::batch::check(sens, "sensitivities", "<= max_sensitivity", |x| x <= smax)?;
        // union bound over the n - 1 random terms
        let j = conf / (steps.max(2) - 1) as f64;
        ln_ucb = 0.5 * f64::ln(-f64::ln(j) / (2.0 * samples as f64));
        let rm = smax / sigma;
        cmax = 0.5 * rm * rm;
    }
    let n = steps as u64;
    // orders per term i = 0..n-1 (term i belongs to step n - i)
    let (beta_max, _) = holder_order(alpha, p, n - 1, opts.map);
    if !(beta_max <= MAX_COMPOSITION_ORDER && (p * (beta_max - 1.0)).is_finite()) {
        check_sens()?;
        return Err(order_map_overflow(
            alpha,
            p,
            steps,
            beta_max,
            MAX_COMPOSITION_ORDER,
        ));
    }
    // binomial tables for the distinct integer orders (β_i is increasing in i); their total
    // size Σ (order − 1) is checked before any is built: orders spread over [α, 1e5] across
    // 1e5 steps asked for ~1e9 entries (8 GB)
    // per-step orders and Hölder weights (powers: ~10 ms serially at 1e5 steps), in parallel
    // for long runs; each element depends on its index only (β_i once per step and ⌈β_i⌉ from
    // it, ln ρ once per call)
    let lrho = holder_log_rho(p);
    let per_step = |i: u64| {
        let bk = holder_order_at(alpha, p, lrho, i, opts.map);
        (holder_ceil_order_of(alpha, p, lrho, i, opts.map, bk.0), bk)
    };
    let steps_info = crate::driver::map_range(n, steps >= 4096, per_step);
    // the runs of equal orders (their first index and order: each k whose order differs from
    // k − 1's), found per block of RUN_BLOCK steps on the pool and concatenated in block order
    // (the list a serial pass gives; 0.3 ms serially at 1e5 steps), and the total table size
    // Σ (order − 1) over the runs
    let info = &steps_info;
    let runs: Vec<(usize, u64)> =
        crate::driver::map_range(steps.div_ceil(RUN_BLOCK) as u64, steps >= 4096, |b| {
            let lo = b as usize * RUN_BLOCK;
            (lo..(lo + RUN_BLOCK).min(steps))
                .filter(|&k| k == 0 || info[k - 1].0 != info[k].0)
                .map(|k| (k, info[k].0))
                .collect::<Vec<_>>()
        })
        .concat();
    let entries = runs.iter().fold(0u64, |e, &(_, o)| e.saturating_add(o - 1));
    if interior_q(q) && entries > MAX_TABLE_ENTRIES {
        check_sens()?;
        // a resource limit set by the order map: raising p lowers every order (a Domain error
        // naming p, as `order_map_overflow` does for the order cap)
        return Err(PabiError::domain(
            "holder_exponent",
            format!(
                "such that the {steps} steps need at most {MAX_TABLE_ENTRIES} binomial-table \
                 entries ({} MiB; they need {entries}: the orders beta_i range up to {:e} at \
                 alpha = {alpha}); p = 3*steps keeps every order below 1 + 1.5(alpha - 1), or \
                 lower alpha",
                (MAX_TABLE_ENTRIES * 8) >> 20,
                beta_max
            ),
            p,
        ));
    }
    let tables: Vec<SgmTable> = runs.iter().map(|&(_, o)| SgmTable::new(o, q)).collect();
    let table_of = |i: usize| &tables[runs.partition_point(|r| r.0 <= i) - 1];
    // the upper-confidence mode validated the whole array above; otherwise each row is checked
    // once, by the fractional pass below or in the terms' pass
    let validated = opts.ucb.is_some();
    let frac = if opts.fractional == Fractional::Exact {
        FracDivergences::new(
            alpha,
            q,
            sigma,
            sens,
            (steps, samples),
            p,
            &opts,
            cmax,
            (!validated).then_some(&check_sens),
            &table_of,
        )?
    } else {
        FracDivergences::default()
    };
    let bad_row = std::sync::atomic::AtomicBool::new(false);
    // `buf`: the row's exponents t·D_s, one buffer per worker (reused across its rows)
    let term = |i: usize, buf: &mut Vec<f64>| -> f64 {
        if crate::interrupt::requested() {
            return 0.0; // discarded: checked after the loop
        }
        let step = steps - 1 - i; // 0-based row
        let row = &sens[step * samples..(step + 1) * samples];
        let (beta, kappa) = steps_info[i].1;
        if let Some(fr) = frac.row(i) {
            // the row was checked (or validated) and its divergences evaluated above
            return frac.term(fr, kappa, row, p, opts.ucb.is_some(), ln_ucb, buf);
        }
        if !validated
            && !row
                .iter()
                .fold(true, |ok, &x| ok & (0.0..=f64::MAX).contains(&x))
        {
            bad_row.store(true, std::sync::atomic::Ordering::Relaxed);
            return f64::NAN; // discarded: `check_sens` reports the first bad value
        }
        let tab = table_of(i);
        if i == steps - 1 {
            // first step: deterministic; take the max
            let smax = row.iter().copied().fold(0.0, f64::max);
            let (c, c_lo) = half_square_dd(smax, sigma);
            return kappa * tab.rdp_dd(c, c_lo);
        }
        let t = p * (beta - 1.0);
        let (crow, crow_lo) = half_square_dd(row.iter().copied().fold(0.0, f64::max), sigma);
        let tdm = t * tab.rdp_dd(crow, crow_lo);
        let plain = if tdm > SKIP_GAP + 5.0 {
            // ln A(c) is convex in c with ln A(0) = 0, so D(c) ≤ (c/c_max)·D(c_max): samples
            // whose chord bound lies SKIP_GAP below the row maximum contribute < e^-SKIP_GAP
            // each and are bounded (upward) by that chord value instead of being evaluated.
            let (mut sum, mut nsk, mut ub_max) = (0.0, 0usize, f64::NEG_INFINITY);
            for &x in row {
                let (c, c_lo) = half_square_dd(x, sigma);
                if c >= crow {
                    sum += 1.0;
                    continue;
                }
                let ub = tdm * (c / crow) * (1.0 + 1e-12);
                if ub - tdm < -SKIP_GAP {
                    nsk += 1;
                    ub_max = ub_max.max(ub);
                } else {
                    sum += f64::exp(t * tab.rdp_dd(c, c_lo) - tdm);
                }
            }
            if nsk > 0 {
                sum += nsk as f64 * f64::exp(ub_max - tdm);
            }
            Some(tdm + f64::ln(sum / samples as f64))
        } else if tab.direct_ok(crow) {
            Some(row_direct(&tab.pmf, tab.order, row, sigma, t).1)
        } else {
            None
        };
        if let Some(mut l) = plain {
            if opts.ucb.is_some() {
                let dmax = tab.rdp(cmax);
                l = log_add_exp_std(l, log_expm1_std(t * dmax) + ln_ucb);
            }
            return kappa * (l / t);
        }
        buf.clear();
        buf.extend(row.iter().map(|&s| {
            let (c, c_lo) = half_square_dd(s, sigma);
            t * tab.rdp_dd(c, c_lo)
        }));
        let mut l = log_mean_exp(buf);
        if opts.ucb.is_some() {
            let dmax = tab.rdp(cmax);
            l = log_add_exp_std(l, log_expm1_std(t * dmax) + ln_ucb);
        }
        kappa * (l / t)
    };
    // terms[j] is the term of step j + 1 (training order): term i = steps − 1 − j, rounded
    // upward by INFLATE relative (logmeanexp adds a few ulp), written in the parallel pass
    let mut terms = vec![0.0; steps];
    let fill = |buf: &mut Vec<f64>, (j, o): (usize, &mut f64)| {
        *o = up_order(term(steps - 1 - j, buf), 2.0)
    };
    match crate::batch::pool() {
        Some(pl) if steps * samples >= 4096 => pl.install(|| {
            terms
                .par_iter_mut()
                .with_min_len(64)
                .enumerate()
                .for_each_init(|| Vec::with_capacity(samples), fill)
        }),
        _ => {
            let mut buf = Vec::with_capacity(samples);
            terms
                .iter_mut()
                .enumerate()
                .for_each(|jo| fill(&mut buf, jo))
        }
    }
    crate::interrupt::check()?;
    if bad_row.into_inner() {
        check_sens()?;
        return Err(PabiError::internal(
            "a sensitivities row was flagged that passes validation",
        ));
    }
    Ok(terms)
}

/// c = r²/2 of r = s/σ as a double-double (c, c_lo), |c_lo| ≤ ulp(c): r and r² to ~2^-104
/// (div_dd, sqr_dd; halving exact). The former 0.5·fl(s/σ)² was up to 3u below c, and D is
/// ~1300·(relative change of c) where ln A cancels (q tiny, c α(α − 1) ≈ −α ln q):
/// dpsgd_per_instance_rdp(52.0, 4.49e-12, σ = 1.2392941647773654, [[1.2523906852179743]])
/// was 3.2e-13 below the exact value, beyond the per-step RDP's proven margin. Outside
/// [1e-280, 1e280] (subnormal parts, overflow of the square) c is the rounded value raised by
/// four ulps (≥ its ≤ 2-ulp error) and c_lo = 0; an underflowed c of a positive s/σ (σ finite)
/// is the smallest double (D is increasing in c and D(0) = 0 would fall below the exact value).
fn half_square_dd(s: f64, sigma: f64) -> (f64, f64) {
    let r = s / sigma;
    let c = 0.5 * r * r;
    if c > 1e-280 && c < 1e280 {
        let (rh, rl) = div_dd(s, sigma);
        let (ph, pl) = sqr_dd(rh, rl);
        return (0.5 * ph, 0.5 * pl);
    }
    if c == 0.0 {
        // exact 0 for s = 0 or σ = inf; otherwise an underflow of a positive value
        let pos = s > 0.0 && sigma.is_finite();
        return (if pos { f64::from_bits(1) } else { 0.0 }, 0.0);
    }
    (c.next_up().next_up().next_up().next_up(), 0.0)
}

/// Chunk of the parallel evaluation of the fractional-order divergences (each costs 10–100 µs:
/// a chunk is about a millisecond, the granularity of the interrupt checks).
const FRAC_CHUNK: usize = 16;

/// One row of the composition at a fractional order `b` (≥ the exact β_i, below the row's
/// integer table order ⌈β_i⌉): its distinct sensitivities `keys[start..start + len]` (sorted;
/// the first step's row keeps only its maximum) and the divergences at them in the same
/// places of `d`; with the Hoeffding term, D at c_max at `start + len`.
#[derive(Debug, Clone, Copy)]
struct FracRow {
    b: f64,
    start: usize,
    len: usize,
    first: bool,
}

/// The sampled Gaussian RDP at the exact fractional orders of a composition, every distinct
/// (order, sensitivity) pair evaluated once, in parallel over all rows before the terms are
/// formed (a row of 64 samples was one serial task of ~1–6 ms; the terms' pass parallelises
/// over rows only).
#[derive(Debug, Default)]
struct FracDivergences {
    /// per term i: 1 + the index of its row in `rows` (0: the term has an integer order)
    of_term: Vec<u32>,
    rows: Vec<FracRow>,
    keys: Vec<f64>,
    d: Vec<f64>,
}

impl FracDivergences {
    /// The rows of the terms at fractional orders and their divergences. With `check_sens`
    /// (the array not validated yet) each such row is checked here, a bad value answered by
    /// `check_sens`'s error (the first bad value of the whole array).
    #[allow(clippy::too_many_arguments)]
    fn new<'a>(
        alpha: f64,
        q: f64,
        sigma: f64,
        sens: &[f64],
        (steps, samples): (usize, usize),
        p: f64,
        opts: &CompositionOptions,
        cmax: f64,
        check_sens: Option<&dyn Fn() -> Result<()>>,
        table_of: &(dyn Fn(usize) -> &'a SgmTable + Sync),
    ) -> Result<FracDivergences> {
        let mut out = FracDivergences {
            of_term: vec![0; steps],
            ..Default::default()
        };
        // the tables of the orders ⌊b⌋ of the lower clamp (b increases with i: one per order)
        let mut floors: Vec<SgmTable> = Vec::new();
        let mut floor_of: Vec<Option<u32>> = Vec::new();
        let lrho = holder_log_rho(p);
        for i in 0..steps {
            let tab = table_of(i);
            let b = holder_order_up(alpha, p, lrho, i as u64, opts.map);
            if !(b != b.floor() && b < tab.order as f64) {
                continue;
            }
            let step = steps - 1 - i;
            let row = &sens[step * samples..(step + 1) * samples];
            if let Some(check) = check_sens {
                if !row.iter().all(|&x| (0.0..=f64::MAX).contains(&x)) {
                    check()?;
                    return Err(PabiError::internal(
                        "a sensitivities row was flagged that passes validation",
                    ));
                }
            }
            let first = i == steps - 1;
            let start = out.keys.len();
            if first {
                out.keys.push(row.iter().copied().fold(0.0, f64::max));
            } else {
                out.keys.extend_from_slice(row);
                let k = &mut out.keys[start..];
                k.sort_unstable_by(f64::total_cmp);
                let mut m = 0;
                for j in 0..k.len() {
                    if j == 0 || k[j] != k[m - 1] {
                        k[m] = k[j];
                        m += 1;
                    }
                }
                out.keys.truncate(start + m);
            }
            let len = out.keys.len() - start;
            let r = out.rows.len() as u32;
            if opts.ucb.is_some() && !first {
                out.keys.push(f64::NAN); // D at c_max, never looked up by a sensitivity
            }
            let lo = b.floor();
            let fl = if lo >= 2.0 {
                if floors.last().map(|t| t.order) != Some(lo as u64) {
                    floors.push(SgmTable::new(lo as u64, q));
                }
                Some(floors.len() as u32 - 1)
            } else {
                None
            };
            floor_of.push(fl);
            out.rows.push(FracRow {
                b,
                start,
                len,
                first,
            });
            out.of_term[i] = r + 1;
        }
        if out.keys.is_empty() {
            return Ok(out);
        }
        let tabs: Vec<&SgmTable> = (0..steps)
            .filter(|&i| out.of_term[i] != 0)
            .map(table_of)
            .collect();
        // one divergence per key: at c = r²/2 of the sensitivity, or at c_max
        let mut d = vec![0.0; out.keys.len()];
        let (rows, keys) = (&out.rows, &out.keys);
        crate::driver::for_chunks([&mut d], 2 * FRAC_CHUNK, FRAC_CHUNK, |s0, [o]| {
            for (j, v) in (s0..).zip(o.iter_mut()) {
                let r = rows.partition_point(|fr| fr.start <= j) - 1;
                let c = if j - rows[r].start < rows[r].len {
                    // the fractional path takes c alone: c rounded up past c + c_lo
                    let (c, c_lo) = half_square_dd(keys[j], sigma);
                    if c_lo > 0.0 {
                        c.next_up()
                    } else {
                        c
                    }
                } else {
                    cmax
                };
                let fl = floor_of[r].map(|f| &floors[f as usize]);
                *v = sgm_rdp_value_floor(rows[r].b, q, c, Fractional::Exact, tabs[r], fl);
            }
            Ok(())
        })?;
        out.d = d;
        Ok(out)
    }

    /// The fractional row of term i, if it has one.
    #[inline]
    fn row(&self, i: usize) -> Option<&FracRow> {
        match self.of_term.get(i) {
            Some(&k) if k > 0 => Some(&self.rows[k as usize - 1]),
            _ => None,
        }
    }

    /// One term at the fractional order `fr.b`: the first step's κ·max_s D_s or the later
    /// steps' κ·(1/t)·ln mean_s e^{t D_s} with t = p(b − 1), the Hoeffding term added as on the
    /// integer path. Every quantity is non-decreasing in `b`, in t and in each D_s, so the
    /// term is ≥ the exact one at β_i. `buf`: the caller's scratch for the row's t·D_s.
    #[allow(clippy::too_many_arguments)]
    fn term(
        &self,
        fr: &FracRow,
        kappa: f64,
        row: &[f64],
        p: f64,
        ucb: bool,
        ln_ucb: f64,
        buf: &mut Vec<f64>,
    ) -> f64 {
        let keys = &self.keys[fr.start..fr.start + fr.len];
        let d = &self.d[fr.start..];
        if fr.first {
            return kappa * d[0];
        }
        let t = p * (fr.b - 1.0);
        buf.clear();
        buf.extend(row.iter().map(|&s| t * d[keys.partition_point(|&k| k < s)]));
        let mut l = log_mean_exp(buf);
        if ucb {
            let dmax = d[fr.len];
            l = log_add_exp_std(l, log_expm1_std(t * dmax) + ln_ucb);
        }
        kappa * (l / t)
    }
}

simd! {
    /// Row kernel of the composition on the direct path, multiversioned so that the `vmath`
    /// kernels and the k-recurrences vectorize across samples (AVX2/AVX-512 + FMA clones).
    /// Returns (max_s D_s, ln mean_s e^{t D_s}) with D_s = up_signed(ln A_s/(α − 1)).
    #[allow(clippy::needless_range_loop)]
    pub(super) fn row_direct(pmf: &[f64], order: u64, row: &[f64], sigma: f64, t: f64) -> (f64, f64) {
        const B: usize = 32;
        let am1 = (order - 1) as f64;
        let scale = (1.0 + INFLATE * (1.0 + (order as f64).log2())) / am1;
        let (a, u) = (order as f64, HALF_ULP_ONE);
        let recur = (3.5 * a * a + 4.0 * a + 20.0) * u * 1.01 <= INFLATE * (1.0 + a.log2()) - 4.0 * u;
        let mut dmax = 0.0_f64;
        let mut sum = 0.0;
        let mut shift = f64::NEG_INFINITY;
        let (mut direct, mut count) = (Neumaier::default(), 0usize);
        let mut d = [0.0_f64; B];
        for chunk in row.chunks(B) {
            let len = chunk.len();
            // fixed trip counts (padded with r = 0) so that every loop vectorizes
            let mut x = [0.0_f64; B];
            x[..len].copy_from_slice(chunk);
            let (mut ch, mut cl) = ([0.0_f64; B], [0.0_f64; B]);
            let (mut acc, mut e, mut m) = ([0.0_f64; B], [0.0_f64; B], [0.0_f64; B]);
            for s in 0..B {
                // c = r²/2 as a double-double (see `half_square_dd`; c ≤ 300 here)
                let (rh, rl) = div_dd(x[s], sigma);
                let (ph, pl) = sqr_dd(rh, rl);
                ch[s] = 0.5 * ph;
                cl[s] = 0.5 * pl;
            }
            if recur {
                // G_k = G_{k−1} + m(1 + G_{k−1}) = expm1(2ck), F_{k+1} = F_k + G_k + F_k G_k =
                // expm1(ck(k + 1)), m = expm1(2c) within E_m ≤ 4u (expm1's ulp, c_lo's first-order
                // term). All positive: a sum errs ≤ its terms' + u, so E_G(k) ≤ k(E_m + 3u),
                // E_F(α) ≤ 3.5α²u + 3αu + 4u: inside `scale` for α ≤ 12 (`recur`, with the pmf's
                // 6.01u, the sum's αu, ln_1p's and the products'); else expm1 per k (below)
                for s in 0..B {
                    let mh = crate::vmath::expm1(2.0 * ch[s]);
                    m[s] = (1.0 + mh).mul_add(2.0 * cl[s], mh);
                }
                let (mut g, mut f) = (m, m);
                for &pk in pmf {
                    for s in 0..B {
                        acc[s] += pk * f[s];
                        g[s] += m[s] * (1.0 + g[s]);
                        f[s] += g[s] + f[s] * g[s];
                    }
                }
            } else {
                // F_k = F̂ + (1 + F̂)·x_lo, x̂ + x_lo = (c + c_lo)k(k − 1): 3.01u (`log_a_dd`)
                for (i, &pk) in pmf.iter().enumerate() {
                    let kk = ((i + 2) * (i + 1)) as f64; // k(k − 1), exact
                    for s in 0..B {
                        let xx = ch[s] * kk;
                        let x_lo = ch[s].mul_add(kk, -xx) + cl[s] * kk;
                        let f = crate::vmath::expm1(xx);
                        acc[s] += pk * (f + (1.0 + f) * x_lo);
                    }
                }
            }
            for s in 0..B {
                d[s] = crate::vmath::log1p(acc[s]) * scale + TINY;
            }
            let cm = d[..len].iter().copied().fold(0.0, f64::max);
            dmax = dmax.max(cm);
            // streaming log-mean-exp of t·d ≥ 0 (see `log_mean_exp`): Σ expm1(t·d) while the
            // running max stays ≤ LME_DIRECT_MAX (no cancellation when t·d ≪ 1), then the
            // shifted sum Σ e^{t·d − shift}, rescaled when the running max grows
            let cmax = cm * t;
            if shift == f64::NEG_INFINITY && cmax <= LME_DIRECT_MAX {
                for s in 0..B {
                    e[s] = crate::vmath::expm1(t * floor_d(x[s], d[s]));
                }
                // chunk sums (≤ 31 ulp) accumulated with Neumaier's compensation
                let v = e[..len].iter().sum::<f64>();
                direct.add(v);
                count += len;
                continue;
            }
            if shift == f64::NEG_INFINITY {
                // switch: Σ e^{x − shift} over the elements so far = (Σ expm1(x) + count)·e^{−shift}
                sum = (direct.value() + count as f64) * f64::exp(-cmax);
                shift = cmax;
            }
            if cmax > shift {
                sum *= f64::exp(shift - cmax);
                shift = cmax;
            }
            for s in 0..B {
                e[s] = crate::vmath::exp(t * floor_d(x[s], d[s]) - shift);
            }
            sum += e[..len].iter().sum::<f64>();
        }
        let lme = if shift == f64::NEG_INFINITY {
            f64::ln_1p(direct.value() / row.len() as f64)
        } else {
            shift + f64::ln(sum / row.len() as f64)
        };
        (dmax, lme)
    }
}

/// D as used in e^{t·D}: exactly 0 for a zero sensitivity (and the padded lanes), otherwise at
/// least 1e-280 (an upward change). D is TINY, a subnormal, where the sum is 0 or tiny, and
/// subnormal operands cost a microcode assist per vector operation (2.7x the row time).
#[inline(always)]
fn floor_d(sens: f64, d: f64) -> f64 {
    if sens == 0.0 {
        0.0
    } else {
        d.max(1e-280)
    }
}

/// Per-instance (ε', δ'') from the L_p norm of the sensitivity distribution (Thudi et al.
/// Cor. 3.1, stable form §2.4): K = ln mean_k e^{p C Δ_k}, η = (ln q + K − ln δ')/(p − 1),
/// ε' = ln(1 − q + q e^η), δ'' = qδ + δ'. `sens` are samples of Δ(X_B) over batches.
/// Valid only where every per-batch C_{δ,σ}Δ ≤ 1 (the returned flag).
pub fn lp_per_instance_eps_delta(
    q: f64,
    p: f64,
    delta: f64,
    delta_prime: f64,
    sigma: f64,
    sens: &[f64],
) -> Result<(f64, f64, bool)> {
    if !(q > 0.0 && q <= 1.0) {
        return Err(PabiError::domain("sample_rate", "in (0, 1]", q));
    }
    gt1("lp_exponent", p)?;
    unit_open("delta_prime", delta_prime)?;
    check_sensitivities(sens)?;
    let c = gaussian_dp_constant(delta, sigma)?;
    let xs: Vec<f64> = sens.iter().map(|&d| mul0(p * c, d)).collect();
    let k = log_mean_exp(&xs);
    let (lq, ldp) = (q.ln(), delta_prime.ln());
    let eta = (lq + k - ldp) / (p - 1.0);
    let eta = eta + INFLATE * (eta.abs() + (lq.abs() + k.abs() + ldp.abs()) / (p - 1.0));
    // both are upper bounds on the exact η; the double-double one is within a few ulp of it
    // (the margin above is 128u·(|ln q| + |ln δ'|)/(p − 1): 8e-7 relative in ε' at
    // q = δ' = 5e-324, p = 1.0000266, where the exact η·(p − 1) is K alone)
    let eta = match lp_eta_up(q, p, delta, delta_prime, sigma, sens) {
        Some(e) => e.min(eta),
        None => eta,
    };
    let smax = sens.iter().copied().fold(0.0, f64::max);
    let eps = amplify(eta, q);
    // ε' = ln(1 + q expm1(η)) has the sign of η: a positive exact value whose q·expm1(η)
    // underflowed (q = 5e-324: ε' ~ 1e-324) is the smallest bound TINY, never 0
    let eps = if eta > 0.0 && eps <= 0.0 {
        TINY
    } else {
        up_signed(eps)
    };
    Ok((
        eps,
        up_signed(q * delta + delta_prime),
        mul0(c, smax) <= 1.0,
    ))
}

/// Largest sample count whose L_p log-mean-exp is formed in double-double (~0.2 µs a sample).
const LP_DD_MAX: usize = 1 << 16;

/// ln x as a double-double for a positive double x, subnormals included (`ln_dd` rescales by
/// 2^-e in one step, which leaves the normal range below 2^-1022: x·2^600 first, exactly).
fn ln_dd_pos(x: f64) -> Dd {
    const TWO_600: f64 = 4.149515568880993e180; // 2^600
    if x < 1e-290 {
        ln_dd(Dd::from_f64(x * TWO_600)) - LN2_DD.mul_f(600.0)
    } else {
        ln_dd(Dd::from_f64(x))
    }
}

/// An upper bound on η = (ln q + K − ln δ')/(p − 1), K = ln mean_k e^{p C Δ_k} with the exact
/// C = √(2 ln(1.25/δ))/σ, within a few ulp of η plus E/(p − 1) (below); `None` where a value
/// leaves the double range (the caller keeps its wider bound).
///
/// C and x_k = p C Δ_k are double-doubles (relative error ≤ 2^-98). K = x_m + L with x_m the
/// largest x_k and L = ln mean_k e^{d_k}, d_k = x_k − x_m ≤ 0: up to [`LP_DD_MAX`] samples L
/// is a double-double (bound in the code); beyond, d_k is rounded to doubles (|error| ≤
/// u|d_k|, moving L by ≤ Σ w_k u|d_k| ≤ u·max|d_k|, w the soft-max weights) and for a mean
/// M = mean e^{d_k} ≥ ½, L = log1p(mean expm1(d_k)) (terms of one sign: the argument y to
/// 5u relative, L to 5u|y|/(1 + y) + 2u|L| ≤ 12u|L|; 16u taken), otherwise ln M (M to 5u:
/// 8u + 2u|L| taken);
/// one sample: d = 0, L = 0 exactly. ln q − ln δ' is exactly 0 for q = δ', otherwise a
/// double-double difference (2^-98 of each logarithm plus 2^-103 near 1). The sum s, its
/// bound E and the quotient by the exact double-double p − 1 (2^-100) are rounded up once.
/// Cancellation of ln q − ln δ' against K is thus carried to ~u·(x_m + |L|), not to
/// 128u·(|ln q| + |ln δ'|).
fn lp_eta_up(
    q: f64,
    p: f64,
    delta: f64,
    delta_prime: f64,
    sigma: f64,
    sens: &[f64],
) -> Option<f64> {
    let u = HALF_ULP_ONE;
    let tol = 3.2e-30; // 2^-98
    let l = ln_dd(Dd::from_f64(1.25)) - ln_dd_pos(delta);
    let c = l.mul_f(2.0).sqrt().div_f(sigma);
    if !(c.hi.is_finite() && c.hi > 0.0) {
        return None;
    }
    let cp = c.mul_f(p);
    let xs: Vec<Dd> = sens
        .iter()
        .map(|&d| if d == 0.0 { Dd::default() } else { cp.mul_f(d) })
        .collect();
    let xm = xs.iter().copied().fold(Dd::default(), |a, b| {
        if b.hi > a.hi || (b.hi == a.hi && b.lo > a.lo) {
            b
        } else {
            a
        }
    });
    if !xm.hi.is_finite() || xm.hi > 1e300 {
        return None;
    }
    let n = xs.len() as f64;
    let (mut ln_m, mut err) = (Dd::default(), 2.0 * tol * xm.hi + 1e-320);
    if xs.len() > 1 && xs.len() <= LP_DD_MAX {
        // L = log1p(mean_k expm1(d_k)) in double-double, d_k = x_k − x_m clamped at −700 (an
        // upward change of L): the n terms of one sign ≤ 0 summed to n·2^-104 relative, y to
        // (n + 2)·2^-104, L to that times |y|/(1 + y) ≤ n plus 2^-100|L|
        let mut y = Dd::default();
        for &x in &xs {
            let d = x - xm;
            let d = if d.hi < -700.0 {
                Dd::from_f64(-700.0)
            } else {
                d
            };
            y = y + expm1_dd(d);
        }
        let y = y.div_f(n);
        ln_m = log1p_dd(y);
        err += (n + 2.0) * n * 4.93e-32 + tol * ln_m.hi.abs();
    } else if xs.len() > 1 {
        let ds: Vec<f64> = xs.iter().map(|&x| (x - xm).to_f64()).collect();
        let dmax = ds.iter().fold(0.0f64, |a, &d| a.max(d.abs()));
        let m = neumaier_sum(ds.iter().map(|&d| f64::exp(d))) / n;
        let l = if m >= 0.5 {
            let l = f64::ln_1p(neumaier_sum(ds.iter().map(|&d| f64::exp_m1(d))) / n);
            err += 16.0 * u * l.abs();
            l
        } else {
            let l = f64::ln(m);
            err += 8.0 * u + 2.0 * u * l.abs();
            l
        };
        ln_m = Dd::from_f64(l);
        err += u * dmax.min(0.37 * n);
    }
    let k = xm + ln_m;
    let dlog = if q == delta_prime {
        Dd::default()
    } else {
        let (lq, ldp) = (ln_dd_pos(q), ln_dd_pos(delta_prime));
        err += tol * (lq.hi.abs() + ldp.hi.abs()) + 1e-31;
        lq - ldp
    };
    let s = dlog + k;
    err += tol * (s.hi.abs() + k.hi.abs());
    // p − 1 exactly (two_sum: p − 1 rounds for p > 2^53)
    let (ph, pl) = crate::num::dd::two_sum(p, -1.0);
    let den = Dd::new(ph, pl);
    let eta = s / den;
    let bound = eta.hi + (eta.lo + (err / ph) * (1.0 + 4.0 * u) + tol * eta.hi.abs());
    bound.is_finite().then(|| bound.next_up())
}
