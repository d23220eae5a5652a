//! Rényi-DP bounds: the sampled Gaussian mechanism at any order (data-independent and
//! per-instance), per-instance DP-SGD composition with Hölder's inequality, conversions.
//!
//! Sources: Thudi et al., *Gradients look alike* (USENIX Sec. 2024) Thm 3.2, Thm 3.3
//! (SPEC_rdp §2.5–2.7, with the corrected order map g_p(α) = (pα − 1)/(p − 1), erratum T1);
//! Mironov 2017 Prop. 3 and Balle et al. 2020 / Canonne–Kamath–Steinke 2020 Prop. 12
//! (SPEC_rdp §2.13); the profile → RDP bound of SPEC_pabi §5.5.
//!
//! # Sampled Gaussian RDP (Thm 3.2)
//! For integer α ≥ 2 and c = r²/2 (r = Δ/σ):
//! (α − 1)·ε(α) = ln A_α, A_α − 1 = Σ_{k=2..α} pmf_{Bin(α,q)}(k)·expm1(c k(k − 1)) ≥ 0
//! (no cancellation). Two evaluation paths share one table of binomial log-pmf values per
//! (α, q), computed by Loader's saddle-point form (stirlerr + deviance bd0: no ln C(α, k)
//! cancellation, accurate for α up to 1e5 and beyond):
//! * **direct** (α ≤ 64, c α(α − 1) ≤ 600, no pmf underflow): expm1(c k(k−1)) by the
//!   positive recurrences G_k = G_{k−1} + m(1 + G_{k−1}), F_{k+1} = F_k + G_k + F_k G_k with
//!   m = expm1(2c) (all terms positive: relative error O(α u)), then log1p(Σ pmf_k F_k);
//! * **log** (otherwise): softplus(logsumexp_k[ln pmf_k + ln expm1(c k(k − 1))]).
//!
//! Fractional α: [`Fractional::Exact`] (default of the batch API) evaluates the exact series of
//! Mironov–Talwar–Zhang 2019 §3.3 (module [`frac`]: cancellation-free A − 1, Euler-transformed
//! tails, a proven first-order bound on truncation and rounding errors that is added; where a
//! cost model prefers it, a trapezoidal quadrature of a non-negative integrand with proven
//! error bounds), capped by the ceiling rule; [`Fractional::Ceil`]
//! uses ε(⌈α⌉) (D_α is non-decreasing in α; [002] §3.2; α ∈ (1, 2] uses order 2).
//! Results are rounded up by [`INFLATE`]·(1 + log2 α).

// `!(x > 0.0)`-style checks are deliberate: they also reject NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod elementwise;
pub mod extra;
pub mod frac;

use crate::dd::Dd;
use crate::error::{PabiError, Result};
use crate::num::{neumaier_sum, HALF_ULP_ONE, INFLATE, TINY};
use rayon::prelude::*;

/// Largest order accepted by the sampled-Gaussian RDP (cost and memory are O(α)).
pub const MAX_ORDER: f64 = 1.0e7;
/// Largest order the Hölder composition may require before reporting an order blow-up.
pub const MAX_COMPOSITION_ORDER: f64 = 1.0e5;
/// Largest total size Σ (order − 1) of the binomial tables one per-instance composition
/// builds (2^27 entries, 1 GiB): beyond it the composition is refused before allocating.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 27;

/// 0 < q < 1: the tables hold entries (q = 0 and q = 1 need none).
fn interior_q(q: f64) -> bool {
    q > 0.0 && q < 1.0
}
const FAST_MAX_ORDER: u64 = 64;
const FAST_MAX_EXPONENT: f64 = 600.0;
/// Log-gap below the row maximum beyond which a sample is bounded by its chord value.
const SKIP_GAP: f64 = 45.0;
const LN_2PI: f64 = 1.837_877_066_409_345_5;

// ---------------------------------------------------------------------------------------------
// Shared scalar primitives

/// ln(1 + e^y) without overflow or cancellation.
#[inline(always)]
pub(crate) fn softplus(y: f64) -> f64 {
    if y == f64::NEG_INFINITY {
        0.0
    } else if y > 0.0 {
        y + f64::ln_1p(f64::exp(-y))
    } else {
        f64::ln_1p(f64::exp(y))
    }
}

/// ln(e^x − 1) for x ≥ 0 (−inf at 0).
#[inline(always)]
pub(crate) fn log_expm1(x: f64) -> f64 {
    if x <= 0.0 {
        f64::NEG_INFINITY
    } else if x > std::f64::consts::LN_2 {
        x + f64::ln_1p(-f64::exp(-x))
    } else {
        f64::ln(f64::exp_m1(x))
    }
}

/// Below this maximum argument [`log_mean_exp`] uses log1p(mean expm1): Σ expm1(x) stays
/// finite for up to 1e40 terms.
const LME_DIRECT_MAX: f64 = 600.0;

/// ln mean_k e^{x_k} (−inf for an empty slice).
///
/// The shifted form m + ln(mean e^{x−m}), m = max x, cancels when the result is far below m
/// (few large x among many small ones: x = t·D with t·D ≪ 1 lost 1e-11 relative in the
/// per-instance composition). For m ≤ [`LME_DIRECT_MAX`] the result is log1p(mean expm1(x)):
/// for x ≥ 0 a sum of non-negative terms, a few ulp. Beyond, the result is ≥ m − ln(len),
/// so the shifted form is well conditioned.
pub(crate) fn log_mean_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    if m <= LME_DIRECT_MAX {
        return f64::ln_1p(neumaier_sum(xs.iter().map(|&x| f64::exp_m1(x))) / xs.len() as f64);
    }
    let s = neumaier_sum(xs.iter().map(|&x| f64::exp(x - m)));
    m + f64::ln(s / xs.len() as f64)
}

/// ln Σ_k w_k e^{x_k} for weights w_k ≥ 0 (Σ w ≈ 1) and x_k ≥ 0, as [`log_mean_exp`] does the
/// mean: log1p((Σ w − 1) + Σ w_k expm1(x_k)) while max x ≤ [`LME_DIRECT_MAX`] (the shifted
/// form m + ln Σ w e^{x−m} cancels when the result is far below m: the mixture bound at
/// (α − 1)ε = 1e-4 came out 1.4e-13 below the exact value), the shifted form beyond. Zero
/// weights are skipped.
pub(crate) fn log_weighted_sum_exp(w: &[f64], xs: &[f64]) -> f64 {
    let pairs = || w.iter().zip(xs).filter(|(&wk, _)| wk > 0.0);
    let m = pairs().map(|(_, &x)| x).fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    if m <= LME_DIRECT_MAX {
        let wsum_m1 = neumaier_sum(pairs().map(|(&wk, _)| wk).chain(std::iter::once(-1.0)));
        let s = neumaier_sum(
            pairs()
                .map(|(&wk, &x)| wk * f64::exp_m1(x))
                .chain(std::iter::once(wsum_m1)),
        );
        return f64::ln_1p(s);
    }
    m + f64::ln(neumaier_sum(pairs().map(|(&wk, &x)| wk * f64::exp(x - m))))
}

/// ln(e^a + e^b) without overflow (std math: this module runs in scalar loops).
#[inline(always)]
fn log_add_exp(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m.is_infinite() {
        return m; // ±inf (inf − inf made ln(e^inf + e^inf) NaN)
    }
    m + f64::ln_1p(f64::exp(-(a - b).abs()))
}

/// ln(1 − e^x) for x ≤ 0 (Mächler).
#[inline(always)]
fn log1mexp(x: f64) -> f64 {
    if x > -std::f64::consts::LN_2 {
        f64::ln(-f64::exp_m1(x))
    } else {
        f64::ln_1p(-f64::exp(x))
    }
}

/// Round an RDP value up: relative INFLATE·(1 + log2 α) (the error of the O(α) sum grows
/// slowly with α), plus a few subnormal ulps.
#[inline(always)]
fn up_order(v: f64, order: f64) -> f64 {
    if v == 0.0 {
        return 0.0; // exact zeros (q = 0, r = 0) stay exact
    }
    v * (1.0 + INFLATE * (1.0 + order.log2().max(0.0))) + TINY
}

// ---------------------------------------------------------------------------------------------
// Binomial log-pmf (Loader 2000, as in R's dbinom_raw), with the deviance terms built from
// exactly known differences so that no 1 − q or n·(1 − q) rounding enters.

#[allow(clippy::excessive_precision)]
const STIRLERR: [f64; 16] = [
    0.0,
    0.081_061_466_795_327_258,
    0.041_340_695_955_409_294,
    0.027_677_925_684_998_339,
    0.020_790_672_103_765_093,
    0.016_644_691_189_821_192,
    0.013_876_128_823_070_748,
    0.011_896_709_945_891_770,
    0.010_411_265_261_972_096,
    0.009_255_462_182_712_733,
    0.008_330_563_433_362_871,
    0.007_573_675_487_951_841,
    0.006_942_840_107_209_530,
    0.006_408_994_188_004_207,
    0.005_951_370_112_758_848,
    0.005_554_733_551_962_801,
];

/// stirlerr(n) = ln n! − (n + ½) ln n + n − ½ ln 2π for integer n ≥ 0.
fn stirlerr(n: u64) -> f64 {
    if n < 16 {
        return STIRLERR[n as usize];
    }
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    let x = n as f64;
    let nn = x * x;
    if n > 500 {
        (S0 - S1 / nn) / x
    } else if n > 80 {
        (S0 - (S1 - S2 / nn) / nn) / x
    } else if n > 35 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / x
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / x
    }
}

/// Deviance bd0(x, M) = x ln(x/M) + M − x ≥ 0, given x, d = x − M, s = x + M and
/// ln(x/M) (the latter only used away from x ≈ M).
fn bd0(x: f64, d: f64, s: f64, ln_ratio: impl Fn() -> f64) -> f64 {
    if d.abs() < 0.1 * s {
        let mut v = d / s;
        let mut acc = d * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let next = acc + ej / (2 * j + 1) as f64;
            if next == acc {
                return next;
            }
            acc = next;
        }
        acc
    } else {
        x * ln_ratio() - d
    }
}

/// ln pmf_{Bin(n, q)}(k) for 0 < q < 1, 0 ≤ k ≤ n (lq = ln q, l1q = ln(1 − q)).
fn log_binom_pmf(k: u64, n: u64, q: f64, lq: f64, l1q: f64) -> f64 {
    if k == 0 {
        return n as f64 * l1q;
    }
    if k == n {
        return n as f64 * lq;
    }
    let (kf, nf) = (k as f64, n as f64);
    let mf = (n - k) as f64;
    let np = nf * q;
    // bd0(k, n q): d = k − nq, s = k + nq, ln(k/(nq)) = ln(k/n) − ln q.
    let b1 = bd0(kf, kf - np, kf + np, || f64::ln(kf / nf) - lq);
    // bd0(n − k, n(1 − q)): d = nq − k, s = 2n − k − nq, ln = log1p(−k/n) − ln(1 − q).
    let b2 = bd0(mf, np - kf, mf + (nf - np), || f64::ln_1p(-kf / nf) - l1q);
    let lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - b1 - b2;
    let lf = LN_2PI + f64::ln(kf) + f64::ln_1p(-kf / nf);
    lc - 0.5 * lf
}

/// Per-(order, q) table of the binomial terms k = 2..=order of Thm 3.2.
#[derive(Debug, Clone)]
pub(crate) struct SgmTable {
    order: u64,
    q: f64,
    log_pmf: Vec<f64>,
    pmf: Vec<f64>,
    direct: bool,
}

impl SgmTable {
    /// Table for integer `order` ≥ 2 and 0 ≤ q ≤ 1 (pre-validated).
    pub fn new(order: u64, q: f64) -> Self {
        let interior = q > 0.0 && q < 1.0;
        let mut log_pmf = Vec::new();
        if interior {
            let (lq, l1q) = (f64::ln(q), f64::ln_1p(-q));
            log_pmf = (2..=order)
                .map(|k| log_binom_pmf(k, order, q, lq, l1q))
                .collect();
        }
        let direct = interior && order <= FAST_MAX_ORDER && log_pmf.iter().all(|&l| l > -700.0);
        let pmf = if direct {
            log_pmf.iter().map(|&l| f64::exp(l)).collect()
        } else {
            Vec::new()
        };
        SgmTable {
            order,
            q,
            log_pmf,
            pmf,
            direct,
        }
    }

    /// Whether the direct (linear-scale) path applies at c.
    #[inline]
    pub fn direct_ok(&self, c: f64) -> bool {
        let a = self.order as f64;
        self.direct && c * a * (a - 1.0) <= FAST_MAX_EXPONENT
    }

    /// (α − 1)·ε(α) = ln A_α at c = r²/2, to nearest (a few ulp).
    #[inline]
    pub fn log_a(&self, c: f64) -> f64 {
        let a = self.order as f64;
        if self.q == 0.0 || c == 0.0 {
            return 0.0;
        }
        if self.q == 1.0 {
            return a * (a - 1.0) * c;
        }
        if c.is_infinite() {
            return f64::INFINITY;
        }
        if self.direct_ok(c) {
            let m = f64::exp_m1(2.0 * c);
            let (mut g, mut f) = (m, m);
            let mut acc = 0.0;
            for &pk in &self.pmf {
                acc += pk * f;
                g += m * (1.0 + g);
                f += g + f * g;
            }
            return f64::ln_1p(acc);
        }
        // log path
        let mut mx = f64::NEG_INFINITY;
        let terms: Vec<f64> = self
            .log_pmf
            .iter()
            .enumerate()
            .map(|(i, &lp)| {
                let k = (i + 2) as f64;
                let t = lp + log_expm1(c * (k * (k - 1.0)));
                mx = mx.max(t);
                t
            })
            .collect();
        if !mx.is_finite() {
            return 0.0;
        }
        let s = neumaier_sum(terms.iter().map(|&t| f64::exp(t - mx)));
        softplus(mx + f64::ln(s))
    }

    /// ε(α) rounded up.
    #[inline]
    pub fn rdp(&self, c: f64) -> f64 {
        let a = self.order as f64;
        let v = if self.q == 1.0 && c.is_finite() {
            // exact α c, rounded up
            up_order(a * c, 2.0)
        } else {
            up_order(self.log_a(c) / (a - 1.0), a)
        };
        if v == 0.0 && self.q > 0.0 && c > 0.0 {
            TINY // underflowed (q = 1e-200: ε ~ 1e-400), not an exact 0
        } else {
            v
        }
    }
}

/// The integer order used for a real order α > 1: ⌈α⌉, at least 2.
#[inline]
pub(crate) fn ceil_order(alpha: f64) -> u64 {
    alpha.ceil().max(2.0) as u64
}

fn check_alpha(alpha: f64, max: f64) -> Result<()> {
    if alpha > 1.0 && alpha <= max {
        Ok(())
    } else if max == f64::MAX {
        Err(PabiError::domain("alpha", "> 1 and finite", alpha))
    } else {
        Err(PabiError::domain(
            "alpha",
            format!("> 1 and <= {max:e} (not NaN)"),
            alpha,
        ))
    }
}

fn check_q(q: f64) -> Result<()> {
    if (0.0..=1.0).contains(&q) {
        Ok(())
    } else {
        Err(PabiError::domain("q", "in [0, 1]", q))
    }
}

/// How a fractional order is handled by the sampled Gaussian RDP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fractional {
    /// The exact divergence at α (Mironov–Talwar–Zhang series), never above ε(⌈α⌉).
    Exact,
    /// ε(⌈α⌉) (valid since D_α is non-decreasing in α; looser).
    Ceil,
}

/// Sampled Gaussian RDP at order α for c = r²/2 (pre-validated inputs): integer orders by the
/// binomial sum, fractional ones by `mode`.
pub(crate) fn sgm_rdp_value(alpha: f64, q: f64, c: f64, mode: Fractional, table: &SgmTable) -> f64 {
    let ceil = table.rdp(c);
    if mode == Fractional::Exact && q == 1.0 && c.is_finite() && alpha != alpha.floor() {
        // no sampling: the Gaussian mechanism's D_α = α·c at every real order (it was the
        // ceiling rule's ⌈α⌉·c, 60% above at α = 1.25), rounded up as the integer orders
        return up_order(alpha * c, 2.0).min(ceil);
    }
    if mode == Fractional::Ceil
        || alpha == alpha.floor()
        || q == 0.0
        || q == 1.0
        || c == 0.0
        || !c.is_finite()
        || ceil == 0.0
    {
        return ceil;
    }
    match frac::log_a_frac_up(alpha, q, c) {
        Some(la) => (la / (alpha - 1.0) * (1.0 + 4.0 * HALF_ULP_ONE) + TINY).min(ceil),
        None => ceil,
    }
}

/// Sampled Gaussian RDP at c = r²/2 for one (α, q, r), validated; fractional α by `mode`.
pub fn sampled_gaussian_rdp_at(alpha: f64, q: f64, r: f64, mode: Fractional) -> Result<f64> {
    check_alpha(alpha, MAX_ORDER)?;
    check_q(q)?;
    if !(r >= 0.0) {
        return Err(PabiError::domain("r", ">= 0 (not NaN)", r));
    }
    let t = SgmTable::new(ceil_order(alpha), q);
    Ok(sgm_rdp_value(alpha, q, 0.5 * r * r, mode, &t))
}

/// Sampled Gaussian RDP ε(⌈α⌉) at c = r²/2 for one (α, q, r), validated (ceiling rule).
pub fn sampled_gaussian_rdp(alpha: f64, q: f64, r: f64) -> Result<f64> {
    sampled_gaussian_rdp_at(alpha, q, r, Fractional::Ceil)
}

/// Batch version over equally long arrays (orders, q, sensitivity, sigma): r = sens/σ.
/// Consecutive elements with the same (⌈α⌉, q) share one binomial table.
pub fn sampled_gaussian_rdp_batch(
    alpha: &[f64],
    q: &[f64],
    sens: &[f64],
    sigma: &[f64],
    mode: Fractional,
    out: &mut [f64],
) -> Result<()> {
    let n = alpha.len();
    crate::batch::check_len(
        n,
        &[
            ("q", q.len()),
            ("sensitivity", sens.len()),
            ("sigma", sigma.len()),
            ("out", out.len()),
        ],
    )?;
    crate::batch::check(alpha, "alpha", "> 1 and <= 1e7 (not NaN)", |a| {
        a > 1.0 && a <= MAX_ORDER
    })?;
    crate::batch::check(q, "q", "in [0, 1]", |x| (0.0..=1.0).contains(&x))?;
    crate::batch::check(sens, "sensitivity", ">= 0 (not NaN)", |x| x >= 0.0)?;
    // σ = +inf with an infinite sensitivity made r = inf/inf = NaN, read as ε = 0
    crate::batch::check(sigma, "sigma", "> 0 and finite", |x| {
        x > 0.0 && x.is_finite()
    })?;
    let kernel = |a: &[f64], qq: &[f64], s: &[f64], sg: &[f64], o: &mut [f64]| {
        let mut cache: Option<SgmTable> = None;
        for i in 0..a.len() {
            let order = ceil_order(a[i]);
            let reuse = matches!(&cache, Some(t) if t.order == order && t.q == qq[i]);
            if !reuse {
                cache = Some(SgmTable::new(order, qq[i]));
            }
            let r = s[i] / sg[i];
            o[i] = cache
                .as_ref()
                .map_or(0.0, |t| sgm_rdp_value(a[i], qq[i], 0.5 * r * r, mode, t));
        }
    };
    let frac_work = if mode == Fractional::Exact {
        300.0
    } else {
        0.0
    };
    let work: f64 = alpha
        .iter()
        .map(|&a| a.min(1e6) + if a != a.floor() { frac_work } else { 0.0 })
        .sum();
    match crate::batch::pool() {
        Some(p) if n > 1 && work > 2e5 => {
            let chunk = (n / (4 * crate::batch::num_threads())).max(1);
            p.install(|| {
                out.par_chunks_mut(chunk).enumerate().for_each(|(ci, o)| {
                    let lo = ci * chunk;
                    let hi = lo + o.len();
                    kernel(&alpha[lo..hi], &q[lo..hi], &sens[lo..hi], &sigma[lo..hi], o)
                })
            });
        }
        _ => kernel(alpha, q, sens, sigma, out),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Hölder composition (Thm 3.3), soft-max form

/// Row kernel of the composition on the direct path, multiversioned so that the `vmath`
/// kernels and the k-recurrences vectorize across samples (AVX2/AVX-512 + FMA clones).
/// Returns (max_s D_s, ln mean_s e^{t D_s}) with D_s = up(ln A_s/(α − 1)).
#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512vl+avx512dq+avx2+fma",
    "x86_64+avx2+fma",
    "aarch64+neon"
))]
#[allow(clippy::needless_range_loop)]
fn row_direct(pmf: &[f64], order: u64, row: &[f64], sigma: f64, t: f64) -> (f64, f64) {
    const B: usize = 32;
    let am1 = (order - 1) as f64;
    let scale = (1.0 + INFLATE * (1.0 + (order as f64).log2())) / am1;
    let mut dmax = 0.0_f64;
    let mut sum = 0.0;
    let mut shift = f64::NEG_INFINITY;
    let (mut direct, mut comp, mut count) = (0.0_f64, 0.0_f64, 0usize);
    let mut d = [0.0_f64; B];
    for chunk in row.chunks(B) {
        let len = chunk.len();
        // fixed trip counts (padded with r = 0) so that every loop vectorizes
        let mut x = [0.0_f64; B];
        x[..len].copy_from_slice(chunk);
        let (mut m, mut acc, mut e) = ([0.0_f64; B], [0.0_f64; B], [0.0_f64; B]);
        for s in 0..B {
            let r = x[s] / sigma;
            m[s] = crate::vmath::expm1(r * r);
        }
        let (mut g, mut f) = (m, m);
        for &pk in pmf {
            for s in 0..B {
                acc[s] += pk * f[s];
                g[s] += m[s] * (1.0 + g[s]);
                f[s] += g[s] + f[s] * g[s];
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
            let t2 = direct + v;
            comp += if direct.abs() >= v.abs() {
                (direct - t2) + v
            } else {
                (v - t2) + direct
            };
            direct = t2;
            count += len;
            continue;
        }
        if shift == f64::NEG_INFINITY {
            // switch: Σ e^{x − shift} over the elements so far = (Σ expm1(x) + count)·e^{−shift}
            sum = ((direct + comp) + count as f64) * f64::exp(-cmax);
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
        f64::ln_1p((direct + comp) / row.len() as f64)
    } else {
        shift + f64::ln(sum / row.len() as f64)
    };
    (dmax, lme)
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

/// Which order map to use in the Hölder composition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderMap {
    /// g_p(α) = (pα − 1)/(p − 1), from the proof of Thm 3.3 / Thm A.2 (default).
    Corrected,
    /// g_p(α) = pα/(p − 1) − 1/p as printed in the statement of Thm 3.3 (erratum T1): larger
    /// orders, so a valid but looser bound; kept for reproducing the paper.
    AsPublished,
}

/// Largest number of entries of an array a function of this module allocates from a size the
/// caller chooses (`n` of [`holder_orders`], `T` of [`extra::optimal_residuals`]): 2^26
/// (64 Mi entries, 512 MiB of doubles). A larger size is a domain error naming the parameter,
/// raised before anything is allocated (10^12 entries would abort the process).
pub const MAX_LEN: u64 = 1 << 26;

/// The orders β_i = g_p^i(α) and Hölder coefficients κ_i, i = 0..n−1 (see [`holder_order`]),
/// validated: α > 1 and p > 1 finite, n ≤ [`MAX_LEN`]. Orders beyond the double range are +inf.
pub fn holder_orders(alpha: f64, p: f64, n: u64, map: OrderMap) -> Result<(Vec<f64>, Vec<f64>)> {
    check_alpha(alpha, f64::MAX)?;
    check_p(p)?;
    if n > MAX_LEN {
        return Err(PabiError::domain(
            "n",
            format!("an integer in 0..={MAX_LEN} (2^26)"),
            n as f64,
        ));
    }
    Ok((0..n).map(|i| holder_order(alpha, p, i, map)).unzip())
}

/// The Hölder exponent: p > 1 and finite (p = +inf would make t_i = p(β_i − 1) infinite and
/// the printed map's fixed point (p − 1)/p undefined).
fn check_p(p: f64) -> Result<()> {
    if p > 1.0 && p.is_finite() {
        Ok(())
    } else {
        Err(PabiError::domain("p", "> 1 and finite", p))
    }
}

/// β_i = g_p^i(α) and the Hölder coefficient κ_i multiplying (1/t_i)·ln E e^{t_i D},
/// t_i = p(β_i − 1). Corrected map: β_i = 1 + (α − 1)ρ^i, κ_i = 1 (ρ = p/(p − 1)).
/// Printed map: fixed point a* = (p − 1)/p, β_i = a* + (α − a*)ρ^i and
/// κ_i = ((p−1)/p)^i (β_i − 1)/(α − 1) = 1 + (1 − ρ^{−i})/(p(α − 1)).
pub(crate) fn holder_order(alpha: f64, p: f64, i: u64, map: OrderMap) -> (f64, f64) {
    let lrho = f64::ln_1p(1.0 / (p - 1.0));
    let x = i as f64 * lrho;
    match map {
        OrderMap::Corrected => (1.0 + (alpha - 1.0) * f64::exp(x), 1.0),
        OrderMap::AsPublished => {
            let astar = (p - 1.0) / p;
            let beta = astar + (alpha - astar) * f64::exp(x);
            let kappa = 1.0 - f64::exp_m1(-x) / (p * (alpha - 1.0));
            (beta, kappa)
        }
    }
}

/// ⌈β_i⌉ (at least 2) of the exact order β_i of [`holder_order`] for the given doubles α, p.
///
/// The double β_i carries a relative error ≤ (3|x| + 4)·ε_m in its varying part, x = i·ln ρ
/// (the quotient, log1p, product with i, exp and the final multiply-add), so an integer within
/// that distance of it would make ⌈·⌉ a coin toss: β_i = 4 + 3e-16 computed as 4.0 gave order 4
/// where the bound needs 5. There β_i is recomputed in double-double (ρ^i by binary powering,
/// relative error < 1e-28) and the integer decided from that; within 1e-25 of an integer k
/// (mathematically on it, as β_1 = 1 + 1.5·(4/3) = 3 at α = 2.5, p = 4) β_i is compared with k
/// exactly in integers where they fit in 128 bits, and otherwise the higher order is taken,
/// which is sound because D_α is non-decreasing in α. β_0 = α exactly (both maps).
pub(crate) fn holder_ceil_order(alpha: f64, p: f64, i: u64, map: OrderMap) -> u64 {
    if i == 0 {
        return ceil_order(alpha);
    }
    let (beta, _) = holder_order(alpha, p, i, map);
    let x = i as f64 * f64::ln_1p(1.0 / (p - 1.0));
    let err = 2.0 * (3.0 * x.abs() + 4.0) * f64::EPSILON * beta.abs();
    if (beta - err).ceil() == (beta + err).ceil() {
        return ceil_order(beta);
    }
    // ρ^i in double-double: ρ = p/(p − 1) (p − 1 exact for p ≥ 2, and for p ∈ (1, 2) by
    // Sterbenz), binary powering
    let rho = Dd::from_f64(p) / Dd::from_f64(p - 1.0);
    let (mut acc, mut base, mut e) = (Dd::from_f64(1.0), rho, i);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * base;
        }
        base = base.sqr();
        e >>= 1;
    }
    let b = match map {
        // 1 + (α − 1)ρ^i (α − 1 exact for α ∈ (1, 2^53))
        OrderMap::Corrected => acc.mul_f(alpha - 1.0).add_f(1.0),
        OrderMap::AsPublished => {
            let astar = Dd::from_f64(p - 1.0) / Dd::from_f64(p);
            (Dd::from_f64(alpha) - astar) * acc + astar
        }
    };
    let k = b.hi.round();
    let d = (b - Dd::from_f64(k)).to_f64();
    // |b − k| ≤ 1/2: ⌈b⌉ = k + 1 above k, k below; within 1e-25 of k (on it, as for α = 2.5,
    // p = 4: β_1 = 3) the exact comparison decides, and where it cannot, k + 1
    let order = if d.abs() <= 1e-25 * k.abs() {
        match holder_order_cmp_exact(alpha, p, i, k, map) {
            Some(std::cmp::Ordering::Greater) | None => k + 1.0,
            Some(_) => k,
        }
    } else if d > 0.0 {
        k + 1.0
    } else {
        k
    };
    (order as u64).max(2)
}

/// A non-negative dyadic rational m·2^e with a u128 mantissa: exact products and differences,
/// `None` when a mantissa would overflow (for [`holder_ceil_order`]'s exact tie-break).
#[derive(Clone, Copy)]
struct Dyadic {
    m: u128,
    e: i32,
}

impl Dyadic {
    /// A finite non-negative double, exactly (trailing zero bits moved into the exponent).
    fn of(x: f64) -> Option<Dyadic> {
        if !(x >= 0.0 && x.is_finite()) {
            return None;
        }
        if x == 0.0 {
            return Some(Dyadic { m: 0, e: 0 });
        }
        let bits = x.to_bits();
        let be = ((bits >> 52) & 0x7ff) as i32;
        let frac = (bits & ((1u64 << 52) - 1)) as u128;
        let (m, e) = if be == 0 {
            (frac, -1074)
        } else {
            (frac | (1u128 << 52), be - 1075)
        };
        let tz = m.trailing_zeros() as i32;
        Some(Dyadic {
            m: m >> tz,
            e: e + tz,
        })
    }
    fn mul(self, o: Dyadic) -> Option<Dyadic> {
        Some(Dyadic {
            m: self.m.checked_mul(o.m)?,
            e: self.e + o.e,
        })
    }
    fn pow(self, i: u64) -> Option<Dyadic> {
        let mut acc = Dyadic { m: 1, e: 0 };
        for _ in 0..i {
            acc = acc.mul(self)?;
        }
        Some(acc)
    }
    /// Both mantissas on the smaller exponent.
    fn align(self, o: Dyadic) -> Option<(u128, u128)> {
        let e = self.e.min(o.e);
        let sh = |d: Dyadic| -> Option<u128> {
            let s = (d.e - e) as u32;
            if d.m == 0 {
                Some(0)
            } else if s >= 128 || d.m.leading_zeros() < s {
                None
            } else {
                Some(d.m << s)
            }
        };
        Some((sh(self)?, sh(o)?))
    }
    fn sub(self, o: Dyadic) -> Option<Dyadic> {
        let (a, b) = self.align(o)?;
        Some(Dyadic {
            m: a.checked_sub(b)?,
            e: self.e.min(o.e),
        })
    }
    fn cmp(self, o: Dyadic) -> Option<std::cmp::Ordering> {
        let (a, b) = self.align(o)?;
        Some(a.cmp(&b))
    }
}

/// β_i compared with the integer k exactly, where it fits in 128-bit mantissas: corrected
/// (α − 1)p^i against (k − 1)(p − 1)^i; printed map (αp − (p − 1))p^i against
/// (kp − (p − 1))(p − 1)^i (both sides of β_i vs k multiplied by p(p − 1)^i > 0).
fn holder_order_cmp_exact(
    alpha: f64,
    p: f64,
    i: u64,
    k: f64,
    map: OrderMap,
) -> Option<std::cmp::Ordering> {
    if i > 128 {
        return None; // p^i cannot fit unless p is a power of two; not worth it
    }
    let (dp, dq) = (Dyadic::of(p)?, Dyadic::of(p - 1.0)?);
    let (da, dk) = (Dyadic::of(alpha)?, Dyadic::of(k)?);
    let one = Dyadic { m: 1, e: 0 };
    let (lhs, rhs) = match map {
        OrderMap::Corrected => (da.sub(one)?, dk.sub(one)?),
        OrderMap::AsPublished => (da.mul(dp)?.sub(dq)?, dk.mul(dp)?.sub(dq)?),
    };
    lhs.mul(dp.pow(i)?)?.cmp(rhs.mul(dq.pow(i)?)?)
}

/// Options of the per-instance DP-SGD composition.
#[derive(Debug, Clone, Copy)]
pub struct CompositionOptions {
    pub map: OrderMap,
    /// Hoeffding upper-confidence mode: (failure probability J in (0, 1), max sensitivity).
    pub ucb: Option<(f64, f64)>,
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
        return Err(PabiError::domain("sigma", "> 0 (not NaN)", sigma));
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
    crate::batch::check(sens, "sensitivities", ">= 0 and finite", |x| {
        x >= 0.0 && x.is_finite()
    })?;
    let mut ln_ucb = f64::NEG_INFINITY;
    let mut cmax = 0.0;
    if let Some((conf, smax)) = opts.ucb {
        if !(conf > 0.0 && conf < 1.0) {
            return Err(PabiError::domain("confidence", "in (0, 1)", conf));
        }
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
    let orders: Vec<u64> = (0..n)
        .map(|i| holder_ceil_order(alpha, p, i, opts.map))
        .collect();
    let mut entries = 0u64;
    for (k, &o) in orders.iter().enumerate() {
        if k == 0 || orders[k - 1] != o {
            entries = entries.saturating_add(o - 1);
        }
    }
    if interior_q(q) && entries > MAX_TABLE_ENTRIES {
        return Err(PabiError::unreachable(format!(
            "the {steps} steps need {entries} binomial-table entries (more than \
             {MAX_TABLE_ENTRIES}, {} MiB): the orders beta_i range up to {:e}; \
             increase p (p = 3*steps keeps every order below 1 + 1.5(alpha - 1)) or lower alpha",
            (MAX_TABLE_ENTRIES * 8) >> 20,
            beta_max
        )));
    }
    let mut tables: Vec<SgmTable> = Vec::new();
    let mut table_of: Vec<usize> = Vec::with_capacity(steps);
    let mut betas = Vec::with_capacity(steps);
    for (i, &order) in (0..n).zip(&orders) {
        let (beta, kappa) = holder_order(alpha, p, i, opts.map);
        if tables.last().map(|t| t.order) != Some(order) {
            tables.push(SgmTable::new(order, q));
        }
        table_of.push(tables.len() - 1);
        betas.push((beta, kappa));
    }
    let term = |i: usize| -> f64 {
        if crate::interrupt::requested() {
            return 0.0; // discarded: checked after the loop
        }
        let step = steps - 1 - i; // 0-based row
        let row = &sens[step * samples..(step + 1) * samples];
        let tab = &tables[table_of[i]];
        let (beta, kappa) = betas[i];
        if i == steps - 1 {
            // first step: deterministic; take the max
            let smax = row.iter().copied().fold(0.0, f64::max);
            let r = smax / sigma;
            return kappa * tab.rdp(0.5 * r * r);
        }
        let t = p * (beta - 1.0);
        let rmax = row.iter().copied().fold(0.0, f64::max) / sigma;
        let crow = 0.5 * rmax * rmax;
        let tdm = t * tab.rdp(crow);
        let plain = if tdm > SKIP_GAP + 5.0 {
            // ln A(c) is convex in c with ln A(0) = 0, so D(c) ≤ (c/c_max)·D(c_max): samples
            // whose chord bound lies SKIP_GAP below the row maximum contribute < e^-SKIP_GAP
            // each and are bounded (upward) by that chord value instead of being evaluated.
            let (mut sum, mut nsk, mut ub_max) = (0.0, 0usize, f64::NEG_INFINITY);
            for &x in row {
                let r = x / sigma;
                let c = 0.5 * r * r;
                if c >= crow {
                    sum += 1.0;
                    continue;
                }
                let ub = tdm * (c / crow) * (1.0 + 1e-12);
                if ub - tdm < -SKIP_GAP {
                    nsk += 1;
                    ub_max = ub_max.max(ub);
                } else {
                    sum += f64::exp(t * tab.rdp(c) - tdm);
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
                l = log_add_exp(l, log_expm1(t * dmax) + ln_ucb);
            }
            return kappa * (l / t);
        }
        let mut buf: Vec<f64> = row
            .iter()
            .map(|&s| {
                let r = s / sigma;
                t * tab.rdp(0.5 * r * r)
            })
            .collect();
        let mut l = log_mean_exp(&buf);
        if opts.ucb.is_some() {
            let dmax = tab.rdp(cmax);
            l = log_add_exp(l, log_expm1(t * dmax) + ln_ucb);
        }
        buf.clear();
        kappa * (l / t)
    };
    let mut terms = vec![0.0; steps];
    let fill = |(i, o): (usize, &mut f64)| *o = term(i);
    match crate::batch::pool() {
        Some(pl) if steps * samples >= 4096 => pl.install(|| {
            terms
                .par_iter_mut()
                .with_min_len(64)
                .enumerate()
                .for_each(fill)
        }),
        _ => terms.iter_mut().enumerate().for_each(fill),
    }
    crate::interrupt::check()?;
    // terms[i] belongs to step n - i; return in training order
    terms.reverse();
    // each term upward by INFLATE relative (logmeanexp adds a few ulp)
    for v in terms.iter_mut() {
        *v = up_order(*v, 2.0);
    }
    Ok(terms)
}

/// Generic Hölder composition (002 Thm 3.3, soft-max form) from per-step divergence samples.
///
/// `div` is row-major (steps × samples): row j (0-based) holds samples (or support points, with
/// `weights`) of D_{β_{n−1−j}}(X_{j+1}‖Y_{j+1}) at the states x_j of the FIRST argument's chain;
/// the caller evaluates them at the orders of [`holder_order`] (or any larger order). With
/// `weights` (same shape, each row a probability vector) the expectations are exact; otherwise
/// plug-in means. Step 1 uses the maximum over its samples (with positive weight).
/// Returns the n per-step terms in chain order.
pub fn holder_composition_terms(
    alpha: f64,
    p: f64,
    div: &[f64],
    weights: Option<&[f64]>,
    steps: usize,
    samples: usize,
    map: OrderMap,
) -> Result<Vec<f64>> {
    check_alpha(alpha, f64::MAX)?;
    check_p(p)?;
    if steps == 0 || samples == 0 || steps.checked_mul(samples) != Some(div.len()) {
        return Err(PabiError::Shape {
            message: format!(
                "divergences must be a non-empty (steps, samples) array; got {} values for \
                 ({steps}, {samples})",
                div.len()
            ),
        });
    }
    crate::batch::check(div, "divergences", ">= 0 (not NaN; +inf allowed)", |x| {
        x >= 0.0
    })?;
    if let Some(w) = weights {
        if w.len() != div.len() {
            return Err(PabiError::Shape {
                message: "weights must have the shape of divergences".into(),
            });
        }
        crate::batch::check(w, "weights", "in [0, 1]", |x| (0.0..=1.0).contains(&x))?;
        for r in 0..steps {
            let tot = neumaier_sum(w[r * samples..(r + 1) * samples].iter().copied());
            if (tot - 1.0).abs() > 1e-9 {
                return Err(PabiError::domain("weights", "rows summing to 1", tot).at(r * samples));
            }
        }
    }
    let n = steps as u64;
    // the largest order, β_{n−1}: t = p(β − 1) must be finite for every term
    let (beta_max, _) = holder_order(alpha, p, n - 1, map);
    if !(p * (beta_max - 1.0)).is_finite() {
        return Err(order_map_overflow(alpha, p, steps, beta_max, f64::INFINITY));
    }
    let mut terms = vec![0.0; steps];
    for i in 0..n {
        let (beta, kappa) = holder_order(alpha, p, i, map);
        let row_idx = (n - 1 - i) as usize;
        let row = &div[row_idx * samples..(row_idx + 1) * samples];
        let wrow = weights.map(|w| &w[row_idx * samples..(row_idx + 1) * samples]);
        let v = if i == n - 1 {
            row.iter()
                .enumerate()
                .filter(|(k, _)| wrow.is_none_or(|w| w[*k] > 0.0))
                .map(|(_, &d)| d)
                .fold(0.0, f64::max)
        } else {
            let t = p * (beta - 1.0);
            let l = match wrow {
                None => {
                    let xs: Vec<f64> = row.iter().map(|&d| t * d).collect();
                    log_mean_exp(&xs)
                }
                Some(w) => {
                    let xs: Vec<f64> = row.iter().map(|&d| t * d).collect();
                    log_weighted_sum_exp(w, &xs)
                }
            };
            l / t
        };
        terms[row_idx] = up_order(kappa * v, 2.0);
    }
    Ok(terms)
}

/// Sum of the per-step terms, rounded up (+inf if a term is +inf or the sum overflows; NaN
/// only from a NaN term, which the functions producing the terms never return).
pub fn sum_terms_up(terms: &[f64]) -> f64 {
    if terms.iter().any(|x| x.is_infinite()) {
        return f64::INFINITY; // a divergent expectation: the bound is +inf
    }
    let s = neumaier_sum(terms.iter().copied());
    if s.is_nan() && !terms.iter().any(|x| x.is_nan()) {
        return f64::INFINITY; // finite terms whose sum overflowed (the compensation gave NaN)
    }
    up_order(s, 2.0)
}

// ---------------------------------------------------------------------------------------------
// Conversions

/// RDP → (ε, δ) conversion rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conversion {
    /// Mironov 2017 Prop. 3: ε = ε_R + ln(1/δ)/(α − 1).
    Classical,
    /// Balle et al. 2020 / Canonne–Kamath–Steinke 2020 Prop. 12:
    /// ε = ε_R + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), plus the KL/total-variation rule
    /// (δ ≥ √(1 − e^{−ε_R}) ⇒ ε = 0) used by current accountants.
    Tight,
}

fn check_curve(orders: &[f64], rdp: &[f64]) -> Result<()> {
    if orders.is_empty() {
        return Err(PabiError::Shape {
            message: "orders must be non-empty".into(),
        });
    }
    crate::batch::check_len(orders.len(), &[("rdp", rdp.len())])?;
    crate::batch::check(orders, "orders", "> 1 and finite", |a| {
        a > 1.0 && a.is_finite()
    })?;
    crate::batch::check(rdp, "rdp", ">= 0 (not NaN; +inf allowed)", |x| x >= 0.0)?;
    Ok(())
}

/// The value of one rounding-to-nearest step moved to the next double up: an upper bound of
/// the exact result of the operation, and a non-decreasing function of that rounded result.
#[inline(always)]
fn nu(x: f64) -> f64 {
    x.next_up()
}

/// e^x rounded up (std exp is faithful: within 1 ulp), non-decreasing in x.
#[inline(always)]
fn exp_nu(x: f64) -> f64 {
    (f64::exp(x) * (1.0 + 4.0 * HALF_ULP_ONE)).next_up()
}

/// One order of an RDP curve prepared for the conversions: everything that does not depend on
/// ε, with the direction that raises δ.
#[derive(Clone, Copy)]
struct ConvOrder {
    r: f64,
    /// bounds of α − 1 (exact below 2^53)
    am1_dn: f64,
    am1_up: f64,
    /// upper bound of ln(1 − 1/α) (< 0)
    c_up: f64,
    /// lower bound of ln α (> 0)
    lna_dn: f64,
    /// upper bound of ln √(1 − e^{−r}) (the KL / total-variation rule; ≤ 0)
    kl_up: f64,
}

impl ConvOrder {
    fn new(a: f64, r: f64) -> Self {
        let am1 = a - 1.0; // exact for a < 2^53 (Sterbenz below 2)
        let (am1_dn, am1_up) = if a < 9_007_199_254_740_992.0 {
            (am1, am1)
        } else {
            (am1.next_down(), am1.next_up())
        };
        // ln(1 − 1/α): ln(α − 1) − ln α below 2 (α − 1 exact; 1/α would lose 1/(α − 1) ulps),
        // log1p(−1/α) from 2 on (1/α ≤ ½: the rounding of 1/α costs ≤ 2 ulp of the result)
        let (c, c_err) = if a < 2.0 {
            let c = f64::ln(am1) - f64::ln(a);
            (c, 4.0 * HALF_ULP_ONE * (c.abs() + 2.0 * f64::ln(a) + 1.0))
        } else {
            let c = f64::ln_1p(-1.0 / a);
            (c, 8.0 * HALF_ULP_ONE * c.abs())
        };
        let kl = 0.5 * log1mexp(-r); // relative error a few ulp (Mächler's two branches)
        ConvOrder {
            r,
            am1_dn,
            am1_up,
            c_up: (c + c_err).min(0.0),
            lna_dn: f64::ln(a) * (1.0 - 4.0 * HALF_ULP_ONE),
            kl_up: if kl == f64::NEG_INFINITY {
                kl
            } else {
                (kl * (1.0 - 16.0 * HALF_ULP_ONE)).min(0.0)
            },
        }
    }

    /// y·(α − 1) rounded up, non-decreasing in y.
    #[inline]
    fn times_am1(&self, y: f64) -> f64 {
        if y >= 0.0 {
            nu(y * self.am1_up)
        } else {
            nu(y * self.am1_dn)
        }
    }

    /// Upper bound of δ(ε) at this order, a non-increasing function of ε by construction: every
    /// operation is one rounding to nearest followed by [`nu`] (each monotone), the constants
    /// are rounded in the direction that raises δ, and e^x is std's faithful exp rounded up.
    /// A zero RDP value means D_α = 0, i.e. equal distributions: δ = 0 at every ε ≥ 0.
    fn delta(&self, eps: f64, rule: Conversion) -> f64 {
        if self.r == 0.0 {
            return 0.0;
        }
        let x = nu(self.r - eps);
        let ld = match rule {
            Conversion::Classical => self.times_am1(x),
            Conversion::Tight => {
                let cks = nu(self.times_am1(nu(x + self.c_up)) - self.lna_dn);
                cks.min(self.kl_up)
            }
        };
        if ld >= 0.0 {
            1.0
        } else {
            exp_nu(ld).min(1.0)
        }
    }

    /// The smallest double ε ≥ 0 with [`ConvOrder::delta`](ε) ≤ δ (+inf if none): by
    /// construction δ(ε(δ)) ≤ δ, and the (ε, δ) pair is certified because `delta` is an upper
    /// bound of the exact conversion. The closed form gives the starting point; a bracket is
    /// grown around it in units in the last place and bisected on the bit patterns
    /// (non-negative doubles are ordered like their bits).
    fn epsilon(&self, delta: f64, rule: Conversion) -> f64 {
        if self.delta(0.0, rule) <= delta {
            return 0.0;
        }
        if self.delta(f64::MAX, rule) > delta {
            return f64::INFINITY;
        }
        let ld = f64::ln(delta);
        let am1 = self.am1_up;
        let guess = match rule {
            Conversion::Classical => self.r - ld / am1,
            Conversion::Tight => self.r + self.c_up - (ld + self.lna_dn) / am1,
        };
        let guess = if guess.is_finite() {
            guess.clamp(0.0, f64::MAX)
        } else {
            f64::MAX
        };
        let ok = |bits: u64| self.delta(f64::from_bits(bits), rule) <= delta;
        let (zero, max) = (0u64, f64::MAX.to_bits());
        let g = guess.to_bits();
        // hi: δ(hi) ≤ delta; lo: δ(lo) > delta (δ(0) > delta is known)
        let (mut lo, mut hi);
        if ok(g) {
            hi = g;
            let mut step = 4u64;
            lo = hi.saturating_sub(step);
            while lo > zero && ok(lo) {
                hi = lo;
                step = step.saturating_mul(8);
                lo = lo.saturating_sub(step);
            }
        } else {
            lo = g;
            let mut step = 4u64;
            hi = lo.saturating_add(step).min(max);
            while !ok(hi) {
                lo = hi;
                step = step.saturating_mul(8);
                hi = hi.saturating_add(step).min(max);
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if ok(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        f64::from_bits(hi)
    }
}

/// min over the orders of the (ε, δ) conversion; returns (ε, optimal order).
///
/// ε is the smallest double with [`rdp_to_dp_delta`](ε) ≤ δ, so the two conversions agree
/// exactly: δ(ε(δ)) ≤ δ, ε(δ) is non-increasing in δ, and a zero RDP value at some order (the
/// distributions are equal) gives ε = 0 for every δ. +inf RDP values (no guarantee at that
/// order) are allowed and never chosen unless every order is +inf (then ε = +inf).
pub fn rdp_to_dp_epsilon(
    orders: &[f64],
    rdp: &[f64],
    delta: f64,
    rule: Conversion,
) -> Result<(f64, f64)> {
    check_curve(orders, rdp)?;
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    let mut best = (f64::INFINITY, orders[0]);
    for (&a, &r) in orders.iter().zip(rdp) {
        let e = ConvOrder::new(a, r).epsilon(delta, rule);
        if e < best.0 {
            best = (e, a);
        }
    }
    Ok(best)
}

/// min over the orders of δ(ε); returns (δ, optimal order). δ is capped at 1.
///
/// Each order's value is computed by one chain of monotone, upward-rounded operations, so δ is
/// non-increasing in ε down to the last ulp (see [`rdp_to_dp_epsilon`] for the consistency of
/// the two conversions). A zero RDP value at some order means equal distributions: δ = 0.
pub fn rdp_to_dp_delta(
    orders: &[f64],
    rdp: &[f64],
    eps: f64,
    rule: Conversion,
) -> Result<(f64, f64)> {
    check_curve(orders, rdp)?;
    if !(eps >= 0.0) {
        return Err(PabiError::domain("eps", ">= 0 (+inf allowed)", eps));
    }
    if eps == f64::INFINITY {
        // δ(∞) = 0 at any order with a finite RDP value (e^{(α−1)(ε_R − ε)} → 0); with none, 1
        return Ok(match orders.iter().zip(rdp).find(|(_, &r)| r.is_finite()) {
            Some((&a, _)) => (0.0, a),
            None => (1.0, orders[0]),
        });
    }
    let mut best = (f64::INFINITY, orders[0]);
    for (&a, &r) in orders.iter().zip(rdp) {
        let d = ConvOrder::new(a, r).delta(eps, rule);
        if d < best.0 {
            best = (d, a);
        }
    }
    Ok((best.0.min(1.0), best.1))
}

/// The domain error of an order map β_0 = α < β_1 < … that leaves its range (β above `cap` or
/// p(β − 1) infinite): a property of (α, p), named α when α alone is out of range, else p.
fn order_map_overflow(alpha: f64, p: f64, steps: usize, beta_max: f64, cap: f64) -> PabiError {
    let (param, value) = if alpha <= cap && (p * (alpha - 1.0)).is_finite() {
        ("p", p)
    } else {
        ("alpha", alpha)
    };
    PabiError::domain(
        param,
        format!(
            "such that the order map stays below {cap:e} with p*(beta - 1) finite (beta_{} = \
             {beta_max:e} at alpha = {alpha}, p = {p}, {steps} steps; p = 3*steps keeps every \
             order below 1 + 1.5(alpha - 1))",
            steps.saturating_sub(1)
        ),
        value,
    )
}

/// Composition of RDP curves: out[j] = Σ_k curves[k][j] (`curves` row-major k × m), rounded up.
///
/// +inf is a legitimate RDP value ("no guarantee at this order"): a column holding one
/// composes to +inf. NaN and negative values are domain errors (first flat index).
pub fn rdp_compose(curves: &[f64], k: usize, m: usize, out: &mut [f64]) -> Result<()> {
    if k.checked_mul(m) != Some(curves.len()) || out.len() != m {
        return Err(PabiError::Shape {
            message: format!("curves must have shape (k, m) = ({k}, {m})"),
        });
    }
    crate::batch::check(curves, "curves", ">= 0 (not NaN; +inf allowed)", |x| {
        x >= 0.0
    })?;
    for (j, o) in out.iter_mut().enumerate() {
        let col = || (0..k).map(|i| curves[i * m + j]);
        *o = if col().any(f64::is_infinite) {
            f64::INFINITY
        } else {
            // a sum of finite values may still overflow (the compensation then turns it into
            // NaN): +inf, the correct upper bound
            let s = neumaier_sum(col());
            if s.is_nan() {
                f64::INFINITY
            } else {
                up_order(s, 2.0)
            }
        };
    }
    Ok(())
}

/// RDP at order α from a symmetric privacy profile given on a grid (SPEC_pabi §5.5):
/// e^{(α−1)D_α} ≤ 1 + α(α−1)∫_0^∞ (e^{(α−1)ε} + e^{−αε}) δ(ε) dε, with the certified upper
/// quadrature δ(ε) ≤ δ(ε_j) on [ε_j, ε_{j+1}] (profiles are non-increasing) and the weights
/// integrated exactly. Requires eps_grid[0] = 0, strictly increasing, δ non-increasing in
/// [0, 1], and δ = 0 at the last grid point (beyond it the profile is taken as 0).
pub fn profile_to_rdp(alpha: f64, eps: &[f64], delta: &[f64]) -> Result<f64> {
    check_alpha(alpha, f64::MAX)?;
    let n = eps.len();
    if n < 2 {
        return Err(PabiError::Shape {
            message: "eps_grid must have at least 2 points".into(),
        });
    }
    crate::batch::check_len(n, &[("delta_grid", delta.len())])?;
    if eps[0] != 0.0 {
        return Err(PabiError::domain("eps_grid", "starting at 0", eps[0]).at(0));
    }
    for i in 1..n {
        if !(eps[i] > eps[i - 1] && eps[i].is_finite()) {
            return Err(
                PabiError::domain("eps_grid", "strictly increasing and finite", eps[i]).at(i),
            );
        }
    }
    crate::batch::check(delta, "delta_grid", "in [0, 1]", |x| {
        (0.0..=1.0).contains(&x)
    })?;
    for i in 1..n {
        if delta[i] > delta[i - 1] {
            return Err(PabiError::domain(
                "delta_grid",
                "non-increasing (a privacy profile)",
                delta[i],
            )
            .at(i));
        }
    }
    if delta[n - 1] != 0.0 {
        return Err(PabiError::domain(
            "delta_grid",
            "0 at the last grid point (the profile beyond eps_grid[-1] is unknown; extend the grid)",
            delta[n - 1],
        )
        .at(n - 1));
    }
    let am1 = alpha - 1.0;
    let mut logs = Vec::with_capacity(n);
    for j in 0..n - 1 {
        if delta[j] == 0.0 {
            continue;
        }
        // the cell [ε_j, ε_j + h] with h rounded up covers [ε_j, ε_{j+1}] (a larger cell only
        // adds a positive integrand)
        let (e0, h) = (eps[j], (eps[j + 1] - eps[j]).next_up());
        // ln ∫_0^h e^{(α−1)t} dt = ln(expm1(x)/(α − 1)), x = (α − 1)h; below 1e-8 (where x may
        // underflow and log_expm1(x) would be −inf) ln h + x, an upper bound (ln(expm1(x)/x)
        // ≤ x/2 + x²/24 ≤ x)
        let x1 = am1 * h;
        let i1 = am1 * e0
            + if x1 < 1e-8 {
                f64::ln(h) + x1
            } else {
                log_expm1(x1) - f64::ln(am1)
            };
        // ln ∫_0^h e^{−αt} dt = ln((1 − e^{−y})/α), y = αh; below 1e-8 the upper bound ln h
        let y = alpha * h;
        let i2 = -alpha * e0
            + if y < 1e-8 {
                f64::ln(h)
            } else {
                log1mexp(-y) - f64::ln(alpha)
            };
        logs.push(f64::ln(delta[j]) + log_add_exp(i1, i2));
    }
    if logs.is_empty() {
        return Ok(0.0);
    }
    let ls = crate::num::log_sum_exp(&logs);
    // ln(α(α − 1)) as a sum of logs: the product overflows for α > 1.3e154
    let x = f64::ln(alpha) + f64::ln(am1) + ls;
    let v = if x < -36.0 {
        // ln(1 + e^x)/(α − 1) ≤ e^x/(α − 1) = α·e^{ls} (relative slack e^x/2 < 1e-16): e^x
        // itself may be subnormal (α − 1 = 2^-52 and a 1e-300 integral lost 1e-8 relative)
        f64::exp(f64::ln(alpha) + ls)
    } else {
        softplus(x) / am1
    };
    Ok(up_order(v, 1e6))
}

#[cfg(test)]
mod tests {
    use super::*;
    /// ⌈β_i⌉ of the exact order for the given doubles: the two cases where the double β_i sat on
    /// the integer below the exact value (found by tools/rdp_accuracy_report.py), exact integers,
    /// and a lattice of dyadic α, p (exact integers among them) where the expected ceiling is
    /// computed in integers ((α − 1)p^i against (k − 1)(p − 1)^i).
    #[test]
    fn holder_ceil_order_is_the_exact_ceiling() {
        let c = OrderMap::Corrected;
        // exact β_2 = 4.0000000000000003 (the double computes 4.0), β_1 = 3.00000000000000025
        assert_eq!(holder_ceil_order(3.2040816326530615, 7.0, 2, c), 5);
        assert_eq!(holder_ceil_order(2.3333333333333335, 3.0, 1, c), 4);
        // β_0 = α, exact integers stay
        assert_eq!(holder_ceil_order(8.0, 3e4, 0, c), 8);
        assert_eq!(holder_ceil_order(8.0, 3e4, 0, OrderMap::AsPublished), 8);
        // mathematically on an integer: decided exactly (β_1 = 1 + 1·2 = 3, 1 + 1.5·4/3 = 3;
        // printed map a* + (α − a*)ρ with a* = 1/2, ρ = 2: 1/2 + 2.5 = 3)
        assert_eq!(holder_ceil_order(2.0, 2.0, 1, c), 3);
        assert_eq!(holder_ceil_order(2.5, 4.0, 1, c), 3);
        assert_eq!(holder_ceil_order(1.75, 2.0, 1, OrderMap::AsPublished), 3);
        let (mut exact_int, mut decided) = (0, 0);
        for a in (1u128..4000).step_by(37) {
            for b in (65u128..1024).step_by(29) {
                for i in 1..6u32 {
                    // α = 1 + a/2^10, p = b/2^6: (α − 1)p^i = a·b^i / 2^(10+6i),
                    // (p − 1)^i = (b − 64)^i / 2^(6i)
                    let (alpha, p) = (1.0 + a as f64 / 1024.0, b as f64 / 64.0);
                    let num = a * b.pow(i); // β − 1 = num / (1024 (b − 64)^i)
                    let den = 1024 * (b - 64).pow(i);
                    let exact_ceil = 1 + num.div_ceil(den) as u64;
                    let got = holder_ceil_order(alpha, p, i as u64, c);
                    if num % den == 0 {
                        exact_int += 1;
                    } else {
                        decided += 1;
                    }
                    assert_eq!(got, exact_ceil.max(2), "a={a} b={b} i={i}");
                }
            }
        }
        assert!(exact_int > 0 && decided > 5000, "{exact_int} {decided}");
    }

    fn naive(alpha: u64, q: f64, r: f64) -> f64 {
        let c = r * r / 2.0;
        let mut s = 0.0;
        let mut binom = 1.0;
        for k in 0..=alpha {
            if k > 0 {
                binom = binom * (alpha - k + 1) as f64 / k as f64;
            }
            s += binom
                * (1.0 - q).powi((alpha - k) as i32)
                * q.powi(k as i32)
                * (c * (k * k - k) as f64).exp();
        }
        s.ln() / (alpha - 1) as f64
    }

    #[test]
    fn q_one_and_alpha_two() {
        for &a in &[2u64, 3, 8, 64, 1000] {
            for &r in &[1e-3, 0.5, 2.0] {
                let v = sampled_gaussian_rdp(a as f64, 1.0, r).unwrap();
                let exact = a as f64 * r * r / 2.0;
                assert!(v >= exact && (v - exact) / exact < 1e-13, "{a} {r} {v}");
            }
        }
        // fractional orders without sampling: α r²/2 exactly (the ceiling rule gave ⌈α⌉ r²/2)
        for &a in &[1.01, 1.25, 2.5, 7.5, 1000.5] {
            for &r in &[1e-3, 0.5, 2.0] {
                let v = sampled_gaussian_rdp_at(a, 1.0, r, Fractional::Exact).unwrap();
                let exact = a * r * r / 2.0;
                assert!(v >= exact && (v - exact) / exact < 1e-13, "{a} {r} {v}");
            }
        }
        for &q in &[1e-8, 1e-3, 0.3, 0.9] {
            for &r in &[1e-3, 0.5, 2.0] {
                let v = sampled_gaussian_rdp(2.0, q, r).unwrap();
                let e = (q * q * (r * r).exp_m1()).ln_1p();
                assert!(((v - e) / e).abs() < 1e-13, "{q} {r} {v} {e}");
            }
        }
    }

    #[test]
    fn direct_and_log_paths_agree_with_naive() {
        for &a in &[3u64, 5, 8, 16, 30] {
            for &q in &[0.01, 0.1, 0.5] {
                for &r in &[0.3, 1.0] {
                    let v = sampled_gaussian_rdp(a as f64, q, r).unwrap();
                    let w = naive(a, q, r);
                    assert!(((v - w) / w).abs() < 1e-11, "{a} {q} {r} {v} {w}");
                    // force log path
                    let t = SgmTable {
                        direct: false,
                        ..SgmTable::new(a, q)
                    };
                    let l = t.log_a(r * r / 2.0) / (a - 1) as f64;
                    assert!(((l - w) / w).abs() < 1e-11);
                }
            }
        }
    }

    #[test]
    #[ignore]
    fn timing_row() {
        let tab = SgmTable::new(11, 0.01);
        let row: Vec<f64> = (0..100).map(|i| i as f64 / 100.0).collect();
        let t0 = std::time::Instant::now();
        let mut a = 0.0;
        for _ in 0..10_000 {
            a += row_direct(&tab.pmf, 11, &row, 1.0, 1e5).1;
        }
        println!("10k rows: {:?} {a}", t0.elapsed());
    }

    #[test]
    fn errors() {
        assert!(sampled_gaussian_rdp(1.0, 0.1, 1.0).is_err());
        assert!(sampled_gaussian_rdp(2.0, 1.1, 1.0).is_err());
        assert!(sampled_gaussian_rdp(2.0, 0.1, f64::NAN).is_err());
        let o = CompositionOptions {
            map: OrderMap::Corrected,
            ucb: None,
        };
        let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &[1.0; 2000], 2000, 1, 1.001, o);
        assert!(matches!(e, Err(PabiError::Domain { param: "p", .. })));
        let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &[1.0, -1.0], 1, 2, 3.0, o);
        assert!(matches!(e, Err(PabiError::Domain { index: Some(1), .. })));
    }

    fn param_of(e: PabiError) -> &'static str {
        match e {
            PabiError::Domain { param, .. } => param,
            other => panic!("not a domain error: {other:?}"),
        }
    }

    #[test]
    fn sizes_are_checked_before_allocation() {
        let c = OrderMap::Corrected;
        for n in [MAX_LEN + 1, 1_000_000_000_000, 1 << 63, u64::MAX] {
            assert_eq!(param_of(holder_orders(2.0, 2.0, n, c).unwrap_err()), "n");
        }
        assert_eq!(
            holder_orders(2.0, 2.0, 3, c).unwrap().0,
            vec![2.0, 3.0, 5.0]
        );
        assert_eq!(
            param_of(holder_orders(0.5, 0.5, 3, c).unwrap_err()),
            "alpha"
        );
        assert_eq!(
            param_of(holder_orders(2.0, f64::INFINITY, 3, OrderMap::AsPublished).unwrap_err()),
            "p"
        );
        // products of shapes that overflow usize are shape errors, not wrapped matches
        let o = CompositionOptions { map: c, ucb: None };
        let e = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &[0.5; 2], 1 << 63, 2, 3.0, o);
        assert!(matches!(e, Err(PabiError::Shape { .. })));
        let e = holder_composition_terms(2.0, 2.0, &[0.5; 2], None, 1 << 63, 2, c);
        assert!(matches!(e, Err(PabiError::Shape { .. })));
        let mut out = [0.0; 2];
        assert!(matches!(
            rdp_compose(&[0.1; 2], usize::MAX / 2 + 2, 2, &mut out),
            Err(PabiError::Shape { .. })
        ));
    }

    #[test]
    fn composition_tables_are_capped() {
        // orders spread over [2, 1e5] across 1e5 steps: ~8e8 table entries, refused up front
        let o = CompositionOptions {
            map: OrderMap::Corrected,
            ucb: None,
        };
        let sens = vec![0.5; 100_000];
        let e = dpsgd_per_instance_terms(2.0, 0.01, 1.0, &sens, 100_000, 1, 8700.0, o);
        assert!(matches!(e, Err(PabiError::Unreachable { .. })), "{e:?}");
        // q = 1 needs no table: allowed
        assert!(dpsgd_per_instance_terms(2.0, 1.0, 1.0, &sens, 100_000, 1, 8700.0, o).is_ok());
    }

    #[test]
    fn compose_inf_and_overflow() {
        let mut out = [0.0; 2];
        rdp_compose(&[0.1, 0.2, f64::INFINITY, 0.4], 2, 2, &mut out).unwrap();
        assert_eq!(out[0], f64::INFINITY);
        assert!(out[1] >= 0.6 && out[1] < 0.6 * (1.0 + 1e-12));
        rdp_compose(&[1e308, 1.0, 1e308, 1.0], 2, 2, &mut out).unwrap();
        assert_eq!(out[0], f64::INFINITY);
        let e = rdp_compose(&[0.1, 0.2, f64::NAN, 0.4], 2, 2, &mut out).unwrap_err();
        assert!(matches!(
            e,
            PabiError::Domain {
                param: "curves",
                index: Some(2),
                ..
            }
        ));
        assert_eq!(sum_terms_up(&[1e308, 1e308]), f64::INFINITY);
    }

    #[test]
    fn conversions_agree_and_are_monotone() {
        let rules = [Conversion::Tight, Conversion::Classical];
        // a zero RDP value: equal distributions
        let orders = [1.5, 2.0, 8.0];
        for rule in rules {
            assert_eq!(
                rdp_to_dp_delta(&orders, &[0.0; 3], 0.0, rule).unwrap().0,
                0.0
            );
            assert_eq!(
                rdp_to_dp_epsilon(&orders, &[0.0; 3], 0.5, rule).unwrap().0,
                0.0
            );
            assert_eq!(
                rdp_to_dp_delta(&orders, &[1.0, 0.0, 3.0], 0.0, rule).unwrap(),
                (0.0, 2.0)
            );
        }
        // a deterministic family of curves: δ(ε(δ)) ≤ δ, ε minimal, δ non-increasing per ulp
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut unif = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..200 {
            let k = 1 + (unif() * 5.0) as usize;
            let o: Vec<f64> = (0..k).map(|_| 1.0 + (unif() * 10.0 - 4.0).exp()).collect();
            let r: Vec<f64> = (0..k).map(|_| (unif() * 14.0 - 10.0).exp()).collect();
            for rule in rules {
                let delta = (-unif() * 40.0).exp().min(0.99);
                let (e, _) = rdp_to_dp_epsilon(&o, &r, delta, rule).unwrap();
                assert!(e.is_finite());
                assert!(rdp_to_dp_delta(&o, &r, e, rule).unwrap().0 <= delta);
                if e > 0.0 {
                    assert!(rdp_to_dp_delta(&o, &r, e.next_down(), rule).unwrap().0 > delta);
                }
                let mut x = unif() * 5.0;
                let mut prev = rdp_to_dp_delta(&o, &r, x, rule).unwrap().0;
                for _ in 0..50 {
                    x = x.next_up();
                    let d = rdp_to_dp_delta(&o, &r, x, rule).unwrap().0;
                    assert!(d <= prev, "{o:?} {r:?} {x} {d} {prev}");
                    prev = d;
                }
            }
        }
        // domain
        let e = rdp_to_dp_delta(&[2.0, f64::INFINITY], &[0.1, 0.1], 1.0, Conversion::Tight);
        assert!(matches!(
            e,
            Err(PabiError::Domain {
                param: "orders",
                index: Some(1),
                ..
            })
        ));
        // ε = +∞: δ = 0 at an order with a finite RDP value, else 1
        let e = rdp_to_dp_delta(&[2.0], &[0.1], f64::INFINITY, Conversion::Tight);
        assert_eq!(e.unwrap(), (0.0, 2.0));
        let e = rdp_to_dp_delta(&[2.0], &[f64::INFINITY], f64::INFINITY, Conversion::Tight);
        assert_eq!(e.unwrap(), (1.0, 2.0));
        let e = rdp_to_dp_delta(&[2.0], &[0.1], f64::NAN, Conversion::Tight);
        assert_eq!(param_of(e.unwrap_err()), "eps");
    }

    #[test]
    fn profile_domain_and_tiny_cells() {
        let e = profile_to_rdp(f64::INFINITY, &[0.0, 1.0], &[0.5, 0.0]).unwrap_err();
        assert_eq!(param_of(e), "alpha");
        // (α − 1)h underflows: the cell still counts (≈ α·2h·δ, here 1e-300)
        let v = profile_to_rdp(1.0 + f64::EPSILON, &[0.0, 1e-300], &[0.5, 0.0]).unwrap();
        assert!((1e-300..1.000_001e-300).contains(&v), "{v}");
    }

    #[test]
    fn one_step_identity() {
        let o = CompositionOptions {
            map: OrderMap::Corrected,
            ucb: None,
        };
        let t = dpsgd_per_instance_terms(8.0, 0.1, 2.0, &[0.5, 1.0, 0.7], 1, 3, 3.0, o).unwrap();
        let d = sampled_gaussian_rdp(8.0, 0.1, 0.5).unwrap();
        assert!((t[0] - d).abs() <= 1e-13 * d);
    }
}
